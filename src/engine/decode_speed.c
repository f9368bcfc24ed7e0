/*
 * decode_speed.c - mha_decode_speed (engine.h): how fast this machine
 * runs a decode step's attention against a long cache, and how close that
 * is to reading the same bytes as fast as the machine can. The caches of
 * `layers` layers are filled with seeded values; round by round, steps
 * (each reading the next layer's cache, as a model does) and streaming
 * reads of the same K and V alternate, the order swapping each round.
 * Each round's median step and median read give that round's bandwidths
 * and their ratio; min, median and max over rounds. It measures; it does
 * not decide: the targets are the bench's (mha-bench --decode --check).
 */
#include "clock.h"
#include "kvdec.h"
#include "roof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_LAYERS = 4096, ROUND_SAMPLES = 4096, MAX_ROUNDS = 99 };
#define DEFAULT_SET (256.0 * 1024 * 1024)


static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* [0] min, [1] median, [2] max of v[0..n), sorting v */
static void spread3(double *v, int n, double *out)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	out[0] = v[0];
	out[1] = v[n / 2];
	out[2] = v[n - 1];
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

struct bench {
	struct mha_kvdec **kv;
	int layers, next;
	const float *q;
	float *o;
	float scale;
	volatile float sink; /* the streaming sums, kept */
};

/* Uniform in [-1, 1) from a 64-bit LCG: seeded, the same on every machine */
static float uniform(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (float)(*s >> 40) / 8388608.0f - 1.0f;
}

static int fill(struct mha_kvdec *kv, int tokens, int gw, uint64_t *rng, float *k, float *v)
{
	for (int t = 0; t < tokens; t++) {
		for (int e = 0; e < gw; e++) {
			k[e] = uniform(rng);
			v[e] = uniform(rng);
		}
		if (mha_kvdec_append(kv, k, v) != MHA_OK)
			return -1;
	}
	return 0;
}

static void one_step(struct bench *b)
{
	mha_kvdec_attend(b->kv[b->next], b->q, b->scale, NULL, b->o);
	b->next = (b->next + 1) % b->layers;
}

static void one_read(struct bench *b, int g)
{
	float sum = 0.0f;
	for (int j = 0; j < g; j++) {
		const float *start[3];
		size_t floats[3];
		int n = kvdec_regions(b->kv[b->next], j, start, floats);
		for (int i = 0; i < n; i++)
			sum += roof_stream_sum(start[i], floats[i]);
	}
	b->sink = sum;
	b->next = (b->next + 1) % b->layers;
}

/* Median seconds of one call over at least min_time (3 calls at least),
 * by the wall clock; *cpu: the same by this thread's CPU time. */
static double round_median(struct bench *b, int g, bool step, double min_time, double *buf,
                           double *cpu)
{
	int n = 0;
	double start = clock_wall(), *cbuf = buf + ROUND_SAMPLES;
	do {
		double t0 = clock_wall(), c0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
		if (step)
			one_step(b);
		else
			one_read(b, g);
		cbuf[n] = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
		buf[n++] = clock_wall() - t0;
	} while ((clock_wall() - start < min_time || n < 3) && n < ROUND_SAMPLES);
	*cpu = median(cbuf, n);
	return median(buf, n);
}

static void free_layers(struct bench *b)
{
	for (int i = 0; i < b->layers; i++)
		mha_kvdec_destroy(b->kv[i]);
	free(b->kv);
}

enum mha_status mha_decode_speed(const struct mha_decode_options *o, struct mha_decode_speed *out,
                                 char *msg, size_t len)
{
	memset(out, 0, sizeof *out);
	const int h = o->h, g = o->g, dk = o->dk, T = o->tokens;
	const int rounds = o->rounds > 0 ? (o->rounds < MAX_ROUNDS ? o->rounds : MAX_ROUNDS) : 5;
	const double min_time = o->min_time > 0 ? o->min_time : 0.2;
	struct mha_kvdec *probe = NULL;
	/* the shape's checks and messages are mha_kvdec_create's */
	enum mha_status st = mha_kvdec_create(&probe, h, g, dk, T > 0 ? T : 0, msg, len);
	if (st != MHA_OK)
		return st;
	mha_kvdec_destroy(probe);
	double bytes = 2.0 * g * dk * (double)T * sizeof(float);
	long l1, l2, l3;
	mha_cache_sizes(&l1, &l2, &l3);
	/* 4x the L3, at most 256 MiB: some VMs report a whole socket's L3
	 * (glibc said 508 MiB on the machine of doc/PERFORMANCE.md, where one
	 * core reaches 32 MiB) */
	double ws = o->working_set ? (double)o->working_set
	            : l3 > 0 && 4.0 * (double)l3 < DEFAULT_SET ? 4.0 * (double)l3 : DEFAULT_SET;
	int layers = (int)ceil(ws / bytes);
	layers = layers < 1 ? 1 : layers > MAX_LAYERS ? MAX_LAYERS : layers;
	struct bench b = { .layers = 0, .scale = 1.0f / sqrtf((float)dk) };
	b.kv = calloc((size_t)layers, sizeof *b.kv);
	float *q = malloc((size_t)h * dk * sizeof *q), *o_ = malloc((size_t)h * dk * sizeof *o_);
	float *krow = malloc((size_t)g * dk * sizeof *krow), *vrow = malloc((size_t)g * dk * sizeof *vrow);
	double *buf = malloc(2 * ROUND_SAMPLES * sizeof *buf);
	st = b.kv && q && o_ && krow && vrow && buf ? MHA_OK : MHA_ENOMEM;
	uint64_t rng = 0x6b7663616368ULL;
	for (int i = 0; st == MHA_OK && i < layers; i++) {
		st = mha_kvdec_create(&b.kv[i], h, g, dk, T, msg, len);
		if (st == MHA_OK) {
			b.layers++;
			if (fill(b.kv[i], T, g * dk, &rng, krow, vrow) != 0)
				st = MHA_EINVAL;
		}
	}
	if (st == MHA_OK) {
		for (int e = 0; e < h * dk; e++)
			q[e] = uniform(&rng);
		b.q = q;
		b.o = o_;
		double step[MAX_ROUNDS], gbs[MAX_ROUNDS], sgbs[MAX_ROUNDS], ratio[MAX_ROUNDS];
		double step_cpu[MAX_ROUNDS], ratio_cpu[MAX_ROUNDS];
		for (int i = 0; i < b.layers; i++) /* once over every layer: page faults, warm-up */
			one_step(&b);
		for (int r = 0; r < rounds; r++) {
			double ts, tr, cs, cr;
			if (r % 2 == 0) {
				ts = round_median(&b, g, true, min_time, buf, &cs);
				tr = round_median(&b, g, false, min_time, buf, &cr);
			} else {
				tr = round_median(&b, g, false, min_time, buf, &cr);
				ts = round_median(&b, g, true, min_time, buf, &cs);
			}
			step[r] = ts * 1e3;
			step_cpu[r] = cs * 1e3;
			ratio_cpu[r] = cs > 0 ? cr / cs : 0.0;
			gbs[r] = bytes / ts * 1e-9;
			sgbs[r] = bytes / tr * 1e-9;
			ratio[r] = tr / ts;
		}
		out->h = h; out->g = g; out->dk = dk; out->tokens = T;
		out->layers = b.layers; out->rounds = rounds;
		out->bytes = bytes;
		out->working_set = bytes * b.layers;
		out->flops = 4.0 * h * dk * (double)T + 5.0 * h * (double)T;
		spread3(step, rounds, out->step_ms);
		spread3(gbs, rounds, out->gbs);
		spread3(sgbs, rounds, out->stream_gbs);
		spread3(ratio, rounds, out->ratio);
		spread3(step_cpu, rounds, out->step_cpu_ms);
		spread3(ratio_cpu, rounds, out->ratio_cpu);
	} else if (st == MHA_ENOMEM) {
		snprintf(msg, len, "decode speed: out of memory for %d layers of %d tokens (%.0f MiB)",
		         layers, T, (double)layers * bytes / (1024.0 * 1024.0));
	}
	free_layers(&b);
	free(q);
	free(o_);
	free(krow);
	free(vrow);
	free(buf);
	return st;
}
