#!/bin/sh
# Without a terminal, with TERM unset or dumb, or with a corrupt session,
# mha-tui says what is wrong, exits 1 and leaves the file untouched.
. "$(dirname "$0")/lib.sh"
out=$("$MHA_TUI" 2>&1 >/dev/null) && fail "stdout not a terminal: exit 0"
echo "$out" | grep -q -- "--dump json" || fail "no --dump json hint: $out"
start 80 24 -u TERM
wait_for "EXIT=1"
wait_for "--dump json"
stop
start 80 24 TERM=dumb
wait_for "EXIT=1"
stop
printf 'mha-tui-session 1\ntokens 3\nd_model banana\n' > "$WORK/bad.txt"
sum=$(cksum < "$WORK/bad.txt")
start 80 24 -- --load "$WORK/bad.txt"
wait_for "bad.txt:3:"
wait_for "EXIT=1"
[ "$(cksum < "$WORK/bad.txt")" = "$sum" ] || fail "the corrupt file was changed"
stop
mkdir -p "$(dirname "$SESSION_FILE")"
printf 'not a session\n' > "$SESSION_FILE"
start 80 24
wait_for "session.txt:1:"
wait_for "EXIT=1"
grep -q 'not a session' "$SESSION_FILE" || fail "the saved session was changed"
pass
