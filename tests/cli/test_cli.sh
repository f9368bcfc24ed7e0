#!/bin/sh
# test_cli.sh - the real mha-tui binary ($MHA_TUI) from the outside:
# every usage error exits 2 with exactly one line on stderr naming the
# flag and nothing on stdout; --help and --version exit 0; an unreadable
# or corrupt --load file exits 1 with one "file..." line; and
# --dump json parses and agrees with check_dump.py's own float64
# recomputation for several configurations.
# Every run has a timeout and stdin from /dev/null: a case that wrongly
# reached the interactive screen fails instead of hanging.
set -u
. "$(cd "$(dirname "$0")" && pwd)/cli_lib.sh"

# ---- control characters in what a message quotes never reach the terminal ----
esc=$(printf '\033')
for case in "2 --${esc}[2Jx" "2 --tokens=${esc}[31m" "1 --load=/tmp/${esc}]0;title"; do
	status=${case%% *} args=${case#* }
	expect_error "$status" "?" "$args" --dump json
	if grep -q "$esc" "$tmp/err"; then
		fail "mha-tui $args: stderr holds an escape character"
	fi
done

# ---- usage errors: exit 2 ----
expect_error 2 --bogus --bogus
expect_error 2 --bogus --dump json --bogus=1
expect_error 2 "'-h'" -h
expect_error 2 "'tokens'" tokens
expect_error 2 --causal --causal=1
for flag in --tokens --d-model --heads --kv-heads --d-k --top-k --seed --load --lesson --lessons-dir --dump; do
	expect_error 2 "$flag needs a value" "$flag"
done
for flag in --tokens --d-model --heads --kv-heads --d-k --top-k --seed; do
	for value in abc 3x '' ' 3' 3.5 0x10 -1 99999999999999999999; do
		expect_error 2 "$flag" --dump json "$flag" "$value"
	done
done
expect_error 2 --tokens --dump json --tokens 0
expect_error 2 --tokens --dump json --tokens 65
expect_error 2 --d-model --dump json --d-model 1025
expect_error 2 --heads --dump json --heads 65
expect_error 2 --d-k --dump json --d-k 1025
expect_error 2 --kv-heads --dump json --kv-heads 0
expect_error 2 --top-k --dump json --top-k 65
expect_error 2 --seed --dump json --seed 18446744073709551616
expect_error 2 --d-k --dump json --d-model 10 --heads 3
expect_error 2 --kv-heads --dump json --heads 4 --kv-heads 3
expect_error 2 --kv-heads --dump json --heads 2 --kv-heads 4 --d-model 8
expect_error 2 --top-k --dump json --tokens 3 --top-k 4
expect_error 2 --heads --dump json --heads 64 --d-k 65
expect_error 2 --dump --dump xml
expect_error 2 --load --dump json --load s.txt --tokens 3
expect_error 2 --load --load s.txt --seed 2
expect_error 2 --lesson --lesson 2 --dump json
expect_error 2 --lesson --lesson 2 --load s.txt

# ---- --help and --version ----
if run --help && grep -q '^usage: mha-tui' "$tmp/out" && [ ! -s "$tmp/err" ]; then pass; else fail "--help"; fi
if run --version && grep -Eq '^mha-tui [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" && [ ! -s "$tmp/err" ]; then
	pass
else
	fail "--version: $(cat "$tmp/out" "$tmp/err")"
fi

# ---- --load failures: exit 1, one line naming the file ----
expect_error 1 "$tmp/missing.txt" --dump json --load "$tmp/missing.txt"
mkdir "$tmp/dir"
expect_error 1 "$tmp/dir" --dump json --load "$tmp/dir"
printf 'not a session\n' >"$tmp/foreign.txt"
expect_error 1 "$tmp/foreign.txt:1:" --dump json --load "$tmp/foreign.txt"
: >"$tmp/empty.txt"
expect_error 1 "$tmp/empty.txt:" --dump json --load "$tmp/empty.txt"

# ---- a dump that cannot be written: exit 1, one line, never a silent 0 ----
if [ -w /dev/full ]; then
	timeout 10 "$bin" --dump json </dev/null >/dev/full 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then pass; else fail "--dump json >/dev/full: exit $rc"; fi
fi

check_dump default '{"tokens": 6, "d_model": 16, "heads": 4, "kv_heads": 4, "d_k": 4, "causal": false, "top_k": 0, "scale": true, "seed": 0, "heads_off": []}'
# The default workbench shows attention (seed 0, wired heads; see
# mha_weights_init): each row's largest weight and where it is, per head.
# Worked out by hand from the wiring: after the 1/sqrt(d_k) scale a key one
# step from the target scores 3 less, two steps 12 less, so a row with
# neighbours on both sides keeps 1/(1 + 2e^-3) = 0.909, one side
# 1/(1 + e^-3) = 0.953; "the" splits over its two copies,
# 1/(2 + e^-3) = 0.488; the first-token head gives key 0
# e^3.625/(e^3.625 + 5) = 0.882.
if python3 - "$tmp/default.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {  # head: [(largest weight, its key), one per query row]
    0: [(1.000, 0), (0.953, 0), (0.909, 1), (0.909, 2), (0.909, 3), (0.909, 4)],  # previous token
    1: [(0.488, 0), (0.870, 1), (0.909, 2), (0.909, 3), (0.488, 0), (0.953, 5)],  # same word
    2: [(0.882, 0)] * 6,                                                          # first token
    3: [(0.909, 1), (0.909, 2), (0.909, 3), (0.909, 4), (0.953, 5), (1.000, 5)],  # next token
}
bad = []
for h, rows in want.items():
    P = d["heads"][h]["weights"]
    for r, (w, k) in enumerate(rows):
        got = max(P[r])
        if abs(got - w) > 0.002 or P[r].index(got) != k:
            bad.append("head %d row %d: largest %.4f at key %d, want %.3f at %d" % (h, r, got, P[r].index(got), w, k))
peaked = sum(sum(max(row) >= 0.5 for row in hd["weights"]) > len(hd["weights"]) / 2 for hd in d["heads"])
if peaked < 3:
    bad.append("only %d heads put >= 0.5 on one key in most rows" % peaked)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then pass; else fail "the default workbench's heads are not the wired ones"; fi
check_dump gqa '{"heads": 4, "kv_heads": 2, "d_k": 3, "seed": 11}' \
	--tokens 7 --d-model 12 --heads 4 --kv-heads 2 --d-k 3 --seed 11
check_dump mqa '{"heads": 6, "kv_heads": 1, "d_k": 2}' --d-model 12 --heads 6 --kv-heads 1 --seed 5
check_dump causal '{"causal": true, "tokens": 9}' --tokens 9 --causal --seed 3
check_dump topk '{"top_k": 3, "tokens": 8}' --tokens 8 --top-k 3 --seed 4
check_dump topk_causal_gqa '{"top_k": 2, "causal": true, "kv_heads": 3}' \
	--tokens 10 --d-model 18 --heads 6 --kv-heads 3 --top-k 2 --causal --seed 8
check_dump dk_own '{"d_model": 10, "heads": 3, "d_k": 4}' --d-model 10 --heads 3 --d-k 4
check_dump noscale '{"scale": false}' --no-scale --seed 6
check_dump one_token '{"tokens": 1}' --tokens 1 --top-k 1 --causal
check_dump big_seed '{"seed": 18446744073709551615}' --seed 18446744073709551615
check_dump heads64 '{"heads": 64, "d_k": 1}' --tokens 12 --d-model 64 --heads 64 --seed 12
check_dump mqa_dk1 '{"heads": 8, "kv_heads": 1, "d_k": 1}' --d-model 3 --heads 8 --kv-heads 1 --d-k 1
check_dump max_tokens '{"tokens": 64, "top_k": 64, "causal": true}' --tokens 64 --top-k 64 --causal --d-model 8 --heads 2
check_dump top1 '{"tokens": 20, "top_k": 1}' --tokens 20 --top-k 1 --d-model 8 --heads 2 --kv-heads 1 --seed 2
check_dump d1 '{"d_model": 1, "heads": 1, "d_k": 1}' --d-model 1 --heads 1 --tokens 4 --no-scale
check_dump wide_dk '{"d_k": 40, "heads": 3, "kv_heads": 3}' --d-model 8 --heads 3 --d-k 40 --tokens 5 --causal --top-k 2
check_dump base_counts '{"d_model": 512, "heads": 8, "d_k": 64}' --tokens 2 --d-model 512 --heads 8
# Masks beyond causal: padding keys, padding queries, windows, with top-k and GQA.
check_dump pad '{"pad": [4, 5]}' --tokens 6 --pad 4,5 --seed 13
check_dump pad_first_causal '{"pad": [0], "causal": true}' --tokens 5 --pad 0 --causal --seed 14
check_dump window_causal '{"window": 2, "causal": true}' --tokens 7 --window 2 --causal --seed 15
check_dump window_band '{"window": 2, "causal": false}' --tokens 7 --window 2 --seed 16
check_dump masks_topk_gqa '{"window": 3, "pad": [1, 6], "top_k": 2, "kv_heads": 2}' \
	--tokens 8 --d-model 12 --heads 4 --kv-heads 2 --window 3 --pad 1,6 --top-k 2 --causal --seed 17
# Biases: b^Q, b^K, b^V, b^O act where the formulas say (check_dump.py adds them itself).
check_dump bias '{"bias": true, "kv_heads": 2}' --bias --tokens 5 --d-model 8 --heads 4 --kv-heads 2 --causal --seed 21

# Your own text: one token a word, a repeated word shares its row of X.
check_dump text '{"tokens": 6}' --text "the cat sat on the mat" --causal --seed 3
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); x=d["X"]; sys.exit(not (d["tokens"] == "the cat sat on the mat".split() and x[0] == x[4] and x[0] != x[1]))' "$tmp/text.json"; then
	pass
else
	fail "--text: labels are not the words, or 'the' has two different rows of X"
fi
expect_error 2 "--pad" --dump json --pad 1,,2
expect_error 2 "--pad 6 is not a token" --dump json --pad 6
expect_error 2 "--window" --dump json --window 65
expect_error 2 "--export 'pdf'" --export pdf x.pdf
# --export txt: the workbench's screen as text, with no terminal (TERM
# unset), in the UTF-8 locale's form of the notation (S₀)
if env -u TERM LC_ALL=C.UTF-8 "$bin" --export txt "$tmp/screen.txt" --stage scores --causal >/dev/null 2>&1 &&
   grep -q '^ 1 Projection  2 Reshape  3 Scores' "$tmp/screen.txt" &&
   grep -q '^S₀ 6x6 = Q₀ 6x4' "$tmp/screen.txt" && [ "$(wc -l <"$tmp/screen.txt")" -eq 24 ]; then
	pass
else
	fail "--export txt: no 24-line screen with the pipeline bar and the Scores title"
fi
expect_error 2 "needs a FILE" --export py
expect_error 2 "cannot be combined" --dump json --export py x.py
expect_error 2 "--stage goes with --export svg" --dump json --stage scores
expect_error 2 "--stage goes with --export svg" --export py x.py --stage scores
expect_error 2 "--stage 'concat'" --export svg x.svg --stage concat
expect_error 2 "--text" --dump json --text "   "
expect_error 2 "disagrees" --dump json --text "a b" --tokens 3

if python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; sys.exit(c["params"]["total"] != 1048576 or c["kv_cache_per_token"] != 1024)' "$tmp/base_counts.json"; then
	pass
else
	fail "base model: params total is not 1,048,576 or KV cache not 1024"
fi

# --grad: the gradients of 1/2 sum(Y^2) under "grad", checked by finite differences
check_dump grad_default '{"tokens": 6, "heads": 4}' --grad
check_dump grad_gqa_causal_off '{"kv_heads": 2, "causal": true}' --grad --tokens 5 --d-model 8 \
	--heads 4 --kv-heads 2 --causal --seed 3
check_dump grad_mqa_noscale '{"kv_heads": 1, "scale": false}' --grad --heads 3 --kv-heads 1 \
	--d-model 6 --no-scale --seed 2
check_dump grad_topk '{"top_k": 2}' --grad --tokens 6 --top-k 2 --d-model 8 --heads 2 --seed 5
check_dump grad_bias_window '{"bias": true, "window": 2}' --grad --bias --window 2 --tokens 5 \
	--d-model 8 --heads 4 --kv-heads 2 --seed 7
expect_error 2 --grad --grad
expect_error 2 --train --train bogus
expect_error 2 --seeds --train previous --seeds 3
expect_error 2 --save --dump json --save x.txt
expect_error 2 --steps --dump json --steps 3

# --train: exit 0, the final line on stdout, progress on stderr; --save writes the
# model and each layer as a session the workbench (and the dump) opens
run --train previous --steps 60 --d-model 16 --seed 2 --save "$tmp/prev.model"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '^previous: steps 60 .*held-out accuracy [01]\.[0-9]* .*L0H1 prev' "$tmp/out" \
	&& grep -q 'step    60/60' "$tmp/err" && [ -s "$tmp/prev.model" ] \
	&& head -1 "$tmp/prev.model" | grep -qx 'mha-tui model 1'; then
	pass
else
	fail "--train previous: exit $rc, out: $(head -c 300 "$tmp/out"), err: $(tail -c 300 "$tmp/err")"
fi
if run --dump json --load "$tmp/prev.model.layer0" && python3 "$here/check_dump.py" "$tmp/out" '{"tokens": 16, "d_model": 16, "heads": 2, "causal": true}'; then
	pass
else
	fail "the trained layer's session does not dump: $(head -c 200 "$tmp/err")"
fi
run --ablate previous --d-model 4 --seeds 2 --steps 20
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^   4     1 ' "$tmp/out" && grep -q '^  h  2 ' "$tmp/out"; then
	pass
else
	fail "--ablate previous: exit $rc, out: $(head -c 300 "$tmp/out")"
fi
expect_error 2 "heads 4 do not divide d_model 30" --train previous --d-model 30 --heads 4
expect_error 2 --layers --train previous --layers 3
expect_error 2 "--tokens is not for training" --train previous --tokens 8
expect_error 2 "--causal is not for training" --ablate multi --causal

# The locale does not change a byte of the dump (decimal point, digits).
LC_ALL=C.UTF-8 run --dump json --seed 4 && cp "$tmp/out" "$tmp/utf8.json"
LC_ALL=C run --dump json --seed 4 && cp "$tmp/out" "$tmp/c.json"
if cmp -s "$tmp/utf8.json" "$tmp/c.json"; then pass; else fail "the dump differs between LC_ALL=C.UTF-8 and C"; fi

# Same flags, same dump: the seed fixes every number.
run --dump json --seed 9 --tokens 5 && cp "$tmp/out" "$tmp/a.json"
run --dump json --tokens 5 --seed 9 && cp "$tmp/out" "$tmp/b.json"
if cmp -s "$tmp/a.json" "$tmp/b.json"; then pass; else fail "two dumps with the same flags differ"; fi

# A session written by hand (doc/SESSION.md's example) dumps its own numbers.
cat >"$tmp/session.txt" <<'EOF'
mha-tui-session 1
# written by test_cli.sh
tokens 3
d_model 4
heads 2
kv_heads 1
d_k 2
causal 1
top_k 0
scale 1
seed 7
heads_off 1
labels the cat sat
X 3 4
0.5 -1 0.25 0
1 0 -0.5 2
-1.5 0.75 1 -0.25
W_Q 4 4
1 0 0 0
0 1 0 0
0 0 1 0
0 0 0 1
W_K 4 2
0.5 0
0 0.5
1 0
0 1
W_V 4 2
1 2
3 4
-1 0
0 -1
W_O 4 4
1 0 0 0
0 1 0 0
0 0 1 0
0 0 0 1
end
EOF
cp "$tmp/session.txt" "$tmp/session.before"
check_dump session '{"tokens": 3, "d_model": 4, "heads": 2, "kv_heads": 1, "d_k": 2, "causal": true, "top_k": 0, "scale": true, "seed": 7, "heads_off": [1]}' \
	--load "$tmp/session.txt"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["tokens"] != ["the","cat","sat"] or d["X"][0] != [0.5,-1,0.25,0] or d["concat"][2][2:] != [0,0])' "$tmp/session.json"; then
	pass
else
	fail "session dump: labels, X or the switched-off head's concat block differ from the file"
fi
if cmp -s "$tmp/session.txt" "$tmp/session.before"; then pass; else fail "--load changed the session file"; fi

# ---- the language model (doc/LANGUAGE_MODEL.md): usage errors, files, the dump ----
expect_error 2 "--eval takes" --eval --causal
expect_error 2 "--dump cannot be combined with --eval" --eval --dump json
expect_error 2 "--eval cannot be combined" --dump json --eval
expect_error 2 "needs --text" --dump json --model
expect_error 2 "--causal is not for the language model" --dump json --text "the dog" --model --causal
expect_error 2 "--model cannot be combined with --grad" --dump json --text "the dog" --model --grad
expect_error 2 "--model goes with" --train previous --model "$tmp/x.model"
# the workbench's --model (W, --text): a file that does not load is said before the screen opens
expect_error 1 "--model $tmp/x.model: $tmp/x.model" --text "the dog" --model "$tmp/x.model"
expect_error 2 "--model needs a FILE" --eval --model=
expect_error 2 "--corpus" --dump json --corpus /usr/share/wordnet
expect_error 2 "--vocab goes with --train lm" --train induction --vocab 100
expect_error 2 "--vocab 2 is out of range" --train lm --vocab 2
expect_error 2 "(--train also lm)" --ablate lm
expect_error 2 "--train lm takes" --train lm --model
expect_error 2 "heads 3 do not divide" --train lm --heads 3
expect_error 2 "--text is not for training" --train lm --text "a b"
expect_error 1 "wordnet-base" --train lm --corpus "$tmp/nowhere"
expect_error 1 "wordnet-base" --eval --corpus "$tmp/nowhere"
expect_error 1 "$tmp/nowhere.model" --eval --model "$tmp/nowhere.model"
expect_error 1 "$tmp/nowhere.model" --dump json --text "the dog" --model "$tmp/nowhere.model"
printf 'mha-tui model 2\ntask lm\nshape layers 9 d_model 64 heads 4 d_k 16 vocab 10 classes 10 tokens 64\n' >"$tmp/bad.model"
expect_error 1 "bad.model:3: layers 9 is out of range" --eval --model "$tmp/bad.model"
export MHA_TUI_MODEL="$tmp/nowhere.model"
expect_error 1 'MHA_TUI_MODEL' --eval
unset MHA_TUI_MODEL
long=$(printf 'word %.0s' $(seq 65))
expect_error 1 "65 tokens" --dump json --text "$long" --model
expect_error 1 "only blanks" --dump json --text "   " --model
# the shipped model through the dump: keys, every layer as check_dump.py
# recomputes it, the residual stream, and "next" as numpy's float64 forward
run --dump json --text "the dog saw the cat and the dog ran" --model
if [ $? -eq 0 ] && [ ! -s "$tmp/err" ] && python3 "$here/check_lm_dump.py" "$tmp/out" \
	"${MHA_SOURCE_ROOT:?}" --reference; then
	pass
else
	fail "--dump json --text --model: $(head -c 300 "$tmp/err")"
fi
# --generate N: greedy tokens after the text, a K/V cache a layer, against a
# float64 forward that recomputes every row (check_lm_generate.py)
run --dump json --text "the dog saw the cat and" --model --generate 3
if [ $? -eq 0 ] && [ ! -s "$tmp/err" ] && python3 "$here/check_lm_generate.py" "$tmp/out" \
	"${MHA_SOURCE_ROOT:?}/assets/lm.model"; then
	pass
else
	fail "--dump json --model --generate: $(head -c 300 "$tmp/err")"
fi
expect_error 1 "at most 62 more" --dump json --text "the dog" --model --generate 63
expect_error 2 "--generate N goes with" --generate 3
expect_error 2 "--generate N goes with" --dump json --generate 3
expect_error 2 "--generate" --dump json --text "the dog" --model --generate 0
run --dump json --text "The zyzzyva's tail" --model
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["tokens"] != ["the","<unk>","\x27s","tail"] or d["words"][1] != "zyzzyva")' "$tmp/out"; then
	pass
else
	fail "--dump json --model: the unknown word is not <unk> beside its spelling"
fi
# --eval on a corpus of hand-made glosses (fast): the report, and a warning
# that this is not the text the model was measured on
mkdir -p "$tmp/wn"
for f in noun verb adj adv; do
	for i in $(seq 100); do echo "0000000$i 03 n 01 w 0 000 | the dog saw the cat and the $f ran; \"a $f\""; done >"$tmp/wn/data.$f"
done
run --eval --corpus "$tmp/wn"
if [ $? -eq 0 ] && grep -q "not the text" "$tmp/err" && grep -q "attention model" "$tmp/out" &&
	grep -q "bigram, add-one" "$tmp/out" && grep -q "^  L1H3 " "$tmp/out"; then
	pass
else
	fail "--eval --corpus (hand-made): $(head -c 300 "$tmp/err") $(head -c 300 "$tmp/out")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
