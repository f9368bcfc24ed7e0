#!/usr/bin/python3
"""import_torch.py - turn one torch.nn.MultiheadAttention and an input into an
mha-tui session, so the workbench shows that layer's own numbers.

    /usr/bin/python3 tools/import_torch.py --state mha.pt --heads 8 \\
        --input x.pt [--kv-input src.pt] [--batch-first] [--batch-index 0] [--causal] \\
        [--pad 4,5] [--labels "the cat sat"] --out layer.session [--expect expect.json]

--state   a state_dict saved with torch.save(module.state_dict(), path) (or a
          whole module): in_proj_weight (3E, E) [+ in_proj_bias], or
          q_proj_weight / k_proj_weight / v_proj_weight, and out_proj.weight
          [+ out_proj.bias]. The head count is not in a state_dict: --heads.
--input   the query = key = value tensor (self-attention), .pt or .npy:
          (L, N, E), or (N, L, E) with --batch-first, or (L, E); one sequence
          of the batch is taken (--batch-index).
--kv-input  the key = value tensor of cross-attention (the source, m
          tokens; same layout as --input): query from --input, keys and
          values from it. --pad then lists the source's padded positions.
--causal  the layer is run with a causal attn_mask; --pad lists the
          key_padding_mask's True positions.
--expect  also run the module here and write PyTorch's output and per-head
          weights, for checking: as JSON ({"output": [[..]], "weights":
          [[[..]]]}) when the name ends in .json, else as fixture matrices.
          A row whose every key is masked is NaN in PyTorch, all 0 in mha-tui.
--demo SEED  make a random layer instead of --state/--input (--d-model,
          --heads, --tokens, --no-bias, --batch-first choose its shape;
          --kv-tokens M a source of M tokens for cross-attention; --layers L
          a stack of L such layers on the residual stream, x + MHA(x), whose
          last layer --expect then gives): for the tests and for trying it out.

How the numbers map (PyTorch computes x A^T + b; mha-tui computes x W + b):
    W^Q = in_proj_weight[0:E].T   W^K = in_proj_weight[E:2E].T
    W^V = in_proj_weight[2E:3E].T W^O = out_proj.weight.T
    b^Q, b^K, b^V = in_proj_bias thirds, b^O = out_proj.bias
Head i is columns [i*E/h, (i+1)*E/h) of Q, K, V in both, and both scale the
scores by 1/sqrt(E/h). A padding query row is computed over the other keys
in both; mha-tui flags it.

session_text() takes the matrices in mha-tui's x W convention with any kv
head count (GQA), for layers that are not nn.MultiheadAttention, and the
rest mha-tui holds: a source (x_kv), positions (pos, P, pos_offset), more
layers. hf_rope_pairs() reorders a Hugging Face LLaMA q_proj / k_proj
(RoPE on the halves of each head) into the pairs mha-tui turns.
doc/IMPORT.md shows both.

Needs torch (Debian's python3-torch) except session_text(), which needs numpy.
"""

import argparse
import json
import sys

import numpy as np


def fmt(v):
    """A float32 written so that it reads back bit for bit (%.9g)."""
    return "%.9g" % float(np.float32(v))


def matrix_lines(name, a):
    a = np.asarray(a, dtype=np.float32)
    if a.ndim == 1:
        a = a[None, :]
    lines = ["%s %d %d" % (name, a.shape[0], a.shape[1])]
    lines += [" ".join(fmt(v) for v in row) for row in a]
    return lines


def layer_lines(wq, wk, wv, wo, biases, d, h, g, dk):
    """One layer's matrices (W_Q .. W_O, then b_Q .. b_O when biases), checked."""
    want = {"W^Q": (d, h * dk), "W^K": (d, g * dk), "W^V": (d, g * dk), "W^O": (h * dk, d)}
    out = []
    for (name, shape), key, a in zip(want.items(), ("W_Q", "W_K", "W_V", "W_O"), (wq, wk, wv, wo)):
        a = np.asarray(a, dtype=np.float32)
        if a.shape != shape:
            raise ValueError("%s is %s, want %s" % (name, a.shape, shape))
        out += matrix_lines(key, a)
    if biases is not None:
        for name, m in (("b_Q", h * dk), ("b_K", g * dk), ("b_V", g * dk), ("b_O", d)):
            b = np.asarray(biases[name], dtype=np.float32).reshape(-1)
            if b.shape != (m,):
                raise ValueError("%s has %d values, want %d" % (name, b.size, m))
            out += matrix_lines(name, b)
    return out


def session_text(x, wq, wk, wv, wo, heads, kv_heads=None, biases=None, causal=False,
                 pad=(), labels=None, scale=True, x_kv=None, kv_labels=None, pos="none",
                 pos_offset=0, p=None, layers=()):
    """An mha-tui session (doc/SESSION.md) for X (n, d), W^Q (d, h*dk),
    W^K, W^V (d, g*dk), W^O (h*dk, d), biases a dict of b_Q, b_K, b_V, b_O
    (or None): the x W convention, so pass a torch Linear's weight.T.
    x_kv (m, d): the source of cross-attention (pad then names its tokens);
    pos: "none", "learned" (p: the P matrix, (n, d)), "sinusoidal" or
    "rope" (pairs (2i, 2i+1): see hf_rope_pairs), pos_offset the first
    position; layers: further layers as (wq, wk, wv, wo, biases) tuples on
    the residual stream, shaped as the first."""
    x, wq = np.asarray(x, dtype=np.float32), np.asarray(wq, dtype=np.float32)
    n, d = x.shape
    h = heads
    g = kv_heads or heads
    if wq.shape[1] % h:
        raise ValueError("W^Q has %d columns: not a multiple of %d heads" % (wq.shape[1], h))
    dk = wq.shape[1] // h
    labels = labels or ["t%d" % (i + 1) for i in range(n)]
    if len(labels) != n:
        raise ValueError("%d labels for %d tokens" % (len(labels), n))
    out = ["mha-tui-session 1", "# written by tools/import_torch.py",
           "tokens %d" % n, "d_model %d" % d, "heads %d" % h, "kv_heads %d" % g, "d_k %d" % dk,
           "causal %d" % bool(causal), "top_k 0", "scale %d" % bool(scale), "seed 0", "heads_off"]
    if pad:
        out.append("pad " + " ".join("%d" % t for t in sorted(pad)))
    if biases is not None:
        out.append("bias 1")
    if pos != "none":
        out.append("pos " + pos)
    if pos_offset:
        out.append("pos_offset %d" % pos_offset)
    if x_kv is not None:
        x_kv = np.asarray(x_kv, dtype=np.float32)
        if x_kv.ndim != 2 or x_kv.shape[1] != d:
            raise ValueError("the source is %s, want (m, %d)" % (x_kv.shape, d))
        out.append("kv_tokens %d" % x_kv.shape[0])
    if layers:
        out.append("layers %d" % (len(layers) + 1))
    out.append("labels " + " ".join(labels))
    if x_kv is not None:
        kv_labels = kv_labels or ["s%d" % (j + 1) for j in range(x_kv.shape[0])]
        if len(kv_labels) != x_kv.shape[0]:
            raise ValueError("%d labels for %d source tokens" % (len(kv_labels), x_kv.shape[0]))
        out.append("kv_labels " + " ".join(kv_labels))
    out += matrix_lines("X", x)
    out += layer_lines(wq, wk, wv, wo, biases, d, h, g, dk)
    if x_kv is not None:
        out += matrix_lines("X_kv", x_kv)
    if pos == "learned":
        out += matrix_lines("P_pos", np.asarray(p, dtype=np.float32))
    for l, (lq, lk, lv, lo, lb) in enumerate(layers, start=1):
        if (lb is None) != (biases is None):
            raise ValueError("layer %d: every layer has biases or none does" % l)
        out.append("layer %d" % l)
        out += layer_lines(lq, lk, lv, lo, lb, d, h, g, dk)
    out.append("end")
    return "\n".join(out) + "\n"


def hf_rope_pairs(w, heads):
    """A Hugging Face LLaMA q_proj or k_proj, as x W (d, heads*dk), whose
    RoPE turns column i of a head with column i + dk/2 ("rotate_half"),
    reordered so that those two become mha-tui's pair (2i, 2i+1): within each
    head, new column 2i = old i, new 2i+1 = old i + dk/2. Apply it to W^Q and
    W^K alike (the scores do not change: q.k is the same sum reordered);
    W^V and W^O stay as they are."""
    w = np.asarray(w)
    d, width = w.shape
    dk = width // heads
    order = []
    for hd in range(heads):
        for i in range(dk // 2):
            order += [hd * dk + i, hd * dk + i + dk // 2]
    return w[:, order]


def layer_matrices(state):
    """W^Q, W^K, W^V, W^O and the biases (or None) of a MultiheadAttention
    state_dict, in the x W convention."""
    t = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in state.items()}
    if "bias_k" in t or "bias_v" in t:
        raise ValueError("add_bias_kv=True appends a key and a value: not an mha-tui layer")
    if "in_proj_weight" in t:
        e = t["in_proj_weight"].shape[1]
        wq, wk, wv = (t["in_proj_weight"][i * e:(i + 1) * e].T for i in range(3))
    else:
        wq, wk, wv = t["q_proj_weight"].T, t["k_proj_weight"].T, t["v_proj_weight"].T
    wo = t["out_proj.weight"].T
    biases = None
    if "in_proj_bias" in t:
        e = wq.shape[1]
        b = t["in_proj_bias"]
        biases = {"b_Q": b[:e], "b_K": b[e:2 * e], "b_V": b[2 * e:],
                  "b_O": t.get("out_proj.bias", np.zeros(wo.shape[1], np.float32))}
    return wq, wk, wv, wo, biases


def run_torch(torch, module, x, batch_first, causal, pad, x_kv=None):
    """PyTorch's own output (n, d) and per-head weights (h, n, nk) for x (n, d),
    keys and values from x, or from x_kv (m, d) for cross-attention."""
    n = x.shape[0]

    def batch(a):
        a = torch.from_numpy(np.asarray(a, dtype=np.float32))
        return a[None] if batch_first else a[:, None]

    xt = batch(x)
    kt = xt if x_kv is None else batch(x_kv)
    nk = n if x_kv is None else x_kv.shape[0]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if causal else None
    kpm = None
    if pad:
        kpm = torch.zeros(1, nk, dtype=torch.bool)
        kpm[0, list(pad)] = True
    module.eval()
    with torch.no_grad():
        y, p = module(xt, kt, kt, key_padding_mask=kpm, attn_mask=mask, need_weights=True,
                      average_attn_weights=False)
    y = y[0] if batch_first else y[:, 0]
    return y.numpy().astype(np.float64), p[0].numpy().astype(np.float64)


def run_stack(torch, modules, x, batch_first, causal, pad, x_kv=None):
    """Layers on the residual stream, x_l+1 = x_l + MHA_l(x_l): the last
    layer's output and weights."""
    x = np.asarray(x, dtype=np.float64)
    for mod in modules:
        y, p = run_torch(torch, mod, x.astype(np.float32), batch_first, causal, pad, x_kv)
        x = x + y
    return y, p


def expect_text(y, p):
    """PyTorch's output and weights as tests/fixtures/README.md's matrices
    (the C tests read them without Python)."""
    out = ["# PyTorch's own output and per-head weights: tools/import_torch.py"]
    for name, a in (("output", y[None]), ("weights", p)):
        out.append("matrix %s %d %d %d" % ((name,) + a.shape))
        out += [" ".join("%.17g" % v for v in row) for block in a for row in block]
    out.append("end")
    return "\n".join(out) + "\n"


def load_input(torch, path, batch_first, index):
    a = np.load(path) if path.endswith(".npy") else torch.load(path).detach().cpu().numpy()
    if a.ndim == 3:
        a = a[index] if batch_first else a[:, index]
    if a.ndim != 2:
        raise ValueError("%s: input of shape %s: want (L, N, E), (N, L, E) or (L, E)" % (path, a.shape))
    return a.astype(np.float32)


def main(argv=None):
    """The command line; argv: its arguments (None: sys.argv), so that a
    test can import this file once and run many layers."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state")
    ap.add_argument("--input")
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--batch-first", action="store_true")
    ap.add_argument("--batch-index", type=int, default=0)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--pad", default="")
    ap.add_argument("--labels")
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect")
    ap.add_argument("--demo", type=int)
    ap.add_argument("--d-model", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=5)
    ap.add_argument("--no-bias", action="store_true")
    ap.add_argument("--kv-input")
    ap.add_argument("--kv-tokens", type=int, default=0)
    ap.add_argument("--layers", type=int, default=1)
    args = ap.parse_args(argv)
    if args.demo is None and (not args.state or not args.input):
        ap.error("--state and --input are needed (or --demo SEED)")
    import torch

    pad = [int(t) for t in args.pad.split(",") if t.strip()]
    if (args.kv_input or args.kv_tokens) and args.causal:
        ap.error("--causal with a source: encoder-decoder attention has no causal mask")
    x_kv, modules = None, []
    if args.demo is not None:
        torch.manual_seed(args.demo)
        for _ in range(args.layers):
            module = torch.nn.MultiheadAttention(args.d_model, args.heads, bias=not args.no_bias,
                                                 batch_first=args.batch_first)
            if not args.no_bias:  # PyTorch starts its biases at 0: make them show
                with torch.no_grad():
                    module.in_proj_bias.uniform_(-0.5, 0.5)
                    module.out_proj.bias.uniform_(-0.5, 0.5)
            modules.append(module)
        module = modules[0]
        x = torch.randn(args.tokens, args.d_model).numpy()
        if args.kv_tokens:
            x_kv = torch.randn(args.kv_tokens, args.d_model).numpy()
    else:
        state = torch.load(args.state)
        if isinstance(state, torch.nn.Module):
            state = state.state_dict()
        try:
            wq, _, _, _, biases = layer_matrices(state)
        except ValueError as e:
            ap.error("%s: %s" % (args.state, e))
        e = wq.shape[0]
        module = torch.nn.MultiheadAttention(e, args.heads, bias=biases is not None,
                                             batch_first=args.batch_first)
        module.load_state_dict(state)
        modules = [module]
        x = load_input(torch, args.input, args.batch_first, args.batch_index)
        if args.kv_input:
            x_kv = load_input(torch, args.kv_input, args.batch_first, args.batch_index)
    wq, wk, wv, wo, biases = layer_matrices(module.state_dict())
    more = [layer_matrices(m.state_dict()) for m in modules[1:]]
    labels = args.labels.split() if args.labels else None
    with open(args.out, "w") as f:
        f.write(session_text(x, wq, wk, wv, wo, args.heads, biases=biases, causal=args.causal,
                             pad=pad, labels=labels, x_kv=x_kv, layers=more))
    if args.expect:
        y, p = run_stack(torch, modules, x, args.batch_first, args.causal, pad, x_kv)
        with open(args.expect, "w") as f:
            if args.expect.endswith(".json"):
                json.dump({"output": y.tolist(), "weights": p.tolist(), "layer": len(modules) - 1}, f)
            else:
                f.write(expect_text(y, p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
