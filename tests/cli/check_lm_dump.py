#!/usr/bin/python3
"""check_lm_dump.py DUMP.json SOURCE_ROOT [--reference] - checks the language model's
JSON dump (`mha-tui --dump json --text "..." --model`, doc/DUMP.md "The
language model's dump"): its keys and shapes; every layer is a one-layer
dump that tests/cli/check_dump.py accepts (its own float64 recomputation);
the residual stream runs through the layers (layer l+1's X = layer l's X +
its output; "residual" = the last X + output); "next" holds five tokens a
position, most probable first; and, when the sentence is one of
tests/fixtures/lm/next.txt's, "next" agrees with tools/gen_lm_fixtures.py's
float64 numpy forward to 1e-4. Exit 0, or 1 naming the first difference.
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print("check_lm_dump: " + msg)
    sys.exit(1)


def main():
    path, root = sys.argv[1], sys.argv[2]
    d = json.load(open(path))
    keys = ["model", "tokens", "words", "ids", "layers", "residual", "next"]
    if list(d) != keys:
        fail("keys %s, want %s" % (list(d), keys))
    m = d["model"]
    n = len(d["tokens"])
    if not (len(d["words"]) == len(d["ids"]) == len(d["next"]) == n >= 1):
        fail("tokens, words, ids and next differ in length")
    if len(d["layers"]) != m["layers"]:
        fail("%d layers, the model has %d" % (len(d["layers"]), m["layers"]))
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_dump.py")
    for l, layer in enumerate(d["layers"]):
        want = {"tokens": n, "d_model": m["d_model"], "heads": m["heads"], "kv_heads": m["heads"],
                "d_k": m["d_k"], "causal": True, "top_k": 0, "scale": True}
        if layer["tokens"] != d["tokens"]:
            fail("layer %d's tokens differ from the dump's" % l)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(layer, f)
        try:
            r = subprocess.run([sys.executable, checker, f.name, json.dumps(want)], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        if r.returncode != 0:
            fail("layer %d: check_dump.py: %s" % (l, (r.stdout + r.stderr).strip()[:400]))
    xs = [layer["X"] for layer in d["layers"]] + [d["residual"]]
    for l, layer in enumerate(d["layers"]):
        for a, y, b in zip(xs[l], layer["output"], xs[l + 1]):
            for av, yv, bv in zip(a, y, b):
                if abs(av + yv - bv) > 1e-5 * max(1.0, abs(bv)):
                    fail("the residual stream: x_%d + layer %d's output is not x_%d" % (l, l, l + 1))
    for i, row in enumerate(d["next"]):
        ps = [e["p"] for e in row]
        if len(row) != 5 or any(set(e) != {"token", "p"} for e in row):
            fail("next[%d] is not five {token, p}" % i)
        if any(a < b for a, b in zip(ps, ps[1:])) or sum(ps) > 1 + 1e-6 or min(ps) < 0:
            fail("next[%d]: probabilities not descending in [0, 1]: %s" % (i, ps))
    # the numpy reference, when the sentence is one of its
    vocab = open(os.path.join(root, "assets", "lm.vocab")).read().split("\n")[2:]
    text, rows, matched = None, {}, False
    for line in open(os.path.join(root, "tests", "fixtures", "lm", "next.txt")):
        line = line.rstrip("\n")
        if line.startswith("sentence "):
            text, rows = line[9:], {}
        elif line.startswith("ids ") and [int(x) for x in line[4:].split()] == d["ids"]:
            matched = text
        elif line.startswith("next ") and matched == text:
            f = line.split()
            i = int(f[1])
            for k in range(5):
                tok, p = vocab[int(f[2 + 2 * k])], float(f[3 + 2 * k])
                got = {e["token"]: e["p"] for e in d["next"][i]}
                if tok in got and abs(got[tok] - p) > 1e-4:
                    fail("next[%d]: p(%s) %g, numpy %g" % (i, tok, got[tok], p))
                if k == 0 and d["next"][i][0]["token"] != tok and abs(d["next"][i][0]["p"] - p) > 1e-6:
                    fail("next[%d]: most probable %s, numpy %s" % (i, d["next"][i][0]["token"], tok))
    if len(sys.argv) > 3 and sys.argv[3] == "--reference" and not matched:
        fail("the sentence is not one of tests/fixtures/lm/next.txt's")
    print("check_lm_dump: %d tokens, %d layers%s" % (n, len(d["layers"]), ", next as numpy's" if matched else ""))


if __name__ == "__main__":
    main()
