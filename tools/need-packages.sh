# need-packages.sh - the one list of Debian 12 packages mha-tui uses, and
# need_packages PKG..., which installs those of them that are missing (as
# root, or through sudo; otherwise it names them and fails). Idempotent:
# nothing is fetched when everything is there. Sourced by tools/deps.sh
# (tools/run, tools/test), tools/sanitize.sh and tools/fuzz.sh; it does not
# configure or build anything.

# What building mha-tui needs (tools/run): compiler, meson, ncurses, OpenBLAS.
build_packages="meson ninja-build gcc pkg-config libncurses-dev libopenblas-dev"
# What it reads at run time (tools/run too): WordNet 3.0's glosses, the
# language model's corpus (mha-tui --eval, --train lm; doc/LANGUAGE_MODEL.md).
run_packages="wordnet-base"
# What the test suite adds (tools/test): cmocka, libvterm for the
# pseudo-terminal suite, tmux for the end-to-end suite, python3 for the
# dump checker, pyflakes for the Python the program embeds. (The tests read
# wordnet-base's files too: run_packages.)
test_packages="libcmocka-dev libvterm-dev tmux python3 python3-pyflakes"
# Everything, for the scripts that build the test suite (sanitize.sh, fuzz.sh).
# shellcheck disable=SC2034 # used by the scripts that source this
project_packages="$build_packages $run_packages $test_packages"

need_packages() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		echo "mha-tui: missing Debian packages:$missing; run this as root or install them" >&2
		return 1
	fi
	echo "mha-tui: installing$missing" >&2
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
		$sudo apt-get update -q >/dev/null &&
			$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
	}
}
