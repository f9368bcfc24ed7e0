#!/usr/bin/python3
"""gen_stack_fixtures.py - float64 references for positions, cross-attention and layers.

Writes tests/fixtures/stack/<name>.txt for every case below: a configuration,
float32 inputs drawn with numpy (seeded: the output is reproducible), every
intermediate of every layer computed in float64 by tools/stack_ref.py (numpy,
from the formulas of doc/FACTS.md; RoPE both as rotated pairs and as complex
numbers, which must agree), and the gradients of L = 1/2 sum(Y^2) (Y the last
layer's) with respect to every input, by PyTorch's autograd on a second float64
forward written here in torch. Before a file is written:
  - torch's forward must equal numpy's (two implementations of the formulas);
  - every gradient must agree with float64 central finite differences of
    numpy's loss (up to GRAD_SAMPLES elements of each input);
  - cross-attention cases that nn.MultiheadAttention can express (one layer,
    no positions, every head on, no top-k, h = g) are run through
    torch.nn.MultiheadAttention with query length n and key length m, its
    key_padding_mask and attn_mask standing for the source's padding, the
    window and the hidden cells; numpy must match it, and PyTorch's own output
    and per-head weights are written too (torch.Y, torch.weights).
tests/core/test_stack_fixtures.c reads the files (no Python needed to test).

Run with Debian's numpy and torch: /usr/bin/python3 tools/gen_stack_fixtures.py

File format (whitespace separated, '#' lines are comments):
    config n N d D h H g G dk K causal 0|1 top_k K scale 0|1 heads_off M i1 .. iM
           pad M t1 .. tM window W hidden M i1 j1 .. iM jM bias 0|1
           pos none|learned|sinusoidal|rope pos_offset O m M layers L
    matrix NAME COUNT ROWS COLS      then COUNT*ROWS lines of COLS numbers
    end
Inputs (float32 values written exactly, %.9g): X, X_kv (m > 0), P_pos
(learned), and per layer l: Ll.W_Q Ll.W_K Ll.W_V Ll.W_O (and Ll.b_Q .. Ll.b_O
as 1-row matrices with bias 1). References (%.17g): PE, then per layer
Ll.x_in Ll.Q Ll.K Ll.V (Ll.Q_rot Ll.K_rot with RoPE) Ll.scores Ll.weights
Ll.heads Ll.concat Ll.Y Ll.x_out; then grad.X (grad.X_kv, grad.P_pos) and
grad.Ll.W_Q .. (grad.Ll.b_Q ..); then torch.Y and torch.weights where run.
With pad/hidden and m > 0 the indices are the source's tokens (the keys).
"""

import os
import sys

import numpy as np

import mha_ref
import stack_ref
from stack_ref import Case

CASES = [
    # where order enters
    Case("sinusoidal", 5, 8, 2, 2, 4, False, 0, True, (), pos="sinusoidal"),
    Case("sinusoidal_offset_causal", 6, 7, 2, 2, 3, True, 0, True, (), pos="sinusoidal",
         pos_offset=7),
    Case("learned_bias_gqa", 5, 8, 4, 2, 2, False, 0, True, (), bias=True, pos="learned"),
    Case("rope", 6, 8, 2, 2, 4, False, 0, True, (), pos="rope"),
    Case("rope_gqa_causal_topk_off", 7, 12, 4, 2, 2, True, 2, True, (1,), pos="rope"),
    Case("rope_offset_masks", 6, 8, 2, 1, 4, False, 0, True, (), pad=(4,), window=3, pos="rope",
         pos_offset=100),
    Case("rope_odd_d_model", 4, 7, 3, 3, 2, False, 0, False, (), pos="rope"),
    # cross-attention: n queries from X, m keys and values from X_kv
    Case("cross", 4, 8, 2, 2, 4, False, 0, True, (), m=6),
    Case("cross_masks", 5, 8, 2, 2, 4, False, 0, True, (), pad=(1, 6), window=3,
         hidden=((0, 2), (4, 5)), m=7),
    Case("cross_bias_pad", 4, 8, 2, 2, 4, False, 0, True, (), pad=(0, 4), bias=True, m=5),
    Case("cross_gqa_topk_off_bias", 3, 12, 4, 2, 3, False, 2, True, (2,), bias=True, m=5),
    Case("cross_rope", 4, 8, 2, 2, 4, False, 0, True, (), pos="rope", pos_offset=3, m=6),
    # row 2 sees no key at all (every source token hidden from it): a dead row
    Case("cross_mqa_sinusoidal_dead_row", 6, 8, 4, 1, 2, False, 0, True, (),
         hidden=((2, 0), (2, 1), (2, 2)), pos="sinusoidal", m=3),
    Case("cross_longer_source", 2, 8, 2, 2, 4, False, 0, True, (), m=9),
    # query 1 sees no source token (three hidden, one padding): NaN in PyTorch, 0 here
    Case("cross_dead_row", 3, 8, 2, 2, 4, False, 0, True, (), pad=(2,),
         hidden=((1, 0), (1, 1), (1, 3)), bias=True, m=4),
    # layers on the residual stream
    Case("layers2", 5, 8, 2, 2, 4, False, 0, True, (), layers=2),
    Case("layers3_rope_causal", 6, 8, 2, 1, 4, True, 0, True, (), pos="rope", layers=3),
    Case("layers4_learned_bias_topk_window", 5, 6, 3, 3, 2, False, 2, True, (1,), window=3,
         bias=True, pos="learned", layers=4),
    Case("layers2_cross_sinusoidal", 4, 8, 2, 2, 4, False, 0, True, (), pad=(0,),
         pos="sinusoidal", m=5, layers=2),
    Case("layers3_cross_rope_gqa", 3, 8, 4, 2, 2, False, 0, True, (), pos="rope", m=4, layers=3),
]

GRAD_SAMPLES = 60  # elements of each input checked by finite differences


def torch_forward(torch, c, t):
    """The stack again, in torch float64 (for autograd); t holds torch tensors
    X, X_kv, P_pos and layers. Masks: the numpy forward's (top-k fixed)."""
    n, h, g, dk = c.n, c.h, c.g, c.dk
    nk = stack_ref.keys(c)
    if c.pos == "sinusoidal":
        pe = torch.from_numpy(stack_ref.sinusoidal(c))
    elif c.pos == "learned":
        pe = t["P_pos"]
    else:
        pe = torch.zeros(n, c.d, dtype=torch.float64)
    x = t["X"] + pe
    keeps = t["keeps"]
    ys = []
    for l in range(c.layers):
        w = t["layers"][l]
        src = t["X_kv"] if c.m > 0 else x
        q, k, v = x @ w["W_Q"], src @ w["W_K"], src @ w["W_V"]
        if c.bias:
            q, k, v = q + w["b_Q"], k + w["b_K"], v + w["b_V"]
        if c.pos == "rope":
            q, k = torch_rope(torch, c, q, h), torch_rope(torch, c, k, g)
        sf = 1.0 / np.sqrt(dk) if c.scale else 1.0
        blocks = []
        for i in range(h):
            j = mha_ref.kv_head(i, h, g)
            s = q[:, i * dk:(i + 1) * dk] @ k[:, j * dk:(j + 1) * dk].T * sf
            keep = torch.from_numpy(keeps[l][i])
            # a large finite negative instead of -inf: a dead row gets 0, not NaN
            p = torch.softmax(torch.where(keep, s, torch.full_like(s, -1e300)), dim=1) * keep
            o = p @ v[:, j * dk:(j + 1) * dk]
            blocks.append(torch.zeros_like(o) if i in c.heads_off else o)
        y = torch.cat(blocks, dim=1) @ w["W_O"]
        if c.bias:
            y = y + w["b_O"]
        ys.append(y)
        x = x + y
    assert nk == keeps[0][0].shape[1]
    return ys


def torch_rope(torch, c, x, heads):
    """RoPE as rotated pairs, in torch (autograd turns it back)."""
    rows, dk = x.shape[0], c.dk
    p = torch.arange(rows, dtype=torch.float64)[:, None] + c.pos_offset
    theta = stack_ref.BASE ** (-2.0 * torch.arange(dk // 2, dtype=torch.float64) / dk)
    cs, sn = torch.cos(p * theta), torch.sin(p * theta)
    z = x.reshape(rows, heads, dk // 2, 2)
    a, b = z[..., 0], z[..., 1]
    cs, sn = cs[:, None, :], sn[:, None, :]
    return torch.stack([a * cs - b * sn, a * sn + b * cs], dim=-1).reshape(rows, heads * dk)


def input_items(c, inputs):
    """(name, array) of every input, in the file's order."""
    items = [("X", inputs["X"])]
    if c.m > 0:
        items.append(("X_kv", inputs["X_kv"]))
    if c.pos == "learned":
        items.append(("P_pos", inputs["P_pos"]))
    for l, w in enumerate(inputs["layers"]):
        for k in stack_ref.WEIGHTS + (stack_ref.BIASES if c.bias else ()):
            items.append(("L%d.%s" % (l, k), w[k]))
    return items


def set_input(inputs, name, a):
    if "." in name:
        l, k = name.split(".")
        inputs["layers"][int(l[1:])][k] = a
    else:
        inputs[name] = a


def gradients(torch, c, inputs, layers):
    """dL/d(every input) by autograd on torch_forward, checked against numpy's
    forward (values) and finite differences (gradients)."""
    keeps = []
    base = stack_ref.structural_mask(c)
    for out in layers:
        keeps.append([mha_ref.keep_mask(out["scores"][i], base, c.top_k) for i in range(c.h)])
    t = {"keeps": keeps, "layers": [{} for _ in range(c.layers)]}
    leaves = {}
    for name, a in input_items(c, inputs):
        leaf = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        leaves[name] = leaf
        set_input(t, name, leaf)
    ys = torch_forward(torch, c, t)
    for l, y in enumerate(ys):
        err = np.max(np.abs(y.detach().numpy() - layers[l]["Y"]))
        if err > 1e-9 * max(1.0, np.max(np.abs(layers[l]["Y"]))):
            sys.exit("%s: layer %d: torch's Y differs from numpy's by %g" % (c.name, l, err))
    lossv = 0.5 * (ys[-1] ** 2).sum()
    lossv.backward()
    grads = {name: leaf.grad.numpy().copy() for name, leaf in leaves.items()}
    eps = 1e-6
    for name, a in input_items(c, inputs):
        # the array the forward reads, changed in place (a 1-row bias stays a vector)
        a = inputs[name] if "." not in name else inputs["layers"][int(name[1:name.index(".")])][name.split(".")[1]]
        gflat = grads[name].reshape(-1)
        scale = max(1.0, np.max(np.abs(gflat)) if gflat.size else 0.0)
        picks = list(range(0, a.size, max(1, a.size // GRAD_SAMPLES)))
        fd = mha_ref.central_differences(lambda: stack_ref.loss(c, inputs), a,
                                         [np.unravel_index(e, a.shape) for e in picks], eps)
        worst = max([0.0] + [abs(f - gflat[e]) for f, e in zip(fd, picks)])
        # central differences carry rounding of about eps_machine * |L| / eps: a 3-layer
        # stack's L reaches 1e4, whose rounding alone is 4e-6 at eps 1e-6
        if worst > 1e-6 * scale + 8 * np.finfo(float).eps * abs(stack_ref.loss(c, inputs)) / eps:
            sys.exit("%s: grad.%s disagrees with finite differences by %g (largest %g, L %g)"
                     % (c.name, name, worst, scale, stack_ref.loss(c, inputs)))
    return grads


def torch_mha_expressible(c):
    return (c.m > 0 and c.layers == 1 and c.pos == "none" and not c.heads_off and c.top_k == 0
            and c.h == c.g and not c.causal)


def torch_mha(torch, c, inputs, layers):
    """PyTorch's nn.MultiheadAttention on query X (n) and key = value X_kv (m):
    its output and per-head weights, which numpy's must equal."""
    d, h = c.d, c.h
    w = inputs["layers"][0]
    mod = torch.nn.MultiheadAttention(d, h, bias=c.bias, batch_first=True).double()
    with torch.no_grad():
        mod.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w["W_Q"].T, w["W_K"].T, w["W_V"].T])))
        mod.out_proj.weight.copy_(torch.from_numpy(w["W_O"].T))
        if c.bias:
            mod.in_proj_bias.copy_(torch.from_numpy(np.concatenate([w["b_Q"], w["b_K"], w["b_V"]])))
            mod.out_proj.bias.copy_(torch.from_numpy(w["b_O"]))
    base = stack_ref.structural_mask(c)
    kpm = torch.zeros(1, c.m, dtype=torch.bool)
    for t in c.pad:
        kpm[0, t] = True
    # attn_mask True = not allowed: the window and the hidden cells (padding goes by kpm)
    allowed = np.ones_like(base)
    i, j = np.indices(base.shape)
    if c.window > 0:
        allowed &= np.abs(i - j) < c.window
    for r, t in c.hidden:
        allowed[r, t] = False
    mod.eval()
    with torch.no_grad():
        y, p = mod(torch.from_numpy(inputs["X"])[None], torch.from_numpy(inputs["X_kv"])[None],
                   torch.from_numpy(inputs["X_kv"])[None], key_padding_mask=kpm,
                   attn_mask=torch.from_numpy(~allowed), need_weights=True, average_attn_weights=False)
    y, p = y[0].numpy(), p[0].numpy()
    dead = ~base.any(axis=1)
    # PyTorch gives a row with no key NaN; mha-tui (and numpy here) weights 0, so O = 0
    # and Y = 0 W^O + b^O
    y[dead], p[:, dead] = w["b_O"] if c.bias else 0.0, 0.0
    if np.isnan(y).any() or np.isnan(p).any():
        sys.exit("%s: nn.MultiheadAttention gave NaN beyond the rows with no key" % c.name)
    for name, got, want in (("output", y, layers[0]["Y"]), ("weights", p, layers[0]["weights"])):
        err = np.max(np.abs(got - want))
        if err > 1e-10 * max(1.0, np.max(np.abs(want))):
            sys.exit("%s: nn.MultiheadAttention's %s differs from numpy's by %g" % (c.name, name, err))
    return y, p


def make_case(out_dir, seed, c):
    import torch
    inputs, layers, pe = stack_ref.draw_case(c, seed)
    grads = gradients(torch, c, inputs, layers)
    path = os.path.join(out_dir, c.name + ".txt")
    with open(path, "w") as f:
        f.write("# %s: generated by tools/gen_stack_fixtures.py (numpy seed %d); do not edit\n"
                "# L = 1/2 sum(Y^2) of the last layer = %.17g\n" % (c.name, seed, stack_ref.loss(c, inputs)))
        f.write(stack_ref.config_line(c))
        for name, a in input_items(c, inputs):
            mha_ref.write_matrix(f, name, a[None] if a.ndim == 1 else a, "%.9g")
        mha_ref.write_matrix(f, "PE", pe, "%.17g")
        for l, out in enumerate(layers):
            for k in ("x_in", "Q", "K", "V") + (("Q_rot", "K_rot") if c.pos == "rope" else ()) + \
                     ("scores", "weights", "heads", "concat", "Y", "x_out"):
                mha_ref.write_matrix(f, "L%d.%s" % (l, k), out[k], "%.17g")
        for name, _ in input_items(c, inputs):
            gv = grads[name]
            mha_ref.write_matrix(f, "grad." + name, gv[None] if gv.ndim == 1 else gv, "%.17g")
        if torch_mha_expressible(c):
            y, p = torch_mha(torch, c, inputs, layers)
            mha_ref.write_matrix(f, "torch.Y", y, "%.17g")
            mha_ref.write_matrix(f, "torch.weights", p, "%.17g")
        f.write("end\n")
    return path


def main():
    return mha_ref.write_fixtures(os.path.join("fixtures", "stack"), CASES, 3000, make_case)


if __name__ == "__main__":
    sys.exit(main())
