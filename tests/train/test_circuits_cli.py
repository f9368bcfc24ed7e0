#!/usr/bin/env python3
"""test_circuits_cli.py - `mha-tui --circuits` ($MHA_TUI) from the outside, with
the standard library only (the test suite must not need numpy).

For the three models of tests/fixtures/circuits: the JSON parses; it has the
keys doc/CIRCUITS.md promises with the shapes the model implies (heads with
layer, head, prefix_matching as an object from period to score, copying,
previous_token; composition with q, k, v as h x h matrices per pair of layers
and a baseline; patching; logit_lens); every key printed is named in
doc/CIRCUITS.md by its path; its figures are those of the numpy fixture
tools/gen_circuit_fixtures.py wrote for the same model (copying, singular
values, ranks, composition); for the trained model, what doc/CIRCUITS.md says
of it (layer-1 heads induction, K named). The tables name the path. Errors
exit 1 (unreadable or damaged model) or 2 (usage) with one line on stderr and
nothing on stdout. Every run has a timeout and stdin from /dev/null.
With the argument 'lm': the shipped language model instead (8 s of CPU:
suite perf). Prints one line per problem; exits 1 if any.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

problems = []


def problem(msg):
    problems.append(msg)


def load_fixture(path):
    values = {}
    for line in open(path):
        if line.startswith("#"):
            continue
        words = line.split()
        if len(words) >= 2:
            values[words[0]] = [float(w) for w in words[2:]]
    return values


def close(got, want, rel, what):
    if want is None or (isinstance(want, float) and math.isnan(want)):
        if got is not None:
            problem("%s: %r, want null" % (what, got))
        return
    if not isinstance(got, (int, float)) or abs(got - want) > rel * max(1.0, abs(want)):
        problem("%s: %r, want %.12g" % (what, got, want))


def paths(value, path, out):
    """Every key path, arrays of objects as [i]; arrays of numbers are leaves."""
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((path, k))
            paths(v, "%s.%s" % (path, k) if path else k, out)
    elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        for v in value:
            paths(v, path + "[i]", out)


def check_documented(doc_text, data):
    doc = doc_text.replace("[c]", "[i]")
    named = set(re.findall(r"`(\.?[A-Za-z_][A-Za-z0-9_.\[\]]*)`", doc))
    seen = set()
    found = []
    paths(data, "", found)
    for parent, key in found:
        full = "%s.%s" % (parent, key) if parent else key
        if full in seen:
            continue
        seen.add(full)
        # named itself, or an object whose keys are named below it
        if full in named or any(n.startswith(full + ".") or n.startswith(full + "[") for n in named):
            continue
        # a period of prefix_matching, or a field of a documented object ({loss, accuracy} ...)
        if parent in named and (key.isdigit() or "." + key in named):
            continue
        problem("key %s is not named in doc/CIRCUITS.md" % full)


def matrix(m, rows, cols, what):
    if not (isinstance(m, list) and len(m) == rows and all(isinstance(r, list) and len(r) == cols for r in m)):
        problem("%s: not a %d x %d matrix" % (what, rows, cols))
        return False
    return True


def check_json(data, doc_text, fx, induction):
    m = data.get("model", {})
    L, h, dk = m.get("layers"), m.get("heads"), m.get("d_k")
    if not all(isinstance(x, int) for x in (L, h, dk)):
        problem("model.layers, model.heads, model.d_k missing")
        return
    for key in ("settings", "heads", "composition", "ablation", "patching", "logit_lens"):
        if key not in data:
            problem("no key %s" % key)
    heads = data.get("heads", [])
    if len(heads) != L * h:
        problem("%d heads, want %d" % (len(heads), L * h))
    for k, hd in enumerate(heads[:L * h]):
        l, i = k // h, k % h
        if (hd.get("layer"), hd.get("head")) != (l, i):
            problem("heads[%d] is layer %r head %r, want %d %d" % (k, hd.get("layer"), hd.get("head"), l, i))
        pm = hd.get("prefix_matching")
        if not isinstance(pm, dict) or not pm or not all(p.isdigit() and isinstance(v, (int, float))
                                                         for p, v in pm.items()):
            problem("heads[%d].prefix_matching is not an object from period to score: %r" % (k, pm))
            pm = {}
        for key in ("copying", "previous_token"):
            if key not in hd:
                problem("heads[%d] has no %s" % (k, key))
        if not fx:
            continue
        close(hd.get("copying"), fx.get("copying.%d.%d" % (l, i), [None])[0], 1e-8, "heads[%d].copying" % k)
        for c in ("qk", "ov"):
            want = fx.get("%s_sv.%d.%d" % (c, l, i), [])
            got = hd.get(c, {}).get("singular_values", [])
            if len(got) != len(want):
                problem("heads[%d].%s.singular_values: %d values, want %d" % (k, c, len(got), len(want)))
            for j, (g, w) in enumerate(zip(got, want)):
                close(g, w, 1e-8, "heads[%d].%s.singular_values[%d]" % (k, c, j))
            close(hd.get(c, {}).get("rank"), fx.get("%s_rank.%d.%d" % (c, l, i), [None])[0], 0,
                  "heads[%d].%s.rank" % (k, c))
        if induction:
            if hd.get("induction") != (l == 1):
                problem("heads[%d].induction is %r" % (k, hd.get("induction")))
            if l == 1 and not all(v > 0.85 for v in pm.values()):
                problem("heads[%d].prefix_matching below 0.85: %r" % (k, pm))
    comp = data.get("composition", [])
    if len(comp) != L - 1:
        problem("%d composition entries, want %d" % (len(comp), L - 1))
    for c, cp in enumerate(comp):
        for key in ("q", "k", "v"):
            if not matrix(cp.get(key), h, h, "composition[%d].%s" % (c, key)):
                continue
            want = fx.get("comp.%s.%d" % (key, c), [])
            for a in range(h if fx else 0):
                for b in range(h):
                    # printed with 6 significant digits
                    close(cp[key][a][b], want[a * h + b], 1e-5, "composition[%d].%s[%d][%d]" % (c, key, a, b))
        base = cp.get("baseline", {})
        for key in ("q", "k", "v"):
            if not isinstance(base.get(key), (int, float)) or not 0 < base[key] < 1:
                problem("composition[%d].baseline.%s: %r" % (c, key, base.get(key)))
    pt = data.get("patching", {})
    if L > 1 and len(pt.get("paths", [])) != (L - 1) * h * (h + 1):
        problem("patching.paths: %d, want %d" % (len(pt.get("paths", [])), (L - 1) * h * (h + 1)))
    if induction:
        named = pt.get("named") or {}
        if named.get("input") != "k" or named.get("sender", {}).get("layer") != 0:
            problem("patching.named is %r, want layer 0 through k" % named)
        if not comp or comp[0]["k"][1][0] <= comp[0]["baseline"]["k"] + 2 * comp[0]["baseline"]["sd"]["k"]:
            problem("K-composition L0H1 -> L1H0 is not above the baseline")
    lens = data.get("logit_lens", {})
    if len(lens.get("residual", [])) != L + 1:
        problem("logit_lens.residual: %d entries, want %d" % (len(lens.get("residual", [])), L + 1))
    check_documented(doc_text, data)


def run(*args):
    """mha-tui ARGS: exit status, stdout, stderr. The timeout is for a hang,
    not for load: the language model's run took over 60 s at load 17."""
    try:
        p = subprocess.run([os.environ["MHA_TUI"]] + list(args), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def expect_error(status, text, *args):
    """Exit STATUS, one stderr line 'mha-tui: ...' holding TEXT, nothing on stdout."""
    rc, out, err = run(*args)
    what = "mha-tui %s" % " ".join(args)
    if rc != status:
        problem("%s: exit %d, want %d (%s)" % (what, rc, status, err[:200]))
    elif len(err.splitlines()) != 1 or not err.startswith("mha-tui: "):
        problem("%s: want one 'mha-tui: ' line on stderr: %r" % (what, err[:300]))
    elif text not in err:
        problem("%s: stderr does not mention %r: %r" % (what, text, err))
    elif out:
        problem("%s: wrote to stdout on error" % what)


def check_lm(root, doc_text):
    """The shipped language model: its JSON, named keys, words for its tokens,
    the views too large to print left null, and no path named where
    repeated random tokens change nothing it predicts."""
    rc, out, err = run("--circuits", os.path.join(root, "assets", "lm.model"), "--json")
    if rc != 0 or err:
        problem("--circuits lm.model --json: exit %d, stderr %r" % (rc, err[:300]))
        return
    data = json.loads(out)
    check_json(data, doc_text, {}, False)
    m = data["model"]
    if (m["task"], m["vocab"], m["classes"]) != ("lm", 8192, 8192):
        problem("lm.model: model %r" % m)
    for hd in data["heads"]:
        mats = hd["matrices"]
        if mats["E_W_QK_E"] is not None or mats["E_W_OV_U"] is not None or mats["W_QK"] is None:
            problem("lm.model: heads[%d,%d].matrices: the V x V views print, or W_QK does not"
                    % (hd["layer"], hd["head"]))
        if not isinstance(hd["copying"], float) or not -1 <= hd["copying"] <= 1:
            problem("lm.model: copying %r" % hd["copying"])
    lens = data["logit_lens"]
    if len(lens.get("words", [])) != m["tokens"] or not all(isinstance(w, str) for w in lens["words"]):
        problem("lm.model: logit_lens.words is not the window's %d words" % m["tokens"])
    pt = data["patching"]
    gap = abs(pt["clean"]["log_prob"] - pt["corrupt"]["log_prob"])
    if (gap < 0.1) != (pt["named"] is None):
        problem("lm.model: clean and corrupt differ by %.3f nats, named %r" % (gap, pt["named"]))


def main():
    root = os.environ.get("MHA_SOURCE_ROOT")
    if not root or "MHA_TUI" not in os.environ:
        print("run under meson test, which sets MHA_TUI and MHA_SOURCE_ROOT")
        return 1
    fix = os.path.join(root, "tests", "fixtures", "circuits")
    doc_text = open(os.path.join(root, "doc", "CIRCUITS.md")).read()
    tmp = tempfile.mkdtemp()
    os.environ["XDG_STATE_HOME"] = os.path.join(tmp, "state")
    if sys.argv[1:] == ["lm"]:
        if os.environ.get("MHA_SANITIZE", "none") != "none":
            # the same code as the small models above, at a size that took
            # past 240 s under ASan with the reference BLAS
            print("skipped: the language model's circuits in a sanitizer build")
            return 77
        check_lm(root, doc_text)
        for p in problems:
            print(p)
        print("%d problems" % len(problems) if problems else "all checks passed")
        return 1 if problems else 0
    for model in ("induction", "small", "onelayer"):
        rc, out, err = run("--circuits", os.path.join(fix, model + ".model"), "--json")
        if rc != 0 or err:
            problem("--circuits %s.model --json: exit %d, stderr %r" % (model, rc, err[:300]))
            continue
        try:
            data = json.loads(out)
        except ValueError as e:
            problem("--circuits %s.model --json: not JSON: %s" % (model, e))
            continue
        before = len(problems)
        check_json(data, doc_text, load_fixture(os.path.join(fix, model + ".txt")), model == "induction")
        for k in range(before, len(problems)):
            problems[k] = "%s.model: %s" % (model, problems[k])
    # the tables
    rc, out, err = run("--circuits", os.path.join(fix, "induction.model"), "--position", "20")
    for want in ("the path: L0H1 -> layer 1 through K", "logit lens at position 20"):
        if rc != 0 or want not in out:
            problem("--circuits induction.model tables: no %r (exit %d, %r)" % (want, rc, err[:200]))
    if not re.search(r"^  L1H0 .* induction$", out, re.M):
        problem("--circuits induction.model tables: L1H0 is not called induction")
    # errors
    small = os.path.join(fix, "small.model")
    cut = os.path.join(tmp, "cut.model")
    with open(small) as f, open(cut, "w") as g:
        g.write("".join(f.readlines()[:20]))
    expect_error(1, "cannot open", "--circuits", os.path.join(tmp, "none.model"))
    wrong = os.path.join(tmp, "wrong-task.model")
    with open(os.path.join(fix, "onelayer.model")) as f, open(wrong, "w") as g:
        g.write(f.read().replace("task duplicate", "task induction", 1))
    expect_error(1, "but the model has 2 classes", "--circuits", wrong)
    expect_error(1, "cut.model:", "--circuits", cut)
    expect_error(2, "--position 12 is outside the model's context: allowed 0..11", "--circuits", small,
                 "--position", "12")
    expect_error(2, "--position", "--circuits", small, "--position", "x")
    expect_error(2, "--json and --position go with --circuits", "--json")
    expect_error(2, "--json and --position go with --circuits", "--dump", "json", "--position", "3")
    expect_error(2, "takes only --json and --position", "--circuits", small, "--tokens", "4")
    expect_error(2, "takes only --json and --position", "--circuits", small, "--load", "x")
    expect_error(2, "cannot be combined", "--circuits", small, "--dump", "json")
    expect_error(2, "cannot be combined", "--dump", "json", "--circuits", small)
    expect_error(2, "cannot be combined", "--circuits", small, "--train", "induction")
    expect_error(2, "--circuits needs a value", "--circuits")
    for p in problems[:40]:
        print(p)
    if len(problems) > 40:
        print("... %d more" % (len(problems) - 40))
    print("%s" % ("%d problems" % len(problems) if problems else "all checks passed"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
