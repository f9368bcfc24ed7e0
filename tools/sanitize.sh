#!/usr/bin/env bash
# sanitize.sh - the whole meson test suite twice more:
#  1. a clang build with AddressSanitizer + UndefinedBehaviorSanitizer
#     (LeakSanitizer included) and the plain-loop BLAS backend, because
#     ASan cannot see inside OpenBLAS; every UB report halts (no recover);
#  2. a gcc build with OpenBLAS under valgrind (meson test --setup valgrind),
#     less the suites that time things or drive tmux (see below).
# Exit non-zero when any test fails in either. Installs what is missing
# (as root). Build dirs: SANITIZE_BUILD (default build-sanitize) and
# VALGRIND_BUILD (default build-valgrind); SANITIZE_ONLY=asan or valgrind
# runs one half.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/need-packages.sh
# shellcheck disable=SC2154
need_packages $project_packages clang-14 libclang-rt-14-dev valgrind libvterm-dev tmux

asan_build=${SANITIZE_BUILD:-build-sanitize}
vg_build=${VALGRIND_BUILD:-build-valgrind}
only=${SANITIZE_ONLY:-}
clang=$(command -v clang-14 || command -v clang)
status=0

# Every UBSan finding is fatal, with a stack; ASan and LSan on; the
# suppressions file names library leaks only, each with its reason. These
# reach the programs the tests start too (the pty harness passes its
# environment on).
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=0
export OPENBLAS_NUM_THREADS=1

if [ "$only" != valgrind ]; then
	echo "== AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer ($asan_build)"
	if [ ! -f "$asan_build/build.ninja" ]; then
		CC=$clang meson setup "$asan_build" -Dbuildtype=debugoptimized -Dblas=reference \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args=-fno-sanitize-recover=all >/dev/null
	fi
	ninja -C "$asan_build" >/dev/null
	# timeouts catch hangs: the reference BLAS under ASan is several times
	# slower, and test_tasks (training, 20 s plain) ran past its 300 s
	# timeout at load 8
	meson test -C "$asan_build" --print-errorlogs --num-processes 2 --timeout-multiplier 3 || status=1
fi

if [ "$only" != asan ]; then
	# Left out under valgrind: tests that are scripts (valgrind would check
	# the shell or python, not mha-tui: the binaries they start are checked
	# by the ASan run above), and the suites 'e2e' (tmux) and 'perf'/'bench'
	# (timings mean nothing at valgrind's 20-50x slowdown).
	echo "== valgrind ($vg_build)"
	if [ ! -f "$vg_build/build.ninja" ]; then
		CC=gcc meson setup "$vg_build" -Dbuildtype=debugoptimized >/dev/null
	fi
	ninja -C "$vg_build" >/dev/null
	mapfile -t vg_tests < <(meson introspect --tests "$vg_build" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    suites = {s.split(":")[-1] for s in t["suite"]}
    with open(t["cmd"][0], "rb") as f:
        script = f.read(2) == b"#!"
    if script or suites & {"e2e", "perf", "bench"}:
        print("valgrind: leaving out", t["name"], "(script)" if script else sorted(suites), file=sys.stderr)
    else:
        print(t["name"])')
	meson test -C "$vg_build" --setup valgrind --print-errorlogs --num-processes 2 \
		"${vg_tests[@]}" || status=1
fi
exit "$status"
