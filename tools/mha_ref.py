"""mha_ref.py - the float64 multi-head attention reference the fixture scripts share.

Imported by tools/gen_fixtures.py (every forward intermediate) and
tools/gen_grad_fixtures.py (gradients by the chain rule on top of this
forward). It holds what both need once: the table of cases, the masks, the
seeded float32 draws, the forward in float64 written from the formulas in
doc/FACTS.md with numpy (nothing ported from the C code) and the matrix
writer of the fixture format. It writes no file itself and knows nothing of
gradients.

Run the scripts with Debian's numpy (python3-numpy): /usr/bin/python3.
"""

import collections
import os

import numpy as np

# One configuration. pad/window/hidden: masks beyond causal (padding tokens,
# a sliding window, custom hidden (query, key) cells); bias: b^Q, b^K, b^V,
# b^O are drawn (Q = X W^Q + b^Q, ..., Y = Concat W^O + b^O).
Case = collections.namedtuple(
    "Case", "name n d h g dk causal top_k scale heads_off pad window hidden bias",
    defaults=((), 0, (), False))

# Every case the issues name (MHA, GQA, MQA, causal, top-k with and without
# causal, d_k set on its own, scale off, a head off, n = 1), a wider one for
# the BLAS kernels, the masks beyond causal and biases.
# name, n, d, h, g, dk, causal, top_k, scale, heads_off [, masks, bias]
CASES = [
    Case("mha", 4, 8, 2, 2, 4, False, 0, True, ()),
    Case("gqa", 5, 8, 4, 2, 2, False, 0, True, ()),
    Case("mqa", 4, 6, 3, 1, 2, False, 0, True, ()),
    Case("causal", 5, 8, 2, 2, 4, True, 0, True, ()),
    Case("topk", 6, 8, 2, 2, 4, False, 2, True, ()),
    Case("topk_causal", 6, 6, 3, 3, 2, True, 3, True, ()),
    Case("dk_own", 4, 10, 3, 3, 4, False, 0, True, ()),
    Case("noscale", 4, 4, 2, 2, 2, False, 0, False, ()),
    Case("head_off", 4, 8, 4, 2, 2, False, 0, True, (2,)),
    Case("one_token", 1, 4, 2, 2, 2, False, 0, True, ()),
    Case("one_token_causal_topk", 1, 3, 1, 1, 3, True, 1, True, ()),
    Case("gqa_causal_topk_off", 7, 12, 6, 3, 3, True, 2, True, (0, 5)),
    Case("wide", 12, 32, 4, 2, 8, False, 0, True, ()),
    # trailing padding, as in a batch: two key columns gone for every row
    Case("pad_keys", 6, 8, 2, 2, 4, False, 0, True, (), pad=(4, 5)),
    # padding in the middle and first under causal: row 0 sees only a pad key
    Case("pad_queries", 5, 8, 2, 1, 4, True, 0, True, (), pad=(0, 3)),
    Case("window_causal", 7, 8, 2, 2, 4, True, 0, True, (), window=3),
    Case("window_band", 6, 8, 2, 2, 4, False, 0, True, (), window=2),
    # custom cells, and one row (2) with every key hidden
    Case("custom", 5, 6, 3, 3, 2, False, 0, True, (),
         hidden=((0, 1), (1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 3), (4, 1))),
    Case("masks_all", 8, 12, 4, 2, 3, True, 2, True, (3,),
         pad=(2, 7), window=4, hidden=((5, 4), (6, 0), (6, 6))),
    Case("masks_topk_gqa", 7, 12, 6, 2, 2, False, 2, True, (),
         pad=(5,), window=3, hidden=((3, 1),)),
    Case("bias", 5, 8, 4, 2, 2, True, 0, True, (), bias=True),
    Case("bias_masks", 6, 8, 2, 1, 4, True, 2, True, (1,), pad=(0,), window=3, bias=True),
]


def case(name, **changes):
    """The case of that name in CASES, with fields changed (Case._replace)."""
    for c in CASES:
        if c.name == name:
            return c._replace(**changes)
    raise KeyError(name)


# Scores closer than this in one row could rank differently in float32 than
# in float64 (or swap under a finite difference), which would make a top-k
# fixture test the rounding, not the code: such draws are rejected and redrawn.
TOPK_MARGIN = 1e-3


def kv_head(i, h, g):
    """doc/FACTS.md (GQA): query head i uses key/value head floor(i / (h / h_kv))."""
    return i // (h // g)


def structural_mask(c):
    """Which keys (columns) each query (row) may see before top-k: causal
    keeps j <= i; a window w keeps i-w+1 <= j <= i under causal and
    |i - j| < w without; padding tokens are hidden from every query;
    hidden (i, j) cells are hidden. All of them at once. (n, n) bool, or
    (n, m) when c has a source of m > 0 tokens (tools/stack_ref.py's cases:
    the keys are its tokens, and there is no causal mask between the two)."""
    nk = getattr(c, "m", 0) or c.n
    assert not (c.causal and getattr(c, "m", 0)), "causal between two sequences is not defined"
    i, j = np.indices((c.n, nk))
    keep = np.ones((c.n, nk), dtype=bool)
    if c.causal:
        keep &= j <= i
    if c.window > 0:
        keep &= np.abs(i - j) < c.window
    for t in c.pad:
        keep[:, t] = False
    for r, t in c.hidden:
        keep[r, t] = False
    return keep


def keep_mask(s, base, top_k):
    """The structural mask, then top-k keeps the k largest kept scores,
    ties to the lower index (stable sort). Rows are queries: s and base may
    be n x m (cross-attention, tools/stack_ref.py)."""
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


def attention(c, x, wq, wk, wv, wo, b=None):
    """Multi-head attention in float64, every stage returned, and whether
    every top-k boundary clears TOPK_MARGIN. A row whose every key is masked
    gets all-zero weights (doc/FACTS.md), so a zero output.
    x (n,d), wq (d,h*dk), wk wv (d,g*dk), wo (h*dk,d); b: the biases
    {b_Q, b_K, b_V, b_O} (each added to every row) or None.
    Returns Q K V (n,*), scores weights keep (h,n,n), heads (h,n,dk),
    concat (n,h*dk), Y (n,d), writes (h,n,d): each head's write into Y."""
    n, h, g, dk = c.n, c.h, c.g, c.dk
    base = structural_mask(c)
    q, k, v = x @ wq, x @ wk, x @ wv
    if b is not None:
        q, k, v = q + b["b_Q"], k + b["b_K"], v + b["b_V"]
    s_factor = 1.0 / np.sqrt(dk) if c.scale else 1.0
    scores = np.zeros((h, n, n))
    weights = np.zeros((h, n, n))
    keeps = np.zeros((h, n, n), dtype=bool)
    heads = np.zeros((h, n, dk))
    concat = np.zeros((n, h * dk))
    margin_ok = True
    for i in range(h):
        j = kv_head(i, h, g)
        qi = q[:, i * dk:(i + 1) * dk]
        kj = k[:, j * dk:(j + 1) * dk]
        vj = v[:, j * dk:(j + 1) * dk]
        # scores_i = Q_i (n,dk) @ K_j^T (dk,n) * 1/sqrt(dk) -> (n,n)
        s = (qi @ kj.T) * s_factor
        scores[i] = s
        margin_ok &= topk_margin_ok(s, base, c.top_k)
        keep = keep_mask(s, base, c.top_k)
        keeps[i] = keep
        # softmax over the kept keys; subtract the row max: shift-invariant
        p = np.zeros((n, n))
        for r in range(n):
            if keep[r].any():
                e = np.exp(s[r, keep[r]] - s[r, keep[r]].max())
                p[r, keep[r]] = e / e.sum()
        weights[i] = p
        heads[i] = p @ vj
        if i not in c.heads_off:
            concat[:, i * dk:(i + 1) * dk] = heads[i]
    y = concat @ wo
    # each head's write into Y: its block of concat (n,dk) @ its rows of W^O (dk,d) -> (n,d);
    # Y = sum_i writes[i] (+ b_O)
    writes = np.stack([concat[:, i * dk:(i + 1) * dk] @ wo[i * dk:(i + 1) * dk, :] for i in range(h)])
    if b is not None:
        y = y + b["b_O"]
    return dict(Q=q, K=k, V=v, scores=scores, weights=weights, keep=keeps, heads=heads,
                concat=concat, Y=y, writes=writes), margin_ok


def draw(rng, shape, scale):
    """Uniform float32 in [-scale, scale); returned as float64 holding
    exactly the float32 values the C side will read."""
    return rng.uniform(-scale, scale, size=shape).astype(np.float32).astype(np.float64)


INPUTS = ("X", "W_Q", "W_K", "W_V", "W_O")
BIASES = ("b_Q", "b_K", "b_V", "b_O")


def draw_case(c, seed):
    """Seeded inputs for case c whose top-k boundaries clear the margin, and
    the forward on them: (inputs {X W_Q W_K W_V W_O}, biases {b_Q ..} or None,
    attention's stages)."""
    n, d, h, g, dk = c.n, c.d, c.h, c.g, c.dk
    rng = np.random.default_rng(seed)
    while True:
        # X wider than the weights so the softmax rows are far from uniform
        x = draw(rng, (n, d), 2.0)
        wq = draw(rng, (d, h * dk), 1.0)
        wk = draw(rng, (d, g * dk), 1.0)
        wv = draw(rng, (d, g * dk), 1.0)
        wo = draw(rng, (h * dk, d), 1.0)
        b = None
        if c.bias:
            b = {"b_Q": draw(rng, (h * dk,), 0.5), "b_K": draw(rng, (g * dk,), 0.5),
                 "b_V": draw(rng, (g * dk,), 0.5), "b_O": draw(rng, (d,), 0.5)}
        ref, margin_ok = attention(c, x, wq, wk, wv, wo, b)
        if margin_ok:
            return dict(zip(INPUTS, (x, wq, wk, wv, wo))), b, ref


def config_line(c, masks=True):
    """The fixture's `config` line; without masks it stops after heads_off
    (the gradient fixtures' format)."""
    line = ("config n %d d %d h %d g %d dk %d causal %d top_k %d scale %d heads_off %d%s"
            % (c.n, c.d, c.h, c.g, c.dk, c.causal, c.top_k, c.scale, len(c.heads_off),
               "".join(" %d" % i for i in c.heads_off)))
    if masks:
        line += (" pad %d%s window %d hidden %d%s bias %d"
                 % (len(c.pad), "".join(" %d" % t for t in c.pad), c.window, len(c.hidden),
                    "".join(" %d %d" % rt for rt in c.hidden), c.bias))
    return line + "\n"


def write_matrix(f, name, a, fmt):
    """`matrix NAME COUNT ROWS COLS`, then COUNT*ROWS lines of COLS numbers."""
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[None]
    count, rows, cols = a.shape
    f.write("matrix %s %d %d %d\n" % (name, count, rows, cols))
    for block in a:
        for row in block:
            f.write(" ".join(fmt % val for val in row) + "\n")


def write_fixtures(subdir, cases, first_seed, make_case):
    """make_case(out_dir, seed, case) for each case, seeds first_seed, +1, ...,
    into tests/<subdir> of the source tree; prints each path written."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "tests", subdir)
    os.makedirs(out_dir, exist_ok=True)
    for seed, c in enumerate(cases, start=first_seed):
        print(make_case(out_dir, seed, c))
    return 0


def central_differences(loss, a, indices, eps=1e-6):
    """(L(a + eps e_i) - L(a - eps e_i)) / 2 eps for each index i of the
    array a (changed in place and put back); loss() reads a."""
    fd = []
    for idx in indices:
        keep = a[idx]
        a[idx] = keep + eps
        lp = loss()
        a[idx] = keep - eps
        lm = loss()
        a[idx] = keep
        fd.append((lp - lm) / (2 * eps))
    return fd
