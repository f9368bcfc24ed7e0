# cli_lib.sh - what the tests of the real binary share (sourced by
# test_cli.sh and test_stack_cli.sh): the binary ($bin), this folder
# ($here), a temporary directory removed at exit ($tmp), counting passes
# and failures, running the binary with a timeout and no stdin, a usage
# error's one line, and a dump checked by check_dump.py.

bin=${MHA_TUI:?run under meson test, which sets MHA_TUI}
here=${MHA_SOURCE_ROOT:?run under meson test}/tests/cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# The timeout catches a hang, not slowness: --eval reads the corpus and
# runs the model (3 s quiet) and took past 10 s at a load of 15-19.
run() {
	timeout 120 "$bin" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
}

# expect_error STATUS TEXT ARGS...: exit STATUS, one stderr line
# "mha-tui: ..." containing TEXT, empty stdout.
expect_error() {
	status=$1 text=$2
	shift 2
	run "$@"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$status" ]; then
		fail "mha-tui $*: exit $rc, want $status ($(head -c 200 "$tmp/err"))"
	elif [ "$lines" -ne 1 ]; then
		fail "mha-tui $*: $lines lines on stderr, want 1: $(head -c 300 "$tmp/err")"
	elif ! grep -q '^mha-tui: ' "$tmp/err"; then
		fail "mha-tui $*: stderr does not start with 'mha-tui: ': $(cat "$tmp/err")"
	elif ! grep -qF -- "$text" "$tmp/err"; then
		fail "mha-tui $*: stderr does not mention '$text': $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "mha-tui $*: wrote to stdout on error"
	else
		pass
	fi
}

# ---- --dump json: parses, has every key, agrees with a float64 recomputation ----
# check_dump NAME EXPECTED_CONFIG_JSON ARGS...
check_dump() {
	name=$1 want=$2
	shift 2
	run --dump json "$@"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "dump $name: exit $rc ($(head -c 200 "$tmp/err"))"
		return
	fi
	cp "$tmp/out" "$tmp/$name.json"
	if [ -s "$tmp/err" ]; then
		fail "dump $name: wrote to stderr: $(head -c 200 "$tmp/err")"
	elif python3 "$here/check_dump.py" "$tmp/$name.json" "$want"; then
		pass
	else
		fail "dump $name ($*)"
	fi
}

