/*
 * bench_decode.h - mha-bench --decode (bench_decode.c): a decode step's
 * attention against long K/V caches, in bytes read per step and bandwidth
 * against a streaming read of the same bytes in the same run; and the
 * machine's FMA peak, which mha-bench also prints beside the forward's
 * sgemm.
 */
#ifndef BENCH_DECODE_H
#define BENCH_DECODE_H

#include <stdbool.h>

enum { DECODE_MAX_LIST = 8 };

struct decode_args {
	int h, dk, d_model;          /* query heads, head size; d_model = h dk, shown */
	int tokens[DECODE_MAX_LIST]; /* cache lengths T */
	int ntokens;
	int kv[DECODE_MAX_LIST];     /* kv heads g */
	int nkv;
	int rounds;
	double min_time;             /* seconds per side and round */
};

/* The defaults: h 32, dk 128 (d_model 4096), T 1024 4096 16384 32768,
 * g 32 8 1, 5 rounds of 0.2 s. */
void bench_decode_defaults(struct decode_args *a);
/* Runs every (T, g), prints a table (or JSON); returns 0, 1 when check and
 * a target is missed, 2 when a measurement could not be made. */
int bench_decode_run(const struct decode_args *a, bool json, bool check);
/* One core's FMA peak: the fastest of a few samples of roof_fma lasting
 * min_time in all, in GFLOP/s (the widest vectors the CPU has). */
double bench_fma_gflops(double min_time);

#endif
