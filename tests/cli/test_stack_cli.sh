#!/bin/sh
# test_stack_cli.sh - positions, cross-attention and layers from the
# outside (doc/DUMP.md): dumps of each (and their gradients) agree with
# check_dump.py's own float64 recomputation of every layer; every bad
# combination exits 2 with one line saying why; and two properties of the
# running program: with no positions, shuffling the tokens only shuffles
# Y's rows (and each P's rows and columns), and with RoPE, shifting every
# position leaves every score as it was. Apart from test_cli.sh, whose
# minute it would not fit in on a loaded machine.
set -u
. "$(cd "$(dirname "$0")" && pwd)/cli_lib.sh"

# Positions, cross-attention and layers (doc/DUMP.md): check_dump.py recomputes every layer.
check_dump sinusoidal '{"pos": "sinusoidal", "pos_offset": 3}' --pos sinusoidal --pos-offset 3 --seed 2
check_dump learned '{"pos": "learned", "layers": 1}' --pos learned --causal --seed 3
check_dump rope_gqa '{"pos": "rope", "kv_heads": 2}' --pos rope --heads 4 --kv-heads 2 --causal --top-k 3 --seed 4
check_dump rope_wired '{"pos": "rope", "seed": 0}' --pos rope
check_dump cross '{"kv_tokens": 5, "tokens": 4}' --tokens 4 --kv-tokens 5 --seed 5
check_dump cross_text '{"kv_tokens": 3}' --text "the cat sat on the mat" --kv-text "le chat dort" --seed 6
check_dump cross_masks '{"kv_tokens": 7, "pad": [1, 6], "window": 3, "top_k": 2}' \
	--tokens 5 --kv-tokens 7 --pad 1,6 --window 3 --top-k 2 --heads 4 --kv-heads 1 --bias --seed 7
check_dump cross_rope_offset '{"kv_tokens": 4, "pos": "rope", "pos_offset": 9}' \
	--kv-tokens 4 --pos rope --pos-offset 9 --seed 8
check_dump layers2 '{"layers": 2}' --layers 2 --seed 9
check_dump layers4_all '{"layers": 4, "pos": "learned", "kv_tokens": 3}' --layers 4 --pos learned \
	--kv-tokens 3 --bias --top-k 2 --heads 2 --d-model 8 --tokens 4 --seed 10
# the wired workbench (seed 0) in two layers: its scores are large by design (a gap of 3 per
# key), and a third layer's float32 softmax can drift past 1e-5 of float64's with a reference BLAS
check_dump layers_wired '{"layers": 2, "seed": 0}' --layers 2 --pos sinusoidal
check_dump layers3_sinusoidal '{"layers": 3}' --layers 3 --pos sinusoidal --seed 5
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["kv_tokens"] == ["le", "chat", "dort"] and len(d["X_kv"]) == 3))' "$tmp/cross_text.json"; then
	pass
else
	fail "--kv-text: the source's labels or X_kv are not its words"
fi
expect_error 2 "d_k must be even" --dump json --pos rope --d-model 10 --heads 2
expect_error 2 "--pos 'bogus'" --dump json --pos bogus
expect_error 2 "--pos-offset" --dump json --pos-offset 4
expect_error 2 "--pos-offset" --dump json --pos rope --pos-offset 65537
expect_error 2 "disagrees with --kv-text's 2 words" --dump json --kv-text "a b" --kv-tokens 3
expect_error 2 "--kv-text" --dump json --kv-text " "
expect_error 2 "--kv-tokens" --dump json --kv-tokens 65
expect_error 2 "--causal" --dump json --kv-tokens 3 --causal
expect_error 2 "not a source token" --dump json --kv-tokens 3 --pad 3
expect_error 2 "--top-k" --dump json --kv-tokens 3 --top-k 4
expect_error 2 "--layers 5 is out of range: allowed 1..4" --dump json --layers 5
expect_error 2 "--layers" --dump json --layers 0
expect_error 2 "--load" --dump json --load s.txt --layers 2
expect_error 2 "--pos is not for training" --train previous --pos rope
# the workbench shows a source: both token axes labelled, S n x M, the stage says whose tokens
run --export txt - --kv-text "le chat noir" --text "a b c d" --stage scores
grep -q "S₀ 4x3 = Q₀ 4x4 . K₀^T 4x3" "$tmp/out" || fail "--export txt with a source: S is not n x M"
grep -q "queries from X (4 tokens), keys and values from X_kv (3 tokens)" "$tmp/out" ||
	fail "--export txt with a source: the stage does not say whose tokens"
grep -q "^        le  chat  noir" "$tmp/out" || fail "--export txt with a source: S's columns are not X_kv's words"
grep -q "rows: queries from X, columns: keys from X_kv" "$tmp/out" || fail "--export txt: the heatmaps' axes"
# layers it shows: the screen names the layer it draws, and its input x_l
run --export txt - --layers 2
grep -q "layer 0: Q 6x16 = X 6x16" "$tmp/out" || fail "--export txt --layers 2: no layer on the screen"
run --export txt - --layers 2 --pos sinusoidal
grep -q "layer 0: Q 6x16 = x.* 6x16" "$tmp/out" || fail "--export txt --pos sinusoidal: layer 0 does not read x_0"

# Properties of the running program. With no positions attention is blind to
# order: the same words shuffled give the same rows of Y, shuffled, and each
# head's P with its rows and columns shuffled; with sinusoidal positions they
# do not. With RoPE a score depends only on the distance between the two
# positions: shifting every position by 37 leaves each score as it was (to float
# rounding), self- and cross-attention, while the rotated Q does move.
run --dump json --text "a b c d e" --seed 3 && cp "$tmp/out" "$tmp/order.json"
run --dump json --text "c a e b d" --seed 3 && cp "$tmp/out" "$tmp/shuffled.json"
run --dump json --text "a b c d e" --seed 3 --pos sinusoidal && cp "$tmp/out" "$tmp/order_pe.json"
run --dump json --text "c a e b d" --seed 3 --pos sinusoidal && cp "$tmp/out" "$tmp/shuffled_pe.json"
if python3 - "$tmp/order.json" "$tmp/shuffled.json" "$tmp/order_pe.json" "$tmp/shuffled_pe.json" <<'PY'
import json, sys
a, b, pa, pb = (json.load(open(p)) for p in sys.argv[1:])
perm = [a["tokens"].index(t) for t in b["tokens"]]  # row r of the shuffled run is row perm[r]
def permuted(x, y, cols=False):
    worst = 0.0
    for r, row in enumerate(y):
        src = x[perm[r]]
        for c, v in enumerate(row):
            worst = max(worst, abs(v - (src[perm[c]] if cols else src[c])))
    return worst
bad = []
if permuted(a["output"], b["output"]) > 1e-5:
    bad.append("pos none: shuffling the tokens did more than shuffle Y's rows")
for i in range(len(a["heads"])):
    if permuted(a["heads"][i]["weights"], b["heads"][i]["weights"], cols=True) > 1e-6:
        bad.append("pos none: head %d's P is not the shuffled P" % i)
if permuted(pa["output"], pb["output"]) < 1e-3:
    bad.append("pos sinusoidal: shuffling the tokens only shuffled Y's rows: positions did nothing")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then pass; else fail "the shuffle property"; fi
for extra in "--causal --heads 2" "--kv-tokens 5"; do
	run --dump json --pos rope --seed 4 $extra && cp "$tmp/out" "$tmp/rope0.json"
	run --dump json --pos rope --seed 4 --pos-offset 37 $extra && cp "$tmp/out" "$tmp/rope37.json"
	run --dump json --pos sinusoidal --seed 4 $extra && cp "$tmp/out" "$tmp/sin0.json"
	run --dump json --pos sinusoidal --seed 4 --pos-offset 37 $extra && cp "$tmp/out" "$tmp/sin37.json"
	if python3 - "$tmp/rope0.json" "$tmp/rope37.json" "$tmp/sin0.json" "$tmp/sin37.json" <<'PY'
import json, sys
r0, r37, s0, s37 = (json.load(open(p)) for p in sys.argv[1:])
def worst(a, b):
    return max(abs(x - y) for ha, hb in zip(a["heads"], b["heads"])
               for ra, rb in zip(ha["scores"], hb["scores"]) for x, y in zip(ra, rb))
big = max(abs(x) for h in r0["heads"] for r in h["scores"] for x in r)
bad = []
if worst(r0, r37) > 1e-5 * max(1.0, big):
    bad.append("rope: shifting every position by 37 moved a score by %g" % worst(r0, r37))
if max(abs(x - y) for ra, rb in zip(r0["Q_rot"], r37["Q_rot"]) for x, y in zip(ra, rb)) < 1e-3:
    bad.append("rope: the shift did not turn Q at all")
if worst(s0, s37) < 1e-3:
    bad.append("sinusoidal: shifting the positions left every score as it was")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	then pass; else fail "the rope shift property ($extra)"; fi
done

check_dump grad_rope '{"pos": "rope"}' --grad --pos rope --tokens 5 --d-model 8 --heads 2 --seed 11
check_dump grad_cross '{"kv_tokens": 4}' --grad --kv-tokens 4 --tokens 3 --d-model 8 --heads 4 \
	--kv-heads 2 --pad 2 --bias --seed 12
check_dump grad_layers '{"layers": 3, "pos": "learned"}' --grad --layers 3 --pos learned --tokens 4 \
	--d-model 8 --heads 2 --causal --seed 13
check_dump grad_layers_cross_rope '{"layers": 2, "kv_tokens": 3}' --grad --layers 2 --kv-tokens 3 \
	--pos rope --tokens 3 --d-model 8 --heads 2 --seed 14

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
