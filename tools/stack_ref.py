"""stack_ref.py - float64 references for positions, cross-attention and stacked layers.

Imported by tools/gen_stack_fixtures.py. Written from the formulas in
doc/FACTS.md ("Positions, two sequences, the residual stream") with numpy,
nothing ported from the C code:

  - sinusoidal PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(same),
    added to X; learned: a matrix P added to X;
  - RoPE: after the projection, each head's columns (2i, 2i+1) of q and k
    turned by the angle p * 10000^(-2i/d_k), p the token's position from
    pos_offset; V not turned. Computed twice, as rotated pairs and as complex
    numbers (q_2i + i q_2i+1) e^(i p theta_i); the two must agree;
  - cross-attention: Q from X (n rows), K and V from X_kv (m rows), S and P
    n x m; padding, window, hidden cells and top-k on the key axis, no causal;
  - layers: x_0 = X + PE, x_l+1 = x_l + MHA_l(x_l), each layer its own W's,
    K and V from X_kv in every layer with cross-attention, RoPE in every layer.

The one-layer masks, top-k and draws are tools/mha_ref.py's (the forward's
fixtures keep using it unchanged). No file is written here.
"""

import collections

import numpy as np

import mha_ref

# One configuration; the fields after bias are what this module adds.
Case = collections.namedtuple(
    "Case", "name n d h g dk causal top_k scale heads_off pad window hidden bias "
            "pos pos_offset m layers",
    defaults=((), 0, (), False, "none", 0, 0, 1))

BASE = 10000.0


def keys(c):
    """Keys per query row: m with cross-attention, else n."""
    return c.m if c.m > 0 else c.n


def sinusoidal(c):
    """PE (n, d): PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d))."""
    pe = np.zeros((c.n, c.d))
    for t in range(c.n):
        p = c.pos_offset + t
        for i in range(0, c.d, 2):
            angle = p / BASE ** (i / c.d)
            pe[t, i] = np.sin(angle)
            if i + 1 < c.d:
                pe[t, i + 1] = np.cos(angle)
    return pe


def rope_pairs(c, x, heads):
    """RoPE as rotated pairs: row r of x (rows, heads*dk), position pos_offset + r."""
    out = x.copy()
    dk = c.dk
    for r in range(x.shape[0]):
        p = c.pos_offset + r
        for hd in range(heads):
            for i in range(dk // 2):
                theta = BASE ** (-2.0 * i / dk)
                a, b = x[r, hd * dk + 2 * i], x[r, hd * dk + 2 * i + 1]
                cs, sn = np.cos(p * theta), np.sin(p * theta)
                out[r, hd * dk + 2 * i] = a * cs - b * sn
                out[r, hd * dk + 2 * i + 1] = a * sn + b * cs
    return out


def rope_complex(c, x, heads):
    """RoPE as complex numbers: pair (2i, 2i+1) is z = x_2i + i x_2i+1, times e^(i p theta_i)."""
    rows, dk = x.shape[0], c.dk
    z = x.reshape(rows, heads, dk // 2, 2)
    z = z[..., 0] + 1j * z[..., 1]
    p = (c.pos_offset + np.arange(rows))[:, None, None]
    theta = BASE ** (-2.0 * np.arange(dk // 2) / dk)[None, None, :]
    z = z * np.exp(1j * p * theta)
    return np.stack([z.real, z.imag], axis=-1).reshape(rows, heads * dk)


def rope(c, x, heads):
    """RoPE, both ways, which must agree to float64 rounding."""
    a, b = rope_pairs(c, x, heads), rope_complex(c, x, heads)
    err = np.max(np.abs(a - b)) if a.size else 0.0
    if err > 1e-12 * max(1.0, np.max(np.abs(a)) if a.size else 0.0):
        raise AssertionError("%s: RoPE as pairs and as complex numbers differ by %g" % (c.name, err))
    return a


structural_mask = mha_ref.structural_mask  # (n, nk): the source's tokens are the keys


def layer(c, x, xkv, w, base):
    """One attention layer on x (n, d); K and V from xkv (cross) or x.
    w: {W_Q, W_K, W_V, W_O, and b_Q .. b_O or None}. Every stage, and
    whether top-k's boundaries clear mha_ref.TOPK_MARGIN."""
    n, h, g, dk = c.n, c.h, c.g, c.dk
    src = xkv if c.m > 0 else x
    q, k, v = x @ w["W_Q"], src @ w["W_K"], src @ w["W_V"]
    if c.bias:
        q, k, v = q + w["b_Q"], k + w["b_K"], v + w["b_V"]
    qs, ks = q, k
    out = {}
    if c.pos == "rope":
        qs, ks = rope(c, q, h), rope(c, k, g)
        out["Q_rot"], out["K_rot"] = qs, ks
    nk = keys(c)
    sf = 1.0 / np.sqrt(dk) if c.scale else 1.0
    scores, weights = np.zeros((h, n, nk)), np.zeros((h, n, nk))
    heads = np.zeros((h, n, dk))
    concat = np.zeros((n, h * dk))
    margin_ok = True
    for i in range(h):
        j = mha_ref.kv_head(i, h, g)
        s = qs[:, i * dk:(i + 1) * dk] @ ks[:, j * dk:(j + 1) * dk].T * sf
        scores[i] = s
        margin_ok &= mha_ref.topk_margin_ok(s, base, c.top_k)
        keep = mha_ref.keep_mask(s, base, c.top_k)
        p = np.zeros((n, nk))
        for r in range(n):
            if keep[r].any():
                e = np.exp(s[r, keep[r]] - s[r, keep[r]].max())
                p[r, keep[r]] = e / e.sum()
        weights[i] = p
        heads[i] = p @ v[:, j * dk:(j + 1) * dk]
        if i not in c.heads_off:
            concat[:, i * dk:(i + 1) * dk] = heads[i]
    y = concat @ w["W_O"]
    if c.bias:
        y = y + w["b_O"]
    out.update(x_in=x, Q=q, K=k, V=v, scores=scores, weights=weights, heads=heads, concat=concat,
               Y=y, x_out=x + y)
    return out, margin_ok


def pe_of(c, inputs):
    """PE (n, d): sinusoidal, P (learned), or 0 (none, RoPE)."""
    if c.pos == "sinusoidal":
        return sinusoidal(c)
    if c.pos == "learned":
        return inputs["P_pos"]
    return np.zeros((c.n, c.d))


def stack(c, inputs):
    """Every layer: ([layer 0's stages, ...], PE, all top-k margins clear)."""
    pe = pe_of(c, inputs)
    x = inputs["X"] + pe
    base = structural_mask(c)
    layers, ok = [], True
    for l in range(c.layers):
        out, m = layer(c, x, inputs.get("X_kv"), inputs["layers"][l], base)
        layers.append(out)
        ok &= m
        x = out["x_out"]
    return layers, pe, ok


WEIGHTS = ("W_Q", "W_K", "W_V", "W_O")
BIASES = ("b_Q", "b_K", "b_V", "b_O")


def draw_inputs(c, rng):
    """float32-exact inputs: X, X_kv, P_pos and each layer's W's (and biases).
    A W is U(-a, a) with a = sqrt(3 / rows), variance 1/rows, so that each
    product keeps its input's scale: with no normalisation between layers the
    stream still grows by each Y, and U(-1, 1) weights made a 3-layer stack's
    scores so large that float32 kept only two digits of a gradient."""
    d, h, g, dk = c.d, c.h, c.g, c.dk
    draw = mha_ref.draw

    def weight(rows, cols):
        return draw(rng, (rows, cols), np.sqrt(3.0 / rows))

    inputs = {"X": draw(rng, (c.n, d), 2.0)}
    if c.m > 0:
        inputs["X_kv"] = draw(rng, (c.m, d), 2.0)
    if c.pos == "learned":
        inputs["P_pos"] = draw(rng, (c.n, d), 1.0)
    inputs["layers"] = []
    for _ in range(c.layers):
        w = {"W_Q": weight(d, h * dk), "W_K": weight(d, g * dk), "W_V": weight(d, g * dk),
             "W_O": weight(h * dk, d)}
        if c.bias:
            w.update({"b_Q": draw(rng, (h * dk,), 0.5), "b_K": draw(rng, (g * dk,), 0.5),
                      "b_V": draw(rng, (g * dk,), 0.5), "b_O": draw(rng, (d,), 0.5)})
        inputs["layers"].append(w)
    return inputs


def draw_case(c, seed):
    """Inputs whose top-k boundaries clear the margin in every layer, and the stack on them."""
    rng = np.random.default_rng(seed)
    while True:
        inputs = draw_inputs(c, rng)
        layers, pe, ok = stack(c, inputs)
        if ok:
            return inputs, layers, pe


def loss(c, inputs):
    """L = 1/2 sum(Y^2), Y the last layer's output (mha-tui --dump json --grad)."""
    y = stack(c, inputs)[0][-1]["Y"]
    return 0.5 * np.sum(y * y)


def config_line(c):
    """The forward fixtures' config line (tools/gen_fixtures.py), then pos, pos_offset, m, layers."""
    line = mha_ref.config_line(c).rstrip("\n")
    return line + " pos %s pos_offset %d m %d layers %d\n" % (c.pos, c.pos_offset, c.m, c.layers)
