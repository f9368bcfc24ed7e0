/*
 * test_perf.c - the fast paths give the plain loops' numbers: the vector
 * exp within its documented bound (every version the CPU has), the fast
 * softmax row under the reference's rules, mha_forward and the planned
 * forward (teaching and large path, block sizes that do and do not divide
 * n, 1 and 2 threads) within 1e-5 relative of mha_forward_naive, the
 * tiled path at n = 3001 against rows computed here in double (causal,
 * top-k, a sliding window, a band), and a
 * planned forward and decode steps (mha_kvdec_step) that allocate nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "check_config.h"
#include "engine.h"
#include "softmax_fast.h"
#include "vexp.h"
#include "vexp_full.h"

/* vexp.h's bound on the relative error of exp over [ln FLT_MIN, ln FLT_MAX] */
#define EXP_REL_BOUND 4e-7
/* the bound for fast paths against the plain loops, relative to
 * the largest magnitude of the tensor compared */
#define REL_TOL 1e-5

/* ---- allocation counting: the core is linked statically, so
 * -Wl,--wrap=malloc sends its calls here (see meson.build) ---- */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
static long allocations;
void *__wrap_malloc(size_t size) { allocations++; return __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { allocations++; return __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { allocations++; return __real_realloc(p, size); }

static const enum vexp_isa all_isas[] = { VEXP_SCALAR, VEXP_AVX2, VEXP_AVX512 };

/* back to the widest version the CPU has */
static void use_widest(void)
{
	if (!vexp_use(VEXP_AVX512) && !vexp_use(VEXP_AVX2))
		vexp_use(VEXP_SCALAR);
}

static uint64_t rng = 12345;
static float uniform(float a)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return a * (2.0f * (float)(rng >> 40) / 16777216.0f - 1.0f);
}

/* |got - want| <= REL_TOL * max |want|, worst element reported */
static void check_rel(const float *got, const float *want, size_t n, const char *label)
{
	double big = 1e-30;
	for (size_t i = 0; i < n; i++)
		big = fmax(big, fabs((double)want[i]));
	check_close(got, want, n, REL_TOL * big, label);
}

static double exp_worst(const float *x, size_t n)
{
	float *y = malloc(n * sizeof *y);
	assert_non_null(y);
	vexp(x, y, n);
	double worst = 0.0;
	for (size_t i = 0; i < n; i++) {
		double want = exp((double)x[i]);
		double rel = fabs((double)y[i] - want) / want;
		if (isnan(rel) || rel > worst)
			worst = isnan(rel) ? INFINITY : rel;
	}
	free(y);
	return worst;
}

static void test_vexp_error_is_within_its_bound_over_the_whole_range(void **state)
{
	(void)state;
	/* a dense sweep, plus the places where the reduction switches k
	 * ((k + 1/2) ln2, a few ulps either side) and the range ends */
	enum { SWEEP = 200001, EDGES = 256 * 7 + 8 };
	float *x = malloc((SWEEP + EDGES) * sizeof *x);
	assert_non_null(x);
	size_t n = 0;
	for (int i = 0; i < SWEEP; i++)
		x[n++] = -87.3f + (88.7f + 87.3f) * (float)i / (SWEEP - 1);
	for (int k = -126; k <= 127; k++) {
		float e = (float)((k + 0.5) * 0.69314718055994531);
		float lo = e, hi = e;
		x[n++] = e;
		for (int u = 0; u < 3; u++) {
			lo = nextafterf(lo, -INFINITY);
			hi = nextafterf(hi, INFINITY);
			x[n++] = lo;
			x[n++] = hi;
		}
	}
	const float ends[] = { -87.3365f, -87.33654f, 88.7228f, 88.72283f, 0.0f, -0.0f, 1e-30f, -1e-30f };
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
		if (ends[i] >= -87.3365447f && ends[i] <= 88.7228391f)
			x[n++] = ends[i];
	for (size_t v = 0; v < sizeof all_isas / sizeof all_isas[0]; v++) {
		if (!vexp_use(all_isas[v]))
			continue;
		double worst = exp_worst(x, n);
		print_message("exp %s: worst relative error %.3g over %zu points\n",
		              vexp_isa_name(all_isas[v]), worst, n);
		assert_true(worst <= EXP_REL_BOUND);
	}
	use_widest();
	free(x);
}

static void test_vexp_special_values(void **state)
{
	(void)state;
	/* 19 values: more than 16, so both the vector body and the tail see them */
	const float x[] = { -INFINITY, -1000.0f, -104.0f, -87.34f, INFINITY, 1000.0f, 88.73f, NAN,
	                    0.0f, -INFINITY, NAN, INFINITY, -90.0f, 89.5f, 0.0f, -INFINITY, 1.0f,
	                    NAN, -INFINITY };
	enum { N = sizeof x / sizeof x[0] };
	for (size_t v = 0; v < sizeof all_isas / sizeof all_isas[0]; v++) {
		if (!vexp_use(all_isas[v]))
			continue;
		float y[N];
		vexp(x, y, N);
		for (int i = 0; i < N; i++) {
			if (isnan(x[i]))
				assert_true(isnan(y[i]));
			else if (x[i] < -87.3365447f)
				assert_true(y[i] == 0.0f && !signbit(y[i])); /* exactly +0 */
			else if (x[i] > 88.7228391f)
				assert_true(isinf(y[i]) && y[i] > 0);
			else
				assert_float_equal(y[i], (float)exp((double)x[i]), 1e-6 * exp((double)x[i]));
		}
	}
	use_widest();
}

static void test_shift_sum_and_max_match_plain_loops_at_every_tail_length(void **state)
{
	(void)state;
	float s[80], p[80];
	for (size_t v = 0; v < sizeof all_isas / sizeof all_isas[0]; v++) {
		if (!vexp_use(all_isas[v]))
			continue;
		for (int n = 1; n <= 80; n++) {
			for (int i = 0; i < n; i++)
				s[i] = uniform(30.0f);
			if (n > 1)
				s[n / 2] = -INFINITY; /* a masked key; never the max */
			bool nan;
			float m = vexp_max(s, (size_t)n, &nan);
			float want_m = -INFINITY;
			for (int i = 0; i < n; i++)
				want_m = fmaxf(want_m, s[i]);
			assert_false(nan);
			assert_true(m == want_m);
			float sum = vexp_shift_sum(s, m, p, (size_t)n);
			double want_sum = 0.0;
			for (int i = 0; i < n; i++) {
				double e = exp((double)(s[i] - m)); /* the float difference, as the kernel sees it */
				want_sum += e;
				assert_true(fabs((double)p[i] - e) <= EXP_REL_BOUND * e + 1e-38);
			}
			assert_true(n == 1 || p[n / 2] == 0.0f);
			assert_true(fabs(sum - want_sum) <= 1e-6 * want_sum);
			s[n - 1] = NAN;
			vexp_max(s, (size_t)n, &nan);
			assert_true(nan);
		}
	}
	use_widest();
}

/* vexp_add against the plain loop, bit for bit, at every tail length and
 * with values whose sum rounds (the trainers' gradient sums rely on it),
 * and nothing written past n. */
static void test_add_equals_the_plain_loop_bit_for_bit(void **state)
{
	(void)state;
	float x[80], y[81], want[81];
	for (size_t v = 0; v < sizeof all_isas / sizeof all_isas[0]; v++) {
		if (!vexp_use(all_isas[v]))
			continue;
		for (int n = 0; n <= 80; n++) {
			for (int i = 0; i < n; i++) {
				x[i] = uniform(1e3f) * 1e-3f;
				y[i] = want[i] = uniform(1e3f);
				want[i] += x[i];
			}
			y[n] = want[n] = 7.0f;
			vexp_add(y, x, (size_t)n);
			assert_memory_equal(y, want, (size_t)(n + 1) * sizeof *y);
		}
	}
	use_widest();
}

/* The softmax exp far below the row's max: the band where 2^k is +0
 * (x <= -87.68), where the result is under FLT_MIN (x < ln FLT_MIN: 0),
 * and just above it (a normal result, within the bound), for every
 * version and in the vector body and the tail. */
static void test_shift_sum_far_below_the_max(void **state)
{
	(void)state;
	const float x[] = { -INFINITY, -1000.0f, -100.0f, -88.5f, -88.0f, -87.9f, -87.7f, -87.5f,
	                    -87.34f, -87.3365f, -87.3f, -87.0f, -80.0f, -50.0f, -1.0f, 0.0f, -88.0f,
	                    -INFINITY, -87.2f };
	enum { N = sizeof x / sizeof x[0] };
	for (size_t v = 0; v < sizeof all_isas / sizeof all_isas[0]; v++) {
		if (!vexp_use(all_isas[v]))
			continue;
		float p[N];
		float sum = vexp_shift_sum(x, 0.0f, p, N);
		double want_sum = 0.0;
		for (int i = 0; i < N; i++) {
			double e = exp((double)x[i]);
			if (x[i] < -87.3365447f) {
				assert_true(p[i] == 0.0f && !signbit(p[i]));
				continue;
			}
			want_sum += e;
			assert_true(fabs((double)p[i] - e) <= EXP_REL_BOUND * e);
		}
		assert_true(fabs(sum - want_sum) <= 1e-6 * want_sum);
	}
	use_widest();
}

/* fast row against mha_softmax_row: the same zeros exactly, the same
 * dead flag, weights within 1e-6 */
static void compare_rows(const float *s, int n, int limit, int top_k)
{
	float *want = malloc((size_t)n * sizeof *want), *got = malloc((size_t)n * sizeof *got);
	float *work = malloc((size_t)n * sizeof *work), *inplace = malloc((size_t)n * sizeof *inplace);
	assert_true(want && got && work && inplace);
	bool dead = mha_softmax_row(s, want, n, limit, top_k);
	assert_true(softmax_row_fast(s, got, n, limit, top_k, work, NULL) == dead);
	memcpy(inplace, s, (size_t)n * sizeof *inplace);
	float inv = -1.0f;
	assert_true(softmax_row_fast(inplace, inplace, n, limit, top_k, work, &inv) == dead);
	for (int j = 0; j < n; j++) {
		inplace[j] *= inv;
		if (isnan(want[j]) || isnan(got[j]) || isnan(inplace[j])) {
			assert_true(isnan(want[j]) && isnan(got[j]) && isnan(inplace[j]));
			want[j] = got[j] = inplace[j] = 0.0f; /* NaN at the same places */
			continue;
		}
		if (want[j] == 0.0f) {
			assert_true(got[j] == 0.0f);
			assert_true(inplace[j] == 0.0f);
		}
	}
	check_close(got, want, (size_t)n, 1e-6, "fast softmax row");
	check_close(inplace, want, (size_t)n, 1e-6, "fast softmax row, in place, scaled after");
	free(want); free(got); free(work); free(inplace);
}

static void test_fast_softmax_row_equals_the_reference(void **state)
{
	(void)state;
	const int lengths[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000, 2049 };
	for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
		int n = lengths[li];
		float *s = malloc((size_t)n * sizeof *s);
		assert_non_null(s);
		for (int rep = 0; rep < 3; rep++) {
			for (int j = 0; j < n; j++)
				/* rep 2: few distinct values, many ties for top-k */
				s[j] = rep == 2 ? (float)(int)uniform(3.0f) : uniform(rep ? 20.0f : 2.0f);
			const int limits[] = { n, 1, (n + 1) / 2, n + 5, 0 };
			const int ks[] = { 0, 1, 3, n / 2, n - 1, n };
			for (size_t a = 0; a < sizeof limits / sizeof limits[0]; a++)
				for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
					if (n <= 100 || b < 3)
						compare_rows(s, n, limits[a], ks[b]);
		}
		free(s);
	}
}

static void test_fast_softmax_row_keeps_the_rules_for_nan_inf_and_huge_scores(void **state)
{
	(void)state;
	const float rows[][6] = {
		{ 1.0f, NAN, 2.0f, 3.0f, 0.0f, 1.0f },          /* NaN only from NaN */
		{ INFINITY, 1.0f, INFINITY, 2.0f, 3.0f, 0.0f }, /* shared among +inf */
		{ -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY },
		{ 1e30f, -1e30f, 1e30f, 0.0f, -1e30f, 5.0f },   /* stable for +-1e30 */
		{ -INFINITY, 2.0f, -INFINITY, 1.0f, 0.0f, -INFINITY },
		{ -1e30f, -1e30f, -1e30f, -1e30f, -1e30f, -1e30f },
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
		for (int limit = 0; limit <= 6; limit++)
			for (int k = 0; k <= 6; k++)
				compare_rows(rows[r], 6, limit, k);
	float p[6], work[6];
	/* and stated outright: masked keys exactly 0, dead rows all 0 */
	assert_false(softmax_row_fast(rows[3], p, 6, 6, 0, work, NULL));
	assert_true(p[1] == 0.0f && p[4] == 0.0f && fabsf(p[0] - 0.5f) < 1e-7f);
	assert_true(softmax_row_fast(rows[0], p, 6, 0, 0, work, NULL));
	for (int j = 0; j < 6; j++)
		assert_true(p[j] == 0.0f);
}

static void make(struct mha_config *c, struct mha_weights *w, int n, int d, int h, int g)
{
	*c = mha_config_default();
	c->n = n; c->d = d; c->h = h; c->g = g; c->dk = d / h;
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	mha_weights_init(w, c, (uint64_t)(n * 131 + d * 7 + h));
}

/* The plan's activations, with q, k, v split out of the large path's
 * fused rows (mha_plan_qkv) into *mem (free it); as they are on teaching
 * sizes. */
static struct mha_acts plan_acts(const struct mha_plan *p, const struct mha_config *c, float **mem)
{
	struct mha_acts a = *mha_plan_acts(p);
	int ld;
	const float *qkv = mha_plan_qkv(p, &ld);
	*mem = NULL;
	if (!qkv)
		return a;
	const size_t n = (size_t)c->n, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	assert_int_equal(ld, (int)(hw + 2 * gw));
	assert_null(a.q);
	*mem = malloc(n * (size_t)ld * sizeof(float));
	assert_non_null(*mem);
	a.q = *mem;
	a.k = a.q + n * hw;
	a.v = a.k + n * gw;
	for (size_t r = 0; r < n; r++) {
		memcpy(a.q + r * hw, qkv + r * ld, hw * sizeof(float));
		memcpy(a.k + r * gw, qkv + r * ld + hw, gw * sizeof(float));
		memcpy(a.v + r * gw, qkv + r * ld + hw + gw, gw * sizeof(float));
	}
	return a;
}

static void check_acts(const struct mha_config *c, const struct mha_acts *got,
                       const struct mha_acts *want, bool all)
{
	size_t n = (size_t)c->n, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	check_rel(got->q, want->q, n * hw, "Q");
	check_rel(got->k, want->k, n * gw, "K");
	check_rel(got->v, want->v, n * gw, "V");
	check_rel(got->concat, want->concat, n * hw, "concat");
	check_rel(got->y, want->y, n * (size_t)c->d, "Y");
	assert_memory_equal(got->dead_row, want->dead_row, (size_t)c->h * n);
	if (all) {
		size_t nn = (size_t)c->h * n * n;
		check_close(got->scores, want->scores, nn, REL_TOL * 10, "scores");
		check_close(got->weights, want->weights, nn, 1e-6, "weights");
		for (size_t i = 0; i < nn; i++)
			if (want->weights[i] == 0.0f)
				assert_true(got->weights[i] == 0.0f);
		check_rel(got->heads, want->heads, (size_t)c->h * n * c->dk, "heads");
	}
}

static void test_mha_forward_equals_the_plain_loops(void **state)
{
	(void)state;
	const int shapes[][4] = { { 1, 8, 2, 2 }, { 7, 16, 4, 2 }, { 16, 64, 4, 4 },
	                          { 33, 48, 6, 3 }, { 64, 128, 8, 1 } };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct mha_config c;
		struct mha_weights w;
		make(&c, &w, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
		for (int v = 0; v < 8; v++) {
			check_vary(&c, v);
			struct mha_acts fast, plain;
			assert_int_equal(mha_acts_alloc(&fast, &c), MHA_OK);
			assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
			mha_forward(&c, &w, &fast);
			mha_forward_naive(&c, &w, &plain);
			check_acts(&c, &fast, &plain, true);
			mha_acts_free(&fast);
			mha_acts_free(&plain);
		}
		mha_weights_free(&w);
	}
}

/* planned forward (large path forced or by size) against the plain loops,
 * with every exp and attention kernel version the CPU has (scalar: the
 * products go through gemm_rm instead) */
static void check_plan(int n, int d, int h, int g, int block_rows, int threads, bool large)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	make(&c, &w, n, d, h, g);
	for (int vi = 0; vi < 3 * 8; vi++) {
		int v = vi % 8;
		if (v == 0 && !vexp_use(all_isas[vi / 8])) {
			vi += 7;
			continue;
		}
		check_vary(&c, v);
		struct mha_plan *p;
		struct mha_plan_options o = { .threads = threads, .block_rows = block_rows, .large = large };
		assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
		assert_true(mha_plan_is_large(p) == (large || n > MHA_MAX_TOKENS));
		struct mha_acts plain;
		assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
		mha_forward_naive(&c, &w, &plain);
		mha_plan_forward(p, &w);
		mha_plan_forward(p, &w); /* twice: the reused blocks hold nothing over */
		float *split;
		struct mha_acts got = plan_acts(p, &c, &split);
		check_acts(&c, &got, &plain, !mha_plan_is_large(p));
		free(split);
		if (mha_plan_is_large(p))
			assert_null(mha_plan_acts(p)->scores);
		mha_acts_free(&plain);
		mha_plan_destroy(p);
	}
	use_widest();
	mha_weights_free(&w);
}

static void test_large_path_equals_the_plain_loops_for_blocks_that_straddle_n(void **state)
{
	(void)state;
	const int blocks[] = { 1, 5, 16, 17, 64 };
	for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
		check_plan(17, 32, 4, 2, blocks[b], 1, true);
		check_plan(64, 64, 4, 4, blocks[b], 2, true);
	}
}

static void test_large_path_beyond_the_screen_limit_equals_the_plain_loops(void **state)
{
	(void)state;
	check_plan(150, 64, 4, 2, 32, 1, false);  /* dk 16: 16 lanes */
	check_plan(150, 64, 4, 4, 0, 2, false);
	check_plan(97, 96, 3, 1, 16, 2, false);   /* dk 32 */
	check_plan(130, 256, 4, 4, 40, 2, false); /* dk 64, as in the bench */
	check_plan(70, 48, 4, 4, 16, 1, false);   /* dk 12: no kernel fits, gemm_rm */
}

static void test_teaching_path_of_the_plan_equals_mha_forward(void **state)
{
	(void)state;
	check_plan(16, 64, 4, 4, 0, 1, false);
	check_plan(64, 128, 8, 2, 0, 2, false);
}

/* Row q of head i of the concat from the plan's own Q, K, V, in double:
 * top-k (ties to the lower index) and softmax written out over the keys
 * the structural mask (mha_mask_row: causal, window) lets q see. */
static void reference_row(const struct mha_config *c, const struct mha_acts *a, int i, int q,
                          double *s, unsigned char *seen, double *out)
{
	const int n = c->n, dk = c->dk, hw = c->h * dk, gw = c->g * dk, j = mha_kv_head(c, i);
	const double scale = c->scale ? 1.0 / sqrt((double)dk) : 1.0;
	const int limit = n, kept = mha_mask_row(c, q, NULL, seen);
	for (int t = 0; t < limit; t++) {
		if (!seen[t]) {
			s[t] = -INFINITY;
			continue;
		}
		double acc = 0.0;
		for (int e = 0; e < dk; e++)
			acc += (double)a->q[(size_t)q * hw + i * dk + e] * a->k[(size_t)t * gw + j * dk + e];
		s[t] = acc * scale;
	}
	double m = -INFINITY;
	for (int t = 0; t < limit; t++)
		m = fmax(m, s[t]);
	double thr = -INFINITY;
	if (c->top_k > 0 && c->top_k < kept) {
		/* the top_k-th largest: the smallest value with fewer than top_k above it */
		for (int t = 0; t < limit; t++) {
			if (!seen[t])
				continue;
			int above = 0;
			for (int u = 0; u < limit && above < c->top_k; u++)
				above += s[u] > s[t];
			if (above < c->top_k && (thr == -INFINITY || s[t] < thr))
				thr = s[t];
		}
	}
	double l = 0.0;
	memset(out, 0, (size_t)dk * sizeof *out);
	for (int t = 0; t < limit; t++) {
		if (!seen[t] || s[t] < thr)
			continue;
		double p = exp(s[t] - m);
		l += p;
		for (int e = 0; e < dk; e++)
			out[e] += p * a->v[(size_t)t * gw + j * dk + e];
	}
	for (int e = 0; e < dk; e++)
		out[e] /= l;
}

static void test_tiled_path_at_large_n_equals_the_plain_rows_sampled(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 3001, 128, 4, 2); /* dk 32, GQA, n no tile size divides */
	double *s = malloc((size_t)c.n * sizeof *s), out[32];
	unsigned char *seen = malloc((size_t)c.n);
	float got[32];
	assert_true(s && seen);
	for (int v = 0; v < 6; v++) {
		/* 0-3: causal and top-k 700 on and off; 4: a causal window of 100;
		 * 5: a band of 300 (no causality) with top-k 700 */
		c.causal = v < 4 ? v & 1 : v == 4;
		c.top_k = (v < 4 ? v & 2 : v == 5) ? 700 : 0;
		c.window = v == 4 ? 100 : v == 5 ? 300 : 0;
		struct mha_plan *p;
		struct mha_plan_options o = { .threads = 2 };
		assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
		mha_plan_forward(p, &w);
		float *split;
		const struct mha_acts acts = plan_acts(p, &c, &split), *a = &acts;
		const int hw = c.h * c.dk;
		double big = 0.0;
		for (size_t t = 0; t < (size_t)c.n * c.g * c.dk; t++)
			big = fmax(big, fabs((double)a->v[t]));
		for (int k = 0; k < 24; k++) {
			int q = k < 4 ? k : k < 8 ? c.n - 1 - k : (int)((uint64_t)k * 2654435761u % (uint64_t)c.n);
			int i = k % c.h;
			reference_row(&c, a, i, q, s, seen, out);
			memcpy(got, a->concat + (size_t)q * hw + (size_t)i * c.dk, sizeof got);
			check_close_d(got, out, (size_t)c.dk, REL_TOL * big, "sampled row of the concat");
		}
		free(split);
		mha_plan_destroy(p);
	}
	free(s);
	free(seen);
	mha_weights_free(&w);
}

static void test_one_and_two_threads_agree(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	make(&c, &w, 300, 128, 4, 4);
	c.causal = true;
	struct mha_plan *p1, *p2;
	struct mha_plan_options o1 = { .threads = 1, .block_rows = 48 }, o2 = { .threads = 2, .block_rows = 48 };
	assert_int_equal(mha_plan_create(&p1, &c, &o1, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_plan_create(&p2, &c, &o2, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_plan_threads(p2), 2);
	for (int rep = 0; rep < 5; rep++) {
		mha_plan_forward(p1, &w);
		mha_plan_forward(p2, &w);
		check_rel(mha_plan_acts(p2)->y, mha_plan_acts(p1)->y, (size_t)c.n * c.d, "Y, 2 threads vs 1");
	}
	mha_plan_destroy(p1);
	mha_plan_destroy(p2);
	mha_weights_free(&w);
}

static void test_planned_forward_allocates_nothing(void **state)
{
	(void)state;
	const int shapes[][2] = { { 16, 1 }, { 200, 2 } };
	for (int s = 0; s < 2; s++) {
		struct mha_config c;
		struct mha_weights w;
		char msg[MHA_MSG_MAX];
		make(&c, &w, shapes[s][0], 64, 4, 4);
		struct mha_plan *p;
		struct mha_plan_options o = { .threads = shapes[s][1] };
		assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
		mha_plan_forward(p, &w);
		long before = allocations;
		for (int rep = 0; rep < 10; rep++)
			mha_plan_forward(p, &w);
		assert_int_equal(allocations, before);
		assert_true(before > 0); /* the counter does see the core's calloc */
		mha_plan_destroy(p);
		mha_weights_free(&w);
	}
}

static void test_decode_steps_allocate_nothing(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	make(&c, &w, 600, 64, 8, 2); /* 600 tokens: two blocks of keys */
	c.causal = true;
	struct mha_kvdec *kv;
	long before = allocations;
	assert_int_equal(mha_kvdec_create(&kv, c.h, c.g, c.dk, c.n, msg, sizeof msg), MHA_OK);
	assert_true(allocations > before); /* the counter does see the engine's allocation */
	float y[64];
	before = allocations;
	for (int t = 0; t < c.n; t++)
		assert_int_equal(mha_kvdec_step(kv, &c, &w, y, msg, sizeof msg), MHA_OK);
	assert_int_equal(allocations, before);
	mha_kvdec_destroy(kv);
	mha_weights_free(&w);
}

static void test_plan_limits_are_its_own_and_the_screen_keeps_64(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c = mha_config_default();
	c.n = 2048;
	assert_int_equal(mha_plan_check(&c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_EINVAL);
	c.n = MHA_PLAN_MAX_TOKENS + 1;
	assert_int_equal(mha_plan_check(&c, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "tokens"));
	c.n = 100;
	c.top_k = 101;
	assert_int_equal(mha_plan_check(&c, msg, sizeof msg), MHA_EINVAL);
	c.top_k = 0;
	c.g = 3; /* does not divide h = 4: mha_config_check's rule still applies */
	assert_int_equal(mha_plan_check(&c, msg, sizeof msg), MHA_EINVAL);
	struct mha_plan *p = (struct mha_plan *)&c;
	assert_int_equal(mha_plan_create(&p, &c, NULL, msg, sizeof msg), MHA_EINVAL);
	assert_null(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vexp_error_is_within_its_bound_over_the_whole_range),
		cmocka_unit_test(test_vexp_special_values),
		cmocka_unit_test(test_shift_sum_and_max_match_plain_loops_at_every_tail_length),
		cmocka_unit_test(test_shift_sum_far_below_the_max),
		cmocka_unit_test(test_add_equals_the_plain_loop_bit_for_bit),
		cmocka_unit_test(test_fast_softmax_row_equals_the_reference),
		cmocka_unit_test(test_fast_softmax_row_keeps_the_rules_for_nan_inf_and_huge_scores),
		cmocka_unit_test(test_mha_forward_equals_the_plain_loops),
		cmocka_unit_test(test_large_path_equals_the_plain_loops_for_blocks_that_straddle_n),
		cmocka_unit_test(test_large_path_beyond_the_screen_limit_equals_the_plain_loops),
		cmocka_unit_test(test_teaching_path_of_the_plan_equals_mha_forward),
		cmocka_unit_test(test_tiled_path_at_large_n_equals_the_plain_rows_sampled),
		cmocka_unit_test(test_one_and_two_threads_agree),
		cmocka_unit_test(test_planned_forward_allocates_nothing),
		cmocka_unit_test(test_decode_steps_allocate_nothing),
		cmocka_unit_test(test_plan_limits_are_its_own_and_the_screen_keeps_64),
	};
	return cmocka_run_group_tests_name("perf", tests, NULL, NULL);
}
