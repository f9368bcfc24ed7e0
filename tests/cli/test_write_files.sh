#!/bin/sh
# test_write_files.sh - the files the headless commands write, through the
# real binary ($MHA_TUI): every failure is one cleaned line on stderr with
# the path and the reason, exit 1 (2 for usage), and the file that was
# there is left whole (doc/RELIABILITY.md, the adversary's round three:
# 6, 7, 8, 9, 14, 16, 17, 18).
#   - past a file size limit (ulimit -f) every writer fails with a reason
#     instead of dying of SIGXFSZ (exit 153) halfway;
#   - --train --save is checked before the training, follows a symlink,
#     refuses an empty name, prints cleaned messages and a quoted command;
#   - --export says why in one wording for every format, and is atomic;
#   - --text writes nothing when the workbench cannot start;
#   - smaller messages: --seed -5, /proc/self/mem, conflicting modes, a
#     lesson with a byte-order mark.
# Every run has a timeout and stdin from /dev/null.
set -u
bin=${MHA_TUI:?run under meson test, which sets MHA_TUI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0
esc=$(printf '\033')

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# run [ulimit-blocks] ARGS...: $rc, $tmp/out, $tmp/err. With a number
# first, under ulimit -f of that many 512-byte blocks.
run() {
	limit=unlimited
	case ${1:-} in [0-9]*) limit=$1; shift ;; esac
	(ulimit -f "$limit" && exec timeout 20 "$bin" "$@") </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# one_line STATUS TEXT: the last run exited STATUS with exactly one line
# "mha-tui: ..." on stderr holding TEXT and no control character.
one_line() {
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$1" ]; then
		fail "exit $rc, want $1 ($(head -c 300 "$tmp/err"))"
	elif [ "$lines" -ne 1 ] || ! grep -q '^mha-tui: ' "$tmp/err"; then
		fail "want one 'mha-tui: ' line on stderr, got $lines: $(head -c 400 "$tmp/err")"
	elif ! grep -qF -- "$2" "$tmp/err"; then
		fail "stderr does not say '$2': $(cat "$tmp/err")"
	elif grep -q "$esc" "$tmp/err"; then
		fail "stderr holds an escape character: $(cat "$tmp/err")"
	else
		pass
	fi
}

# says STATUS TEXT: the same for a command that also reports progress on
# stderr: its last line is the "mha-tui: " one.
says() {
	if [ "$rc" -ne "$1" ]; then
		fail "exit $rc, want $1 ($(tail -c 300 "$tmp/err"))"
	elif ! tail -1 "$tmp/err" | grep -q '^mha-tui: ' || ! tail -1 "$tmp/err" | grep -qF -- "$2"; then
		fail "the last line of stderr does not say '$2': $(tail -2 "$tmp/err")"
	elif grep -q "$esc" "$tmp/err"; then
		fail "stderr holds an escape character"
	else
		pass
	fi
}

# no_temporary DIR: no temporary file of a write is left there.
no_temporary() {
	if ls -a "$1" | grep -q '\.tmp'; then fail "temporary file left in $1: $(ls -a "$1")"; else pass; fi
}

same() { if cmp -s "$1" "$2"; then pass; else fail "$1 changed"; fi; }

# ---- 6: a file size limit (4 KiB) -------------------------------------
mkdir "$tmp/limit"
"$bin" --export py "$tmp/limit/old.py" --seed 3 && cp "$tmp/limit/old.py" "$tmp/old.py"
run 8 --export py "$tmp/limit/old.py"
one_line 1 "$tmp/limit/old.py: write failed, previous file kept: File too large"
same "$tmp/limit/old.py" "$tmp/old.py"
"$bin" --export svg "$tmp/limit/old.svg" --seed 3 && cp "$tmp/limit/old.svg" "$tmp/old.svg"
run 8 --export svg "$tmp/limit/old.svg"
one_line 1 "$tmp/limit/old.svg: write failed, previous file kept: File too large"
same "$tmp/limit/old.svg" "$tmp/old.svg"
run 8 --dump json
one_line 1 "cannot write to standard output"
(ulimit -f 8 && exec timeout 20 "$bin" --dump json) </dev/null >"$tmp/limit/dump.json" 2>"$tmp/err"
rc=$?
one_line 1 "cannot write to standard output: File too large"
run 8 --train previous --steps 1 --d-model 64 --save "$tmp/limit/prev.model"
says 1 "prev.model: write failed, no file written: File too large"
no_temporary "$tmp/limit"

# ---- 7: --train --save is checked before any training ------------------
# (a million steps take an hour: the 20 s timeout fails a check made after)
run --train previous --steps 1000000 --save "$tmp/no/such/dir/m.model"
one_line 1 "--save: $tmp/no/such/dir/m.model"
grep -q "nothing trained" "$tmp/err" && pass || fail "no 'nothing trained': $(cat "$tmp/err")"
mkdir "$tmp/adir"
run --train previous --steps 1000000 --save "$tmp/adir"
one_line 1 "is a directory"
echo "my notes" >"$tmp/notes.txt"
run --train previous --steps 1000000 --save "$tmp/notes.txt"
one_line 1 "is not an mha-tui model file"
grep -qx "my notes" "$tmp/notes.txt" && pass || fail "notes.txt replaced"
# a session of the user's where a layer's session goes is kept too
"$bin" --dump json >/dev/null
printf 'mine\n' >"$tmp/m2.model.layer0"
run --train previous --steps 1000000 --save "$tmp/m2.model"
one_line 1 "m2.model.layer0: is not an mha-tui session"
[ ! -e "$tmp/m2.model" ] && pass || fail "m2.model written although the layer's file is refused"

# ---- 8 and 17: cleaned messages, a quoted command, symlinks, '' -------
mkdir "$tmp/train"
weird="$tmp/train/it's ${esc}[31mred.model"
run --train previous --steps 2 --save "$weird"
if [ "$rc" -eq 0 ] && ! grep -q "$esc" "$tmp/err" && grep -qF "mha-tui --load '$tmp/train/it'\\''s ?[31mred.model.layer0'" "$tmp/err"; then
	pass
else
	fail "--train --save with a quote and an escape: exit $rc: $(cat "$tmp/err" | tr "$esc" '~' | tail -3)"
fi
run --train previous --steps 2 --save "$tmp/no/${esc}]0;title${esc}\\x.model"
one_line 1 "No such file or directory: nothing trained"
ln -s real.model "$tmp/train/link.model"
run --train previous --steps 2 --save "$tmp/train/link.model"
if [ "$rc" -eq 0 ] && [ -L "$tmp/train/link.model" ] && head -1 "$tmp/train/real.model" | grep -q '^mha-tui model 1$'; then
	pass
else
	fail "--save through a symlink: exit $rc, link $(ls -l "$tmp/train/link.model")"
fi
run --train previous --steps 2 --save ""
one_line 2 "--save needs a file name"
no_temporary "$tmp/train"

# the language model's two files (the model, its vocabulary beside it):
# both checked before the corpus is read, a vocabulary of the user's kept,
# the model written through a symlink
run --train lm --steps 1000000 --save "$tmp/no/such/dir/lm.model"
one_line 1 "No such file or directory: nothing trained"
printf 'my words\n' >"$tmp/train/words.vocab"
run --train lm --steps 1000000 --save "$tmp/train/words.model"
one_line 1 "words.vocab: is not an mha-tui vocabulary"
grep -qx "my words" "$tmp/train/words.vocab" && [ ! -e "$tmp/train/words.model" ] && pass ||
	fail "words.vocab replaced or words.model written"
ln -s lm-real.model "$tmp/train/lm-link.model"
run --train lm --steps 1 --vocab 100 --d-model 8 --heads 1 --layers 1 --save "$tmp/train/lm-link.model"
if [ "$rc" -eq 0 ] && [ -L "$tmp/train/lm-link.model" ] && head -1 "$tmp/train/lm-real.model" | grep -q '^mha-tui model 2$' &&
   head -1 "$tmp/train/lm-link.vocab" | grep -q '^mha-tui vocab 1$'; then
	pass
else
	fail "--train lm --save through a symlink: exit $rc, $(ls -l "$tmp/train" | tr '\n' ' ')"
fi
no_temporary "$tmp/train"

# ---- 14: --export says why, the same way for every format --------------
for fmt in py svg txt; do
	run --export "$fmt" "$tmp/adir"
	one_line 1 "--export: $tmp/adir: is a directory"
	run --export "$fmt" "$tmp/no/such/x.$fmt"
	one_line 1 "--export: $tmp/no/such/x.$fmt: its directory cannot be used: No such file or directory"
	run --export "$fmt" /dev/null
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && pass || fail "--export $fmt /dev/null: exit $rc $(cat "$tmp/err")"
	run --export "$fmt" /dev/full
	one_line 1 "/dev/full: write failed, no file written: No space left on device"
done
ln -s "svg-target.svg" "$tmp/svg-link.svg"
run --export svg "$tmp/svg-link.svg"
[ "$rc" -eq 0 ] && [ -L "$tmp/svg-link.svg" ] && grep -q '<svg' "$tmp/svg-target.svg" && pass ||
	fail "--export through a symlink: exit $rc"

# ---- 9: --text when the workbench cannot start writes nothing ----------
state="$tmp/state"
mkdir -p "$state/mha-tui"
XDG_STATE_HOME=$state "$bin" --dump json >/dev/null
printf 'mha-tui-progress 1\nplace - -\nmode free\n' >"$state/mha-tui/progress.txt"
cp "$tmp/old.py" "$state/keep"
ls -la "$state/mha-tui" | sort >"$tmp/before"
for t in "TERM=xterm-256color" "TERM=dumb"; do
	(export XDG_STATE_HOME="$state" "$t"; exec timeout 20 "$bin" --text "the cat sat" </dev/null >"$tmp/out" 2>"$tmp/err")
	rc=$?
	one_line 1 "not a terminal"
done
(export XDG_STATE_HOME="$state"; exec timeout 20 "$bin" --heads 2 </dev/null >"$tmp/out" 2>"$tmp/err")
rc=$?
one_line 1 "not a terminal"
ls -la "$state/mha-tui" | sort >"$tmp/after"
same "$tmp/before" "$tmp/after"

# ---- 16: messages that said the wrong thing ----------------------------
run --dump json --seed -5
one_line 2 "--seed -5 is out of range: allowed 0.."
run --dump json --load /proc/self/mem
one_line 1 "/proc/self/mem:1: cannot read: Input/output error"

# ---- 18: conflicting modes, a lesson with a byte-order mark ------------
run --dump json --check-lessons
one_line 2 "--check-lessons cannot be combined with --dump"
run --check-lessons --dump json
one_line 2 "--dump cannot be combined with --check-lessons"
run --export py "$tmp/a.py" --export svg "$tmp/b.svg"
one_line 2 "--export cannot be combined with --export"
run --train previous --dump json
one_line 2 "--dump cannot be combined with --train"
mkdir "$tmp/bom"
src=${MHA_TUI_LESSONS:?run under meson test, which sets MHA_TUI_LESSONS}
{ printf '\357\273\277'; cat "$src/01-one-head.lesson"; } >"$tmp/bom/01-one-head.lesson"
run --check-lessons "$tmp/bom"
[ "$rc" -eq 0 ] && grep -q "1 lessons" "$tmp/out" && pass || fail "a lesson with a byte-order mark: exit $rc $(cat "$tmp/out" "$tmp/err")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
