#!/bin/sh
# q exits 0, restores the terminal, and the saved session holds the edit;
# the session then reopens where it was, and --load opens it too.
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "X[0 the, 0]"
keys Enter
type_text "0.75"
keys Enter
wait_for "set to 0.75"
keys q
wait_for "EXIT=0"
wait_for "icanon echo"
grep -A1 '^X 6 16' "$SESSION_FILE" | tail -1 | grep -q '^0.75 ' || fail "the session lacks the edit"
stop
start 80 24
wait_for "X[0 the, 0] = 0.75"
keys q
wait_for "EXIT=0"
stop
cp "$SESSION_FILE" "$WORK/copy.txt"
start 80 24 -- --load "$WORK/copy.txt"
wait_for "X[0 the, 0] = 0.75"
keys q
wait_for "EXIT=0"
pass
