#!/bin/sh
# Install the Debian 12 packages mha-tui needs that this machine lacks.
# Usage: sh tools/deps.sh [build|test]   (test adds what the test suite uses)
# Safe to run again: it installs nothing when everything is there. The
# package lists live in tools/need-packages.sh.
set -eu
cd "$(dirname "$0")/.."
. tools/need-packages.sh
# shellcheck disable=SC2086 # the lists are words
case "${1:-build}" in
build) need_packages $build_packages $run_packages ;;
test) need_packages $build_packages $run_packages $test_packages ;;
*) echo "usage: sh tools/deps.sh [build|test]" >&2; exit 2 ;;
esac
