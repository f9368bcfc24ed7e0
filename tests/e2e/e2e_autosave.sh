#!/bin/sh
# Autosave: 20 edits are written beside the session as they happen, so a
# kill -9 loses none of them; the next start keeps them under a numbered
# name and asks (load / discard / later) until answered; left for later,
# a clean quit leaves them alone, and --load opens them and saves them
# into the session.
. "$(dirname "$0")/lib.sh"
AUTOSAVE="$SESSION_FILE.autosave"
start 80 24 -- --seed 1
wait_for "X[0 the, 0] = 0.13312304"
i=0
while [ $i -lt 20 ]; do
	keys +
	i=$((i + 1))
done
wait_for "X[0 the, 0] = 2.1331"
end=$(( $(date +%s) + DEADLINE ))
until [ -f "$AUTOSAVE" ]; do
	[ "$(date +%s)" -le "$end" ] || fail "no autosave after 20 edits"
	sleep 0.05
done
pid=$(pgrep -n -f "^$MHA_TUI" || true)
[ -n "$pid" ] || fail "no mha-tui process"
kill -9 "$pid"
# (no clean exit to wait for: the terminal stays raw, so poll the process)
end=$(( $(date +%s) + DEADLINE ))
while kill -0 "$pid" 2>/dev/null; do
	[ "$(date +%s)" -le "$end" ] || fail "kill -9 did not end the program"
	sleep 0.05
done
[ ! -f "$SESSION_FILE" ] || fail "kill -9 cannot have saved the session"
grep -A1 '^X 6 16' "$AUTOSAVE" | tail -1 | grep -q '^2.1331' || fail "the autosave lacks the 20 edits"
stop
# the next start opens the default workbench, keeps the autosave under a
# numbered name of its own (this run autosaves its own edits) and names it
KEPT="$AUTOSAVE.~1~"
start 160 24   # the temporary path is long: the whole question on the status line
wait_for "Enter loads, d discards, Esc later: $KEPT"
keys l   # the question stays until answered
wait_for "Enter loads, d discards, Esc later: $KEPT"
keys Escape   # later
wait_for "kept for later"
keys l   # now a key of the workbench again
wait_for "X[0 the, 1] = 0 "  # the default (wired) workbench
keys q
wait_for "EXIT=0"
[ -f "$KEPT" ] || fail "a clean quit removed an autosave it had not saved"
stop
# loading it saves to the session it belongs to; then it is done with
start 80 24 -- --load "$KEPT"
wait_for "X[0 the, 0] = 2.1331"
keys q
wait_for "EXIT=0"
grep -A1 '^X 6 16' "$SESSION_FILE" | tail -1 | grep -q '^2.1331' || fail "the recovered edits are not in the session"
[ ! -f "$KEPT" ] || fail "a recovered autosave was kept after its edits were saved"
pass
