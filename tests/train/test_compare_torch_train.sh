#!/bin/sh
# test_compare_torch_train.sh - mha-tui's trainer step by step against the
# same model in PyTorch (tools/compare_torch_train.py --no-timing): from the
# trainer's own initial weights, on the batches it draws, the per-step
# losses of the default induction model agree with PyTorch's float64 run for
# 150 steps within the tolerance the script states (doc/PERFORMANCE.md,
# "Training against PyTorch"). About 4 s of CPU (most of it importing torch
# and running PyTorch twice). Skipped (exit 77) where Debian's python3-torch
# is missing, and in a sanitizer build, whose library cannot be loaded into
# an uninstrumented python.
set -u
root=${MHA_SOURCE_ROOT:?run under meson test, which sets MHA_SOURCE_ROOT}
lib=${1:?usage: test_compare_torch_train.sh build/bench/libmhapy.so}
py=/usr/bin/python3
if [ -n "${MHA_SANITIZE:-}" ] && [ "$MHA_SANITIZE" != none ]; then
	echo "SKIP: a sanitizer build ($MHA_SANITIZE): libmhapy.so cannot load into $py without the sanitizer's runtime"
	exit 77
fi
if ! [ -x "$py" ] || ! "$py" -c 'import torch, numpy' 2>/dev/null; then
	echo "SKIP: $py has no torch or numpy (Debian's python3-torch, python3-numpy)"
	exit 77
fi
exec "$py" "$root/tools/compare_torch_train.py" --no-timing --lib "$lib"
