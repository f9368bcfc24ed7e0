/*
 * test_backward.c - the core's backward (mha_backward, float32 through
 * gemm_rm) over seeded configurations: MHA, GQA, MQA, causal, top-k away
 * from ties, no scale, heads off. Two checks per configuration:
 *  1. the float64 reference's analytic gradient (ref64.c, plain loops)
 *     against float64 central finite differences of its loss, every
 *     element of X, W^Q, W^K, W^V, W^O;
 *  2. every field of struct mha_grads (inputs and intermediates) against
 *     that reference.
 * The loss is L = 1/2 sum(Y^2) + sum(C * Y) with a random C, so dL/dY is
 * not just Y. Heads switched off must give exactly zero gradient blocks.
 * With biases (two cases) their gradients are checked the same way.
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
#include "grad.h"
#include "mha.h"
#include "ref64.h"

struct gcase {
	const char *name;
	int n, d, h, g, dk;
	bool causal;
	int top_k;
	bool scale;
	int off[2]; /* heads off, -1: none */
	uint64_t seed;
	bool bias;
};

static const struct gcase cases[] = {
	{ "mha", 5, 8, 2, 2, 4, false, 0, true, { -1, -1 }, 11 },
	{ "gqa", 5, 8, 4, 2, 2, false, 0, true, { -1, -1 }, 12 },
	{ "mqa", 4, 6, 3, 1, 2, false, 0, true, { -1, -1 }, 13 },
	{ "causal", 5, 8, 2, 2, 4, true, 0, true, { -1, -1 }, 14 },
	{ "topk", 6, 8, 2, 2, 4, false, 2, true, { -1, -1 }, 15 },
	{ "topk_causal_gqa", 6, 6, 4, 2, 2, true, 3, true, { -1, -1 }, 16 },
	{ "noscale", 4, 4, 2, 2, 2, false, 0, false, { -1, -1 }, 17 },
	{ "head_off", 4, 8, 4, 2, 2, false, 0, true, { 2, -1 }, 18 },
	{ "kv_head_unused", 4, 8, 4, 2, 2, true, 0, true, { 2, 3 }, 19 },
	{ "wide", 12, 16, 4, 2, 4, true, 0, true, { -1, -1 }, 20 },
	{ "bias_gqa_causal", 5, 8, 4, 2, 2, true, 0, true, { -1, -1 }, 21, true },
	{ "bias_mha_off", 4, 6, 2, 2, 3, false, 0, true, { 1, -1 }, 22, true },
};

static double lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

struct setup {
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	struct mha_grads g;
	struct ref64 r;
	double cw[MHA_MAX_TOKENS * 64];
};

/* Inputs from the seed; W^Q, W^K scaled up so that softmax is far from
 * uniform and its backward matters. */
static void setup_make(struct setup *t, const struct gcase *k)
{
	t->c = mha_config_default();
	t->c.n = k->n; t->c.d = k->d; t->c.h = k->h; t->c.g = k->g; t->c.dk = k->dk;
	t->c.causal = k->causal; t->c.top_k = k->top_k; t->c.scale = k->scale; t->c.bias = k->bias;
	for (int i = 0; i < 2; i++)
		if (k->off[i] >= 0)
			t->c.head_off[k->off[i]] = true;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&t->c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_weights_alloc(&t->w, &t->c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&t->a, &t->c), MHA_OK);
	assert_int_equal(mha_grads_alloc(&t->g, &t->c), MHA_OK);
	mha_weights_init(&t->w, &t->c, k->seed);
	if (k->bias)
		mha_biases_init(&t->w, &t->c, k->seed);
	size_t lq = (size_t)t->c.d * t->c.h * t->c.dk, lk = (size_t)t->c.d * t->c.g * t->c.dk;
	for (size_t e = 0; e < lq; e++)
		t->w.wq[e] *= 3.0f;
	for (size_t e = 0; e < lk; e++)
		t->w.wk[e] *= 3.0f;
	ref64_alloc(&t->r, &t->c);
	const float *src[5] = { t->w.x, t->w.wq, t->w.wk, t->w.wv, t->w.wo };
	double *dst[5] = { t->r.x, t->r.wq, t->r.wk, t->r.wv, t->r.wo };
	size_t len[5] = { (size_t)t->c.n * t->c.d, lq, lk, lk, lq };
	for (int m = 0; m < 5; m++)
		for (size_t e = 0; e < len[m]; e++)
			dst[m][e] = src[m][e];
	for (int b = 0; k->bias && b < MHA_BIASES; b++) {
		struct mha_bias mb = mha_bias(&t->w, &t->c, b);
		double *bd[MHA_BIASES] = { t->r.bq, t->r.bk, t->r.bv, t->r.bo };
		for (int e = 0; e < mb.len; e++)
			bd[b][e] = mb.p[e];
	}
	uint64_t s = k->seed * 7919;
	for (int e = 0; e < t->c.n * t->c.d; e++)
		t->cw[e] = lcg(&s);
}

static void setup_free(struct setup *t)
{
	ref64_free(&t->r);
	mha_grads_free(&t->g);
	mha_acts_free(&t->a);
	mha_weights_free(&t->w);
}

static double max_abs(const double *v, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs(v[i]));
	return m;
}

/* Top-k away from ties: in every row the k-th and (k+1)-th kept scores
 * differ by more than the finite difference could move them. */
static void assert_topk_margin(const struct mha_config *c, const struct ref64 *r)
{
	if (c->top_k <= 0)
		return;
	for (int i = 0; i < c->h; i++)
		for (int a = 0; a < c->n; a++) {
			int lim = c->causal ? a + 1 : c->n;
			if (lim <= c->top_k)
				continue;
			double v[MHA_MAX_TOKENS];
			for (int b = 0; b < lim; b++)
				v[b] = r->s[((size_t)i * c->n + a) * c->n + b];
			for (int x = 0; x < lim; x++) /* sort descending */
				for (int y = x + 1; y < lim; y++)
					if (v[y] > v[x]) { double tmp = v[x]; v[x] = v[y]; v[y] = tmp; }
			if (v[c->top_k - 1] - v[c->top_k] < 1e-3)
				fail_msg("head %d row %d: top-k margin %.3g too small: pick another seed", i, a,
				         v[c->top_k - 1] - v[c->top_k]);
		}
}

static void fd_check(const struct gcase *k)
{
	struct setup t;
	setup_make(&t, k);
	ref64_forward(&t.c, &t.r, t.cw);
	assert_topk_margin(&t.c, &t.r);
	ref64_backward(&t.c, &t.r, t.cw);
	const struct mha_config *c = &t.c;
	size_t lq = (size_t)c->d * c->h * c->dk, lk = (size_t)c->d * c->g * c->dk;
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	double *in[9] = { t.r.x, t.r.wq, t.r.wk, t.r.wv, t.r.wo, t.r.bq, t.r.bk, t.r.bv, t.r.bo };
	const double *an[9] = { t.r.dx, t.r.dwq, t.r.dwk, t.r.dwv, t.r.dwo, t.r.dbq, t.r.dbk, t.r.dbv, t.r.dbo };
	size_t len[9] = { (size_t)c->n * c->d, lq, lk, lk, lq, hw, gw, gw, (size_t)c->d };
	static const char *names[9] = { "X", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O" };
	const double eps = 1e-5;
	for (int m = 0; m < (c->bias ? 9 : 5); m++) {
		double *fd = calloc(len[m], sizeof *fd);
		for (size_t e = 0; e < len[m]; e++) {
			double keep = in[m][e];
			in[m][e] = keep + eps;
			double lp = ref64_forward(c, &t.r, t.cw);
			in[m][e] = keep - eps;
			double lm = ref64_forward(c, &t.r, t.cw);
			in[m][e] = keep;
			fd[e] = (lp - lm) / (2 * eps);
		}
		double tol = 1e-6 * fmax(1.0, max_abs(fd, len[m]));
		for (size_t e = 0; e < len[m]; e++)
			if (fabs(fd[e] - an[m][e]) > tol)
				fail_msg("%s: d%s[%zu]: analytic %.12g, finite difference %.12g", k->name, names[m],
				         e, an[m][e], fd[e]);
		free(fd);
	}
	/* the gradient is not trivially zero */
	assert_true(max_abs(t.r.dwq, lq) > 1e-3);
	setup_free(&t);
}

static void core_check(const struct gcase *k)
{
	struct setup t;
	setup_make(&t, k);
	const struct mha_config *c = &t.c;
	ref64_forward(c, &t.r, t.cw);
	ref64_backward(c, &t.r, t.cw);
	mha_forward(c, &t.w, &t.a);
	size_t nd = (size_t)c->n * c->d;
	float dy[MHA_MAX_TOKENS * 64];
	for (size_t e = 0; e < nd; e++)
		dy[e] = t.a.y[e] + (float)t.cw[e];
	mha_backward(c, &t.w, &t.a, dy, &t.g);
	size_t n = (size_t)c->n, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t hnn = (size_t)c->h * n * n;
	const struct {
		const char *name;
		const float *got;
		const double *want;
		size_t len;
	} f[] = {
		{ "dX", t.g.x, t.r.dx, nd }, { "dW_Q", t.g.wq, t.r.dwq, c->d * hw },
		{ "dW_K", t.g.wk, t.r.dwk, c->d * gw }, { "dW_V", t.g.wv, t.r.dwv, c->d * gw },
		{ "dW_O", t.g.wo, t.r.dwo, hw * c->d }, { "dConcat", t.g.concat, t.r.dcat, n * hw },
		{ "dP", t.g.weights, t.r.dp, hnn }, { "dS", t.g.scores, t.r.ds, hnn },
		{ "dQ", t.g.q, t.r.dq, n * hw }, { "dK", t.g.k, t.r.dk, n * gw }, { "dV", t.g.v, t.r.dv, n * gw },
		{ "db_Q", t.g.bq, t.r.dbq, hw }, { "db_K", t.g.bk, t.r.dbk, gw }, { "db_V", t.g.bv, t.r.dbv, gw },
		{ "db_O", t.g.bo, t.r.dbo, (size_t)c->d },
	};
	for (size_t m = 0; m < sizeof f / sizeof f[0]; m++) {
		char label[64];
		snprintf(label, sizeof label, "%s %s", k->name, f[m].name);
		check_close_d(f[m].got, f[m].want, f[m].len, 2e-5 * fmax(1.0, max_abs(f[m].want, f[m].len)), label);
	}
	/* heads off: their W^Q column block, W^O row block, dP and dS are exactly 0 */
	for (int i = 0; i < c->h; i++) {
		if (!c->head_off[i])
			continue;
		for (int r = 0; r < c->d; r++)
			for (int e = 0; e < c->dk; e++)
				assert_true(t.g.wq[(size_t)r * hw + (size_t)i * c->dk + e] == 0.0f);
		for (int r = 0; r < c->dk; r++)
			for (int e = 0; e < c->d; e++)
				assert_true(t.g.wo[((size_t)i * c->dk + r) * c->d + e] == 0.0f);
		for (size_t e = 0; e < n * n; e++)
			assert_true(t.g.weights[i * n * n + e] == 0.0f && t.g.scores[i * n * n + e] == 0.0f);
	}
	setup_free(&t);
}

static void test_reference_gradients_match_finite_differences(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		fd_check(&cases[i]);
}

static void test_core_backward_matches_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		core_check(&cases[i]);
}

/* A kv head all of whose query heads are off gets no gradient at all. */
static void test_kv_head_of_heads_off_gets_zero_gradient(void **state)
{
	(void)state;
	struct setup t;
	setup_make(&t, &cases[8]); /* h 4, g 2, heads 2 and 3 off: kv head 1 unused */
	assert_string_equal(cases[8].name, "kv_head_unused");
	mha_forward(&t.c, &t.w, &t.a);
	mha_backward_half_square(&t.c, &t.w, &t.a, &t.g);
	int gw = t.c.g * t.c.dk;
	for (int r = 0; r < t.c.d; r++)
		for (int e = t.c.dk; e < gw; e++)
			assert_true(t.g.wk[r * gw + e] == 0.0f && t.g.wv[r * gw + e] == 0.0f);
	setup_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_gradients_match_finite_differences),
		cmocka_unit_test(test_core_backward_matches_reference),
		cmocka_unit_test(test_kv_head_of_heads_off_gets_zero_gradient),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
