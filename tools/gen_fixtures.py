#!/usr/bin/python3
"""gen_fixtures.py - independent float64 reference for mha-tui's compute core.

Writes tests/fixtures/<name>.txt: a configuration, float32 inputs drawn here
with numpy (seeded, so the output is reproducible), and every intermediate of
multi-head attention computed in float64 straight from the formulas in
doc/FACTS.md. Nothing is ported from the C code: the C tests read these files and
compare mha_forward and mha_forward_naive with them.

Run with Debian's numpy (python3-numpy): /usr/bin/python3 tools/gen_fixtures.py
The tests themselves never run Python; they read the committed output.

File format (whitespace separated, '#' lines are comments):
    config n N d D h H g G dk K causal 0|1 top_k K scale 0|1 heads_off M i1 .. iM
           pad M t1 .. tM window W hidden M i1 j1 .. iM jM bias 0|1
    matrix NAME COUNT ROWS COLS      then COUNT*ROWS lines of COLS numbers
    ...
    end
Names: X W_Q W_K W_V W_O, and with bias 1 b_Q b_K b_V b_O as 1-row matrices
(inputs, float32 values written exactly with %.9g)
and Q K V scores weights heads concat Y (float64 references, %.17g).
"""

import os
import sys

import numpy as np

# Masks beyond causal (every case below that names them): padding tokens,
# a sliding window, custom hidden (query, key) cells.
MASKS = {
    # trailing padding, as in a batch: two key columns gone for every row
    "pad_keys": dict(pad=[4, 5]),
    # padding in the middle and first under causal: row 0 sees only a pad key
    "pad_queries": dict(pad=[0, 3]),
    "window_causal": dict(window=3),
    "window_band": dict(window=2),
    # custom cells, and one row (2) with every key hidden
    "custom": dict(hidden=[(0, 1), (1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 3), (4, 1)]),
    "masks_all": dict(pad=[2, 7], window=4, hidden=[(5, 4), (6, 0), (6, 6)]),
    "masks_topk_gqa": dict(pad=[5], window=3, hidden=[(3, 1)]),
    "bias_masks": dict(pad=[0], window=3),
}

# Cases with biases b^Q, b^K, b^V, b^O (Q = X W^Q + b^Q, ..., Y = Concat W^O + b^O).
BIAS = {"bias", "bias_masks"}

# name, n, d, h, g, dk, causal, top_k, scale, heads_off: every case the issue
# names (MHA, GQA, MQA, causal, top-k with and without causal, d_k set on its
# own, scale off, a head off, n = 1) and a wider one for the BLAS kernels.
CASES = [
    ("mha", 4, 8, 2, 2, 4, False, 0, True, []),
    ("gqa", 5, 8, 4, 2, 2, False, 0, True, []),
    ("mqa", 4, 6, 3, 1, 2, False, 0, True, []),
    ("causal", 5, 8, 2, 2, 4, True, 0, True, []),
    ("topk", 6, 8, 2, 2, 4, False, 2, True, []),
    ("topk_causal", 6, 6, 3, 3, 2, True, 3, True, []),
    ("dk_own", 4, 10, 3, 3, 4, False, 0, True, []),
    ("noscale", 4, 4, 2, 2, 2, False, 0, False, []),
    ("head_off", 4, 8, 4, 2, 2, False, 0, True, [2]),
    ("one_token", 1, 4, 2, 2, 2, False, 0, True, []),
    ("one_token_causal_topk", 1, 3, 1, 1, 3, True, 1, True, []),
    ("gqa_causal_topk_off", 7, 12, 6, 3, 3, True, 2, True, [0, 5]),
    ("wide", 12, 32, 4, 2, 8, False, 0, True, []),
    ("pad_keys", 6, 8, 2, 2, 4, False, 0, True, []),
    ("pad_queries", 5, 8, 2, 1, 4, True, 0, True, []),
    ("window_causal", 7, 8, 2, 2, 4, True, 0, True, []),
    ("window_band", 6, 8, 2, 2, 4, False, 0, True, []),
    ("custom", 5, 6, 3, 3, 2, False, 0, True, []),
    ("masks_all", 8, 12, 4, 2, 3, True, 2, True, [3]),
    ("masks_topk_gqa", 7, 12, 6, 2, 2, False, 2, True, []),
    ("bias", 5, 8, 4, 2, 2, True, 0, True, []),
    ("bias_masks", 6, 8, 2, 1, 4, True, 2, True, [1]),
]

# Scores closer than this in one row could rank differently in float32 than
# in float64, which would make a top-k fixture test the rounding, not the
# code: such draws are rejected and redrawn.
TOPK_MARGIN = 1e-3


def kv_head(i, h, g):
    """doc/FACTS.md (GQA): query head i uses key/value head floor(i / (h / h_kv))."""
    return i // (h // g)


def structural_mask(n, causal, pad, window, hidden):
    """Which keys (columns) each query (row) may see before top-k: causal
    keeps j <= i; a window w keeps i-w+1 <= j <= i under causal and
    |i - j| < w without; padding tokens are hidden from every query;
    hidden (i, j) cells are hidden. All of them at once."""
    i, j = np.indices((n, n))
    keep = np.ones((n, n), dtype=bool)
    if causal:
        keep &= j <= i
    if window > 0:
        keep &= np.abs(i - j) < window
    for t in pad:
        keep[:, t] = False
    for r, t in hidden:
        keep[r, t] = False
    return keep


def keep_mask(s, base, top_k):
    """The structural mask, then top-k keeps the k largest kept scores,
    ties to the lower index (stable sort)."""
    n = s.shape[0]
    keep = base.copy()
    if top_k > 0:
        for r in range(n):
            idx = np.flatnonzero(keep[r])
            if len(idx) <= top_k:
                continue
            order = idx[np.argsort(-s[r, idx], kind="stable")]
            keep[r] = False
            keep[r, order[:top_k]] = True
    return keep


def topk_margin_ok(s, base, top_k):
    """True when the k-th and (k+1)-th kept scores of every row are apart."""
    n = s.shape[0]
    for r in range(n):
        kept = s[r, base[r]]
        if top_k <= 0 or len(kept) <= top_k:
            continue
        v = np.sort(kept)[::-1]
        if abs(v[top_k - 1] - v[top_k]) < TOPK_MARGIN * max(1.0, abs(v[top_k - 1])):
            return False
    return True


def attention(x, wq, wk, wv, wo, n, d, h, g, dk, causal, top_k, scale, heads_off, masks, b):
    """Multi-head attention in float64, every stage returned. A row whose
    every key is masked gets all-zero weights (doc/FACTS.md), so a zero output.
    b: the biases (each added to every row) or None."""
    base = structural_mask(n, causal, masks.get("pad", []), masks.get("window", 0),
                           masks.get("hidden", []))
    q, k, v = x @ wq, x @ wk, x @ wv
    if b is not None:
        q, k, v = q + b["b_Q"], k + b["b_K"], v + b["b_V"]
    s_factor = 1.0 / np.sqrt(dk) if scale else 1.0
    scores = np.zeros((h, n, n))
    weights = np.zeros((h, n, n))
    heads = np.zeros((h, n, dk))
    concat = np.zeros((n, h * dk))
    margin_ok = True
    for i in range(h):
        j = kv_head(i, h, g)
        qi = q[:, i * dk:(i + 1) * dk]
        kj = k[:, j * dk:(j + 1) * dk]
        vj = v[:, j * dk:(j + 1) * dk]
        s = (qi @ kj.T) * s_factor
        scores[i] = s
        margin_ok &= topk_margin_ok(s, base, top_k)
        keep = keep_mask(s, base, top_k)
        p = np.zeros((n, n))
        for r in range(n):
            if keep[r].any():
                e = np.exp(s[r, keep[r]] - s[r, keep[r]].max())
                p[r, keep[r]] = e / e.sum()
        weights[i] = p
        heads[i] = p @ vj
        if i not in heads_off:
            concat[:, i * dk:(i + 1) * dk] = heads[i]
    y = concat @ wo
    if b is not None:
        y = y + b["b_O"]
    return dict(Q=q, K=k, V=v, scores=scores, weights=weights, heads=heads,
                concat=concat, Y=y), margin_ok


def draw(rng, shape, scale):
    """Uniform float32 in [-scale, scale); returned as float64 holding
    exactly the float32 values the C side will read."""
    return rng.uniform(-scale, scale, size=shape).astype(np.float32).astype(np.float64)


def write_matrix(f, name, a, fmt):
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[None]
    count, rows, cols = a.shape
    f.write("matrix %s %d %d %d\n" % (name, count, rows, cols))
    for block in a:
        for row in block:
            f.write(" ".join(fmt % val for val in row) + "\n")


def make_case(out_dir, seed, case):
    name, n, d, h, g, dk, causal, top_k, scale, heads_off = case
    masks = MASKS.get(name, {})
    rng = np.random.default_rng(seed)
    while True:
        # X wider than the weights so the softmax rows are far from uniform
        x = draw(rng, (n, d), 2.0)
        wq = draw(rng, (d, h * dk), 1.0)
        wk = draw(rng, (d, g * dk), 1.0)
        wv = draw(rng, (d, g * dk), 1.0)
        wo = draw(rng, (h * dk, d), 1.0)
        b = None
        if name in BIAS:
            b = {"b_Q": draw(rng, (h * dk,), 0.5), "b_K": draw(rng, (g * dk,), 0.5),
                 "b_V": draw(rng, (g * dk,), 0.5), "b_O": draw(rng, (d,), 0.5)}
        ref, margin_ok = attention(x, wq, wk, wv, wo, n, d, h, g, dk, causal, top_k,
                                   scale, heads_off, masks, b)
        if margin_ok:
            break
    path = os.path.join(out_dir, name + ".txt")
    with open(path, "w") as f:
        f.write("# %s: generated by tools/gen_fixtures.py (numpy seed %d); do not edit\n"
                % (name, seed))
        pad, hidden = masks.get("pad", []), masks.get("hidden", [])
        f.write("config n %d d %d h %d g %d dk %d causal %d top_k %d scale %d heads_off %d%s"
                " pad %d%s window %d hidden %d%s bias %d\n"
                % (n, d, h, g, dk, causal, top_k, scale, len(heads_off),
                   "".join(" %d" % i for i in heads_off), len(pad), "".join(" %d" % t for t in pad),
                   masks.get("window", 0), len(hidden),
                   "".join(" %d %d" % rt for rt in hidden), b is not None))
        for key, a in (("X", x), ("W_Q", wq), ("W_K", wk), ("W_V", wv), ("W_O", wo)):
            write_matrix(f, key, a, "%.9g")
        for key in ("b_Q", "b_K", "b_V", "b_O") if b is not None else ():
            write_matrix(f, key, b[key][None], "%.9g")
        for key in ("Q", "K", "V", "scores", "weights", "heads", "concat", "Y"):
            write_matrix(f, key, ref[key], "%.17g")
        f.write("end\n")
    return path


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "tests", "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    for seed, case in enumerate(CASES, start=1000):
        print(make_case(out_dir, seed, case))
    return 0


if __name__ == "__main__":
    sys.exit(main())
