/*
 * bench_decode.c - mha-bench --decode: one decode step's attention
 * (mha_kvdec_attend, 1 thread) against a cache of T tokens for every
 * (T, g) asked, through mha_decode_speed, the function the TUI's KV view
 * can call: bytes of K and V read per step, the bandwidth reached, and a
 * streaming read of the same bytes in the same rounds (interleaved; min,
 * median, max over rounds). Beside them the machine's other ceiling, one
 * core's FMA peak, measured after each row: a step whose FLOPs per byte
 * (G / 2 for G query heads per kv head) exceed peak / bandwidth is bound
 * by arithmetic, not by memory, and the table says which bound applies.
 * Targets (--check): at T >= 4096, every g, >= 70% of the streaming
 * bandwidth; where even the FMA peak cannot reach that (compute-bound), >=
 * 70% of the roofline, max(bytes / bandwidth, FLOPs / peak), instead.
 */
#include "bench_decode.h"
#include "engine.h"
#include "roof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_SHARE 0.70
#define TARGET_MIN_TOKENS 4096

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bench_fma_gflops(double min_time)
{
	/* by this thread's CPU time: the loop touches no memory, so CPU time
	 * is its time on the core, whatever else waits for it */
	long iters = 1 << 16;
	double best = 0.0, start = cpu_now();
	volatile float sink = 0.0f;
	do {
		double t0 = cpu_now();
		sink = roof_fma(iters);
		double t = cpu_now() - t0;
		if (t < 1e-3)
			iters *= 2;
		else if (roof_fma_flops(iters) / t > best)
			best = roof_fma_flops(iters) / t;
	} while (cpu_now() - start < min_time || best == 0.0);
	(void)sink;
	return best * 1e-9;
}

void bench_decode_defaults(struct decode_args *a)
{
	memset(a, 0, sizeof *a);
	a->h = 32;
	a->dk = 128;
	a->d_model = 4096;
	int t[] = { 1024, 4096, 16384, 32768 }, g[] = { 32, 8, 1 };
	memcpy(a->tokens, t, sizeof t);
	a->ntokens = 4;
	memcpy(a->kv, g, sizeof g);
	a->nkv = 3;
	a->rounds = 5;
	a->min_time = 0.2;
}

struct row {
	struct mha_decode_speed s;
	double peak;       /* GFLOP/s, this row's FMA sample */
	double roof_ms;    /* max(bytes / streaming bandwidth, FLOPs / peak) */
	bool compute;      /* 70% of the bandwidth would need more than the peak */
	double share;      /* what the target judges: ratio, or roof_ms / step */
	bool judged, met;
};

static void judge(struct row *r)
{
	const struct mha_decode_speed *s = &r->s;
	double mem_ms = s->bytes / (s->stream_gbs[1] * 1e9) * 1e3;
	double fma_ms = s->flops / (r->peak * 1e9) * 1e3;
	r->roof_ms = mem_ms > fma_ms ? mem_ms : fma_ms;
	r->compute = fma_ms > mem_ms / TARGET_SHARE;
	r->share = r->compute ? r->roof_ms / s->step_ms[1] : s->ratio[1];
	r->judged = s->tokens >= TARGET_MIN_TOKENS;
	r->met = r->share >= TARGET_SHARE;
}

static void print_rows(const struct decode_args *a, const struct row *r, int n)
{
	long l1, l2, l3;
	mha_cache_sizes(&l1, &l2, &l3);
	printf("mha-bench --decode: one decode step's attention, 1 thread, fp32: %d query heads, "
	       "d_k %d (d_model %d)\n", a->h, a->dk, a->d_model);
	printf("caches (as the engine read them): L1d %ld KiB, L2 %ld KiB, L3 %ld KiB; each step "
	       "reads the next of `layers` caches (%.0f MiB or more in all), so its bytes come from "
	       "memory\n", l1 / 1024, l2 / 1024, l3 / 1024,
	       n ? r[0].s.working_set / (1024.0 * 1024.0) : 0.0);
	printf("%6s %3s %3s %6s %9s %26s %8s %9s %18s %8s %6s %6s %s\n", "T", "g", "G", "layers",
	       "KV_MiB", "step_ms median (min-max)", "GB/s", "stream", "ratio (min-max)", "GFLOP/s",
	       "%peak", "%roof", "bound");
	for (int i = 0; i < n; i++) {
		const struct mha_decode_speed *s = &r[i].s;
		double gflops = s->flops / (s->step_ms[1] * 1e-3) * 1e-9;
		printf("%6d %3d %3d %6d %9.1f %9.3f (%6.3f-%7.3f) %8.1f %9.1f %5.2f (%4.2f-%4.2f) %8.1f "
		       "%5.0f%% %5.0f%% %s\n", s->tokens, s->g, s->h / s->g, s->layers,
		       s->bytes / (1024.0 * 1024.0), s->step_ms[1], s->step_ms[0], s->step_ms[2],
		       s->gbs[1], s->stream_gbs[1], s->ratio[1], s->ratio[0], s->ratio[2], gflops,
		       100.0 * gflops / r[i].peak, 100.0 * r[i].roof_ms / s->step_ms[1],
		       r[i].compute ? "FMA" : "memory");
	}
	for (int i = 0; i < n; i++)
		printf("  T %d g %d by CPU time of the thread: step %.3f ms (%.3f-%.3f), ratio %.2f "
		       "(%.2f-%.2f)\n", r[i].s.tokens, r[i].s.g, r[i].s.step_cpu_ms[1],
		       r[i].s.step_cpu_ms[0], r[i].s.step_cpu_ms[2], r[i].s.ratio_cpu[1],
		       r[i].s.ratio_cpu[0], r[i].s.ratio_cpu[2]);
	printf("ratio: the step's bandwidth over a streaming read of the same bytes, round by round; "
	       "stream: GB/s of that read; %%peak: the step's GFLOP/s over one core's FMA peak (same "
	       "run); %%roof: max(bytes / stream, FLOPs / peak) over the step's time\n");
	for (int i = 0; i < n; i++)
		if (r[i].judged)
			printf("target: T %d, g %d: >= %.0f%% of %s: %.0f%% %s\n", r[i].s.tokens, r[i].s.g,
			       100.0 * TARGET_SHARE,
			       r[i].compute ? "the roofline (compute-bound: 70% of the streaming bandwidth "
			                      "needs more than the FMA peak)"
			                    : "the streaming bandwidth",
			       100.0 * r[i].share, r[i].met ? "met" : "MISSED");
}

static void print_json(const struct decode_args *a, const struct row *r, int n)
{
	printf("{\n  \"decode\": {\"h\": %d, \"dk\": %d, \"d_model\": %d, \"threads\": 1, \"rows\": [",
	       a->h, a->dk, a->d_model);
	for (int i = 0; i < n; i++) {
		const struct mha_decode_speed *s = &r[i].s;
		printf("%s\n    {\"tokens\": %d, \"g\": %d, \"layers\": %d, \"bytes\": %.0f, \"flops\": %.0f, "
		       "\"step_ms\": [%.6f, %.6f, %.6f], \"gbs\": [%.3f, %.3f, %.3f], "
		       "\"stream_gbs\": [%.3f, %.3f, %.3f], \"ratio\": [%.4f, %.4f, %.4f], "
		       "\"step_cpu_ms\": [%.6f, %.6f, %.6f], \"ratio_cpu\": [%.4f, %.4f, %.4f], "
		       "\"fma_peak_gflops\": %.2f, \"roof_ms\": %.6f, \"bound\": \"%s\", \"share\": %.4f, "
		       "\"judged\": %s, \"met\": %s}", i ? "," : "", s->tokens, s->g, s->layers, s->bytes,
		       s->flops, s->step_ms[0], s->step_ms[1], s->step_ms[2], s->gbs[0], s->gbs[1],
		       s->gbs[2], s->stream_gbs[0], s->stream_gbs[1], s->stream_gbs[2], s->ratio[0],
		       s->ratio[1], s->ratio[2], s->step_cpu_ms[0], s->step_cpu_ms[1], s->step_cpu_ms[2],
		       s->ratio_cpu[0], s->ratio_cpu[1], s->ratio_cpu[2], r[i].peak, r[i].roof_ms, r[i].compute ? "fma" : "memory",
		       r[i].share, r[i].judged ? "true" : "false", r[i].met ? "true" : "false");
	}
	printf("\n  ]}\n}\n");
}

int bench_decode_run(const struct decode_args *a, bool json, bool check)
{
	static struct row rows[DECODE_MAX_LIST * DECODE_MAX_LIST];
	int n = 0, failed = 0;
	for (int t = 0; t < a->ntokens; t++)
		for (int k = 0; k < a->nkv; k++) {
			char msg[MHA_MSG_MAX];
			struct mha_decode_options o = { .h = a->h, .g = a->kv[k], .dk = a->dk,
			                                .tokens = a->tokens[t], .rounds = a->rounds,
			                                .min_time = a->min_time };
			struct row *r = &rows[n];
			if (mha_decode_speed(&o, &r->s, msg, sizeof msg) != MHA_OK) {
				fprintf(stderr, "mha-bench: --decode T %d g %d: %s\n", o.tokens, o.g, msg);
				failed = 1;
				continue;
			}
			r->peak = bench_fma_gflops(a->min_time / 4);
			judge(r);
			n++;
		}
	if (json)
		print_json(a, rows, n);
	else
		print_rows(a, rows, n);
	if (failed)
		return 2;
	for (int i = 0; i < n; i++)
		if (check && rows[i].judged && !rows[i].met)
			return 1;
	return 0;
}
