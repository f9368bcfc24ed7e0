#!/usr/bin/python3
"""gen_grad_fixtures.py - independent float64 gradients of multi-head attention.

Writes tests/fixtures/grad/<name>.txt: a configuration, float32 inputs drawn
here with numpy (seeded: the output is reproducible), and the gradients of
L = 1/2 * sum(Y^2) (so dL/dY = Y) with respect to X, W^Q, W^K, W^V and W^O,
computed in float64 by the chain rule written out below in numpy (whole-matrix
algebra, nothing ported from the C code). Before a file is written every
gradient is checked against float64 central finite differences of the loss:
the script refuses to write a fixture whose analytic gradient disagrees.
tests/train/test_grad_fixtures.c reads them and compares mha_backward (and
the `--dump json --grad` path) with them.

Run with Debian's numpy (python3-numpy): /usr/bin/python3 tools/gen_grad_fixtures.py

File format (whitespace separated, '#' lines are comments), as the forward's
fixtures (tools/gen_fixtures.py):
    config n N d D h H g G dk K causal 0|1 top_k K scale 0|1 heads_off M i1 .. iM
    matrix NAME 1 ROWS COLS      then ROWS lines of COLS numbers
    end
Names: X W_Q W_K W_V W_O (inputs, float32 values written exactly with %.9g)
and dX dW_Q dW_K dW_V dW_O (float64 gradients, %.17g).
"""

import os
import sys

import numpy as np

# name, n, d, h, g, dk, causal, top_k, scale, heads_off
CASES = [
    ("mha", 4, 8, 2, 2, 4, False, 0, True, []),
    ("gqa", 5, 8, 4, 2, 2, False, 0, True, []),
    ("mqa", 4, 6, 3, 1, 2, False, 0, True, []),
    ("causal", 5, 8, 2, 2, 4, True, 0, True, []),
    ("topk", 6, 8, 2, 2, 4, False, 2, True, []),
    ("topk_causal", 6, 6, 3, 3, 2, True, 3, True, []),
    ("noscale", 4, 4, 2, 2, 2, False, 0, False, []),
    ("head_off", 4, 8, 4, 2, 2, False, 0, True, [2]),
    ("gqa_causal_topk_off", 7, 12, 6, 3, 3, True, 2, True, [0, 5]),
    ("one_token", 1, 4, 2, 2, 2, False, 0, True, []),
    ("wide", 12, 32, 4, 2, 8, True, 0, True, []),
]

# A finite difference must not move a score across the top-k boundary.
TOPK_MARGIN = 1e-3


def keep_mask(s, causal, top_k):
    """Keys each query keeps: causal keeps j <= i; top-k then the k largest
    (ties to the lower index)."""
    n = s.shape[0]
    keep = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    if top_k > 0:
        for r in range(n):
            idx = np.flatnonzero(keep[r])
            if len(idx) > top_k:
                order = idx[np.argsort(-s[r, idx], kind="stable")]
                keep[r] = False
                keep[r, order[:top_k]] = True
    return keep


def margin_ok(s, causal, top_k):
    for r in range(s.shape[0]):
        lim = r + 1 if causal else s.shape[0]
        if top_k > 0 and lim > top_k:
            v = np.sort(s[r, :lim])[::-1]
            if v[top_k - 1] - v[top_k] < TOPK_MARGIN:
                return False
    return True


def loss_and_grads(x, wq, wk, wv, wo, cfg):
    """L = 1/2 |Y|^2 and its gradients, by the chain rule stage by stage."""
    n, d, h, g, dk, causal, top_k, scale, off = cfg
    rep = h // g
    c = 1.0 / np.sqrt(dk) if scale else 1.0
    # forward, per head as (h, n, dk) stacks
    q = (x @ wq).reshape(n, h, dk).transpose(1, 0, 2)
    k = (x @ wk).reshape(n, g, dk).transpose(1, 0, 2)
    v = (x @ wv).reshape(n, g, dk).transpose(1, 0, 2)
    kr, vr = np.repeat(k, rep, axis=0), np.repeat(v, rep, axis=0)  # kv head of each query head
    s = c * q @ kr.transpose(0, 2, 1)
    keep = np.stack([keep_mask(s[i], causal, top_k) for i in range(h)])
    ok = all(margin_ok(s[i], causal, top_k) for i in range(h))
    e = np.where(keep, np.exp(s - np.where(keep, s, -np.inf).max(axis=2, keepdims=True)), 0.0)
    p = e / e.sum(axis=2, keepdims=True)
    o = p @ vr
    on = np.array([0.0 if i in off else 1.0 for i in range(h)])[:, None, None]
    concat = (o * on).transpose(1, 0, 2).reshape(n, h * dk)
    y = concat @ wo
    loss = 0.5 * np.sum(y * y)
    # backward
    dy = y
    dwo = concat.T @ dy
    do = (dy @ wo.T).reshape(n, h, dk).transpose(1, 0, 2) * on
    dp = do @ vr.transpose(0, 2, 1)
    dvr = p.transpose(0, 2, 1) @ do
    ds = p * (dp - np.sum(p * dp, axis=2, keepdims=True))
    dq = c * ds @ kr
    dkr = c * ds.transpose(0, 2, 1) @ q
    # a kv head collects the gradients of the rep query heads that share it
    dk_ = dkr.reshape(g, rep, n, dk).sum(axis=1)
    dv_ = dvr.reshape(g, rep, n, dk).sum(axis=1)
    dq2 = dq.transpose(1, 0, 2).reshape(n, h * dk)
    dk2 = dk_.transpose(1, 0, 2).reshape(n, g * dk)
    dv2 = dv_.transpose(1, 0, 2).reshape(n, g * dk)
    grads = dict(dX=dq2 @ wq.T + dk2 @ wk.T + dv2 @ wv.T,
                 dW_Q=x.T @ dq2, dW_K=x.T @ dk2, dW_V=x.T @ dv2, dW_O=dwo)
    return loss, grads, ok


def finite_difference_check(inputs, grads, cfg, name):
    eps = 1e-6
    keys = ["dX", "dW_Q", "dW_K", "dW_V", "dW_O"]
    for m, key in enumerate(keys):
        a = inputs[m]
        fd = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            keep = a[idx]
            a[idx] = keep + eps
            lp = loss_and_grads(*inputs, cfg)[0]
            a[idx] = keep - eps
            lm = loss_and_grads(*inputs, cfg)[0]
            a[idx] = keep
            fd[idx] = (lp - lm) / (2 * eps)
        err = np.max(np.abs(fd - grads[key])) if fd.size else 0.0
        tol = 1e-6 * max(1.0, np.max(np.abs(fd)) if fd.size else 0.0)
        if err > tol:
            sys.exit("%s: %s disagrees with finite differences by %g" % (name, key, err))


def draw(rng, shape, scale):
    """Uniform float32 in [-scale, scale), held as float64 exactly."""
    return rng.uniform(-scale, scale, size=shape).astype(np.float32).astype(np.float64)


def write_matrix(f, name, a, fmt):
    rows, cols = a.shape
    f.write("matrix %s 1 %d %d\n" % (name, rows, cols))
    for row in a:
        f.write(" ".join(fmt % val for val in row) + "\n")


def make_case(out_dir, seed, case):
    name, n, d, h, g, dk, causal, top_k, scale, off = case
    cfg = (n, d, h, g, dk, causal, top_k, scale, off)
    rng = np.random.default_rng(seed)
    while True:
        inputs = [draw(rng, (n, d), 2.0), draw(rng, (d, h * dk), 1.0), draw(rng, (d, g * dk), 1.0),
                  draw(rng, (d, g * dk), 1.0), draw(rng, (h * dk, d), 1.0)]
        loss, grads, ok = loss_and_grads(*inputs, cfg)
        if ok:
            break
    finite_difference_check(inputs, grads, cfg, name)
    path = os.path.join(out_dir, name + ".txt")
    with open(path, "w") as f:
        f.write("# %s: generated by tools/gen_grad_fixtures.py (numpy seed %d); do not edit\n"
                "# L = 1/2 sum(Y^2) = %.17g\n" % (name, seed, loss))
        f.write("config n %d d %d h %d g %d dk %d causal %d top_k %d scale %d heads_off %d%s\n"
                % (n, d, h, g, dk, causal, top_k, scale, len(off), "".join(" %d" % i for i in off)))
        for key, a in zip(("X", "W_Q", "W_K", "W_V", "W_O"), inputs):
            write_matrix(f, key, a, "%.9g")
        for key in ("dX", "dW_Q", "dW_K", "dW_V", "dW_O"):
            write_matrix(f, key, grads[key], "%.17g")
        f.write("end\n")
    return path


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "tests", "fixtures", "grad")
    os.makedirs(out_dir, exist_ok=True)
    for seed, case in enumerate(CASES, start=2000):
        print(make_case(out_dir, seed, case))
    return 0


if __name__ == "__main__":
    sys.exit(main())
