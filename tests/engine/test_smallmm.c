/*
 * test_smallmm.c - the engine's product for small matrices (smallmm.c)
 * against products summed in double: every combination of transposes,
 * row counts that are and are not multiples of its 4-row block, widths
 * on and off its 16-float vectors up to the widest it keeps in registers
 * (64) and past it (where it hands over to gemm_rm), leading dimensions
 * wider than the matrices, alpha other than 1; with AVX-512 and without
 * (vexp_use: gemm_rm then). And the trainer's layers through it
 * (mha_forward_vector, mha_backward_vector) against the core's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "engine.h"
#include "grad.h"
#include "smallmm.h"
#include "vexp.h"

static uint64_t rng = 0x736d616c6c6d6dULL;

static float uniform(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (float)((double)(rng >> 40) / (double)(1u << 24)) * 2.0f - 1.0f;
}

static void fill(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = uniform();
}

/* op(A) (m,k) op(B) (k,n) of small_gemm, and the same summed in double */
static void one_product(bool ta, bool tb, int m, int n, int k, int pad, float alpha)
{
	const int lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
	const size_t a_len = (size_t)(ta ? k : m) * lda, b_len = (size_t)(tb ? n : k) * ldb;
	const size_t c_len = (size_t)m * ldc;
	float *a = malloc(a_len * sizeof *a), *b = malloc(b_len * sizeof *b);
	float *c = malloc(c_len * sizeof *c), *got = malloc((size_t)m * n * sizeof *got);
	double *want = malloc((size_t)m * n * sizeof *want);
	assert_non_null(a); assert_non_null(b); assert_non_null(c);
	assert_non_null(got); assert_non_null(want);
	fill(a, a_len);
	fill(b, b_len);
	for (size_t e = 0; e < c_len; e++)
		c[e] = 99.0f; /* the padding must stay as it was */
	small_gemm(ta, tb, m, n, k, alpha, a, lda, a_len, b, ldb, b_len, c, ldc, c_len);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;
			for (int p = 0; p < k; p++)
				s += (double)(ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p])
				     * (double)(tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j]);
			want[(size_t)i * n + j] = alpha * s;
			got[(size_t)i * n + j] = c[(size_t)i * ldc + j];
		}
	for (int i = 0; i < m; i++)
		for (int j = n; j < ldc; j++)
			assert_true(c[(size_t)i * ldc + j] == 99.0f);
	char label[96];
	snprintf(label, sizeof label, "ta %d tb %d m %d n %d k %d pad %d", ta, tb, m, n, k, pad);
	/* float sums of k terms of size <= 1: a few ulp of k */
	check_close_d(got, want, (size_t)m * n, 4e-7 * k * fabs(alpha) + 1e-7, label);
	free(a); free(b); free(c); free(got); free(want);
}

static void every_shape(void)
{
	static const int ms[] = { 1, 3, 4, 5, 8, 32, 33 };
	static const int ns[] = { 1, 7, 16, 17, 32, 48, 63, 64, 65, 100 };
	static const int ks[] = { 1, 2, 16, 31, 64, 300 };
	for (int t = 0; t < 4; t++)
		for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
			for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
				for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
					one_product(t & 1, t & 2, ms[mi], ns[ni], ks[ki], (int)(mi + ni) % 3,
					            ki % 2 ? 0.25f : 1.0f);
}

static void test_small_products_equal_double_sums(void **state)
{
	(void)state;
	enum vexp_isa was = vexp_isa();
	enum vexp_isa all[] = { VEXP_AVX512, VEXP_AVX2, VEXP_SCALAR };
	for (int i = 0; i < 3; i++)
		if (vexp_use(all[i]))
			every_shape();
	vexp_use(was);
}

/* 1e-5 of the tensor's largest magnitude (at least 1e-5): the two sides
 * sum in different orders through a chain of products and the exp. */
static double tol_of(const float *v, size_t n)
{
	double big = 1.0;
	for (size_t i = 0; i < n; i++)
		big = fmax(big, fabs((double)v[i]));
	return 1e-5 * big;
}

/* The trainer's layer (causal, 2 heads of 16, d 32, n 32) through the
 * engine's small products and vector row against the core's forward and
 * backward: the same activations and gradients within float rounding. */
static void test_layers_through_it_match_the_core(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 32; c.d = 32; c.h = 2; c.g = 2; c.dk = 16; c.causal = true; c.scale = true;
	struct mha_weights w;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	fill(w.x, (size_t)c.n * c.d);
	fill(w.wq, (size_t)c.d * c.h * c.dk);
	fill(w.wk, (size_t)c.d * c.h * c.dk);
	fill(w.wv, (size_t)c.d * c.h * c.dk);
	fill(w.wo, (size_t)c.d * c.h * c.dk);
	struct mha_acts a, b;
	struct mha_grads ga, gb;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&b, &c), MHA_OK);
	assert_int_equal(mha_grads_alloc(&ga, &c), MHA_OK);
	assert_int_equal(mha_grads_alloc(&gb, &c), MHA_OK);
	float dy[32 * 32];
	fill(dy, sizeof dy / sizeof *dy);
	mha_forward(&c, &w, &a);
	mha_forward_vector(&c, &w, &b);
	const size_t nd = (size_t)c.n * c.d, hw = (size_t)c.h * c.dk;
	check_close(b.weights, a.weights, (size_t)c.h * c.n * c.n, 1e-6, "P");
	check_close(b.y, a.y, nd, tol_of(a.y, nd), "Y");
	mha_backward(&c, &w, &a, dy, &ga);
	mha_backward_vector(&c, &w, &b, dy, &gb);
	check_close(gb.x, ga.x, nd, tol_of(ga.x, nd), "dX");
	check_close(gb.wq, ga.wq, c.d * hw, tol_of(ga.wq, c.d * hw), "dWq");
	check_close(gb.wk, ga.wk, c.d * hw, tol_of(ga.wk, c.d * hw), "dWk");
	check_close(gb.wv, ga.wv, c.d * hw, tol_of(ga.wv, c.d * hw), "dWv");
	check_close(gb.wo, ga.wo, c.d * hw, tol_of(ga.wo, c.d * hw), "dWo");
	mha_grads_free(&ga);
	mha_grads_free(&gb);
	mha_acts_free(&a);
	mha_acts_free(&b);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_products_equal_double_sums),
		cmocka_unit_test(test_layers_through_it_match_the_core),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
