#!/bin/sh
# with_torch.sh - run one of tools/*.py under Debian's /usr/bin/python3 when
# it has torch and numpy; else skip (exit 77, meson's skip) with one line
# saying why. Also skipped in a sanitizer build, whose libmhapy.so cannot be
# loaded into an uninstrumented python. Used by test_compare_torch_train and
# by the PyTorch benchmarks (bench/meson.build).
#
#     sh tools/with_torch.sh compare_torch.py --lib build/bench/libmhapy.so ...
set -u
root=$(dirname "$0")
script=${1:?usage: with_torch.sh SCRIPT.py [ARGS...]}
shift
py=/usr/bin/python3
if [ -n "${MHA_SANITIZE:-}" ] && [ "$MHA_SANITIZE" != none ]; then
	echo "SKIP: a sanitizer build ($MHA_SANITIZE): libmhapy.so cannot load into $py without the sanitizer's runtime"
	exit 77
fi
if ! [ -x "$py" ] || ! "$py" -c 'import torch, numpy' 2>/dev/null; then
	echo "SKIP: $py has no torch or numpy (Debian's python3-torch, python3-numpy)"
	exit 77
fi
exec "$py" "$root/$script" "$@"
