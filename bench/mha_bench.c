/*
 * mha_bench.c - how fast the compute core runs, measured against the
 * machine's own sgemm in the same run. For each shape and thread count:
 * the median time of one planned forward (mha_plan_forward), its GFLOP/s
 * (mha_counts' FLOPs), the GFLOP/s of one sgemm of the projection's size
 * (n x d times d x d, through gemm_rm with as many BLAS threads), their
 * ratio, the share of each phase, and the peak memory. Forward and sgemm
 * samples are taken in alternating rounds so that load from other
 * processes falls on both. Output: an aligned table, or JSON (--json).
 * Built with the TUI's bench_ui.c, it also times edit -> recompute ->
 * draw on the workbench at (8,16,4) and (64,512,8).
 * Beside the sgemm, the machine's own ceiling: one core's FMA peak (a
 * loop of independent multiply-adds, bench_decode.c), sampled in the same
 * rounds. --decode times the decode step against long K/V caches instead
 * (bench_decode.c). It checks nothing by default; --check exits 1 when a
 * target is missed.
 */
#include "bench_decode.h"
#include "engine.h"
#include "gemm.h"
#include "vexp.h"

#ifdef MHA_BENCH_UI
#include "bench_ui.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* samples: at most ROUND_SAMPLES per round, so every round counts */
enum { MAX_SHAPES = 16, MAX_THREADS = 4, MAX_ROUNDS = 99, ROUND_SAMPLES = 512,
       MAX_SAMPLES = MAX_ROUNDS * ROUND_SAMPLES };

struct shape {
	int n, d, h;
};

static const struct shape default_shapes[] = {
	{ 16, 64, 4 }, { 128, 512, 8 }, { 512, 512, 8 }, { 1024, 512, 8 }, { 2048, 512, 8 },
	{ 4096, 512, 8 },
};

struct options {
	struct shape shapes[MAX_SHAPES];
	int nshapes;
	int threads[MAX_THREADS];
	int nthreads;
	int rounds;       /* alternating forward / sgemm rounds */
	int block_rows;   /* B_r, query rows per tile; 0: the plan's choice */
	int block_cols;   /* B_c, keys per tile; 0: the plan's choice */
	double min_time;  /* seconds of forward samples per round, at least */
	bool json, check, causal, no_ui;
	bool separate_qkv; /* Q, K, V by three products instead of one fused */
	bool blas_products; /* the projections by sgemm, never the engine's kernel */
	bool scaling;     /* only the interleaved 2-against-1 thread measurement */
	bool cpu_ratio;   /* only forward / sgemm by CPU time, 1 thread */
	bool decode;      /* only the decode step (bench_decode.c) */
	struct decode_args dec;
};

/* The TUI's edit -> recompute -> draw (bench_ui.h), when built with it. */
struct ui_result {
	int n, d, h, rc;
	double median_ms, p90_ms;
};

static const int ui_shapes[][3] = { { 8, 16, 4 }, { 64, 512, 8 } };
enum { UI_SHAPES = 2 };

static int measure_ui(struct ui_result *u)
{
#ifdef MHA_BENCH_UI
	for (int i = 0; i < UI_SHAPES; i++) {
		u[i] = (struct ui_result){ ui_shapes[i][0], ui_shapes[i][1], ui_shapes[i][2], 0, 0.0, 0.0 };
		u[i].rc = bench_ui_measure(u[i].n, u[i].d, u[i].h, 200, &u[i].median_ms, &u[i].p90_ms);
	}
	return UI_SHAPES;
#else
	(void)u;
	return 0;
#endif
}

struct result {
	struct shape s;
	int threads;
	bool large;
	int br, bc;       /* the large path's tiles */
	double fwd_ms, fwd_p90_ms, gflops, sgemm_gflops, ratio;
	double peak_gflops; /* one core's FMA loop, the median over rounds */
	/* spread over rounds: each round's median forward, each round's ratio
	 * (its forward median against its own sgemm median) */
	double fwd_min_ms, fwd_max_ms, ratio_min, ratio_max;
	double share[MHA_PHASE_COUNT];
	double peak_mib, base_mib, plan_mib;
};

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* q-quantile (0.5: median) of v[0..n), sorting v */
static double quantile(double *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	int i = (int)(q * (n - 1) + 0.5);
	return v[i];
}

/* VmRSS / VmHWM of this process, MiB; -1 when /proc is not there */
static double status_mib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1.0;
	char line[256];
	double kib = -1.0;
	size_t klen = strlen(key);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			kib = atof(line + klen + 1);
	fclose(f);
	return kib < 0 ? -1.0 : kib / 1024.0;
}

/* Reset the peak RSS to the current RSS (Linux >= 4.0), so that VmHWM
 * afterwards is the peak of what follows. */
static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

static float *filled(size_t len)
{
	float *p = malloc(len * sizeof *p);
	if (p)
		for (size_t i = 0; i < len; i++)
			p[i] = (float)((i * 2654435761u) % 2001u) / 1000.0f - 1.0f;
	return p;
}

/* Median seconds per call of fn over samples of k calls each, k chosen
 * so that a sample lasts at least 50 us. Appends to v. */
struct timed {
	double v[MAX_SAMPLES];
	int n;
};

static void sample(struct timed *t, void (*fn)(void *), void *ctx, double min_time)
{
	double t0 = now();
	fn(ctx);
	double one = now() - t0;
	int k = one > 50e-6 ? 1 : (int)(50e-6 / (one > 1e-9 ? one : 1e-9)) + 1;
	double start = now();
	int end = t->n + ROUND_SAMPLES < MAX_SAMPLES ? t->n + ROUND_SAMPLES : MAX_SAMPLES;
	do {
		double a = now();
		for (int i = 0; i < k; i++)
			fn(ctx);
		if (t->n < end)
			t->v[t->n++] = (now() - a) / k;
	} while (now() - start < min_time && t->n < end);
}

/* median of the samples t->v[from..t->n), leaving them in place */
static double round_median(const struct timed *t, int from)
{
	double v[ROUND_SAMPLES];
	int n = t->n - from;
	if (n <= 0)
		return 0.0;
	memcpy(v, t->v + from, (size_t)n * sizeof *v);
	return quantile(v, n, 0.5);
}

struct fwd_ctx {
	struct mha_plan *plan;
	struct mha_weights *w;
};

static void run_forward(void *ctx)
{
	struct fwd_ctx *f = ctx;
	mha_plan_forward(f->plan, f->w);
}

struct sgemm_ctx {
	int n, d;
	float *a, *b, *c;
};

// C (n,d) = A (n,d) @ B (d,d): the size of one projection
static void run_sgemm(void *ctx)
{
	struct sgemm_ctx *g = ctx;
	size_t nd = (size_t)g->n * g->d, dd = (size_t)g->d * g->d;
	gemm_rm(false, false, g->n, g->d, g->d, 1.0f, g->a, g->d, nd, g->b, g->d, dd, g->c, g->d, nd);
}

static int measure(const struct options *o, struct shape s, int threads, struct result *r)
{
	char msg[MHA_MSG_MAX];
	struct mha_config c = mha_config_default();
	c.n = s.n; c.d = s.d; c.h = s.h; c.g = s.h; c.dk = s.d / s.h;
	c.causal = o->causal;
	memset(r, 0, sizeof *r);
	r->s = s;
	r->threads = threads;
	struct sgemm_ctx g = { s.n, s.d, filled((size_t)s.n * s.d), filled((size_t)s.d * s.d),
	                       filled((size_t)s.n * s.d) };
	if (!g.a || !g.b || !g.c) {
		fprintf(stderr, "mha-bench: out of memory\n");
		return -1;
	}
	r->base_mib = status_mib("VmRSS");
	reset_peak();
	struct mha_weights w;
	struct mha_plan *plan = NULL;
	struct mha_plan_options po = { .threads = threads, .block_rows = o->block_rows,
	                               .block_cols = o->block_cols,
	                               .separate_qkv = o->separate_qkv,
	                               .blas_products = o->blas_products };
	if (mha_weights_alloc(&w, &c) != MHA_OK) {
		fprintf(stderr, "mha-bench: out of memory for the weights\n");
		return -1;
	}
	mha_weights_init(&w, &c, 7);
	if (mha_plan_create(&plan, &c, &po, msg, sizeof msg) != MHA_OK) {
		fprintf(stderr, "mha-bench: n %d d %d h %d: %s\n", s.n, s.d, s.h, msg);
		mha_weights_free(&w);
		return -1;
	}
	r->large = mha_plan_is_large(plan);
	mha_plan_tiles(plan, &r->br, &r->bc);
	r->plan_mib = (double)mha_plan_bytes(plan) / (1024.0 * 1024.0);
	struct fwd_ctx f = { plan, &w };
	static struct timed tf, tg;
	tf.n = tg.n = 0;
	for (int i = 0; i < 3; i++)
		run_forward(&f);
	struct mha_counts k = mha_counts(&c);
	const double sgemm_flops = 2.0 * s.n * (double)s.d * s.d;
	double round_fwd[MAX_ROUNDS], round_ratio[MAX_ROUNDS], round_peak[MAX_ROUNDS];
	for (int round = 0; round < o->rounds; round++) {
		int f0 = tf.n, g0 = tg.n;
		sample(&tf, run_forward, &f, o->min_time);
		if (round == 0)
			r->peak_mib = status_mib("VmHWM");
		int had = gemm_threads_set(threads);
		run_sgemm(&g);
		sample(&tg, run_sgemm, &g, o->min_time / 2);
		gemm_threads_set(had);
		round_peak[round] = bench_fma_gflops(o->min_time / 4);
		round_fwd[round] = round_median(&tf, f0);
		round_ratio[round] = ((double)k.flops_total / round_fwd[round])
		                     / (sgemm_flops / round_median(&tg, g0));
		/* OpenBLAS's idle workers poll for a while before they sleep:
		 * let them, or they compete with the next forward's threads */
		if (threads > 1)
			usleep(150000);
	}
	mha_plan_profile(plan, true);
	double t0 = now();
	int calls = 0;
	do {
		run_forward(&f);
		calls++;
	} while (now() - t0 < o->min_time && calls < 100000);
	double sec[MHA_PHASE_COUNT], total = 0.0;
	mha_plan_phase_seconds(plan, sec);
	for (int i = 0; i < MHA_PHASE_COUNT; i++)
		total += sec[i];
	for (int i = 0; i < MHA_PHASE_COUNT; i++)
		r->share[i] = total > 0 ? sec[i] / total : 0.0;

	double fwd = quantile(tf.v, tf.n, 0.5);
	r->fwd_p90_ms = quantile(tf.v, tf.n, 0.9) * 1e3;
	double sg = quantile(tg.v, tg.n, 0.5);
	r->fwd_ms = fwd * 1e3;
	r->gflops = (double)k.flops_total / fwd * 1e-9;
	r->sgemm_gflops = sgemm_flops / sg * 1e-9;
	r->ratio = quantile(round_ratio, o->rounds, 0.5);
	r->ratio_min = quantile(round_ratio, o->rounds, 0.0);
	r->ratio_max = quantile(round_ratio, o->rounds, 1.0);
	r->peak_gflops = quantile(round_peak, o->rounds, 0.5);
	r->fwd_min_ms = quantile(round_fwd, o->rounds, 0.0) * 1e3;
	r->fwd_max_ms = quantile(round_fwd, o->rounds, 1.0) * 1e3;
	mha_plan_destroy(plan);
	mha_weights_free(&w);
	free(g.a); free(g.b); free(g.c);
	return 0;
}

/* 2 threads against 1 on one shape, interleaved: each round times the
 * 1-thread plan, then the 2-thread plan, and its speedup is the ratio of
 * the two medians; min / median / max over rounds. The forwards run with
 * the plan's profiling on (a few clock reads per task), so each round
 * also gives every phase's wall time per forward and how busy the threads
 * were in it (thread time over threads x wall time). Then, as the
 * machine's own reference, OpenBLAS's sgemm of the projection's size at 1
 * and 2 BLAS threads in the same round. */
struct speedup {
	struct shape s;
	int rounds;
	double min, median, max;
	double sgemm_min, sgemm_median, sgemm_max;
	/* [threads - 1][phase], medians over rounds */
	double phase_ms[2][MHA_PHASE_COUNT], busy[2][MHA_PHASE_COUNT];
	/* CPU time of the process per forward, [threads - 1], median over
	 * rounds: at 2 threads against 1 it shows the work added by running
	 * in parallel (spinning, caches, memory), whatever the load */
	double cpu_ms[2];
};

struct counted_fwd {
	struct fwd_ctx f;
	int calls;
};

static void run_counted(void *ctx)
{
	struct counted_fwd *cf = ctx;
	run_forward(&cf->f);
	cf->calls++;
}

/* min, median, max of v[0..n), sorting v */
static void spread(double *v, int n, double *lo, double *mid, double *hi)
{
	*lo = quantile(v, n, 0.0);
	*mid = quantile(v, n, 0.5);
	*hi = quantile(v, n, 1.0);
}

/* A plan for c with the options' tiles and products; NULL (said on
 * stderr) when the engine refuses it. */
static struct mha_plan *plan_for(const struct options *o, const struct mha_config *c, int threads)
{
	char msg[MHA_MSG_MAX];
	struct mha_plan *plan = NULL;
	struct mha_plan_options po = { .threads = threads, .block_rows = o->block_rows,
	                               .block_cols = o->block_cols,
	                               .separate_qkv = o->separate_qkv,
	                               .blas_products = o->blas_products };
	if (mha_plan_create(&plan, c, &po, msg, sizeof msg) != MHA_OK) {
		fprintf(stderr, "mha-bench: n %d d %d h %d: %s\n", c->n, c->d, c->h, msg);
		return NULL;
	}
	return plan;
}

/* --cpu-ratio: per round the fastest of 3 forwards and of 5 sgemms by
 * process CPU time (1 thread), so the waits for a core that a loaded
 * machine adds to wall time drop out; not the caches and memory shared
 * with the other processes. ratio: min, median, max over rounds. */
static int measure_cpu_ratio(const struct options *o, struct shape s, double *median)
{
	struct mha_config c = mha_config_default();
	c.n = s.n; c.d = s.d; c.h = s.h; c.g = s.h; c.dk = s.d / s.h;
	c.causal = o->causal;
	struct mha_weights w;
	if (mha_weights_alloc(&w, &c) != MHA_OK)
		return -1;
	mha_weights_init(&w, &c, 7);
	struct sgemm_ctx g = { s.n, s.d, filled((size_t)s.n * s.d), filled((size_t)s.d * s.d),
	                       filled((size_t)s.n * s.d) };
	struct mha_plan *plan = g.a && g.b && g.c ? plan_for(o, &c, 1) : NULL;
	if (plan) {
		struct fwd_ctx f = { plan, &w };
		double ratio[MAX_ROUNDS], fwd[MAX_ROUNDS], gemm[MAX_ROUNDS];
		double flops = (double)mha_counts(&c).flops_total, gflops = 2.0 * s.n * (double)s.d * s.d;
		run_forward(&f);
		for (int r = 0; r < o->rounds; r++) {
			double best[2] = { 1e30, 1e30 };
			for (int k = 0; k < 8; k++) {
				double t0 = cpu_now();
				if (k < 3)
					run_forward(&f);
				else
					run_sgemm(&g);
				double t = cpu_now() - t0;
				best[k >= 3] = t < best[k >= 3] ? t : best[k >= 3];
			}
			fwd[r] = flops / best[0] * 1e-9;
			gemm[r] = gflops / best[1] * 1e-9;
			ratio[r] = fwd[r] / gemm[r];
		}
		int br, bc;
		mha_plan_tiles(plan, &br, &bc);
		double lo, mid, hi;
		spread(ratio, o->rounds, &lo, &mid, &hi);
		*median = mid;
		double peak = bench_fma_gflops(0.05);
		printf("cpu-ratio n %d d %d h %d, 1 thread, %s, tiles %dx%d, %d rounds: forward / sgemm "
		       "by CPU time min %.3f median %.3f max %.3f (forward %.1f, sgemm %.1f GFLOP/s, "
		       "medians; one core's FMA peak %.1f: forward %.0f%%, sgemm %.0f%% of it)\n", s.n, s.d,
		       s.h, vexp_isa_name(vexp_isa()), br, bc, o->rounds, lo, mid, hi,
		       quantile(fwd, o->rounds, 0.5), quantile(gemm, o->rounds, 0.5), peak,
		       100.0 * quantile(fwd, o->rounds, 0.5) / peak,
		       100.0 * quantile(gemm, o->rounds, 0.5) / peak);
		mha_plan_destroy(plan);
	}
	free(g.a);
	free(g.b);
	free(g.c);
	mha_weights_free(&w);
	return plan ? 0 : -1;
}

static int measure_speedup(const struct options *o, struct shape s, struct speedup *sp)
{
	struct mha_config c = mha_config_default();
	c.n = s.n; c.d = s.d; c.h = s.h; c.g = s.h; c.dk = s.d / s.h;
	c.causal = o->causal;
	struct mha_weights w;
	struct mha_plan *plan[2] = { NULL, NULL };
	if (mha_weights_alloc(&w, &c) != MHA_OK)
		return -1;
	mha_weights_init(&w, &c, 7);
	struct sgemm_ctx g = { s.n, s.d, filled((size_t)s.n * s.d), filled((size_t)s.d * s.d),
	                       filled((size_t)s.n * s.d) };
	int rc = g.a && g.b && g.c ? 0 : -1;
	for (int t = 0; t < 2 && rc == 0; t++) {
		plan[t] = plan_for(o, &c, t + 1);
		rc = plan[t] ? 0 : -1;
	}
	static struct timed tt[2];
	static double ratio[MAX_ROUNDS], gratio[MAX_ROUNDS];
	static double ph_ms[2][MHA_PHASE_COUNT][MAX_ROUNDS], ph_busy[2][MHA_PHASE_COUNT][MAX_ROUNDS];
	static double cpu[2][MAX_ROUNDS];
	for (int round = 0; round < o->rounds && rc == 0; round++) {
		double med[2], gmed[2];
		for (int t = 0; t < 2; t++) {
			struct counted_fwd cf = { { plan[t], &w }, 0 };
			tt[t].n = 0;
			run_forward(&cf.f);
			mha_plan_profile(plan[t], true);
			double c0 = cpu_now();
			sample(&tt[t], run_counted, &cf, o->min_time);
			cpu[t][round] = 1e3 * (cpu_now() - c0) / cf.calls;
			med[t] = quantile(tt[t].v, tt[t].n, 0.5);
			double wall[MHA_PHASE_COUNT], busy[MHA_PHASE_COUNT];
			mha_plan_phase_wall(plan[t], wall);
			mha_plan_phase_seconds(plan[t], busy);
			mha_plan_profile(plan[t], false);
			for (int ph = 0; ph < MHA_PHASE_COUNT; ph++) {
				ph_ms[t][ph][round] = 1e3 * wall[ph] / cf.calls;
				ph_busy[t][ph][round] = wall[ph] > 0 ? busy[ph] / ((t + 1) * wall[ph]) : 0.0;
			}
		}
		for (int t = 0; t < 2; t++) {
			int had = gemm_threads_set(t + 1);
			run_sgemm(&g);
			tt[t].n = 0;
			sample(&tt[t], run_sgemm, &g, o->min_time / 2);
			gemm_threads_set(had);
			gmed[t] = quantile(tt[t].v, tt[t].n, 0.5);
		}
		ratio[round] = med[0] / med[1];
		gratio[round] = gmed[0] / gmed[1];
		/* OpenBLAS's idle workers poll for a while before they sleep:
		 * let them, or they compete with the next round's forwards */
		usleep(150000);
	}
	if (rc == 0) {
		sp->s = s;
		sp->rounds = o->rounds;
		spread(ratio, o->rounds, &sp->min, &sp->median, &sp->max);
		spread(gratio, o->rounds, &sp->sgemm_min, &sp->sgemm_median, &sp->sgemm_max);
		for (int t = 0; t < 2; t++)
			sp->cpu_ms[t] = quantile(cpu[t], o->rounds, 0.5);
		for (int t = 0; t < 2; t++)
			for (int ph = 0; ph < MHA_PHASE_COUNT; ph++) {
				sp->phase_ms[t][ph] = quantile(ph_ms[t][ph], o->rounds, 0.5);
				sp->busy[t][ph] = quantile(ph_busy[t][ph], o->rounds, 0.5);
			}
	}
	mha_plan_destroy(plan[0]);
	mha_plan_destroy(plan[1]);
	mha_weights_free(&w);
	free(g.a); free(g.b); free(g.c);
	return rc;
}

/* The large path's phases: scores, softmax and weighted sum are one fused
 * loop, clocked as "weighted"; it is the attention. */
static const char *scaling_phase_name(int ph)
{
	return ph == MHA_PHASE_WEIGHTED ? "attention" : mha_phase_name((enum mha_phase)ph);
}

static void usage(FILE *f)
{
	fputs("usage: mha-bench [options]\n"
	      "Times mha-tui's forward pass against one sgemm of the projection's size.\n"
	      "  --shape N,D,H     a shape to run (repeatable); default: 16,64,4 128,512,8\n"
	      "                    512,512,8 1024,512,8 2048,512,8 4096,512,8\n"
	      "  --threads LIST    thread counts, comma separated (default 1,2)\n"
	      "  --rounds R        alternating forward/sgemm rounds (default 5)\n"
	      "  --min-time S      seconds of forward samples per round (default 0.2)\n"
	      "  --quick           1 round of 0.05 s: a smoke run\n"
	      "  --tiles BRxBC     the large path's tiles: BR query rows, BC keys\n"
	      "                    (default: from this machine's cache sizes)\n"
	      "  --block-rows R    the same for BR alone\n"
	      "  --separate-qkv    Q, K, V by three sgemms instead of one fused (to compare)\n"
	      "  --blas-products   the projections by sgemm where the engine's AVX-512\n"
	      "                    kernel would run them (to compare)\n"
	      "  --causal          causal mask (the FLOP count stays dense)\n"
	      "  --isa NAME        exp and attention kernels: avx512f, avx2 or scalar\n"
	      "                    (default: the widest the CPU has)\n"
	      "  --scaling         only 2 threads against 1, interleaved round by round,\n"
	      "                    with each phase's time and OpenBLAS's own sgemm speedup\n"
	      "                    (any n; without it: n >= 1024 when --threads has 1 and 2)\n"
	      "  --cpu-ratio       only forward / sgemm at 1 thread by CPU time, interleaved\n"
	      "                    (the fastest of 3 forwards and of 5 sgemms per round):\n"
	      "                    under load, where wall times measure the other processes;\n"
	      "                    with --check, the 0.90 floor is judged on it\n"
	      "  --decode          only the decode step: one token's attention against a\n"
	      "                    K/V cache of T tokens, bytes read and GB/s against a\n"
	      "                    streaming read of the same bytes, 1 thread, fp32\n"
	      "  --decode-tokens L cache lengths T (default 1024,4096,16384,32768)\n"
	      "  --kv-heads LIST   kv heads g (default 32,8,1)\n"
	      "  --decode-heads H  query heads (default 32)\n"
	      "  --decode-dk DK    head size (default 128; d_model = H x DK = 4096)\n"
	      "  --no-ui           skip the TUI's edit -> recompute -> draw timing\n"
	      "  --json            JSON instead of the table\n"
	      "  --check           exit 1 if a speed target is missed\n"
	      "  --help            this text\n", f);
}

/* "a,b,c" into out (at most max counts in 1..limit); the count, or -1 */
static int parse_list(const char *v, int *out, int max, int limit)
{
	int n = 0;
	for (const char *p = v; *p; n++) {
		char *end;
		long x = strtol(p, &end, 10);
		if (n == max || end == p || x < 1 || x > limit || (*end && *end != ','))
			return -1;
		out[n] = (int)x;
		p = *end ? end + 1 : end;
	}
	return n > 0 ? n : -1;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	bench_decode_defaults(&o->dec);
	o->rounds = 5;
	o->min_time = 0.2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--check")) {
			o->check = true;
		} else if (!strcmp(a, "--isa") && v) {
			enum vexp_isa isa = !strcmp(v, "avx512f") ? VEXP_AVX512
			                    : !strcmp(v, "avx2") ? VEXP_AVX2 : VEXP_SCALAR;
			if ((strcmp(v, "scalar") && isa == VEXP_SCALAR) || !vexp_use(isa)) {
				fprintf(stderr, "mha-bench: --isa %s: not one of avx512f, avx2, scalar "
				        "that this CPU has\n", v);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--separate-qkv")) {
			o->separate_qkv = true;
		} else if (!strcmp(a, "--blas-products")) {
			o->blas_products = true;
		} else if (!strcmp(a, "--scaling")) {
			o->scaling = true;
		} else if (!strcmp(a, "--cpu-ratio")) {
			o->cpu_ratio = true;
		} else if (!strcmp(a, "--decode")) {
			o->decode = true;
		} else if ((!strcmp(a, "--decode-tokens") || !strcmp(a, "--kv-heads")) && v) {
			bool tok = !strcmp(a, "--decode-tokens");
			int k = parse_list(v, tok ? o->dec.tokens : o->dec.kv, DECODE_MAX_LIST,
			                   tok ? 1 << 20 : MHA_MAX_HEADS);
			if (k < 0) {
				fprintf(stderr, "mha-bench: %s wants up to %d counts, comma separated, "
				        "got '%s'\n", a, DECODE_MAX_LIST, v);
				return -1;
			}
			*(tok ? &o->dec.ntokens : &o->dec.nkv) = k;
			i++;
		} else if ((!strcmp(a, "--decode-heads") || !strcmp(a, "--decode-dk")) && v
		           && atoi(v) > 0) {
			*(!strcmp(a, "--decode-heads") ? &o->dec.h : &o->dec.dk) = atoi(v);
			i++;
		} else if (!strcmp(a, "--no-ui")) {
			o->no_ui = true;
		} else if (!strcmp(a, "--causal")) {
			o->causal = true;
		} else if (!strcmp(a, "--quick")) {
			o->rounds = 1;
			o->min_time = 0.05;
		} else if (!strcmp(a, "--shape") && v) {
			struct shape s;
			if (o->nshapes == MAX_SHAPES || sscanf(v, "%d,%d,%d", &s.n, &s.d, &s.h) != 3
			    || s.h < 1 || s.d % s.h != 0) {
				fprintf(stderr, "mha-bench: --shape wants N,D,H with H dividing D, got '%s'\n", v);
				return -1;
			}
			o->shapes[o->nshapes++] = s;
			i++;
		} else if (!strcmp(a, "--threads") && v) {
			o->nthreads = 0;
			for (const char *p = v; *p && o->nthreads < MAX_THREADS; ) {
				int t = atoi(p);
				if (t < 1 || t > 64) {
					fprintf(stderr, "mha-bench: --threads wants counts 1..64, got '%s'\n", v);
					return -1;
				}
				o->threads[o->nthreads++] = t;
				p = strchr(p, ',');
				p = p ? p + 1 : "";
			}
			i++;
		} else if (!strcmp(a, "--rounds") && v && atoi(v) > 0 && atoi(v) <= MAX_ROUNDS) {
			o->rounds = atoi(v);
			i++;
		} else if (!strcmp(a, "--block-rows") && v && atoi(v) > 0) {
			o->block_rows = atoi(v);
			i++;
		} else if (!strcmp(a, "--tiles") && v) {
			if (sscanf(v, "%dx%d", &o->block_rows, &o->block_cols) != 2 || o->block_rows < 1
			    || o->block_cols < 1) {
				fprintf(stderr, "mha-bench: --tiles wants BRxBC, two counts >= 1, got '%s'\n", v);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--min-time") && v && atof(v) > 0) {
			o->min_time = atof(v);
			i++;
		} else {
			fprintf(stderr, "mha-bench: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (o->nshapes == 0) {
		o->nshapes = (int)(sizeof default_shapes / sizeof default_shapes[0]);
		memcpy(o->shapes, default_shapes, sizeof default_shapes);
	}
	if (o->nthreads == 0) {
		o->threads[0] = 1;
		o->threads[1] = 2;
		o->nthreads = 2;
	}
	return 0;
}

/* The targets, from the rows measured: forward >= 0.90 of the same run's
 * sgemm at n = 1024, 2048, 4096 (1 thread; the median of the rounds'
 * ratios: issue 26 keeps the 0.90 measured as a floor; it was 0.85), 2
 * threads >= 1.8x 1 at n = 2048 (interleaved), the small case under 12 us,
 * and n = 16384 (d 512, h 8) in at most 359 MiB of peak memory added (issue
 * 26's floor, as measured then; the first target was 1 GiB). */
#define TARGET_RATIO 0.90
#define TARGET_SPEEDUP 1.8
#define TARGET_SMALL_US 12.0
#define TARGET_MIB_16384 359.0

struct verdict {
	bool have_ratio, have_speedup, have_small, have_mem;
	double worst_ratio, worst_ratio_512, small_us, mem_mib;
	struct speedup speedup;
};

static struct verdict judge(const struct result *r, int nr, const struct speedup *sp, int ns)
{
	struct verdict v = { .worst_ratio = 1e9, .worst_ratio_512 = 1e9 };
	for (int i = 0; i < nr; i++) {
		if (r[i].s.n >= 512 && r[i].threads == 1 && r[i].ratio < v.worst_ratio_512)
			v.worst_ratio_512 = r[i].ratio;
		if ((r[i].s.n == 1024 || r[i].s.n == 2048 || r[i].s.n == 4096) && r[i].threads == 1) {
			v.have_ratio = true;
			if (r[i].ratio < v.worst_ratio)
				v.worst_ratio = r[i].ratio;
		}
		if (r[i].s.n == 16 && r[i].s.d == 64 && r[i].s.h == 4 && r[i].threads == 1) {
			v.have_small = true;
			v.small_us = r[i].fwd_ms * 1e3;
		}
		if (r[i].s.n == 16384 && r[i].s.d == 512 && r[i].s.h == 8 && r[i].threads == 1) {
			v.have_mem = true;
			v.mem_mib = r[i].peak_mib - r[i].base_mib;
		}
	}
	for (int i = 0; i < ns; i++)
		if (sp[i].s.n == 2048) {
			v.have_speedup = true;
			v.speedup = sp[i];
		}
	return v;
}

static bool verdict_ok(struct verdict v)
{
	return (!v.have_ratio || v.worst_ratio >= TARGET_RATIO)
	       && (!v.have_speedup || v.speedup.median >= TARGET_SPEEDUP)
	       && (!v.have_small || v.small_us < TARGET_SMALL_US)
	       && (!v.have_mem || v.mem_mib <= TARGET_MIB_16384);
}

static void print_speedup(const struct speedup *x)
{
	printf("speedup, 2 threads against 1, interleaved, n %d d %d h %d: median %.2fx "
	       "(min %.2fx, max %.2fx)\n", x->s.n, x->s.d, x->s.h, x->median, x->min, x->max);
	printf("  %d rounds; OpenBLAS sgemm %dx%dx%d, 2 BLAS threads against 1, same rounds: "
	       "median %.2fx (min %.2fx, max %.2fx)\n", x->rounds, x->s.n, x->s.d, x->s.d,
	       x->sgemm_median, x->sgemm_min, x->sgemm_max);
	printf("  CPU time per forward: 1 thread %.3f ms, 2 threads %.3f ms (%.2fx the work)\n",
	       x->cpu_ms[0], x->cpu_ms[1], x->cpu_ms[0] > 0 ? x->cpu_ms[1] / x->cpu_ms[0] : 0.0);
	printf("  %-10s %10s %10s %8s %12s\n", "phase", "1 thr ms", "2 thr ms", "speedup",
	       "2 thr busy");
	for (int ph = 0; ph < MHA_PHASE_COUNT; ph++)
		if (x->phase_ms[0][ph] > 0.0)
			printf("  %-10s %10.3f %10.3f %7.2fx %11.0f%%\n", scaling_phase_name(ph),
			       x->phase_ms[0][ph], x->phase_ms[1][ph],
			       x->phase_ms[1][ph] > 0 ? x->phase_ms[0][ph] / x->phase_ms[1][ph] : 0.0,
			       100.0 * x->busy[1][ph]);
}

/* The table of forward rows (one per shape and thread count). */
static void print_rows(const struct result *r, int nr)
{
	printf("%5s %4s %3s %3s %5s %7s %10s %9s %9s %9s %8s %8s %6s %11s %8s %6s %6s", "n", "d", "h",
	       "thr", "path", "tiles", "median_ms", "min_ms", "max_ms", "p90_ms", "GFLOP/s", "sgemm",
	       "ratio", "ratio range", "FMApeak", "fwd%pk", "sgm%pk");
	for (int s = 0; s < MHA_PHASE_COUNT; s++)
		printf(" %8s", mha_phase_name((enum mha_phase)s));
	printf(" %8s %8s\n", "peak_MiB", "plan_MiB");
	for (int i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		char tiles[16] = "-";
		if (x->large)
			snprintf(tiles, sizeof tiles, "%dx%d", x->br, x->bc);
		double peak = x->peak_gflops * x->threads; /* the loop ran on one core */
		printf("%5d %4d %3d %3d %5s %7s %10.4f %9.4f %9.4f %9.4f %8.1f %8.1f %5.0f%% %4.0f-%4.0f%% "
		       "%8.1f %5.0f%% %5.0f%%",
		       x->s.n, x->s.d, x->s.h, x->threads, x->large ? "large" : "small", tiles,
		       x->fwd_ms, x->fwd_min_ms, x->fwd_max_ms, x->fwd_p90_ms, x->gflops,
		       x->sgemm_gflops, 100.0 * x->ratio, 100.0 * x->ratio_min, 100.0 * x->ratio_max,
		       x->peak_gflops, 100.0 * x->gflops / peak, 100.0 * x->sgemm_gflops / peak);
		for (int s = 0; s < MHA_PHASE_COUNT; s++)
			printf(" %7.1f%%", 100.0 * x->share[s]);
		printf(" %8.1f %8.2f\n", x->peak_mib - x->base_mib, x->plan_mib);
	}
	printf("peak_MiB: peak resident memory added while the shape ran: its weights, plan and "
	       "forwards (not the sgemm's buffers)\n");
	printf("ratio: the median over rounds of the forward's GFLOP/s against the same round's sgemm; "
	       "min_ms, max_ms: the fastest and slowest round's median\n");
	printf("FMApeak: one core's loop of independent multiply-adds (%s vectors), GFLOP/s by CPU "
	       "time, median over the same rounds; fwd%%pk, sgm%%pk: the forward's and the sgemm's "
	       "GFLOP/s over it times the threads\n", vexp_isa_name(vexp_isa()));
}

static void print_table(const struct result *r, int nr, struct verdict v,
                        const struct speedup *sp, int ns, const struct ui_result *u, int nu)
{
	long l1, l2, l3;
	mha_cache_sizes(&l1, &l2, &l3);
	printf("mha-bench: %s; softmax exp: %s\n", gemm_backend(), vexp_isa_name(vexp_isa()));
	if (vexp_isa() == VEXP_AVX512 && strstr(gemm_backend(), "Haswell"))
		printf("note: OpenBLAS runs its AVX2 (Haswell) kernels here while the engine runs AVX-512: "
		       "for the like-for-like sgemm of the 0.90 floor run with OPENBLAS_CORETYPE=SkylakeX\n");
	printf("caches (per core, as the engine read them): L1d %ld KiB, L2 %ld KiB, L3 %ld KiB\n",
	       l1 / 1024, l2 / 1024, l3 / 1024);
	if (nr > 0)
		print_rows(r, nr);
	for (int i = 0; i < ns; i++)
		print_speedup(&sp[i]);
	if (v.have_ratio)
		printf("target: n = 1024, 2048, 4096, 1 thread, forward >= %.0f%% of sgemm: worst %.0f%% %s\n",
		       100.0 * TARGET_RATIO, 100.0 * v.worst_ratio,
		       v.worst_ratio >= TARGET_RATIO ? "met" : "MISSED");
	if (v.have_speedup)
		printf("target: n = 2048, 2 threads >= %.1fx 1 thread (interleaved): %.2fx %s\n",
		       TARGET_SPEEDUP, v.speedup.median,
		       v.speedup.median >= TARGET_SPEEDUP ? "met" : "MISSED");
	if (v.have_small)
		printf("target: n = 16, d 64, h 4 under %.0f us: %.2f us %s\n", TARGET_SMALL_US,
		       v.small_us, v.small_us < TARGET_SMALL_US ? "met" : "MISSED");
	if (v.have_mem)
		printf("target: n = 16384, d 512, h 8 in at most %.0f MiB added: %.1f MiB %s\n",
		       TARGET_MIB_16384, v.mem_mib, v.mem_mib <= TARGET_MIB_16384 ? "met" : "MISSED");
	for (int i = 0; i < nu; i++)
		printf("ui: edit -> recompute -> draw, n %d d %d h %d: median %.4f ms, p90 %.4f ms%s\n",
		       u[i].n, u[i].d, u[i].h, u[i].median_ms, u[i].p90_ms, u[i].rc ? " (failed)" : "");
}

static void print_json(const struct result *r, int nr, struct verdict v,
                       const struct speedup *sp, int ns, const struct ui_result *u, int nu)
{
	long l1, l2, l3;
	mha_cache_sizes(&l1, &l2, &l3);
	printf("{\n  \"blas\": \"%s\",\n  \"exp\": \"%s\",\n", gemm_backend(), vexp_isa_name(vexp_isa()));
	printf("  \"caches\": {\"l1d\": %ld, \"l2\": %ld, \"l3\": %ld},\n  \"results\": [\n", l1, l2, l3);
	for (int i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		printf("    {\"n\": %d, \"d\": %d, \"h\": %d, \"threads\": %d, \"path\": \"%s\", "
		       "\"median_ms\": %.6f, \"p90_ms\": %.6f, \"gflops\": %.3f, \"sgemm_gflops\": %.3f, "
		       "\"ratio\": %.4f, \"fma_peak_gflops\": %.2f, \"peak_mib\": %.2f, \"plan_mib\": %.3f, "
		       "\"stage_share\": {",
		       x->s.n, x->s.d, x->s.h, x->threads, x->large ? "large" : "small", x->fwd_ms,
		       x->fwd_p90_ms, x->gflops, x->sgemm_gflops, x->ratio, x->peak_gflops,
		       x->peak_mib - x->base_mib, x->plan_mib);
		for (int s = 0; s < MHA_PHASE_COUNT; s++)
			printf("%s\"%s\": %.4f", s ? ", " : "", mha_phase_name((enum mha_phase)s), x->share[s]);
		printf("}, \"min_ms\": %.6f, \"max_ms\": %.6f, \"ratio_min\": %.4f, \"ratio_max\": %.4f, "
		       "\"tiles\": [%d, %d]}%s\n", x->fwd_min_ms, x->fwd_max_ms, x->ratio_min,
		       x->ratio_max, x->large ? x->br : 0, x->large ? x->bc : 0, i + 1 < nr ? "," : "");
	}
	printf("  ],\n  \"speedup_2_threads\": [");
	for (int i = 0; i < ns; i++)
	{
		printf("%s\n    {\"n\": %d, \"d\": %d, \"h\": %d, \"min\": %.3f, \"median\": %.3f, "
		       "\"max\": %.3f, \"rounds\": %d, \"sgemm\": {\"min\": %.3f, \"median\": %.3f, "
		       "\"max\": %.3f}, \"cpu_ms\": [%.4f, %.4f], \"phases\": {", i ? "," : "", sp[i].s.n,
		       sp[i].s.d, sp[i].s.h, sp[i].min, sp[i].median, sp[i].max, sp[i].rounds,
		       sp[i].sgemm_min, sp[i].sgemm_median, sp[i].sgemm_max, sp[i].cpu_ms[0],
		       sp[i].cpu_ms[1]);
		bool first = true;
		for (int ph = 0; ph < MHA_PHASE_COUNT; ph++)
			if (sp[i].phase_ms[0][ph] > 0.0) {
				printf("%s\"%s\": {\"ms_1\": %.4f, \"ms_2\": %.4f, \"busy_2\": %.3f}",
				       first ? "" : ", ", scaling_phase_name(ph), sp[i].phase_ms[0][ph],
				       sp[i].phase_ms[1][ph], sp[i].busy[1][ph]);
				first = false;
			}
		printf("}}");
	}
	printf("%s],\n  \"targets\": {", ns ? "\n  " : "");
	bool first = true;
	if (v.worst_ratio_512 < 1e9) {
		printf("\"worst_ratio_n512_plus_1_thread\": %.4f", v.worst_ratio_512);
		first = false;
	}
	if (v.have_ratio) {
		printf("%s\"worst_ratio_n1024_2048_4096_1_thread\": %.4f", first ? "" : ", ", v.worst_ratio);
		first = false;
	}
	if (v.have_speedup) {
		printf("%s\"speedup_2_threads_n2048\": %.3f", first ? "" : ", ", v.speedup.median);
		first = false;
	}
	if (v.have_small) {
		printf("%s\"small_us\": %.3f", first ? "" : ", ", v.small_us);
		first = false;
	}
	if (v.have_mem) {
		printf("%s\"peak_mib_n16384\": %.1f", first ? "" : ", ", v.mem_mib);
		first = false;
	}
	printf("%s\"met\": %s},\n", first ? "" : ", ", verdict_ok(v) ? "true" : "false");
	printf("  \"ui\": [");
	for (int i = 0; i < nu; i++)
		printf("%s\n    {\"n\": %d, \"d\": %d, \"h\": %d, \"ok\": %s, \"median_ms\": %.6f, "
		       "\"p90_ms\": %.6f}", i ? "," : "", u[i].n, u[i].d, u[i].h,
		       u[i].rc ? "false" : "true", u[i].median_ms, u[i].p90_ms);
	printf("%s]\n}\n", nu ? "\n  " : "");
}

/* Does the thread list hold both 1 and 2? */
static bool one_and_two(const struct options *o)
{
	bool one = false, two = false;
	for (int t = 0; t < o->nthreads; t++) {
		one |= o->threads[t] == 1;
		two |= o->threads[t] == 2;
	}
	return one && two;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	if (o.decode) {
		o.dec.rounds = o.rounds;
		o.dec.min_time = o.min_time;
		o.dec.d_model = o.dec.h * o.dec.dk;
		return bench_decode_run(&o.dec, o.json, o.check);
	}
	if (o.cpu_ratio) {
		int failed = 0;
		for (int i = 0; i < o.nshapes; i++) {
			double mid = 0.0;
			struct shape x = o.shapes[i];
			failed |= measure_cpu_ratio(&o, x, &mid);
			if ((x.n == 1024 || x.n == 2048 || x.n == 4096) && x.d == 512 && x.h == 8) {
				printf("target: n = %d, 1 thread, forward >= %.0f%% of sgemm by CPU time: %.0f%% %s\n",
				       x.n, 100.0 * TARGET_RATIO, 100.0 * mid, mid >= TARGET_RATIO ? "met" : "MISSED");
				failed |= o.check && mid < TARGET_RATIO;
			}
		}
		return failed ? 1 : 0;
	}
	static struct result res[MAX_SHAPES * MAX_THREADS];
	int nr = 0;
	for (int i = 0; i < o.nshapes && !o.scaling; i++)
		for (int t = 0; t < o.nthreads; t++)
			if (measure(&o, o.shapes[i], o.threads[t], &res[nr]) == 0)
				nr++;
	/* the thread speedup, interleaved, where it is a target or near one */
	static struct speedup sp[MAX_SHAPES];
	int ns = 0;
	for (int i = 0; i < o.nshapes && (o.scaling || one_and_two(&o)); i++)
		if ((o.scaling || o.shapes[i].n >= 1024) && measure_speedup(&o, o.shapes[i], &sp[ns]) == 0)
			ns++;
	struct ui_result ui[UI_SHAPES];
	int nu = o.no_ui || o.scaling ? 0 : measure_ui(ui);
	struct verdict v = judge(res, nr, sp, ns);
	if (o.json)
		print_json(res, nr, v, sp, ns, ui, nu);
	else
		print_table(res, nr, v, sp, ns, ui, nu);
	return o.check && !verdict_ok(v) ? 1 : 0;
}
