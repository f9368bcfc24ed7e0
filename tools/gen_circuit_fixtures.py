#!/usr/bin/python3
"""gen_circuit_fixtures.py - independent float64 circuit figures of mha-tui models.

Writes tests/fixtures/circuits/<name>.txt for each model below: the data the
C test feeds the library (probe sequences, held-out sequences with targets,
clean / corrupt pairs, a lens sequence), all drawn here with numpy, and every
figure of doc/CIRCUITS.md computed from those inputs in float64 numpy, written
from the formulas there and not ported from the C code:

  - W_QK = Q_i K_i^T and W_OV = V_i O_i as full d x d matrices: their singular
    values (numpy's SVD), numeric rank (tolerance sigma_1 * d * 2^-24), views
    E W_QK E^T, P W_QK P^T, E W_OV U;
  - copying = sum(lambda) / sum|lambda| over the eigenvalues of the full V x V
    matrix E W_OV U (numpy's eigvals: LAPACK geev, not the C code's
    dk x dk shortcut), the share of tokens whose own logit is strictly the
    largest of their row;
  - composition scores from full d x d products and np.linalg.norm, and the
    random baseline by a Monte Carlo of its own (numpy's normal generator,
    20,000 draws), written with its standard error;
  - the attention-only model's forward with hooks (a head's output replaced;
    a delta added to one head's Q, K or V input), and from it pattern scores,
    zero / mean / resample ablation of heads and paths, activation and path
    patching, the logit lens.

Also tests/fixtures/circuits/eig.txt: random and special matrices with numpy's
eigenvalues, and products A B^T with numpy's singular values.

The models: induction.model (trained by mha-tui, committed; see the README
beside it) and two written here from a seeded generator: small.model (2
layers, d_model 12, 3 heads of d_k 4, vocabulary 10, one head switched off)
and onelayer.model (1 layer, task duplicate: vocabulary 8, classes 2, so no
copying score).

Run with Debian's numpy: /usr/bin/python3 tools/gen_circuit_fixtures.py
Seeded: running it again rewrites the same files (the last digits may move
with another numpy or LAPACK).

Fixture format: '#' lines are comments; every other line is
    KEY COUNT v1 .. vCOUNT
(numbers as %.17g, 'nan' where a figure is undefined).
"""

import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "circuits")
RANK_TOL = 2.0 ** -24
PERIODS = (4, 8, 12, 16, 24, 32, 48)
INPUTS = ("q", "k", "v")


# ---- model files (doc/TRAINING.md, "Model files") ----

def load_model(path):
    lines = open(path).read().split("\n")
    assert lines[0] == "mha-tui model 1", path
    task = lines[1].split()[1]
    sh = lines[2].split()
    shape = dict(zip(sh[1::2], map(int, sh[2::2])))
    off_words = list(map(int, lines[3].split()[1:]))
    off = set(zip(off_words[1::2], off_words[2::2]))
    tensors, i = {}, 4
    while lines[i] != "end":
        _, name, rows, cols = lines[i].split()
        rows, cols = int(rows), int(cols)
        # mha-tui reads each number as a float32: round as it does, then compute in float64
        tensors[name] = np.array([[float(x) for x in lines[i + 1 + r].split()] for r in range(rows)],
                                 dtype=np.float32).astype(np.float64)
        i += 1 + rows
    return dict(task=task, L=shape["layers"], d=shape["d_model"], h=shape["heads"], dk=shape["d_k"],
                V=shape["vocab"], C=shape["classes"], n=shape["tokens"], off=off, T=tensors)


def write_model(path, task, L, d, h, dk, V, C, n, off, rng):
    """A seeded random model, float32 values written exactly (%.9g)."""
    def mat(rows, cols, scale):
        return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)
    tensors = [("E", mat(V, d, 0.8)), ("P", mat(n, d, 0.8))]
    for l in range(L):
        for nm in ("W_Q", "W_K", "W_V"):
            tensors.append(("%s.%d" % (nm, l), mat(d, h * dk, 0.6)))
        tensors.append(("W_O.%d" % l, mat(h * dk, d, 0.6)))
    tensors.append(("U", mat(d, C, 0.8)))
    with open(path, "w") as f:
        f.write("mha-tui model 1\ntask %s\n" % task)
        f.write("shape layers %d d_model %d heads %d d_k %d vocab %d classes %d tokens %d\n"
                % (L, d, h, dk, V, C, n))
        f.write("heads_off %d%s\n" % (len(off), "".join(" %d %d" % p for p in sorted(off))))
        for name, t in tensors:
            f.write("tensor %s %d %d\n" % (name, t.shape[0], t.shape[1]))
            for row in t:
                f.write(" ".join("%.9g" % x for x in row) + "\n")
        f.write("end\n")


def head(m, l, i):
    """Q_i, K_i, V_i (d, dk) and O_i (dk, d) of layer l."""
    T, dk = m["T"], m["dk"]
    cols = slice(i * dk, (i + 1) * dk)
    return (T["W_Q.%d" % l][:, cols], T["W_K.%d" % l][:, cols], T["W_V.%d" % l][:, cols],
            T["W_O.%d" % l][cols, :])


# ---- weights: QK, OV, copying, composition ----

def rank_figures(w, d, dk):
    s = np.linalg.svd(w, compute_uv=False)
    return s[:dk], int(np.sum(s > s[0] * d * RANK_TOL)), np.linalg.norm(w)


def head_figures(m, l, i):
    T, d, dk = m["T"], m["d"], m["dk"]
    q, k, v, o = head(m, l, i)
    qk, ov = q @ k.T, v @ o
    out = {}
    for name, w in (("qk", qk), ("ov", ov)):
        sv, rank, _ = rank_figures(w, d, dk)
        out[name + "_sv"] = sv
        out[name + "_rank"] = [rank]
    E, P, U = T["E"], T["P"], T["U"]
    out["view.W_QK"] = qk
    out["view.W_OV"] = ov
    out["view.E_W_QK_E"] = E @ qk @ E.T
    out["view.P_W_QK_P"] = P @ qk @ P.T
    tok = E @ ov @ U
    out["view.E_W_OV_U"] = tok
    if m["V"] == m["C"]:
        lam = np.linalg.eigvals(tok)
        out["copying"] = [np.sum(lam).real / np.sum(np.abs(lam))]
        own = [tok[t, t] > np.delete(tok[t], t).max() for t in range(m["V"])]
        out["own"] = [np.mean(own)]
        # the dk largest by magnitude (the rest are 0: rank dk), as (re, im) pairs
        top = sorted(lam, key=lambda z: (-abs(z), -z.imag))[:dk]
        out["eig"] = [x for z in top for x in (z.real, z.imag)]
    else:
        out["copying"] = [np.nan]
        out["own"] = [np.nan]
    return out


def composition(m, l):
    h = m["h"]
    sc = {c: np.zeros((h, h)) for c in INPUTS}
    for a in range(h):
        qa, ka, va, oa = head(m, l, a)
        ov_a = va @ oa
        for b in range(h):
            qb, kb, vb, ob = head(m, l + 1, b)
            qk_b, ov_b = qb @ kb.T, vb @ ob
            f = np.linalg.norm
            sc["q"][a, b] = f(ov_a @ qk_b) / (f(ov_a) * f(qk_b))
            sc["k"][a, b] = f(qk_b @ ov_a.T) / (f(qk_b) * f(ov_a))
            sc["v"][a, b] = f(ov_a @ ov_b) / (f(ov_a) * f(ov_b))
    return sc


def baseline(d, dk, draws, rng):
    """The composition scores of random heads: every factor i.i.d. N(0, 1)."""
    s = np.zeros((draws, 3))
    f = np.linalg.norm
    for t in range(draws):
        va, oa = rng.standard_normal((d, dk)), rng.standard_normal((dk, d))
        qb, kb = rng.standard_normal((d, dk)), rng.standard_normal((d, dk))
        vb, ob = rng.standard_normal((d, dk)), rng.standard_normal((dk, d))
        ov_a, qk_b, ov_b = va @ oa, qb @ kb.T, vb @ ob
        s[t] = (f(ov_a @ qk_b) / (f(ov_a) * f(qk_b)), f(qk_b @ ov_a.T) / (f(qk_b) * f(ov_a)),
                f(ov_a @ ov_b) / (f(ov_a) * f(ov_b)))
    return s.mean(axis=0), s.std(axis=0, ddof=1) / np.sqrt(draws), s.std(axis=0, ddof=1)


# ---- the forward with hooks ----

def forward(m, tok, z_hook=None, delta_hook=None):
    """x_0 = E[tok] + P; x_{l+1} = x_l + sum_i O_i W^O_i (heads off write 0);
    O_i = softmax_causal((x W^Q_i)(x W^K_i)^T / sqrt(dk)) (x W^V_i), where a
    head's Q, K or V may read x + delta_hook[(l, i, c)] and its O_i may be
    replaced by z_hook[(l, i)]. Returns the logits and every part."""
    T, n, dk = m["T"], m["n"], m["dk"]
    x = T["E"][tok] + T["P"]
    xs, pats, zs, writes = [x], {}, {}, {}
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    for l in range(m["L"]):
        new = x.copy()
        for i in range(m["h"]):
            q, k, v, o = head(m, l, i)
            inp = {c: x + (delta_hook or {}).get((l, i, c), 0.0) for c in INPUTS}
            s = (inp["q"] @ q) @ (inp["k"] @ k).T / np.sqrt(dk)
            s[mask] = -np.inf
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            z = p @ (inp["v"] @ v)
            if z_hook and (l, i) in z_hook:
                z = z_hook[(l, i)]
            w = np.zeros_like(x) if (l, i) in m["off"] else z @ o
            pats[(l, i)], zs[(l, i)], writes[(l, i)] = p, z, w
            new = new + w
        x = new
        xs.append(x)
    return dict(logits=x @ T["U"], x=xs, pattern=pats, z=zs, write=writes)


def score(logits, tgt):
    """Sum of log p(target), correct argmaxes (first largest), counted."""
    lp, correct, counted = 0.0, 0, 0
    for t in range(len(tgt)):
        if tgt[t] < 0:
            continue
        row = logits[t]
        mx = row.max()
        lp += row[tgt[t]] - mx - np.log(np.sum(np.exp(row - mx)))
        correct += int(np.argmax(row) == tgt[t])
        counted += 1
    return np.array([lp, correct, counted], dtype=float)


def stats(acc):
    return [-acc[0] / acc[2], acc[1] / acc[2]]


def pattern_sums(p, tok):
    """previous, first, self, duplicate, induction: sums and counts."""
    n = len(tok)
    s, c = np.zeros(5), np.zeros(5)
    for q in range(1, n):
        s[0] += p[q, q - 1]
        s[1] += p[q, 0]
        s[2] += p[q, q]
        c[:3] += 1
        earlier = [j for j in range(q) if tok[j] == tok[q]]
        if earlier:
            s[3] += sum(p[q, j] for j in earlier)
            s[4] += sum(p[q, j + 1] for j in earlier)
            c[3:] += 1
    return s, c


def ablation(m, seqs, tgts):
    L, h, B = m["L"], m["h"], len(seqs)
    runs = [forward(m, t) for t in seqs]
    heads = [(l, i) for l in range(L) for i in range(h)]
    zmean = {k: np.mean([r["z"][k] for r in runs], axis=0) for k in heads}
    wmean = {k: np.mean([r["write"][k] for r in runs], axis=0) for k in heads}
    clean = sum(score(r["logits"], t) for r, t in zip(runs, tgts))
    head_out, path_out = [], []
    for k in heads:
        for kind in range(3):
            acc = np.zeros(3)
            for b in range(B):
                repl = (np.zeros_like(zmean[k]), zmean[k], runs[(b + 1) % B]["z"][k])[kind]
                acc += score(forward(m, seqs[b], z_hook={k: repl})["logits"], tgts[b])
            head_out += stats(acc)
    for l, a in heads:
        if l + 1 >= L:
            continue
        for c in INPUTS:
            for kind in range(3):
                acc = np.zeros(3)
                for b in range(B):
                    w = runs[b]["write"][(l, a)]
                    repl = (np.zeros_like(w), wmean[(l, a)], runs[(b + 1) % B]["write"][(l, a)])[kind]
                    hook = {(l + 1, j, c): repl - w for j in range(h)}
                    acc += score(forward(m, seqs[b], delta_hook=hook)["logits"], tgts[b])
                path_out += stats(acc)
    return dict(clean=stats(clean), head=head_out, path=path_out)


def patching(m, clean, corrupt, tgts):
    L, h = m["L"], m["h"]
    heads = [(l, i) for l in range(L) for i in range(h)]
    rc = [forward(m, t) for t in clean]
    rx = [forward(m, t) for t in corrupt]

    def mean_lp(runs_logits):
        acc = sum(score(lg, t) for lg, t in zip(runs_logits, tgts))
        return acc[0] / acc[2], acc[1] / acc[2]

    mc, ac = mean_lp([r["logits"] for r in rc])
    mx, ax = mean_lp([r["logits"] for r in rx])

    def restored(v):
        # too small a difference to share out (0.1 nats, as doc/CIRCUITS.md says)
        return (v - mx) / (mc - mx) if abs(mc - mx) >= 0.1 else np.nan

    out = dict(outcomes=[mc, ac, 1.0, mx, ax, 0.0], head=[], path=[])
    for k in heads:
        v, a = mean_lp([forward(m, x, z_hook={k: c["z"][k]})["logits"] for x, c in zip(corrupt, rc)])
        out["head"] += [v, a, restored(v)]
    best = None
    for l, s in heads:
        if l + 1 >= L:
            continue
        for b in range(h + 1):
            for ci, c in enumerate(INPUTS):
                lg = []
                for x, cr, xr in zip(corrupt, rc, rx):
                    delta = cr["write"][(l, s)] - xr["write"][(l, s)]
                    hook = {(l + 1, j, c): delta for j in range(h) if b == h or j == b}
                    lg.append(forward(m, x, delta_hook=hook)["logits"])
                v, a = mean_lp(lg)
                r = restored(v)
                out["path"] += [v, a, r]
                if b == h and not np.isnan(r) and r > 0 and (best is None or r > best[3]):
                    best = (l, s, ci, r)
    out["named"] = list(best) if best else [-1, -1, 0, 0]
    return out


def lens(m, tok, pos, target):
    r = forward(m, tok)
    T, U = m["T"], m["T"]["U"]
    out = dict(resid=np.concatenate([x[pos] @ U for x in r["x"]]),
               embed=T["E"][tok[pos]] @ U, pos=T["P"][pos] @ U,
               head=np.concatenate([r["write"][(l, i)][pos] @ U
                                    for l in range(m["L"]) for i in range(m["h"])]))
    return out


# ---- data, drawn here ----

def probe(rng, n, V, period, count):
    seqs = []
    for _ in range(count):
        block = rng.permutation(V)[:period]
        seqs.append(np.array([block[t % period] for t in range(n)]))
    return seqs


def induction_sequence(rng, n, V):
    """A block of m distinct tokens, m in [n/4, n/2], repeated; targets in the repeats."""
    m = int(rng.integers(max(n // 4, 1), max(n // 2, 1) + 1))
    block = rng.permutation(V)[:m]
    tok = np.array([block[t % m] for t in range(n)])
    tgt = np.full(n, -1)
    tgt[m:n - 1] = tok[m + 1:n]
    return tok, tgt, m, block


def pairs(rng, n, V, count):
    clean, corrupt, tgts = [], [], []
    for _ in range(count):
        tok, _, m, block = induction_sequence(rng, n, V)
        fresh = rng.permutation(np.setdiff1d(np.arange(V), block))
        x, tgt = tok.copy(), np.full(n, -1)
        for f, j in enumerate(range(0, m - 1, 2)):
            x[j] = fresh[f % len(fresh)]
            if j + m + 1 < n:
                tgt[j + m] = tok[j + m + 1]
        clean.append(tok)
        corrupt.append(x)
        tgts.append(tgt)
    return clean, corrupt, tgts


def task_sequences(rng, m, count):
    """Held-out-like sequences: induction ones, or for other shapes random
    tokens scored at every position against a random class."""
    seqs, tgts = [], []
    for _ in range(count):
        if m["task"] == "induction" and m["V"] == m["C"]:
            tok, tgt, _, _ = induction_sequence(rng, m["n"], m["V"])
        else:
            tok = rng.integers(0, m["V"], m["n"])
            tgt = rng.integers(0, m["C"], m["n"])
            tgt[0] = -1
        seqs.append(tok)
        tgts.append(tgt)
    return seqs, tgts


# ---- writing ----

class Fixture:
    def __init__(self, path, comment):
        self.f = open(path, "w")
        for line in comment.split("\n"):
            self.f.write("# %s\n" % line)

    def put(self, key, values):
        vals = np.asarray(values, dtype=float).ravel()
        self.f.write("%s %d %s\n" % (key, len(vals), " ".join(
            "nan" if np.isnan(v) else "%.17g" % v for v in vals)))

    def close(self):
        self.f.write("end 0\n")
        self.f.close()


def model_fixture(name, counts, rng, views=True):
    m = load_model(os.path.join(OUT, name + ".model"))
    L, h, n, V = m["L"], m["h"], m["n"], m["V"]
    fx = Fixture(os.path.join(OUT, name + ".txt"),
                 "tools/gen_circuit_fixtures.py: %s.model, float64 numpy (see the script)" % name)
    for l in range(L):
        for i in range(h):
            for key, val in head_figures(m, l, i).items():
                if views or not key.startswith("view."):
                    fx.put("%s.%d.%d" % (key, l, i), val)
    for l in range(L - 1):
        sc = composition(m, l)
        for c in INPUTS:
            fx.put("comp.%s.%d" % (c, l), sc[c])
    if L > 1:
        mean, se, sd = baseline(m["d"], m["dk"], 20000, rng)
        fx.put("baseline.mean", mean)
        fx.put("baseline.se", se)
        fx.put("baseline.sd", sd)
    # pattern scores per period, and pooled over the periods
    pooled_s, pooled_c = np.zeros((L * h, 5)), np.zeros((L * h, 5))
    for period in PERIODS:
        if period > V or period + 2 > n:
            continue
        seqs = probe(rng, n, V, period, counts["probe"])
        fx.put("probe.%d" % period, seqs)
        s, c = np.zeros((L * h, 5)), np.zeros((L * h, 5))
        for tok in seqs:
            r = forward(m, tok)
            for k in range(L * h):
                ds, dc = pattern_sums(r["pattern"][(k // h, k % h)], tok)
                s[k] += ds
                c[k] += dc
        fx.put("patterns.%d" % period, np.where(c > 0, s / np.maximum(c, 1), np.nan))
        pooled_s += s
        pooled_c += c
    fx.put("patterns.pooled", np.where(pooled_c > 0, pooled_s / np.maximum(pooled_c, 1), np.nan))
    # ablation on task-like sequences
    seqs, tgts = task_sequences(rng, m, counts["ablation"])
    fx.put("abl.tokens", seqs)
    fx.put("abl.targets", tgts)
    ab = ablation(m, seqs, tgts)
    fx.put("abl.clean", ab["clean"])
    fx.put("abl.head", ab["head"])
    if L > 1:
        fx.put("abl.path", ab["path"])
    # patching
    if m["task"] == "induction" and m["V"] == m["C"]:
        cl, co, tg = pairs(rng, n, V, counts["pairs"])
    else:
        cl, tg = task_sequences(rng, m, counts["pairs"])
        co, _ = task_sequences(rng, m, counts["pairs"])
    fx.put("pat.clean", cl)
    fx.put("pat.corrupt", co)
    fx.put("pat.targets", tg)
    pt = patching(m, cl, co, tg)
    fx.put("pat.outcomes", pt["outcomes"])
    fx.put("pat.head", pt["head"])
    if L > 1:
        fx.put("pat.path", pt["path"])
        fx.put("pat.named", pt["named"])
    # lens at the last scored position of the first sequence
    tok, tgt = seqs[0], tgts[0]
    pos = max(t for t in range(n) if tgt[t] >= 0)
    fx.put("lens.tokens", tok)
    fx.put("lens.at", [pos, tgt[pos]])
    for key, val in lens(m, tok, pos, tgt[pos]).items():
        fx.put("lens.%s" % key, val)
    fx.close()


def eig_fixture(rng):
    fx = Fixture(os.path.join(OUT, "eig.txt"),
                 "tools/gen_circuit_fixtures.py: eigenvalues (numpy eigvals) and singular values\n"
                 "of products A B^T (numpy svd), float64")
    mats = [rng.standard_normal((n, n)) for n in list(range(1, 13)) + [16, 24, 40]]
    mats += [np.zeros((5, 5)), np.eye(6), np.diag(np.arange(7.0)), np.triu(rng.standard_normal((8, 8))),
             np.array([[0.0, -1.0], [1.0, 0.0]]),
             rng.standard_normal((20, 4)) @ rng.standard_normal((4, 20))]
    # roots 1..6 (a companion matrix), and two rotations by different angles
    coef = np.poly(np.arange(1, 7))
    comp = np.diag(np.ones(5), -1)
    comp[0, :] = -coef[1:]
    mats.append(comp)
    rot = np.zeros((4, 4))
    rot[:2, :2] = [[np.cos(1), -np.sin(1)], [np.sin(1), np.cos(1)]]
    rot[2:, 2:] = [[0.5 * np.cos(2), -0.5 * np.sin(2)], [0.5 * np.sin(2), 0.5 * np.cos(2)]]
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    mats.append(q @ rot @ q.T)
    # cyclic shifts: the shifted QR step stalls on them until an exceptional shift
    for n in (3, 4, 5, 8):
        mats.append(np.roll(np.eye(n), 1, axis=0))
    for k, a in enumerate(mats):
        lam = sorted(np.linalg.eigvals(a), key=lambda z: (-abs(z), -z.imag))
        fx.put("eig.a.%d" % k, a)
        fx.put("eig.n.%d" % k, [a.shape[0]])
        fx.put("eig.w.%d" % k, [x for z in lam for x in (z.real, z.imag)])
    fx.put("eig.count", [len(mats)])
    # the last two: a head wider than the model (d < d_k), whose k - m
    # further singular values are 0; drawn from a generator of their own,
    # so that the fixtures after this one keep their numbers
    shapes = [(4, 1), (6, 3), (12, 4), (32, 16), (40, 8), (1, 4), (3, 6)]
    wide = np.random.default_rng(2026)
    for k, (m, kk) in enumerate(shapes):
        g = wide if m < kk else rng
        a, b = g.standard_normal((m, kk)), g.standard_normal((m, kk))
        if k == 2:
            b[:, 3] = b[:, 0]  # a column repeated: rank kk - 1
        fx.put("sv.shape.%d" % k, [m, kk])
        fx.put("sv.a.%d" % k, a)
        fx.put("sv.b.%d" % k, b)
        s = np.linalg.svd(a @ b.T, compute_uv=False)
        fx.put("sv.s.%d" % k, np.concatenate([s, np.zeros(max(0, kk - len(s)))])[:kk])
    fx.put("sv.count", [len(shapes)])
    fx.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2023)
    write_model(os.path.join(OUT, "small.model"), "induction", 2, 12, 3, 4, 10, 10, 12, {(0, 2)},
                np.random.default_rng(7))
    write_model(os.path.join(OUT, "onelayer.model"), "duplicate", 1, 8, 2, 4, 8, 2, 10, set(),
                np.random.default_rng(8))
    eig_fixture(rng)
    model_fixture("small", dict(probe=4, ablation=5, pairs=5), rng)
    model_fixture("onelayer", dict(probe=4, ablation=5, pairs=5), rng)
    if not os.path.exists(os.path.join(OUT, "induction.model")):
        sys.exit("tests/fixtures/circuits/induction.model is missing: see the README there")
    # the views are checked on the two small models; here they would be most of the file
    model_fixture("induction", dict(probe=6, ablation=8, pairs=8), rng, views=False)


if __name__ == "__main__":
    main()
