#!/bin/sh
# train_long.sh - suite 'train-long', run once in CI, never in the normal
# suite: trains the language model from scratch with the command
# doc/LANGUAGE_MODEL.md gives for the shipped one, and checks that its
# held-out loss is that of the shipped model (assets/lm.model) within 1%.
# Prints the training time (CPU and wall) and the machine's load.
# Needs $MHA_TUI and $MHA_SOURCE_ROOT (the test environment sets them).
set -eu
: "${MHA_TUI:?}" "${MHA_SOURCE_ROOT:?}"
dir=$(mktemp -d "${TMPDIR:-/tmp}/mha-train-long.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
shipped="$MHA_SOURCE_ROOT/assets/lm.model"
echo "load before: $(cat /proc/loadavg)"
# the documented command (seed 1 and 5000 steps are its defaults; written out here)
"$MHA_TUI" --train lm --corpus /usr/share/wordnet --seed 1 --steps 5000 --save "$dir/lm.model" >"$dir/out" 2>"$dir/err" || {
	cat "$dir/err" >&2
	exit 1
}
echo "load after: $(cat /proc/loadavg)"
tail -n 3 "$dir/err"
cat "$dir/out"
want=$(sed -n 's/^heldout_loss //p' "$shipped")
got=$(sed -n 's/^heldout_loss //p' "$dir/lm.model")
"$MHA_TUI" --eval --model "$dir/lm.model" | sed -n '/cross-entropy/,/below\|ABOVE/p'
awk -v got="$got" -v want="$want" 'BEGIN {
	d = (got - want) / want; if (d < 0) d = -d
	printf "held-out loss from scratch %.4f, shipped %.4f: %.2f%% apart (at most 1%%)\n", got, want, 100 * d
	exit d <= 0.01 ? 0 : 1 }'
