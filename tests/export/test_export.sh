#!/bin/sh
# test_export.sh - mha-tui --export from the outside. py: the script runs
# under Debian's numpy (/usr/bin/python3) and passes for configurations with
# masks, GQA, top-k, a head off and biases, printing one line per stage; a
# number changed in it (an intermediate, an input) makes it fail at that
# stage. Where numpy is missing the script is still compiled. svg: parses
# as XML and names every token and every head, the stage, the scale and the
# axes, and says which rows have no key.
set -u
bin=${MHA_TUI:?run under meson test, which sets MHA_TUI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
numpy=0
/usr/bin/python3 -c 'import numpy' 2>/dev/null && numpy=1

# A session with a head off, biases and masks (doc/SESSION.md).
cat >"$tmp/s.txt" <<'S'
mha-tui-session 1
tokens 4
d_model 4
heads 2
kv_heads 1
d_k 2
causal 1
top_k 2
scale 1
seed 7
heads_off 1
pad 0
bias 1
labels the "cat" <sat> a&b
X 4 4
0.5 -1 0.25 0
1 0 -0.5 2
-1.5 0.75 1 -0.25
0.3 0.2 0.1 -0.4
W_Q 4 4
1 0 0.5 0
0 1 0 0
0 0 1 0
0 -0.5 0 1
W_K 4 2
0.5 0.25
-0.25 0.5
1 -0.75
0.125 1
W_V 4 2
1 0
0 1
1 1
0 -1
W_O 4 4
1 0 0 0
0 1 0 0
0 0 1 0.5
0 0 0 1
b_Q 1 4
0.1 -0.2 0.3 0
b_K 1 2
0.05 0.1
b_V 1 2
-0.3 0.2
b_O 1 4
0 0.5 0 -0.5
end
S

# perturb FILE NAME: add 1 to the first number of array NAME in the script
perturb() {
	python3 - "$1" "$2" <<'PY'
import re, sys
path, name = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.index("\n" + name + " = np.array(") + 1
m = re.compile(r"-?[0-9][0-9.e+-]*").search(text, text.index("[", start))
text = text[:m.start()] + repr(float(m.group()) + 1.0) + text[m.end():]
open(path, "w").write(text)
PY
}

# export FORMAT NAME ARGS...: $tmp/NAME.FORMAT, or a failure and status 1
export_to() {
	format=$1 name=$2
	shift 2
	timeout 20 "$bin" --export "$format" "$tmp/$name.$format" "$@" </dev/null 2>"$tmp/err" && return 0
	fail "--export $format $*: $(cat "$tmp/err")"
	return 1
}

# py NAME ARGS...: export, run, and break it
py() {
	name=$1
	shift
	export_to py "$name" "$@" || return
	python3 -m py_compile "$tmp/$name.py" || fail "$name.py does not compile"
	[ "$numpy" -eq 1 ] || return 0
	if ! /usr/bin/python3 "$tmp/$name.py" >"$tmp/out"; then
		fail "$name.py fails on mha-tui's own numbers: $(cat "$tmp/out")"
		return
	fi
	for stage in Projection Reshape Scores Softmax "Weighted sum" Concat "W^O" "ok:"; do
		[ "$(grep -c "^$stage" "$tmp/out")" -eq 1 ] || fail "$name.py: no one line for $stage: $(cat "$tmp/out")"
	done
	[ "$name" = masks ] || return 0 # breaking one script is proof enough
	for what in "Y_tui W^O" "P_tui Softmax" "W_K Projection"; do
		set -- $what
		cp "$tmp/$name.py" "$tmp/bad.py"
		perturb "$tmp/bad.py" "$1"
		if /usr/bin/python3 "$tmp/bad.py" >"$tmp/out"; then
			fail "$name.py still passes with a number of $1 changed"
		elif ! grep -q "^$2 .*FAIL" "$tmp/out"; then
			fail "$name.py with $1 changed does not fail at $2: $(cat "$tmp/out")"
		fi
	done
}

py default
py masks --tokens 8 --d-model 12 --heads 4 --kv-heads 2 --causal --window 3 --pad 1,6 --top-k 2 --seed 5
py band --tokens 7 --window 2 --text "a b a c d e a" --bias --no-scale
py session --load "$tmp/s.txt"
py rope --pos rope --pos-offset 5 --causal --seed 3
py sinusoidal --pos sinusoidal --kv-text "le chat dort" --pad 2 --window 2 --seed 4

# py_stack NAME LAYERS ARGS...: a stack's script checks each layer's stages
# ("L1 Scores") and the stream after it; a number of layer 1's W^Q changed
# fails at layer 1's Projection and not before
py_stack() {
	name=$1 layers=$2
	shift 2
	export_to py "$name" "$@" || return
	python3 -m py_compile "$tmp/$name.py" || fail "$name.py does not compile"
	[ "$numpy" -eq 1 ] || return 0
	if ! /usr/bin/python3 "$tmp/$name.py" >"$tmp/out"; then
		fail "$name.py fails on mha-tui's own numbers: $(cat "$tmp/out")"
		return
	fi
	l=0
	while [ "$l" -lt "$layers" ]; do
		for stage in Projection Scores Softmax "Weighted sum" Concat "W^O" Residual; do
			[ "$(grep -c "^L$l $stage" "$tmp/out")" -eq 1 ] || fail "$name.py: no one line for L$l $stage: $(cat "$tmp/out")"
		done
		l=$((l + 1))
	done
	cp "$tmp/$name.py" "$tmp/bad.py"
	perturb "$tmp/bad.py" W_Q_1
	if /usr/bin/python3 "$tmp/bad.py" >"$tmp/out"; then
		fail "$name.py still passes with a number of layer 1's W^Q changed"
	elif ! grep -q "^L1 Projection .*FAIL" "$tmp/out" || grep -q "^L0 .*FAIL" "$tmp/out"; then
		fail "$name.py with layer 1's W^Q changed does not fail at L1 Projection alone: $(cat "$tmp/out")"
	fi
}

py_stack layers 3 --layers 3 --pos learned --bias --seed 6
py_stack layers_cross_rope 2 --layers 2 --pos rope --kv-tokens 4 --top-k 2 --heads 2 --seed 7

# svg NAME STAGE ARGS...: well-formed, and names what a reader needs
svg() {
	name=$1 stage=$2
	shift 2
	export_to svg "$name" --stage "$stage" "$@" || return
	timeout 20 "$bin" --dump json "$@" </dev/null >"$tmp/$name.json" 2>/dev/null
	python3 - "$tmp/$name.svg" "$tmp/$name.json" "$stage" <<'PY' || fail "svg $name"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
dump = json.load(open(sys.argv[2]))
texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
alltext = "\n".join(texts)
bad = []
for tok in dump["tokens"]:
    if texts.count(tok) < 2 * dump["config"]["heads"]:
        bad.append("token %r not on both axes of every head" % tok)
for i in range(dump["config"]["heads"]):
    if not any(t.startswith("head %d " % i) for t in texts):
        bad.append("no title for head %d" % i)
for need in ("queries", "keys", "legend"):
    if need not in alltext:
        bad.append("does not say %r" % need)
stage = "Scores" if sys.argv[3] == "scores" else "Softmax"
if not alltext.startswith(stage):
    bad.append("the stage is not named first: %r" % texts[0])
dead = sum(len(h["dead_rows"]) for h in dump["heads"])
if alltext.count("no key: row is 0") != dead:
    bad.append("%d dead rows, %d notes" % (dead, alltext.count("no key")))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

svg weights weights --tokens 6 --heads 4 --kv-heads 2 --top-k 2
svg scores scores --causal --window 2
svg dead weights --pad 0 --causal --text "the cat sat"
svg session weights --load "$tmp/s.txt"
svg wide scores --tokens 64 --d-model 8 --heads 8 --causal
# cross-attention: the source's words across, the queries' down
export_to svg cross --stage weights --text "the cat sat" --kv-text "le chat dort sur" --pad 3 && \
	python3 - "$tmp/cross.svg" <<'PY' || fail "svg cross: the source's words are not the keys"
import sys
import xml.etree.ElementTree as ET
texts = ["".join(t.itertext()) for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
bad = [w for w in ("le", "chat", "dort", "sur", "the", "cat", "sat") if texts.count(w) != 4]
bad += [] if any("keys (source)" in t for t in texts) else ["no 'keys (source)' axis"]
print(bad)
sys.exit(1 if bad else 0)
PY

[ "$failed" -eq 0 ] && echo "ok: exports check themselves and read back"
exit $((failed > 0))
