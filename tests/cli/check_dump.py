#!/usr/bin/env python3
"""check_dump.py - check one `mha-tui --dump json` output, with the standard
library only (no numpy: the test suite must not need it).

Usage: check_dump.py DUMP.json EXPECTED_CONFIG_JSON

Checks that the dump parses as JSON, has every documented key with the
shape its configuration implies, that its config matches the expected
fields, that the counts follow the formulas of doc/FACTS.md, and (below a size
limit) that every intermediate of every layer agrees with attention
recomputed here in float64 from the dump's own inputs (X, X_kv, P_pos, each
layer's W's; positions, RoPE, cross-attention and the residual stream
written again here from doc/FACTS.md), to 1e-5 relative to each tensor's
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


def keys_of(cfg):
    """Keys per query row: the source's kv_tokens with cross-attention, else the tokens."""
    return cfg.get("kv_tokens", 0) or cfg["tokens"]


def visible_key(cfg, r, t):
    """Does query r see key t? Causal, window (causal: r-w+1..r; else a
    band |r-t| < w), padding keys, and the custom mask's hidden cells. With
    cross-attention t is a source token (positions of both from 0)."""
    w = cfg["window"]
    return not ((cfg["causal"] and t > r) or (w > 0 and abs(r - t) >= w)
                or t in cfg["pad"] or [r, t] in cfg["hidden"])


def add_bias(a, b):
    return [[x + y for x, y in zip(row, b)] for row in a] if b is not None else a


def positions(cfg, learned):
    """PE (n, d) added to X: sinusoidal PE[p, 2i] = sin(p / 10000^(2i/d)),
    PE[p, 2i+1] = cos(same), p = pos_offset + t; the learned P; else 0."""
    n, d = cfg["tokens"], cfg["d_model"]
    if cfg.get("pos") == "learned":
        return [list(r) for r in learned]
    pe = [[0.0] * d for _ in range(n)]
    if cfg.get("pos") == "sinusoidal":
        for t in range(n):
            p = cfg["pos_offset"] + t
            for col in range(d):
                angle = p / 10000.0 ** ((col - col % 2) / d)
                pe[t][col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return pe


def rope(cfg, x, heads):
    """Row r's head blocks: columns (2i, 2i+1) turned by (pos_offset + r) * 10000^(-2i/dk)."""
    dk = cfg["d_k"]
    out = [list(row) for row in x]
    for r, row in enumerate(x):
        p = cfg["pos_offset"] + r
        for hd in range(heads):
            for i in range(dk // 2):
                angle = p * 10000.0 ** (-2.0 * i / dk)
                a, b = row[hd * dk + 2 * i], row[hd * dk + 2 * i + 1]
                out[r][hd * dk + 2 * i] = a * math.cos(angle) - b * math.sin(angle)
                out[r][hd * dk + 2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
    return out


def attention(cfg, x, wq, wk, wv, wo, b=None, xkv=None):
    """One layer of multi-head attention from doc/FACTS.md, float64, every
    stage, on the layer's input x; K and V from xkv with cross-attention;
    b: the biases {"b_Q": .., "b_K": .., "b_V": .., "b_O": ..} or None."""
    n, h, g, dk = cfg["tokens"], cfg["heads"], cfg["kv_heads"], cfg["d_k"]
    nk = keys_of(cfg)
    b = b or {}
    src = xkv if cfg.get("kv_tokens") else x
    q, k, v = (add_bias(matmul(x, wq), b.get("b_Q")), add_bias(matmul(src, wk), b.get("b_K")),
               add_bias(matmul(src, wv), b.get("b_V")))
    out = dict(Q=q, K=k, V=v, x_in=x)
    qs, ks = q, k
    if cfg.get("pos") == "rope":
        qs, ks = rope(cfg, q, h), rope(cfg, k, g)
        out.update(Q_rot=qs, K_rot=ks)
    s = 1.0 / math.sqrt(dk) if cfg["scale"] else 1.0
    heads = []
    kept = []  # each head's kept keys of each row, after top-k
    concat = [[0.0] * (h * dk) for _ in range(n)]
    for i in range(h):
        j = i // (h // g)
        qi, kj, vj = cols(qs, i * dk, (i + 1) * dk), cols(ks, j * dk, (j + 1) * dk), cols(v, j * dk, (j + 1) * dk)
        scores = [[math.fsum(a * b for a, b in zip(qr, kr)) * s for kr in kj] for qr in qi]
        weights = []
        for r in range(n):
            keep = [t for t in range(nk) if visible_key(cfg, r, t)]
            if 0 < cfg["top_k"] < len(keep):
                keep = sorted(keep, key=lambda t: (-scores[r][t], t))[:cfg["top_k"]]
            kept.append(tuple(sorted(keep)))
            if not keep:
                weights.append([0.0] * nk)
                continue
            m = max(scores[r][t] for t in keep)
            e = {t: math.exp(scores[r][t] - m) for t in keep}
            z = math.fsum(e.values())
            weights.append([e[t] / z if t in e else 0.0 for t in range(nk)])
        o = matmul(weights, vj)
        heads.append({"scores": scores, "weights": weights, "output": o})
        if i not in cfg["heads_off"]:
            for r in range(n):
                concat[r][i * dk:(i + 1) * dk] = o[r]
    y = add_bias(matmul(concat, wo), b.get("b_O"))
    out.update(heads=heads, concat=concat, kept=kept, output=y,
               x_out=[[a + c for a, c in zip(ra, rc)] for ra, rc in zip(x, y)])
    return out


def stack(cfg, inputs):
    """Every layer: x_0 = X + PE, x_l+1 = x_l + Y_l. inputs: X, X_kv, P_pos
    and "layers", each with W_Q .. W_O (and b_Q .. b_O)."""
    pe = positions(cfg, inputs.get("P_pos"))
    x = [[a + p for a, p in zip(ra, rp)] for ra, rp in zip(inputs["X"], pe)]
    out = []
    for lw in inputs["layers"]:
        biases = {k: lw[k][0] for k in BIASES} if cfg["bias"] else None
        a = attention(cfg, x, lw["W_Q"], lw["W_K"], lw["W_V"], lw["W_O"], biases, inputs.get("X_kv"))
        out.append(a)
        x = a["x_out"]
    return out, pe


BIASES = ["b_Q", "b_K", "b_V", "b_O"]
WEIGHTS = ["W_Q", "W_K", "W_V", "W_O"]


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
    nk, layers = keys_of(cfg), cfg.get("layers", 1)
    want_params = {"W_Q": d * h * dk, "W_K": d * g * dk, "W_V": d * g * dk, "W_O": h * dk * d}
    want_params["total"] = sum(want_params.values())
    pe_add = n * d if cfg.get("pos") in ("sinusoidal", "learned") else 0
    want_flops = {
        "projection": 2 * n * d * h * dk + 2 * nk * d * 2 * g * dk,
        "scores": 2 * n * nk * dk * h,
        "softmax": 5 * n * nk * h,
        "weighted_sum": 2 * n * nk * dk * h,
        "output": 2 * n * h * dk * d,
        # PE added to X; RoPE's 2x2 rotation of each pair of Q and K: 3 FLOPs a value
        "position": pe_add + (3 * (n * h * dk + nk * g * dk) if cfg.get("pos") == "rope" else 0),
    }
    want_flops["total"] = sum(want_flops.values())
    if counts.get("params") != want_params:
        problem("counts.params %s, want %s" % (counts.get("params"), want_params))
    if counts.get("flops") != want_flops:
        problem("counts.flops %s, want %s" % (counts.get("flops"), want_flops))
    want_stack = {"layers": layers, "params": layers * want_params["total"],
                  "flops": layers * (want_flops["total"] - pe_add) + pe_add + layers * n * d}
    if counts.get("stack") != want_stack:
        problem("counts.stack %s, want %s" % (counts.get("stack"), want_stack))
    visible = [sum(visible_key(cfg, r, t) for t in range(nk)) for r in range(n)]
    kept = [min(cfg["top_k"], v) if cfg["top_k"] > 0 else v for v in visible]
    saving = 4 * h * dk * (sum(visible) - sum(kept))
    want_sparse = {"pairs_visible": sum(visible), "pairs_kept": sum(kept),
                   "scores_masked": 2 * h * dk * (n * nk - sum(visible)),
                   "weighted_skippable": 2 * h * dk * (n * nk - sum(kept)),
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


def check_heads(cfg, heads, where):
    """Each head object's keys, indices and shapes. False when one is off."""
    n, h, g, dk, nk = cfg["tokens"], cfg["heads"], cfg["kv_heads"], cfg["d_k"], keys_of(cfg)
    if not isinstance(heads, list) or len(heads) != h:
        problem("%s: want a list of %d objects" % (where, h))
        return False
    ok = True
    for i, hd in enumerate(heads):
        want_keys = {"head", "kv_head", "on", "scores", "weights", "output", "dead_rows"}
        if not isinstance(hd, dict) or set(hd) != want_keys:
            problem("%s[%d]: keys %s, want %s" % (where, i, sorted(hd) if isinstance(hd, dict) else hd,
                                                   sorted(want_keys)))
            return False
        if hd["head"] != i or hd["kv_head"] != i // (h // g):
            problem("%s[%d]: head %r kv_head %r, want %d %d"
                    % (where, i, hd["head"], hd["kv_head"], i, i // (h // g)))
        if hd["on"] != (i not in cfg["heads_off"]):
            problem("%s[%d].on = %r" % (where, i, hd["on"]))
        dead = [r for r in range(n) if not any(visible_key(cfg, r, t) for t in range(nk))]
        if hd["dead_rows"] != dead:
            problem("%s[%d].dead_rows = %r, want %r (rows with no visible key)"
                    % (where, i, hd["dead_rows"], dead))
        ok &= expect_shape("%s[%d].scores" % (where, i), hd["scores"], n, nk)
        ok &= expect_shape("%s[%d].weights" % (where, i), hd["weights"], n, nk)
        ok &= expect_shape("%s[%d].output" % (where, i), hd["output"], n, dk)
    return ok


def layer_keys(cfg):
    """The keys of one object of "layers", as doc/DUMP.md lists them."""
    keys = ["layer"] + WEIGHTS + (BIASES if cfg["bias"] else []) + ["x_in", "Q", "K", "V"]
    if cfg.get("pos") == "rope":
        keys += ["Q_rot", "K_rot"]
    return keys + ["heads", "concat", "output", "x_out"]


def check(dump, expected):
    cfg0 = dump.get("config", {})
    keys = ["config", "tokens", "counts", "X", "PE", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V",
            "mask", "heads", "concat", "output", "layers"]
    if cfg0.get("bias"):
        keys += BIASES
    if cfg0.get("kv_tokens"):
        keys += ["kv_tokens", "X_kv"]
    if cfg0.get("pos") == "learned":
        keys.append("P_pos")
    if cfg0.get("pos") == "rope":
        keys += ["Q_rot", "K_rot"]
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
    m, nk, layers = cfg["kv_tokens"], keys_of(cfg), cfg["layers"]
    toks = dump["tokens"]
    if not (isinstance(toks, list) and len(toks) == n and all(isinstance(t, str) and t for t in toks)):
        problem("tokens %r: want %d non-empty strings" % (toks, n))
    if m and not (isinstance(dump["kv_tokens"], list) and len(dump["kv_tokens"]) == m):
        problem("kv_tokens %r: want %d source tokens" % (dump["kv_tokens"], m))
    check_counts(cfg, dump["counts"])
    shapes = {"X": (n, d), "PE": (n, d), "W_Q": (d, h * dk), "W_K": (d, g * dk), "W_V": (d, g * dk),
              "W_O": (h * dk, d), "Q": (n, h * dk), "K": (nk, g * dk), "V": (nk, g * dk),
              "concat": (n, h * dk), "output": (n, d)}
    if m:
        shapes["X_kv"] = (m, d)
    if cfg["pos"] == "learned":
        shapes["P_pos"] = (n, d)
    if cfg["pos"] == "rope":
        shapes.update(Q_rot=(n, h * dk), K_rot=(nk, g * dk))
    ok = all([expect_shape(k, dump[k], *rc) for k, rc in shapes.items()])
    if cfg["pos"] in ("none", "rope") and ok and any(v != 0 for r in dump["PE"] for v in r):
        problem("PE is not 0 with pos %s" % cfg["pos"])
    heads = dump["heads"]
    if not check_heads(cfg, heads, "heads"):
        return
    for i, hd in enumerate(heads):
        ok &= all(expect_shape("heads[%d].%s" % (i, k), hd[k], *rc)
                  for k, rc in (("scores", (n, nk)), ("weights", (n, nk)), ("output", (n, dk))))
    # layers: one object per layer; layer 0's numbers are the top level's
    lays = dump["layers"]
    if not isinstance(lays, list) or len(lays) != layers:
        problem("layers: want a list of %d objects" % layers)
        return
    for l, lay in enumerate(lays):
        if not isinstance(lay, dict) or list(lay) != layer_keys(cfg):
            problem("layers[%d]: keys %s, want %s" % (l, list(lay) if isinstance(lay, dict) else lay,
                                                     layer_keys(cfg)))
            return
        if lay["layer"] != l:
            problem("layers[%d].layer = %r" % (l, lay["layer"]))
        ok &= check_heads(cfg, lay["heads"], "layers[%d].heads" % l)
        for k in ("x_in", "x_out"):
            ok &= expect_shape("layers[%d].%s" % (l, k), lay[k], n, d)
    for k in WEIGHTS + ["Q", "K", "V", "heads", "concat", "output"] + (BIASES if cfg["bias"] else []) \
            + (["Q_rot", "K_rot"] if cfg["pos"] == "rope" else []):
        if lays[0][k] != dump[k]:
            problem("layers[0].%s differs from the top level's %s" % (k, k))
    want_mask = [[int(visible_key(cfg, r, t)) for t in range(nk)] for r in range(n)]
    if dump["mask"] != want_mask:
        problem("mask %r, want %r" % (dump["mask"], want_mask))
    if not ok:
        return
    dead = [r for r in range(n) if not any(want_mask[r])]
    for lay in lays:
        for i, hd in enumerate(lay["heads"]):
            for r in range(n):
                if any(hd["weights"][r][t] != 0 for t in range(nk) if not want_mask[r][t]):
                    problem("layer %d heads[%d].weights row %d: non-zero where the mask hides the key"
                            % (lay["layer"], i, r))
                total = math.fsum(hd["weights"][r])
                if abs(total - (0.0 if r in dead else 1.0)) > 1e-5:
                    problem("layer %d heads[%d].weights row %d sums to %.9g" % (lay["layer"], i, r, total))
    if cfg["causal"]:
        for i, hd in enumerate(heads):
            for r in range(n):
                if any(hd["weights"][r][t] != 0 for t in range(r + 1, n)):
                    problem("heads[%d].weights row %d: non-zero above the diagonal" % (i, r))
    if dump["counts"]["stack"]["params"] > RECOMPUTE_MAX_PARAMS:
        return
    if cfg["bias"]:
        want_len = {"b_Q": h * dk, "b_K": g * dk, "b_V": g * dk, "b_O": d}
        for lay in lays:
            for k, ln in want_len.items():
                if not expect_shape("layers[%d].%s" % (lay["layer"], k), lay[k], 1, ln):
                    return
    ref, pe = stack(cfg, inputs_of(cfg, dump))
    compare("PE", dump["PE"], pe)
    for l, (lay, a) in enumerate(zip(lays, ref)):
        for k in ("x_in", "Q", "K", "V", "concat", "output", "x_out") + \
                (("Q_rot", "K_rot") if cfg["pos"] == "rope" else ()):
            compare("layers[%d].%s" % (l, k), lay[k], a[k])
        for i in range(h):
            for k in ("scores", "weights", "output"):
                compare("layers[%d].heads[%d].%s" % (l, i, k), lay["heads"][i][k], a["heads"][i][k])
        if l + 1 < len(lays) and lays[l + 1]["x_in"] != lay["x_out"]:
            problem("layers[%d].x_in is not layers[%d].x_out: the stream broke" % (l + 1, l))
    if "grad" in dump:
        check_grad(cfg, dump)


def inputs_of(cfg, dump):
    """The inputs the dump holds: X, X_kv, P_pos and every layer's W's (and biases)."""
    inputs = {"X": dump["X"], "layers": [{k: lay[k] for k in WEIGHTS + (BIASES if cfg["bias"] else [])}
                                         for lay in dump["layers"]]}
    for k in ("X_kv", "P_pos"):
        if k in dump:
            inputs[k] = dump[k]
    return inputs


GRAD_SAMPLES = 12  # elements per tensor checked by finite differences


def check_grad(cfg, dump):
    """--grad: dL/dX, dL/dW_Q, ... (and dL/db_Q, ..., dL/dX_kv, dL/dP_pos) of
    L = 1/2 sum(Y^2), Y the last layer's output, in the forward's keys and
    shapes, every layer's under grad.layers; a spread of elements of each
    against float64 central finite differences of L recomputed here, leaving
    out an element whose step moves a top-k boundary (a tie: L has no
    derivative there, e.g. the wired workbench's equal scores)."""
    grad = dump["grad"]
    per_layer = WEIGHTS + (BIASES if cfg.get("bias") else [])
    shared = ["X"] + (["X_kv"] if cfg["kv_tokens"] else []) + (["P_pos"] if cfg["pos"] == "learned" else [])
    names = shared + per_layer + ["layers"]
    if not isinstance(grad, dict) or sorted(grad) != sorted(names):
        problem("grad: keys %s, want %s" % (sorted(grad) if isinstance(grad, dict) else grad, names))
        return
    if not isinstance(grad["layers"], list) or len(grad["layers"]) != cfg["layers"] or \
            any(not isinstance(gl, dict) or sorted(gl) != sorted(per_layer) for gl in grad["layers"]):
        problem("grad.layers: want %d objects with %s" % (cfg["layers"], per_layer))
        return
    if any(grad[k] != grad["layers"][0][k] for k in per_layer):
        problem("grad's top-level W's are not grad.layers[0]'s")
    inputs = inputs_of(cfg, dump)
    inputs = json.loads(json.dumps(inputs))  # a copy to perturb
    # (name, the input's matrix, its gradient)
    tensors = [(k, inputs[k], grad[k]) for k in shared]
    for l, gl in enumerate(grad["layers"]):
        tensors += [("layers[%d].%s" % (l, k), inputs["layers"][l][k], gl[k]) for k in per_layer]
    for name, a, ga in tensors:
        if not expect_shape("grad." + name, ga, len(a), len(a[0]) if a else 0):
            return

    def loss():
        """L, and the keys top-k kept (L is not differentiable where they change)."""
        out = stack(cfg, inputs)[0]
        return 0.5 * math.fsum(v * v for r in out[-1]["output"] for v in r), [o["kept"] for o in out]

    def largest(m):
        return max([1.0] + [abs(v) for r in m for v in r])

    kept = loss()[1]
    eps = 1e-6
    checked = 0
    samples = max(2, GRAD_SAMPLES // cfg["layers"])
    for name, a, ga in tensors:
        rows, ncols = len(a), len(a[0]) if a else 0
        total = rows * ncols
        # dL/db_K is 0 but for the float32 rounding of dK's column sums, which
        # grows with dK: a bias is held to 1e-3 of its matrix's largest too
        scale = largest(ga)
        if name.split(".")[-1].startswith("b_"):
            wname = name[:-3] + "W" + name[-2:]
            scale = max(scale, 1e-3 * largest(dict((n_, g_) for n_, _, g_ in tensors)[wname]))
        for t in range(min(samples, total)):
            e = (t * 7919) % total
            r, c = divmod(e, ncols)
            keep = a[r][c]
            a[r][c] = keep + eps
            lp, kp = loss()
            a[r][c] = keep - eps
            lm, km = loss()
            a[r][c] = keep
            if kp != kept or km != kept:
                continue  # a top-k tie at this point: no derivative to compare
            checked += 1
            fd = (lp - lm) / (2 * eps)
            if abs(fd - ga[r][c]) > 1e-4 * scale:
                problem("grad.%s[%d][%d]: %.9g, finite difference %.9g" % (name, r, c, ga[r][c], fd))
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
