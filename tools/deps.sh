#!/bin/sh
# Install the Debian 12 packages mha-tui needs that this machine lacks.
# Usage: sh tools/deps.sh [build|test]   (test adds what the test suite uses)
# Safe to run again: it installs nothing when everything is there.
set -eu

want="meson ninja-build gcc pkg-config libncurses-dev libopenblas-dev libcmocka-dev"
if [ "${1:-build}" = test ]; then
	want="$want tmux libvterm-dev python3"
fi

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "mha-tui: missing Debian packages:$missing; run this as root or install them" >&2
	exit 1
fi
echo "mha-tui: installing$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
