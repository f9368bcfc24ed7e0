#!/usr/bin/env python3
"""check_dump.py - check one `mha-tui --dump json` output, with the standard
library only (no numpy: the test suite must not need it).

Usage: check_dump.py DUMP.json EXPECTED_CONFIG_JSON

Checks that the dump parses as JSON, has every documented key with the
shape its configuration implies, that its config matches the expected
fields, that the counts follow the formulas of doc/FACTS.md, and (below a size
limit) that every intermediate agrees with attention recomputed here in
float64 from the dump's own X and W's, to 1e-5 relative to each tensor's
largest magnitude. Masks (causal, window, padding, custom, top-k) are
recomputed here from the config's own fields. Every key printed must be
named in doc/DUMP.md by its path (`config.d_model`, `heads[i].weights`).
Prints one line per problem; exits 1 if any.
"""

import json
import math
import os
import re
import sys

RECOMPUTE_MAX_PARAMS = 200000  # pure Python: keep each check well under a second
REL_TOL = 1e-5

problems = []


def problem(msg):
    problems.append(msg)


def shape_of(a):
    """Rows x cols of a list of equal-length lists of numbers, or None."""
    if not isinstance(a, list) or not all(isinstance(r, list) for r in a):
        return None
    cols = {len(r) for r in a}
    if len(cols) > 1:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for r in a for v in r):
        return None
    return (len(a), cols.pop() if cols else 0)


def expect_shape(name, a, rows, cols):
    s = shape_of(a)
    if s != (rows, cols):
        problem("%s: shape %s, want %dx%d" % (name, s, rows, cols))
        return False
    return True


def matmul(a, b):
    bt = list(zip(*b))
    return [[math.fsum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def cols(a, lo, hi):
    return [row[lo:hi] for row in a]


def visible_key(cfg, r, t):
    """Does query r see key t? Causal, window (causal: r-w+1..r; else a
    band |r-t| < w), padding keys, and the custom mask's hidden cells."""
    w = cfg["window"]
    return not ((cfg["causal"] and t > r) or (w > 0 and abs(r - t) >= w)
                or t in cfg["pad"] or [r, t] in cfg["hidden"])


def add_bias(a, b):
    return [[x + y for x, y in zip(row, b)] for row in a] if b is not None else a


def attention(cfg, x, wq, wk, wv, wo, b=None):
    """Multi-head attention from doc/FACTS.md, float64, every stage; b: the
    biases {"b_Q": .., "b_K": .., "b_V": .., "b_O": ..} or None."""
    n, h, g, dk = cfg["tokens"], cfg["heads"], cfg["kv_heads"], cfg["d_k"]
    b = b or {}
    q, k, v = (add_bias(matmul(x, wq), b.get("b_Q")), add_bias(matmul(x, wk), b.get("b_K")),
               add_bias(matmul(x, wv), b.get("b_V")))
    s = 1.0 / math.sqrt(dk) if cfg["scale"] else 1.0
    heads = []
    kept = []  # each head's kept keys of each row, after top-k
    concat = [[0.0] * (h * dk) for _ in range(n)]
    for i in range(h):
        j = i // (h // g)
        qi, kj, vj = cols(q, i * dk, (i + 1) * dk), cols(k, j * dk, (j + 1) * dk), cols(v, j * dk, (j + 1) * dk)
        scores = [[math.fsum(a * b for a, b in zip(qr, kr)) * s for kr in kj] for qr in qi]
        weights = []
        for r in range(n):
            keep = [t for t in range(n) if visible_key(cfg, r, t)]
            if 0 < cfg["top_k"] < len(keep):
                keep = sorted(keep, key=lambda t: (-scores[r][t], t))[:cfg["top_k"]]
            kept.append(tuple(sorted(keep)))
            if not keep:
                weights.append([0.0] * n)
                continue
            m = max(scores[r][t] for t in keep)
            e = {t: math.exp(scores[r][t] - m) for t in keep}
            z = math.fsum(e.values())
            weights.append([e[t] / z if t in e else 0.0 for t in range(n)])
        out = matmul(weights, vj)
        heads.append({"scores": scores, "weights": weights, "output": out})
        if i not in cfg["heads_off"]:
            for r in range(n):
                concat[r][i * dk:(i + 1) * dk] = out[r]
    return dict(Q=q, K=k, V=v, heads=heads, concat=concat, kept=kept,
                output=add_bias(matmul(concat, wo), b.get("b_O")))


def compare(name, got, want):
    flat_w = [v for r in want for v in r]
    flat_g = [v for r in got for v in r]
    scale = max([1.0] + [abs(v) for v in flat_w])
    worst, at = 0.0, 0
    for i, (a, b) in enumerate(zip(flat_g, flat_w)):
        if abs(a - b) > worst:
            worst, at = abs(a - b), i
    if worst > REL_TOL * scale:
        problem("%s: worst element %d: got %.9g, want %.9g, |diff| %.3g > %.3g"
                % (name, at, flat_g[at], flat_w[at], worst, REL_TOL * scale))


def check_counts(cfg, counts):
    n, d, h, g, dk = cfg["tokens"], cfg["d_model"], cfg["heads"], cfg["kv_heads"], cfg["d_k"]
    want_params = {"W_Q": d * h * dk, "W_K": d * g * dk, "W_V": d * g * dk, "W_O": h * dk * d}
    want_params["total"] = sum(want_params.values())
    want_flops = {
        "projection": 2 * n * d * (h + 2 * g) * dk,
        "scores": 2 * n * n * dk * h,
        "softmax": 5 * n * n * h,
        "weighted_sum": 2 * n * n * dk * h,
        "output": 2 * n * h * dk * d,
    }
    want_flops["total"] = sum(want_flops.values())
    if counts.get("params") != want_params:
        problem("counts.params %s, want %s" % (counts.get("params"), want_params))
    if counts.get("flops") != want_flops:
        problem("counts.flops %s, want %s" % (counts.get("flops"), want_flops))
    visible = [sum(visible_key(cfg, r, t) for t in range(n)) for r in range(n)]
    kept = [min(cfg["top_k"], v) if cfg["top_k"] > 0 else v for v in visible]
    saving = 4 * h * dk * (sum(visible) - sum(kept))
    want_sparse = {"pairs_visible": sum(visible), "pairs_kept": sum(kept),
                   "scores_masked": 2 * h * dk * (n * n - sum(visible)),
                   "weighted_skippable": 2 * h * dk * (n * n - sum(kept)),
                   "sparse_saving": saving}
    got_sparse = dict(counts.get("sparse", {}))
    be = got_sparse.pop("selector_break_even", None)
    if got_sparse != want_sparse:
        problem("counts.sparse %s, want %s" % (got_sparse, want_sparse))
    want_be = saving / sum(visible) if sum(visible) else 0.0
    if be is None or abs(be - want_be) > 1e-6 * max(1.0, want_be):
        problem("counts.sparse.selector_break_even %r, want %r" % (be, want_be))
    want_kv = {"fp32": 8 * g * dk, "fp16": 4 * g * dk, "int8": 2 * g * dk}
    if counts.get("kv_cache_bytes_per_token") != want_kv:
        problem("counts.kv_cache_bytes_per_token %s, want %s"
                % (counts.get("kv_cache_bytes_per_token"), want_kv))
    if counts.get("kv_cache_per_token") != 2 * g * dk:
        problem("counts.kv_cache_per_token %s, want %d" % (counts.get("kv_cache_per_token"), 2 * g * dk))


def check(dump, expected):
    keys = ["config", "tokens", "counts", "X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V",
            "mask", "heads", "concat", "output"]
    if dump.get("config", {}).get("bias"):
        keys += ["b_Q", "b_K", "b_V", "b_O"]
    for k in keys:
        if k not in dump:
            problem("key %r missing" % k)
    if "grad" in dump:  # --grad: optional, checked by check_grad
        keys.append("grad")
    extra = set(dump) - set(keys)
    if extra:
        problem("undocumented keys %s" % sorted(extra))
    if problems:
        return
    cfg = dump["config"]
    for k, v in expected.items():
        if cfg.get(k) != v:
            problem("config.%s = %r, want %r" % (k, cfg.get(k), v))
    if cfg.get("d_v") != cfg.get("d_k"):
        problem("config.d_v %r differs from d_k %r" % (cfg.get("d_v"), cfg.get("d_k")))
    n, d, h, g, dk = cfg["tokens"], cfg["d_model"], cfg["heads"], cfg["kv_heads"], cfg["d_k"]
    toks = dump["tokens"]
    if not (isinstance(toks, list) and len(toks) == n and all(isinstance(t, str) and t for t in toks)):
        problem("tokens %r: want %d non-empty strings" % (toks, n))
    check_counts(cfg, dump["counts"])
    shapes = {"X": (n, d), "W_Q": (d, h * dk), "W_K": (d, g * dk), "W_V": (d, g * dk),
              "W_O": (h * dk, d), "Q": (n, h * dk), "K": (n, g * dk), "V": (n, g * dk),
              "concat": (n, h * dk), "output": (n, d)}
    ok = all([expect_shape(k, dump[k], *rc) for k, rc in shapes.items()])
    heads = dump["heads"]
    if not isinstance(heads, list) or len(heads) != h:
        problem("heads: want a list of %d objects" % h)
        return
    for i, hd in enumerate(heads):
        want_keys = {"head", "kv_head", "on", "scores", "weights", "output", "dead_rows"}
        if not isinstance(hd, dict) or set(hd) != want_keys:
            problem("heads[%d]: keys %s, want %s" % (i, sorted(hd) if isinstance(hd, dict) else hd,
                                                      sorted(want_keys)))
            return
        if hd["head"] != i or hd["kv_head"] != i // (h // g):
            problem("heads[%d]: head %r kv_head %r, want %d %d"
                    % (i, hd["head"], hd["kv_head"], i, i // (h // g)))
        if hd["on"] != (i not in cfg["heads_off"]):
            problem("heads[%d].on = %r" % (i, hd["on"]))
        dead = [r for r in range(n) if not any(visible_key(cfg, r, t) for t in range(n))]
        if hd["dead_rows"] != dead:
            problem("heads[%d].dead_rows = %r, want %r (rows with no visible key)"
                    % (i, hd["dead_rows"], dead))
        ok &= expect_shape("heads[%d].scores" % i, hd["scores"], n, n)
        ok &= expect_shape("heads[%d].weights" % i, hd["weights"], n, n)
        ok &= expect_shape("heads[%d].output" % i, hd["output"], n, dk)
    want_mask = [[int(visible_key(cfg, r, t)) for t in range(n)] for r in range(n)]
    if dump["mask"] != want_mask:
        problem("mask %r, want %r" % (dump["mask"], want_mask))
    if not ok:
        return
    for i, hd in enumerate(heads):
        for r in range(n):
            if any(hd["weights"][r][t] != 0 for t in range(n) if not want_mask[r][t]):
                problem("heads[%d].weights row %d: non-zero where the mask hides the key" % (i, r))
            total = math.fsum(hd["weights"][r])
            if abs(total - (0.0 if r in dead else 1.0)) > 1e-5:
                problem("heads[%d].weights row %d sums to %.9g" % (i, r, total))
    if cfg["causal"]:
        for i, hd in enumerate(heads):
            for r in range(n):
                if any(hd["weights"][r][t] != 0 for t in range(r + 1, n)):
                    problem("heads[%d].weights row %d: non-zero above the diagonal" % (i, r))
    if dump["counts"]["params"]["total"] > RECOMPUTE_MAX_PARAMS:
        return
    biases = None
    if cfg["bias"]:
        want_len = {"b_Q": h * dk, "b_K": g * dk, "b_V": g * dk, "b_O": d}
        for k, m in want_len.items():
            if not expect_shape(k, dump[k], 1, m):
                return
        biases = {k: dump[k][0] for k in want_len}
    ref = attention(cfg, dump["X"], dump["W_Q"], dump["W_K"], dump["W_V"], dump["W_O"], biases)
    for k in ("Q", "K", "V", "concat", "output"):
        compare(k, dump[k], ref[k])
    for i in range(h):
        for k in ("scores", "weights", "output"):
            compare("heads[%d].%s" % (i, k), heads[i][k], ref["heads"][i][k])
    if "grad" in dump:
        check_grad(cfg, dump)


GRAD_SAMPLES = 12  # elements per tensor checked by finite differences


def check_grad(cfg, dump):
    """--grad: dL/dX, dL/dW_Q, ... (and dL/db_Q, ... with biases) of
    L = 1/2 sum(Y^2), in the forward's keys and shapes; a spread of elements
    of each against float64 central finite differences of L recomputed here,
    leaving out an element whose step moves a top-k boundary (a tie: L has
    no derivative there, e.g. the wired workbench's equal scores)."""
    grad = dump["grad"]
    weights = ["X", "W_Q", "W_K", "W_V", "W_O"]
    bias_names = ["b_Q", "b_K", "b_V", "b_O"] if cfg.get("bias") else []
    names = weights + bias_names
    if not isinstance(grad, dict) or sorted(grad) != sorted(names):
        problem("grad: keys %s, want %s" % (sorted(grad) if isinstance(grad, dict) else grad, names))
        return
    for k in names:
        if not expect_shape("grad." + k, grad[k], len(dump[k]), len(dump[k][0]) if dump[k] else 0):
            return
    inputs = {k: [list(r) for r in dump[k]] for k in names}

    def loss():
        """L, and the keys top-k kept (L is not differentiable where they change)."""
        biases = {k: inputs[k][0] for k in bias_names} if bias_names else None
        a = attention(cfg, *(inputs[k] for k in weights), biases)
        return 0.5 * math.fsum(v * v for r in a["output"] for v in r), a["kept"]

    def largest(k):
        return max([1.0] + [abs(v) for r in grad[k] for v in r])

    kept = loss()[1]
    eps = 1e-6
    checked = 0
    for k in names:
        rows, cols = len(inputs[k]), len(inputs[k][0]) if inputs[k] else 0
        total = rows * cols
        # dL/db_K is 0 but for the float32 rounding of dK's column sums, which
        # grows with dK: a bias is held to 1e-3 of its matrix's largest too
        scale = max(largest(k), 1e-3 * largest("W" + k[1:]) if k.startswith("b_") else 0.0)
        for t in range(min(GRAD_SAMPLES, total)):
            e = (t * 7919) % total
            r, c = divmod(e, cols)
            keep = inputs[k][r][c]
            inputs[k][r][c] = keep + eps
            lp, kp = loss()
            inputs[k][r][c] = keep - eps
            lm, km = loss()
            inputs[k][r][c] = keep
            if kp != kept or km != kept:
                continue  # a top-k tie at this point: no derivative to compare
            checked += 1
            fd = (lp - lm) / (2 * eps)
            if abs(fd - grad[k][r][c]) > 1e-4 * scale:
                problem("grad.%s[%d][%d]: %.9g, finite difference %.9g" % (k, r, c, grad[k][r][c], fd))
    if not checked:
        problem("grad: every sampled element sits on a top-k tie; nothing compared")


DUMP_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "doc", "DUMP.md")


def key_paths(value, path=""):
    """Every key of the dump by its path as doc/DUMP.md writes it:
    config.d_model, counts.sparse.pairs_kept, heads[i].weights."""
    if isinstance(value, dict):
        for k, v in value.items():
            p = path + "." + k if path else k
            yield p
            if not (isinstance(v, list) and v and isinstance(v[0], list)):
                yield from key_paths(v, p)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        yield from key_paths(value[0], path + "[i]")


def check_documented(dump):
    """doc/DUMP.md names every key the dump prints, as `path`."""
    try:
        with open(DUMP_DOC) as f:
            named = set(re.findall(r"`([^`]+)`", f.read()))
    except OSError as e:
        problem("cannot read %s: %s" % (DUMP_DOC, e))
        return
    for p in key_paths(dump):
        if p not in named:
            problem("key %s is not named in doc/DUMP.md" % p)


def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def main():
    if len(sys.argv) != 3:
        print("usage: check_dump.py DUMP.json EXPECTED_CONFIG_JSON", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            dump = json.load(f, parse_constant=reject_constant)
    except (OSError, ValueError) as e:
        print("%s: not valid JSON: %s" % (sys.argv[1], e))
        return 1
    check(dump, json.loads(sys.argv[2]))
    check_documented(dump)
    for p in problems:
        print("%s: %s" % (sys.argv[1], p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
