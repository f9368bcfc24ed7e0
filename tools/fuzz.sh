#!/usr/bin/env bash
# fuzz.sh - build mha-tui's libFuzzer targets (clang 14, ASan + UBSan, plain-
# loop BLAS) and run each for a bounded time. Exit non-zero when any target
# finds a crash, a leak, a timeout or runs out of memory; the input that did
# it is copied into tests/fuzz/corpus/<target>/, so that every later
# `meson test` replays it. New inputs that add coverage stay in the build
# dir unless FUZZ_MERGE=1, which merges them into the corpus.
#
# Environment: FUZZ_SECONDS (per target, default 25), FUZZ_BUILD (build dir,
# default build-fuzz), FUZZ_TARGETS (default: every fuzz_*.c in tests/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/need-packages.sh
# shellcheck disable=SC2154
need_packages $project_packages clang-14 libclang-rt-14-dev

secs=${FUZZ_SECONDS:-25}
build=${FUZZ_BUILD:-build-fuzz}
targets=${FUZZ_TARGETS:-$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')}
clang=$(command -v clang-14 || command -v clang)

if [ ! -f "$build/build.ninja" ]; then
	CC=$clang meson setup "$build" -Dbuildtype=debugoptimized -Dblas=reference \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
# shellcheck disable=SC2086
ninja -C "$build" $(for t in $targets; do echo "tests/fuzz/$t"; done) >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export OPENBLAS_NUM_THREADS=1
status=0
summary=""
for t in $targets; do
	work=$build/fuzz-work/$t
	art=$build/fuzz-artifacts/$t
	mkdir -p "$work" "$art"
	log=$build/fuzz-work/$t.log
	echo "== $t: ${secs}s"
	rc=0
	# -timeout: one input taking 10 s is a hang; -rss_limit_mb: an input
	# that makes the parser allocate without bound is a bug too.
	"$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=16384 -print_final_stats=1 -artifact_prefix="$art/" \
		"$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
	feat=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | sed 's/ft: //')
	found=$(find "$art" -type f | wc -l)
	line="$t: ${execs:-?} executions, ${cov:-?} edges covered, ${feat:-?} features, corpus $(ls "$work" | wc -l) + $(ls "tests/fuzz/corpus/$t" | wc -l) files"
	summary="$summary$line"$'\n'
	if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
		status=1
		echo "FAILED $t (exit $rc): last lines of $log:"
		grep -E 'ERROR|SUMMARY|broken promise|runtime error|Test unit written' "$log" | head -20 || tail -30 "$log"
		# moved, not copied: once in the corpus (and fixed), the input
		# must not fail every later run from the artifacts directory
		for f in "$art"/*; do
			[ -f "$f" ] || continue
			mv "$f" "tests/fuzz/corpus/$t/"
			echo "added $(basename "$f") to tests/fuzz/corpus/$t/"
		done
	fi
	if [ "${FUZZ_MERGE:-0}" = 1 ]; then
		"$build/tests/fuzz/$t" -merge=1 "tests/fuzz/corpus/$t" "$work" >/dev/null 2>&1
	fi
done
printf '%s' "$summary"
if [ "$status" -eq 0 ]; then
	echo "fuzz: $(echo "$targets" | wc -w) targets, no crash, leak or hang"
else
	echo "fuzz: a target failed (see above)"
fi
exit "$status"
