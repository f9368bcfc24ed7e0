#!/bin/sh
# test_compare_torch_train.sh - mha-tui's trainer step by step against the
# same model in PyTorch (tools/compare_torch_train.py --no-timing): from the
# trainer's own initial weights, on the batches it draws, the per-step
# losses of the default induction model agree with PyTorch's float64 run for
# 150 steps within the tolerance the script states (doc/PERFORMANCE.md,
# "Training against PyTorch"). About 4 s of CPU (most of it importing torch
# and running PyTorch twice). Skipped (exit 77) where Debian's python3-torch
# is missing, and in a sanitizer build (tools/with_torch.sh says why).
set -u
root=${MHA_SOURCE_ROOT:?run under meson test, which sets MHA_SOURCE_ROOT}
lib=${1:?usage: test_compare_torch_train.sh build/bench/libmhapy.so}
exec sh "$root/tools/with_torch.sh" compare_torch_train.py --no-timing --lib "$lib"
