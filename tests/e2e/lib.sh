# lib.sh - helpers for the tmux end-to-end tests: each test runs the real
# mha-tui in its own tmux server (own socket, no user config), types with
# send-keys, reads the screen with capture-pane, and polls for expected text
# with a deadline instead of sleeping. Sourced by the e2e_*.sh scripts.
set -eu

MHA_TUI=${MHA_TUI:?MHA_TUI must name the mha-tui binary}
command -v tmux >/dev/null 2>&1 || { echo "e2e: tmux is not installed (sh tools/deps.sh test)" >&2; exit 1; }
unset LINES COLUMNS TMUX
SOCK="mha-e2e-$$-$(basename "$0" .sh)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mha-e2e.XXXXXX")
export XDG_STATE_HOME="$WORK/state"
SESSION_FILE="$XDG_STATE_HOME/mha-tui/session.txt"
DEADLINE=${E2E_DEADLINE:-30} # for a hang, not a speed: a loaded machine under ASan is slow
# Not the first run (which opens on the lesson menu; e2e_first_run.sh
# starts with E2E_FIRST_RUN=1): a progress file with no lesson in it.
if [ "${E2E_FIRST_RUN:-0}" != 1 ]; then
	mkdir -p "$XDG_STATE_HOME/mha-tui"
	printf 'mha-tui-progress 1\nplace - -\nmode free\n' >"$XDG_STATE_HOME/mha-tui/progress.txt"
fi

# the program saves its session on SIGHUP as the server goes: let it finish
cleanup() {
	tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -rf "$WORK" 2>/dev/null && break
		sleep 0.2
	done
	true
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	echo "--- screen:" >&2
	screen >&2 || true
	exit 1
}

# start COLS ROWS [VAR=value | -u VAR ...] [-- args]: the program in a fresh server;
# when it exits, the pane prints EXIT=<status> and the terminal modes.
start() {
	cols=$1 rows=$2
	shift 2
	envs="TERM=xterm-256color LC_ALL=C.UTF-8" opts=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		case $1 in
		-u) opts="$opts -u $2" # env -u NAME: unset it, default or not
		    envs=$(echo "$envs" | sed "s/$2=[^ ]*//"); shift ;;
		*) envs="$envs $1" ;;
		esac
		shift
	done
	[ $# -gt 0 ] && shift
	args="$*"
	cat > "$WORK/run.sh" <<RUN
env $opts $envs XDG_STATE_HOME='$XDG_STATE_HOME' '$MHA_TUI' $args
echo "EXIT=\$?"
stty -a | tr ' ;' '\n\n' | grep -x -e '-\{0,1\}icanon' -e '-\{0,1\}echo' | tr '\n' ' '
echo
sleep 600
RUN
	end=$(( $(date +%s) + DEADLINE ))
	until tmux -L "$SOCK" -f /dev/null new-session -d -x "$cols" -y "$rows" "sh '$WORK/run.sh'" 2>/dev/null; do
		[ "$(date +%s)" -le "$end" ] || fail "tmux would not start"
		sleep 0.1
	done
}

# stop: end this test's tmux server (and the program in it), and wait until
# it is gone, so the next start gets a fresh one
stop() {
	tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true
	end=$(( $(date +%s) + DEADLINE ))
	while tmux -L "$SOCK" list-sessions >/dev/null 2>&1; do
		[ "$(date +%s)" -le "$end" ] || fail "tmux would not stop"
		sleep 0.05
	done
}

screen() {
	tmux -L "$SOCK" capture-pane -p
}

keys() {
	tmux -L "$SOCK" send-keys "$@"
}

# type TEXT: literal characters
type_text() {
	tmux -L "$SOCK" send-keys -l -- "$1"  # -- : text may start with "-"
}

# wait_for TEXT: until the screen holds TEXT (fixed string), or fail
wait_for() {
	end=$(( $(date +%s) + DEADLINE ))
	while [ "$(date +%s)" -le "$end" ]; do
		if screen | grep -F -q -e "$1"; then return 0; fi
		sleep 0.05
	done
	fail "waited ${DEADLINE}s for: $1"
}

# wait_gone TEXT: until the screen no longer holds TEXT
wait_gone() {
	end=$(( $(date +%s) + DEADLINE ))
	while [ "$(date +%s)" -le "$end" ]; do
		if ! screen | grep -F -q -e "$1"; then return 0; fi
		sleep 0.05
	done
	fail "waited ${DEADLINE}s for this to go: $1"
}

# count TEXT: lines... occurrences of TEXT on the screen
count() {
	screen | grep -F -o -e "$1" | wc -l | tr -d ' '
}

# quiet: wait until two captures 100 ms apart agree (drawing has settled)
quiet() {
	end=$(( $(date +%s) + DEADLINE ))
	prev=""
	while [ "$(date +%s)" -le "$end" ]; do
		cur=$(screen)
		if [ -n "$prev" ] && [ "$cur" = "$prev" ]; then return 0; fi
		prev=$cur
		sleep 0.1
	done
	fail "the screen never settled"
}

pass() {
	echo "ok - $(basename "$0" .sh)"
}
