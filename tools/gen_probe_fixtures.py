#!/usr/bin/python3
"""gen_probe_fixtures.py - independent float64 figures of src/core/probe.c.

Writes tests/fixtures/probe/<name>.txt for each case below: the inputs (the
configuration, token and position feature rows, every layer's W's) and, in
float64 numpy written from the formulas of src/core/probe.h and not ported
from the C code, what the probe goals read:

  - the generated sequences: for each period p = 2 .. min(n/2, V, 9) and
    sequence b, a SplitMix64 stream seeded with seed ^ (p << 32) ^
    b * 0xD1B54A32D192ED03; n - 2p filler tokens (next % V), then the first p
    of a Fisher-Yates shuffle of 0..V-1 (swap t with t + next % (V - t)),
    twice;
  - the stack's forward: x_0 = tok[t_i] + pos[i], per layer Q, K, V = x W,
    S_i = Q_i K_i^T (/ sqrt(d_k) when scaled; -inf above the diagonal when
    causal), P_i = softmax(S_i), Y = [P_0 V_0 ...] W^O, x_l+1 = x_l + Y;
  - previous = mean over every sequence and query q >= 1 of P[q, q-1];
    prefix(p) = mean over period p's queries with an earlier same token of
    the sum of P[q, j+1] over those j; prefix_min the smallest over periods.

The cases: 'hand' is the lesson 'A circuit by hand' solved (its assets'
features, the hand weights); 'random' draws features and weights from
numpy's seeded normal generator (2 layers of 2 heads, no causal mask);
'deep' 3 layers of 3 heads, causal, unscaled.

Run with Debian's numpy: /usr/bin/python3 tools/gen_probe_fixtures.py
Seeded: running it again rewrites the same files.

Fixture format: '#' lines are comments; every other line is
    KEY COUNT v1 .. vCOUNT
(numbers as %.17g).
"""

import os

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "probe")
M64 = (1 << 64) - 1


def splitmix(state):
    """The next value of SplitMix64 and the new state (integers mod 2^64)."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31), state


def sequence(n, vocab, p, b, seed):
    state = (seed ^ (p << 32) ^ ((b * 0xD1B54A32D192ED03) & M64)) & M64
    out = []
    for _ in range(n - 2 * p):
        v, state = splitmix(state)
        out.append(v % vocab)
    perm = list(range(vocab))
    for t in range(p):
        v, state = splitmix(state)
        u = t + v % (vocab - t)
        perm[t], perm[u] = perm[u], perm[t]
    return out + perm[:p] + perm[:p]


def periods(n, vocab):
    return [p for p in range(2, 10) if 2 * p <= n and p <= vocab]


def forward(cfg, ws, x):
    """Every layer's attention weights P (h, n, n) for the stream from x."""
    n, h, dk = cfg["n"], cfg["h"], cfg["dk"]
    pats = []
    for wq, wk, wv, wo in ws:
        q, k, v = x @ wq, x @ wk, x @ wv
        heads, ps = [], []
        for i in range(h):
            s = q[:, i * dk:(i + 1) * dk] @ k[:, i * dk:(i + 1) * dk].T
            if cfg["scale"]:
                s = s / np.sqrt(dk)
            if cfg["causal"]:
                s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
            e = np.exp(s - s.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            ps.append(p)
            heads.append(p @ v[:, i * dk:(i + 1) * dk])
        x = x + np.concatenate(heads, axis=1) @ wo
        pats.append(ps)
    return pats


def scores(cfg, tok, pos, ws):
    n, h, L = cfg["n"], cfg["h"], len(ws)
    per = periods(n, cfg["vocab"])
    prev = np.zeros((L, h))
    nprev = 0
    prefix = np.zeros((L, h, len(per)))
    seqs = []
    for k, p in enumerate(per):
        ind = np.zeros((L, h))
        nind = 0
        for b in range(cfg["per_period"]):
            t = sequence(n, cfg["vocab"], p, b, cfg["seed"])
            seqs.append((p, b, t))
            x = np.array([tok[t[i]] + pos[i] for i in range(n)])
            pats = forward(cfg, ws, x)
            counted = [q for q in range(1, n) if t[q] in t[:q]]
            nind += len(counted)
            nprev += n - 1
            for l in range(L):
                for i in range(h):
                    P = pats[l][i]
                    prev[l, i] += sum(P[q, q - 1] for q in range(1, n))
                    ind[l, i] += sum(P[q, j + 1] for q in counted for j in range(q) if t[j] == t[q])
        prefix[:, :, k] = ind / nind
    return per, seqs, prev / nprev, prefix, prefix.min(axis=2)


def feat(name):
    rows = []
    for line in open(os.path.join(ROOT, "assets", name + ".feat")):
        if line.strip() and not line.startswith("#"):
            rows.append([float(v) for v in line.split()[1:]])
    return np.array(rows)


def hand():
    cfg = dict(n=8, d=16, h=1, dk=8, layers=2, causal=1, scale=1, vocab=4, per_period=8, seed=23)
    tok, pos = feat("circuit-tokens"), feat("circuit-positions")
    z = lambda r, c: np.zeros((r, c))
    wq0, wk0, wv0, wo0 = z(16, 8), z(16, 8), np.eye(16, 8), z(8, 16)
    wq0[8, 0], wq0[10, 0], wq0[10, 1] = 20, -20, -10
    wk0[8, 0], wk0[9, 1] = 1, 1
    for t in range(4):
        wo0[t, 4 + t] = 1
    wq1, wk1 = z(16, 8), z(16, 8)
    for t in range(4):
        wq1[t, t] = 4
        wk1[4 + t, t] = 4
    rng = np.random.default_rng(18)
    wv1, wo1 = rng.normal(0, 0.3, (16, 8)), rng.normal(0, 0.3, (8, 16))
    return cfg, tok, pos, [(wq0, wk0, wv0, wo0), (wq1, wk1, wv1, wo1)]


def drawn(seed, n, d, h, dk, layers, vocab, causal, scale, per_period):
    rng = np.random.default_rng(seed)
    cfg = dict(n=n, d=d, h=h, dk=dk, layers=layers, causal=causal, scale=scale, vocab=vocab,
               per_period=per_period, seed=seed * 1000 + 7)
    tok, pos = rng.normal(0, 1, (vocab, d)), rng.normal(0, 0.5, (n, d))
    ws = [tuple(rng.normal(0, 0.6, s) for s in ((d, h * dk),) * 3 + ((h * dk, d),)) for _ in range(layers)]
    return cfg, tok, pos, ws


def write(name, case):
    cfg, tok, pos, ws = case
    # the C side reads float32 inputs: compute from the values it will hold
    tok, pos = tok.astype(np.float32).astype(np.float64), pos.astype(np.float32).astype(np.float64)
    ws = [tuple(m.astype(np.float32).astype(np.float64) for m in w) for w in ws]
    per, seqs, prev, prefix, pmin = scores(cfg, tok, pos, ws)
    out = open(os.path.join(OUT, name + ".txt"), "w")
    out.write("# written by tools/gen_probe_fixtures.py: do not edit\n")

    def put(key, vals):
        vals = list(np.ravel(vals))
        out.write("%s %d %s\n" % (key, len(vals), " ".join("%.17g" % v for v in vals)))

    put("config", [cfg[k] for k in ("n", "d", "h", "dk", "layers", "causal", "scale", "vocab",
                                    "per_period", "seed")])
    put("tok", tok)
    put("pos", pos)
    for l, w in enumerate(ws):
        for m in w:
            put("w%d" % l, m)
    put("periods", per)
    for p, b, t in seqs[:3] + seqs[-1:]:
        put("sequence", [p, b] + t)
    put("previous", prev)
    put("prefix", prefix)
    put("prefix_min", pmin)
    out.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    write("hand", hand())
    write("random", drawn(5, n=10, d=12, h=2, dk=5, layers=2, vocab=5, causal=0, scale=1, per_period=3))
    write("deep", drawn(6, n=12, d=9, h=3, dk=3, layers=3, vocab=7, causal=1, scale=0, per_period=2))


if __name__ == "__main__":
    main()
