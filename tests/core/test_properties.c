/*
 * test_properties.c - properties the forward pass must have on any input,
 * checked on seeded random configurations: BLAS against the plain loops,
 * rows of P summing to 1, the causal triangle exactly 0, GQA as MHA with
 * repeated K/V heads, h heads as h single-head layers, token permutation,
 * top-k counts and ties, finite results at the input limits, heads switched
 * off; and mha_softmax_row on its own edge cases. The configurations come
 * from this file's own generator, not from the core's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "mha.h"
#include "pick.h"

enum { RANDOM_CONFIGS = 40 };

/* xorshift64*: this test's own stream for choosing shapes. */
static uint64_t pick_state = 0x2545F4914F6CDD1Dull;

/* A random valid configuration: any h, a divisor g, dk free or d / h. */
static struct mha_config random_config(void)
{
	struct mha_config c = mha_config_default();
	c.n = pick_int(&pick_state, 1, 24);
	c.h = pick_int(&pick_state, 1, 8);
	int divisors[8], nd = 0;
	for (int g = 1; g <= c.h; g++)
		if (c.h % g == 0)
			divisors[nd++] = g;
	c.g = divisors[pick_int(&pick_state, 0, nd - 1)];
	c.dk = pick_int(&pick_state, 1, 9);
	c.d = pick_int(&pick_state, 0, 1) ? c.h * c.dk : pick_int(&pick_state, 1, 40);
	c.causal = pick_int(&pick_state, 0, 1);
	c.top_k = pick_int(&pick_state, 0, 2) ? 0 : pick_int(&pick_state, 1, c.n);
	c.scale = pick_int(&pick_state, 0, 3) != 0;
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = pick_int(&pick_state, 0, 5) == 0;
	return c;
}

/* A configuration, its inputs, and both forward passes. */
struct run {
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a; /* mha_forward (BLAS) */
	struct mha_acts b; /* mha_forward_naive */
};

static void run_alloc(struct run *r, const struct mha_config *c)
{
	char msg[MHA_MSG_MAX];
	r->c = *c;
	if (mha_config_check(c, msg, sizeof msg) != MHA_OK)
		fail_msg("test built an invalid config: %s", msg);
	assert_int_equal(mha_weights_alloc(&r->w, c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&r->a, c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&r->b, c), MHA_OK);
}

static void run_forward(struct run *r)
{
	mha_forward(&r->c, &r->w, &r->a);
	mha_forward_naive(&r->c, &r->w, &r->b);
}

/* Allocate, seed the inputs, run both passes. */
static void run_seeded(struct run *r, const struct mha_config *c, uint64_t seed)
{
	run_alloc(r, c);
	mha_weights_init(&r->w, &r->c, seed);
	run_forward(r);
}

static void run_free(struct run *r)
{
	mha_acts_free(&r->a);
	mha_acts_free(&r->b);
	mha_weights_free(&r->w);
}

static size_t tensor_len(const struct mha_config *c, enum mha_tensor t)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	return (size_t)s.count * s.rows * s.cols;
}

static void describe(char *buf, size_t len, const struct mha_config *c, const char *what)
{
	snprintf(buf, len, "%s (n %d d %d h %d g %d dk %d causal %d top_k %d scale %d)",
	         what, c->n, c->d, c->h, c->g, c->dk, c->causal, c->top_k, c->scale);
}

/* Compare every intermediate of two activations of the same config. */
static void acts_close(const struct mha_config *c, const struct mha_acts *got,
                       const struct mha_acts *want, double tol, const char *what)
{
	for (enum mha_tensor t = MHA_T_Q; t <= MHA_T_Y; t++) {
		char label[200];
		describe(label, sizeof label, c, mha_tensor_info(t)->name);
		strncat(label, " ", sizeof label - strlen(label) - 1);
		strncat(label, what, sizeof label - strlen(label) - 1);
		check_close(mha_tensor_data(NULL, got, t), mha_tensor_data(NULL, want, t),
		            tensor_len(c, t), tol, label);
	}
}

static void test_blas_matches_naive_loops_on_random_configurations(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_CONFIGS; i++) {
		struct mha_config c = random_config();
		struct run r;
		run_seeded(&r, &c, 1000 + (uint64_t)i);
		acts_close(&r.c, &r.a, &r.b, 1e-5, "BLAS vs naive");
		run_free(&r);
	}
}

/* The same on wide shapes, where OpenBLAS takes its blocked kernels. */
static void test_blas_matches_naive_loops_on_wide_shapes(void **state)
{
	(void)state;
	static const int shapes[][5] = { /* n, d, h, g, dk */
		{ 64, 256, 8, 2, 32 }, { 33, 200, 5, 5, 40 }, { 64, 64, 64, 1, 1 }, { 17, 1024, 1, 1, 64 },
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct mha_config c = mha_config_default();
		c.n = shapes[i][0]; c.d = shapes[i][1]; c.h = shapes[i][2];
		c.g = shapes[i][3]; c.dk = shapes[i][4]; c.causal = i % 2;
		struct run r;
		run_seeded(&r, &c, 77 + i);
		acts_close(&r.c, &r.a, &r.b, 1e-5, "BLAS vs naive, wide");
		run_free(&r);
	}
}

/* Every row of P is a distribution over the keys it kept: entries in
 * [0, 1], summing to 1; and no row is dead in a forward pass (a query
 * always keeps at least key 0 or itself). */
static void check_rows_sum_to_one(const struct mha_config *c, const struct mha_acts *a)
{
	for (int i = 0; i < c->h; i++) {
		for (int r = 0; r < c->n; r++) {
			const float *p = a->weights + ((size_t)i * c->n + r) * c->n;
			double sum = 0.0;
			for (int j = 0; j < c->n; j++) {
				if (!(p[j] >= 0.0f && p[j] <= 1.0f))
					fail_msg("head %d row %d: P[%d] = %g not in [0, 1]", i, r, j, (double)p[j]);
				sum += p[j];
			}
			if (fabs(sum - 1.0) > 1e-5)
				fail_msg("head %d row %d: P sums to %.9g, not 1", i, r, sum);
			assert_int_equal(a->dead_row[i * c->n + r], 0);
		}
	}
}

static void test_every_softmax_row_sums_to_one(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_CONFIGS; i++) {
		struct mha_config c = random_config();
		struct run r;
		run_seeded(&r, &c, 2000 + (uint64_t)i);
		check_rows_sum_to_one(&r.c, &r.a);
		check_rows_sum_to_one(&r.c, &r.b);
		run_free(&r);
	}
}

/* Causal: P[r][j] is exactly 0 for every j > r, in every head. */
static void test_causal_upper_triangle_is_exactly_zero(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_CONFIGS; i++) {
		struct mha_config c = random_config();
		c.causal = true;
		struct run r;
		run_seeded(&r, &c, 3000 + (uint64_t)i);
		for (int hd = 0; hd < c.h; hd++)
			for (int row = 0; row < c.n; row++)
				for (int j = row + 1; j < c.n; j++) {
					size_t at = ((size_t)hd * c.n + row) * c.n + j;
					if (r.a.weights[at] != 0.0f || r.b.weights[at] != 0.0f)
						fail_msg("head %d P[%d][%d] = %g / %g, must be exactly 0",
						         hd, row, j, (double)r.a.weights[at], (double)r.b.weights[at]);
				}
		/* and row 0 attends to key 0 alone */
		for (int hd = 0; hd < c.h; hd++)
			assert_true(r.a.weights[(size_t)hd * c.n * c.n] == 1.0f);
		run_free(&r);
	}
}

static void test_kv_head_follows_repeat_kv(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.h = 8; c.g = 2;
	static const int want[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	for (int i = 0; i < 8; i++)
		assert_int_equal(mha_kv_head(&c, i), want[i]);
	c.g = 8;
	for (int i = 0; i < 8; i++)
		assert_int_equal(mha_kv_head(&c, i), i);
	c.g = 1;
	for (int i = 0; i < 8; i++)
		assert_int_equal(mha_kv_head(&c, i), 0);
}

/* Copy column block `from` of src (rows, sw) into block `to` of dst (rows, dw). */
static void copy_col_block(float *dst, int dw, int to, const float *src, int sw, int from,
                           int rows, int dk)
{
	for (int r = 0; r < rows; r++)
		memcpy(dst + (size_t)r * dw + (size_t)to * dk, src + (size_t)r * sw + (size_t)from * dk,
		       (size_t)dk * sizeof(float));
}

/* GQA with g kv heads is MHA whose W^K, W^V repeat kv head floor(i / (h/g))
 * for query head i (repeat_kv). Random, so every kv head differs: a wrong
 * mapping (i % g, say) fails. With g = h this is MHA itself. */
static void test_gqa_equals_mha_with_repeated_kv_heads(void **state)
{
	(void)state;
	static const int hg[][2] = { { 4, 2 }, { 6, 3 }, { 6, 2 }, { 8, 1 }, { 4, 4 }, { 8, 4 } };
	for (size_t i = 0; i < sizeof hg / sizeof hg[0]; i++) {
		struct mha_config c = mha_config_default();
		c.n = 7; c.d = 12; c.h = hg[i][0]; c.g = hg[i][1]; c.dk = 3; c.causal = i % 2;
		struct run gqa, mha;
		run_seeded(&gqa, &c, 4000 + i);
		struct mha_config m = c;
		m.g = c.h;
		run_alloc(&mha, &m);
		int hw = c.h * c.dk, gw = c.g * c.dk;
		memcpy(mha.w.x, gqa.w.x, (size_t)c.n * c.d * sizeof(float));
		memcpy(mha.w.wq, gqa.w.wq, (size_t)c.d * hw * sizeof(float));
		memcpy(mha.w.wo, gqa.w.wo, (size_t)hw * c.d * sizeof(float));
		for (int hd = 0; hd < c.h; hd++) {
			int j = hd / (c.h / c.g); /* doc/FACTS.md (GQA), not mha_kv_head */
			copy_col_block(mha.w.wk, hw, hd, gqa.w.wk, gw, j, c.d, c.dk);
			copy_col_block(mha.w.wv, hw, hd, gqa.w.wv, gw, j, c.d, c.dk);
		}
		run_forward(&mha);
		for (enum mha_tensor t = MHA_T_SCORES; t <= MHA_T_Y; t++) {
			char label[200];
			describe(label, sizeof label, &c, mha_tensor_info(t)->name);
			check_close(mha_tensor_data(NULL, &gqa.a, t), mha_tensor_data(NULL, &mha.a, t),
			            tensor_len(&c, t), 1e-5, label);
		}
		run_free(&gqa);
		run_free(&mha);
	}
}

/* Single-head attention written out here in double:
 * Y = softmax(mask(X Wq (X Wk)^T * s)) X Wv Wo, one head, dk columns. */
static void single_head(const struct mha_config *c, const struct mha_weights *w, double *y)
{
	int n = c->n, d = c->d, dk = c->dk;
	double *q = calloc((size_t)3 * n * dk + (size_t)n * n + (size_t)n * dk, sizeof(double));
	assert_non_null(q);
	double *k = q + (size_t)n * dk, *v = k + (size_t)n * dk, *p = v + (size_t)n * dk, *o = p + (size_t)n * n;
	for (int r = 0; r < n; r++)
		for (int j = 0; j < dk; j++)
			for (int t = 0; t < d; t++) {
				q[r * dk + j] += (double)w->x[r * d + t] * w->wq[t * dk + j];
				k[r * dk + j] += (double)w->x[r * d + t] * w->wk[t * dk + j];
				v[r * dk + j] += (double)w->x[r * d + t] * w->wv[t * dk + j];
			}
	double s = c->scale ? 1.0 / sqrt(dk) : 1.0;
	for (int r = 0; r < n; r++) {
		int lim = c->causal ? r + 1 : n;
		double m = -INFINITY, sum = 0.0;
		for (int j = 0; j < lim; j++) {
			double dot = 0.0;
			for (int t = 0; t < dk; t++)
				dot += q[r * dk + t] * k[j * dk + t];
			p[r * n + j] = dot * s;
			m = fmax(m, p[r * n + j]);
		}
		for (int j = 0; j < lim; j++)
			sum += p[r * n + j] = exp(p[r * n + j] - m);
		for (int j = 0; j < n; j++)
			p[r * n + j] = j < lim ? p[r * n + j] / sum : 0.0;
		for (int j = 0; j < dk; j++)
			for (int t = 0; t < n; t++)
				o[r * dk + j] += p[r * n + t] * v[t * dk + j];
		for (int col = 0; col < d; col++) {
			y[r * d + col] = 0.0;
			for (int j = 0; j < dk; j++)
				y[r * d + col] += o[r * dk + j] * w->wo[j * d + col];
		}
	}
	free(q);
}

static void test_one_head_equals_single_head_attention(void **state)
{
	(void)state;
	for (int i = 0; i < 12; i++) {
		struct mha_config c = random_config();
		c.h = 1; c.g = 1; c.top_k = 0; c.head_off[0] = false;
		struct run r;
		run_seeded(&r, &c, 5000 + (uint64_t)i);
		double *y = calloc((size_t)c.n * c.d, sizeof(double));
		assert_non_null(y);
		single_head(&c, &r.w, y);
		char label[200];
		describe(label, sizeof label, &c, "Y vs single head");
		check_close_d(r.a.y, y, (size_t)c.n * c.d, 1e-5, label);
		free(y);
		run_free(&r);
	}
}

/* h heads are h single-head layers side by side: head i alone (its columns
 * of W^Q, its kv head's columns of W^K, W^V, its rows of W^O) gives O_i,
 * and Y is the sum of the h single-head outputs. */
static void test_heads_are_independent_single_head_layers(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 9; c.d = 10; c.h = 4; c.g = 2; c.dk = 3; c.causal = true;
	struct run r;
	run_seeded(&r, &c, 6000);
	struct mha_config one = c;
	one.h = 1; one.g = 1;
	double *sum = calloc((size_t)c.n * c.d, sizeof(double));
	assert_non_null(sum);
	int hw = c.h * c.dk, gw = c.g * c.dk;
	for (int hd = 0; hd < c.h; hd++) {
		struct run s;
		run_alloc(&s, &one);
		int j = hd / (c.h / c.g);
		memcpy(s.w.x, r.w.x, (size_t)c.n * c.d * sizeof(float));
		copy_col_block(s.w.wq, c.dk, 0, r.w.wq, hw, hd, c.d, c.dk);
		copy_col_block(s.w.wk, c.dk, 0, r.w.wk, gw, j, c.d, c.dk);
		copy_col_block(s.w.wv, c.dk, 0, r.w.wv, gw, j, c.d, c.dk);
		memcpy(s.w.wo, r.w.wo + (size_t)hd * c.dk * c.d, (size_t)c.dk * c.d * sizeof(float));
		run_forward(&s);
		check_close(s.a.heads, r.a.heads + (size_t)hd * c.n * c.dk, (size_t)c.n * c.dk, 1e-6, "O_i");
		for (size_t k = 0; k < (size_t)c.n * c.d; k++)
			sum[k] += s.b.y[k];
		run_free(&s);
	}
	check_close_d(r.a.y, sum, (size_t)c.n * c.d, 1e-5, "Y = sum of single-head outputs");
	free(sum);
	run_free(&r);
}

/* Without a mask, attention is permutation-equivariant: permuting the rows
 * of X permutes the rows of Q, K, V, Y and both axes of S and P. Top-k
 * too, as long as no two scores tie (random inputs). */
static void test_permuting_tokens_permutes_the_output(void **state)
{
	(void)state;
	for (int i = 0; i < 10; i++) {
		struct mha_config c = random_config();
		c.causal = false;
		c.top_k = i % 2 ? pick_int(&pick_state, 1, c.n) : 0;
		struct run r, p;
		run_seeded(&r, &c, 7000 + (uint64_t)i);
		run_alloc(&p, &c);
		mha_weights_init(&p.w, &p.c, 7000 + (uint64_t)i);
		int perm[MHA_MAX_TOKENS];
		for (int t = 0; t < c.n; t++)
			perm[t] = t;
		for (int t = c.n - 1; t > 0; t--) { /* Fisher-Yates */
			int u = pick_int(&pick_state, 0, t), tmp = perm[t];
			perm[t] = perm[u];
			perm[u] = tmp;
		}
		for (int t = 0; t < c.n; t++) /* row t of the new X is row perm[t] of the old */
			memcpy(p.w.x + (size_t)t * c.d, r.w.x + (size_t)perm[t] * c.d, (size_t)c.d * sizeof(float));
		run_forward(&p);
		size_t nn = (size_t)c.n * c.n;
		float *want_y = calloc((size_t)c.n * c.d + nn * c.h, sizeof(float));
		assert_non_null(want_y);
		float *want_p = want_y + (size_t)c.n * c.d;
		for (int t = 0; t < c.n; t++) {
			memcpy(want_y + (size_t)t * c.d, r.a.y + (size_t)perm[t] * c.d, (size_t)c.d * sizeof(float));
			for (int hd = 0; hd < c.h; hd++)
				for (int u = 0; u < c.n; u++)
					want_p[hd * nn + (size_t)t * c.n + u] = r.a.weights[hd * nn + (size_t)perm[t] * c.n + perm[u]];
		}
		char label[200];
		describe(label, sizeof label, &c, "permuted Y");
		check_close(p.a.y, want_y, (size_t)c.n * c.d, 1e-5, label);
		describe(label, sizeof label, &c, "permuted P");
		check_close(p.a.weights, want_p, nn * c.h, 1e-5, label);
		free(want_y);
		run_free(&r);
		run_free(&p);
	}
}

/* Top-k keeps exactly min(k, keys visible) non-zeros per row, and they are
 * the largest scores. Inputs are kept small so that no kept weight
 * underflows to 0. */
static void test_top_k_leaves_exactly_k_nonzeros_per_row(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_CONFIGS; i++) {
		struct mha_config c = random_config();
		c.top_k = pick_int(&pick_state, 1, c.n);
		struct run r;
		run_seeded(&r, &c, 8000 + (uint64_t)i);
		for (int hd = 0; hd < c.h; hd++)
			for (int row = 0; row < c.n; row++) {
				const float *p = r.a.weights + ((size_t)hd * c.n + row) * c.n;
				const float *s = r.a.scores + ((size_t)hd * c.n + row) * c.n;
				int lim = c.causal ? row + 1 : c.n, want = c.top_k < lim ? c.top_k : lim, got = 0;
				float min_kept = INFINITY, max_dropped = -INFINITY;
				for (int j = 0; j < c.n; j++) {
					if (p[j] != 0.0f) {
						got++;
						min_kept = fminf(min_kept, s[j]);
					} else if (j < lim) {
						max_dropped = fmaxf(max_dropped, s[j]);
					}
				}
				if (got != want || max_dropped > min_kept)
					fail_msg("head %d row %d (top_k %d, causal %d): %d non-zeros, want %d; "
					         "lowest kept %g, highest dropped %g", hd, row, c.top_k, c.causal,
					         got, want, (double)min_kept, (double)max_dropped);
			}
		run_free(&r);
	}
}

/* ---- mha_softmax_row on its own ---- */

static void test_top_k_ties_break_to_the_lower_index(void **state)
{
	(void)state;
	float p[5];
	const float flat[4] = { 1, 1, 1, 1 };
	assert_false(mha_softmax_row(flat, p, 4, 4, 2));
	const float want_flat[4] = { 0.5f, 0.5f, 0, 0 };
	check_close(p, want_flat, 4, 0, "ties: first two kept");

	const float s[5] = { 0, 2, 2, 1, 2 }; /* three tie at the top: keys 1, 2 win */
	assert_false(mha_softmax_row(s, p, 5, 5, 2));
	const float want[5] = { 0, 0.5f, 0.5f, 0, 0 };
	check_close(p, want, 5, 0, "ties at 2: keys 1 and 2");

	/* k = 3 keeps all three 2s: keys 1, 2 and 4 */
	assert_false(mha_softmax_row(s, p, 5, 5, 3));
	const float third = 1.0f / 3.0f;
	const float want3[5] = { 0, third, third, 0, third };
	check_close(p, want3, 5, 1e-7, "k = 3: the three 2s");

	/* with a causal limit of 3, k = 2 among keys 0..2 */
	assert_false(mha_softmax_row(s, p, 5, 3, 2));
	check_close(p, want, 5, 0, "limit 3, k 2");
}

static void test_top_k_at_least_limit_keeps_every_visible_key(void **state)
{
	(void)state;
	const float s[4] = { 0, 0, 0, 0 };
	float p[4];
	assert_false(mha_softmax_row(s, p, 4, 2, 3));
	const float want[4] = { 0.5f, 0.5f, 0, 0 };
	check_close(p, want, 4, 0, "k 3 >= limit 2");
	assert_false(mha_softmax_row(s, p, 4, 4, 4));
	const float quarter[4] = { 0.25f, 0.25f, 0.25f, 0.25f };
	check_close(p, quarter, 4, 0, "k = n");
	assert_false(mha_softmax_row(s, p, 4, 9, 0)); /* limit beyond n is clamped */
	check_close(p, quarter, 4, 0, "limit > n");
}

static void test_fully_masked_row_is_all_zero_and_flagged(void **state)
{
	(void)state;
	const float s[3] = { 1, 2, 3 };
	float p[3] = { 7, 7, 7 };
	assert_true(mha_softmax_row(s, p, 3, 0, 0));
	const float zero[3] = { 0, 0, 0 };
	check_close(p, zero, 3, 0, "limit 0");
	p[0] = 7;
	assert_true(mha_softmax_row(s, p, 3, 0, 2));
	check_close(p, zero, 3, 0, "limit 0, top-k 2");
}

static void check_finite_row(const float *s, int n, const char *label)
{
	float p[8];
	assert_false(mha_softmax_row(s, p, n, n, 0));
	double sum = 0.0;
	for (int j = 0; j < n; j++) {
		if (!isfinite(p[j]) || p[j] < 0.0f)
			fail_msg("%s: p[%d] = %g", label, j, (double)p[j]);
		sum += p[j];
	}
	if (fabs(sum - 1.0) > 1e-6)
		fail_msg("%s: sums to %.9g", label, sum);
}

static void test_huge_and_tiny_scores_stay_finite(void **state)
{
	(void)state;
	const float huge[4] = { 1e30f, -1e30f, 3e38f, -3e38f };
	check_finite_row(huge, 4, "+-1e30, +-3e38");
	const float tiny[3] = { 1e-38f, -1e-45f, 0 };
	check_finite_row(tiny, 3, "denormals");
	const float big_equal[2] = { 3e38f, 3e38f };
	check_finite_row(big_equal, 2, "two equal maxima");
	const float spread[3] = { 100, 0, -100 };
	float p[3];
	assert_false(mha_softmax_row(spread, p, 3, 3, 0));
	assert_true(p[0] > 0.999f && p[2] == 0.0f); /* exp(-200) underflows to 0: fine */
	/* infinities (overflowed products) share the weight, never inf - inf */
	const float inf[3] = { INFINITY, 1, INFINITY };
	assert_false(mha_softmax_row(inf, p, 3, 3, 0));
	const float half[3] = { 0.5f, 0, 0.5f };
	check_close(p, half, 3, 0, "+inf twice");
	const float neg[2] = { -INFINITY, -INFINITY };
	assert_false(mha_softmax_row(neg, p, 2, 2, 0));
	assert_true(isfinite(p[0]) && isfinite(p[1]));
}

/* A NaN score makes its row NaN (it is not hidden), but a NaN behind the
 * mask changes nothing, and other rows are untouched. */
static void test_nan_appears_only_where_the_input_had_nan(void **state)
{
	(void)state;
	float p[3];
	const float masked[3] = { 1, 1, NAN };
	assert_false(mha_softmax_row(masked, p, 3, 2, 0));
	const float half[3] = { 0.5f, 0.5f, 0 };
	check_close(p, half, 3, 0, "NaN behind the causal limit");
	const float seen[3] = { 1, NAN, 1 };
	assert_false(mha_softmax_row(seen, p, 3, 3, 0));
	assert_true(isnan(p[1]));
	const float clean[3] = { 1, 2, 3 };
	assert_false(mha_softmax_row(clean, p, 3, 3, 0));
	for (int j = 0; j < 3; j++)
		assert_false(isnan(p[j]));
}

/* ---- the input limits: |values| <= MHA_VALUE_MAX ---- */

static void fill(float *p, size_t len, float v, bool alternate)
{
	for (size_t i = 0; i < len; i++)
		p[i] = alternate && i % 3 == 1 ? -v : v;
}

static void check_all_finite(const struct mha_config *c, const struct mha_acts *a, const char *what)
{
	for (enum mha_tensor t = MHA_T_Q; t <= MHA_T_Y; t++) {
		const float *p = mha_tensor_data(NULL, a, t);
		for (size_t i = 0; i < tensor_len(c, t); i++)
			if (!isfinite(p[i]))
				fail_msg("%s: %s[%zu] = %g", what, mha_tensor_info(t)->name, i, (double)p[i]);
	}
}

/* Every input at +-1e6 on the widest shapes (d 1024, dk 1024 or h dk
 * 4096): |Q| ~ 1e15, |S| ~ 1e33, still finite; and 1e-30 inputs whose
 * products underflow to 0 give a uniform P, also finite. */
static void test_huge_and_tiny_inputs_stay_finite(void **state)
{
	(void)state;
	static const int shapes[][5] = { { 3, 1024, 1, 1, 1024 }, { 2, 1024, 4, 2, 1024 }, { 4, 64, 64, 64, 64 } };
	static const float values[] = { MHA_VALUE_MAX, 1e-30f };
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		for (size_t v = 0; v < 2; v++) {
			for (int alt = 0; alt < 2; alt++) {
				struct mha_config c = mha_config_default();
				c.n = shapes[i][0]; c.d = shapes[i][1]; c.h = shapes[i][2];
				c.g = shapes[i][3]; c.dk = shapes[i][4];
				c.scale = alt; c.causal = alt;
				struct run r;
				run_alloc(&r, &c);
				size_t hw = (size_t)c.h * c.dk, gw = (size_t)c.g * c.dk;
				fill(r.w.x, (size_t)c.n * c.d, values[v], alt);
				fill(r.w.wq, c.d * hw, values[v], alt);
				fill(r.w.wk, c.d * gw, values[v], alt);
				fill(r.w.wv, c.d * gw, values[v], alt);
				fill(r.w.wo, hw * c.d, values[v], alt);
				char msg[MHA_MSG_MAX], label[200];
				assert_int_equal(mha_weights_check(&r.w, &c, msg, sizeof msg), MHA_OK);
				run_forward(&r);
				describe(label, sizeof label, &c, values[v] > 1 ? "1e6 (BLAS)" : "1e-30 (BLAS)");
				check_all_finite(&c, &r.a, label);
				check_rows_sum_to_one(&c, &r.a);
				describe(label, sizeof label, &c, values[v] > 1 ? "1e6 (naive)" : "1e-30 (naive)");
				check_all_finite(&c, &r.b, label);
				check_rows_sum_to_one(&c, &r.b);
				run_free(&r);
			}
		}
	}
}

static void test_weights_check_refuses_non_finite_and_huge_inputs(void **state)
{
	(void)state;
	static const float bad[] = { NAN, INFINITY, -INFINITY, 1.0000001e6f, -2e6f };
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
			struct mha_config c = mha_config_default();
			struct mha_weights w;
			assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
			mha_weights_init(&w, &c, 5);
			char msg[MHA_MSG_MAX];
			assert_int_equal(mha_weights_check(&w, &c, msg, sizeof msg), MHA_OK);
			size_t last = tensor_len(&c, t) - 1;
			mha_tensor_data(&w, NULL, t)[last] = bad[b];
			assert_int_equal(mha_weights_check(&w, &c, msg, sizeof msg), MHA_ERANGE);
			/* the message names the matrix */
			assert_non_null(strstr(msg, mha_tensor_info(t)->name));
			mha_tensor_data(&w, NULL, t)[last] = MHA_VALUE_MAX; /* the limit itself is fine */
			assert_int_equal(mha_weights_check(&w, &c, msg, sizeof msg), MHA_OK);
			mha_weights_free(&w);
		}
	}
}

/* A head switched off keeps its O_i (shown on screen) but its block of
 * Concat is 0, so Y equals Y computed with that head's W^O rows zeroed. */
static void test_switched_off_head_has_a_zero_concat_block(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 6; c.d = 12; c.h = 4; c.g = 2; c.dk = 3;
	struct run on, off;
	run_seeded(&on, &c, 9000);
	c.head_off[1] = true;
	c.head_off[3] = true;
	run_seeded(&off, &c, 9000);
	check_close(off.a.heads, on.a.heads, tensor_len(&c, MHA_T_HEADS), 0, "O unchanged");
	for (int r = 0; r < c.n; r++)
		for (int hd = 0; hd < c.h; hd++)
			for (int j = 0; j < c.dk; j++) {
				size_t at = (size_t)r * c.h * c.dk + (size_t)hd * c.dk + j;
				float want = c.head_off[hd] ? 0.0f : on.a.concat[at];
				float want_naive = c.head_off[hd] ? 0.0f : on.b.concat[at];
				if (off.a.concat[at] != want || off.b.concat[at] != want_naive)
					fail_msg("concat[%d][%d] of head %d = %g / %g, want %g", r, hd * c.dk + j, hd,
					         (double)off.a.concat[at], (double)off.b.concat[at], (double)want);
			}
	for (int hd = 1; hd < 4; hd += 2)
		memset(on.w.wo + (size_t)hd * c.dk * c.d, 0, (size_t)c.dk * c.d * sizeof(float));
	run_forward(&on);
	check_close(off.a.y, on.a.y, tensor_len(&c, MHA_T_Y), 1e-6, "Y = Y with W^O rows zeroed");
	run_free(&on);
	run_free(&off);
}

/* Without the scale, S is sqrt(dk) times larger: dk = 4, a factor of 2. */
static void test_scale_divides_scores_by_sqrt_dk(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 5; c.d = 8; c.h = 2; c.g = 2; c.dk = 4;
	struct run with, without;
	run_seeded(&with, &c, 10);
	c.scale = false;
	run_seeded(&without, &c, 10);
	size_t len = tensor_len(&c, MHA_T_SCORES);
	for (size_t i = 0; i < len; i++)
		with.a.scores[i] *= 2.0f;
	check_close(without.a.scores, with.a.scores, len, 1e-6, "S without scale = 2 S");
	run_free(&with);
	run_free(&without);
}

/* Seeded inputs are the same for the same seed, differ for another, and
 * stay within their bounds: X in [-1, 1), each W within Glorot's
 * sqrt(6 / (fan_in + fan_out)). */
static void test_weights_init_is_seeded_and_bounded(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.d = 16; c.h = 4; c.g = 2; c.dk = 8;
	struct mha_weights a, b;
	assert_int_equal(mha_weights_alloc(&a, &c), MHA_OK);
	assert_int_equal(mha_weights_alloc(&b, &c), MHA_OK);
	mha_weights_init(&a, &c, 123);
	assert_true(c.seed == 123);
	mha_weights_init(&b, &c, 123);
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++)
		assert_memory_equal(mha_tensor_data(&a, NULL, t), mha_tensor_data(&b, NULL, t),
		                    tensor_len(&c, t) * sizeof(float));
	mha_weights_init(&b, &c, 124);
	assert_memory_not_equal(a.x, b.x, tensor_len(&c, MHA_T_X) * sizeof(float));
	const double bound[] = { 1.0, sqrt(6.0 / (16 + 32)), sqrt(6.0 / (16 + 16)),
	                         sqrt(6.0 / (16 + 16)), sqrt(6.0 / (32 + 16)) };
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		const float *p = mha_tensor_data(&a, NULL, t);
		double lo = 0, hi = 0;
		for (size_t i = 0; i < tensor_len(&c, t); i++) {
			lo = fmin(lo, p[i]);
			hi = fmax(hi, p[i]);
		}
		if (lo < -bound[t] - 1e-7 || hi >= bound[t] + 1e-7 || hi - lo < bound[t])
			fail_msg("%s spans [%g, %g], want within +-%g", mha_tensor_info(t)->name, lo, hi, bound[t]);
	}
	mha_weights_free(&a);
	mha_weights_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blas_matches_naive_loops_on_random_configurations),
		cmocka_unit_test(test_blas_matches_naive_loops_on_wide_shapes),
		cmocka_unit_test(test_every_softmax_row_sums_to_one),
		cmocka_unit_test(test_causal_upper_triangle_is_exactly_zero),
		cmocka_unit_test(test_kv_head_follows_repeat_kv),
		cmocka_unit_test(test_gqa_equals_mha_with_repeated_kv_heads),
		cmocka_unit_test(test_one_head_equals_single_head_attention),
		cmocka_unit_test(test_heads_are_independent_single_head_layers),
		cmocka_unit_test(test_permuting_tokens_permutes_the_output),
		cmocka_unit_test(test_top_k_leaves_exactly_k_nonzeros_per_row),
		cmocka_unit_test(test_top_k_ties_break_to_the_lower_index),
		cmocka_unit_test(test_top_k_at_least_limit_keeps_every_visible_key),
		cmocka_unit_test(test_fully_masked_row_is_all_zero_and_flagged),
		cmocka_unit_test(test_huge_and_tiny_scores_stay_finite),
		cmocka_unit_test(test_nan_appears_only_where_the_input_had_nan),
		cmocka_unit_test(test_huge_and_tiny_inputs_stay_finite),
		cmocka_unit_test(test_weights_check_refuses_non_finite_and_huge_inputs),
		cmocka_unit_test(test_switched_off_head_has_a_zero_concat_block),
		cmocka_unit_test(test_scale_divides_scores_by_sqrt_dk),
		cmocka_unit_test(test_weights_init_is_seeded_and_bounded),
	};
	return cmocka_run_group_tests_name("properties", tests, NULL, NULL);
}
