#!/bin/sh
# SIGTERM and SIGHUP save the session first and restore the terminal.
. "$(dirname "$0")/lib.sh"
for sig in TERM HUP INT; do
	rm -f "$SESSION_FILE"
	start 80 24 -- --seed 1
	wait_for "X[0 the, 0]"
	keys +
	wait_for "X[0 the, 0] = 0.2331"
	pid=$(pgrep -n -f "^$MHA_TUI" || true)
	[ -n "$pid" ] || fail "no mha-tui process"
	kill -s "$sig" "$pid"
	wait_for "EXIT="
	wait_for "icanon echo"
	grep -A1 '^X 6 16' "$SESSION_FILE" | tail -1 | grep -q '^0.2331' || fail "SIG$sig: the edit was not saved"
	stop
done
pass
