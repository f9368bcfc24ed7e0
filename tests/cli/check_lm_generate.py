#!/usr/bin/python3
"""check_lm_generate.py DUMP.json MODEL - checks the "generated" tokens of
`mha-tui --dump json --text "..." --model --generate N` (doc/DUMP.md) against a
float64 forward of the model file written here from the formulas (python's
standard library only: the suite has no numpy): each token is the most probable
next token of the full forward over the text and the tokens generated before it
(greedy), with that probability to 1e-4; the cache's bytes, the step's FLOPs,
the recompute's and the read-out's follow from the shape. The decoder under
test uses a K/V cache a layer; this forward recomputes every row each time.
Exit 0, or 1 naming the first difference.
"""
import json
import math
import struct
import sys


def fail(msg):
    print("check_lm_generate: " + msg)
    sys.exit(1)


def read_model(path):
    data = open(path, "rb").read()
    head, _, rest = data.partition(b"\ndata float32le ")
    count_line, _, body = rest.partition(b"\n")
    count = int(count_line)
    flat = struct.unpack("<%df" % count, body[:4 * count])
    meta = dict(line.partition(" ")[::2] for line in head.decode().split("\n"))
    f = meta["shape"].split()
    s = dict(zip(f[0::2], map(int, f[1::2])))
    at = [0]

    def take(rows, cols):
        t = [list(flat[at[0] + r * cols:at[0] + (r + 1) * cols]) for r in range(rows)]
        at[0] += rows * cols
        return t
    L, d, h, dk, V, n = (s[k] for k in ("layers", "d_model", "heads", "d_k", "vocab", "tokens"))
    m = {"E": take(V, d), "P": take(n, d), "layers": []}
    for _ in range(L):
        m["layers"].append([take(d, h * dk), take(d, h * dk), take(d, h * dk), take(h * dk, d)])
    m["U"] = take(d, V)
    off = [int(x) for x in meta["heads_off"].split()[1:]]
    m.update(L=L, d=d, h=h, dk=dk, V=V, n=n, off=set(zip(off[0::2], off[1::2])))
    return m


def matmul(a, b):
    cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, c)) for c in cols] for row in a]


def last_probs(m, ids):
    """p(next | ids): every row recomputed, causal, then the last row's read-out"""
    n, h, dk = len(ids), m["h"], m["dk"]
    x = [[e + p for e, p in zip(m["E"][t], m["P"][i])] for i, t in enumerate(ids)]
    for l, (wq, wk, wv, wo) in enumerate(m["layers"]):
        q, k, v = matmul(x, wq), matmul(x, wk), matmul(x, wv)
        concat = [[0.0] * (h * dk) for _ in range(n)]
        for i in range(h):
            if (l, i) in m["off"]:
                continue
            c = range(i * dk, (i + 1) * dk)
            for r in range(n):
                s = [sum(q[r][j] * k[key][j] for j in c) / math.sqrt(dk) for key in range(r + 1)]
                mx = max(s)
                e = [math.exp(z - mx) for z in s]
                tot = sum(e)
                for j in c:
                    concat[r][j] = sum(e[key] / tot * v[key][j] for key in range(r + 1))
        y = matmul(concat, wo)
        x = [[a + b for a, b in zip(xr, yr)] for xr, yr in zip(x, y)]
    z = matmul([x[-1]], m["U"])[0]
    mx = max(z)
    e = [math.exp(v - mx) for v in z]
    tot = sum(e)
    return [v / tot for v in e]


def main():
    d = json.load(open(sys.argv[1]))
    m = read_model(sys.argv[2])
    gen = d.get("generated")
    if not gen:
        fail("no \"generated\" in the dump")
    ids = list(d["ids"])
    L, dm, h, V = m["L"], m["d"], m["h"], m["V"]
    for k, g in enumerate(gen):
        p = last_probs(m, ids)
        best = max(range(V), key=lambda t: (p[t], -t))
        if g["id"] != best and abs(p[g["id"]] - p[best]) > 1e-6:
            fail("step %d: token %s (id %d), the full forward's most probable is id %d" % (k, g["token"], g["id"], best))
        if abs(g["p"] - p[g["id"]]) > 1e-4:
            fail("step %d: p %g, the full forward %g" % (k, g["p"], p[g["id"]]))
        t = len(ids)
        if g["position"] != t:
            fail("step %d: position %d, want %d" % (k, g["position"], t))
        keys = t + 1
        # per layer: K and V rows of every key so far, float32
        if g["cache_bytes"] != L * 2 * h * m["dk"] * keys * 4:
            fail("step %d: cache_bytes %d" % (k, g["cache_bytes"]))
        # per layer: projections 2 d (h + 2h) dk, scores and sum 4 h dk keys, softmax 5 h keys, output 2 h dk d
        step = L * (2 * dm * 3 * h * m["dk"] + 4 * h * m["dk"] * keys + 5 * h * keys + 2 * h * m["dk"] * dm)
        if g["step_flops"] != step or g["recompute_flops"] != keys * step:
            fail("step %d: FLOPs %d / %d, want %d / %d" % (k, g["step_flops"], g["recompute_flops"], step, keys * step))
        if g["readout_flops"] != 2 * dm * V + 5 * V:
            fail("step %d: readout_flops %d" % (k, g["readout_flops"]))
        ids.append(g["id"])
    print("check_lm_generate: %d tokens as the full forward's argmax" % len(gen))


if __name__ == "__main__":
    main()
