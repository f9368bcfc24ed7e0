/*
 * test_fixtures.c - mha_forward and mha_forward_naive against the float64
 * reference of tools/gen_fixtures.py (numpy, written from doc/FACTS.md, not
 * from the C code), every intermediate, for each fixture in
 * tests/fixtures/. The fixture files are read here in C: running the tests
 * needs no Python. Fixtures are found through $MHA_SOURCE_ROOT.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "fixture_read.h"
#include "mha.h"
#include "pipeline.h"

/* Names as written by gen_fixtures.py, in pipeline order. Our own list,
 * not the core's table: the fixture format must not depend on the code
 * under test. */
static const struct {
	const char *name;
	enum mha_tensor t;
} names[] = {
	{ "X", MHA_T_X }, { "W_Q", MHA_T_WQ }, { "W_K", MHA_T_WK }, { "W_V", MHA_T_WV },
	{ "W_O", MHA_T_WO }, { "Q", MHA_T_Q }, { "K", MHA_T_K }, { "V", MHA_T_V },
	{ "scores", MHA_T_SCORES }, { "weights", MHA_T_WEIGHTS }, { "heads", MHA_T_HEADS },
	{ "concat", MHA_T_CONCAT }, { "Y", MHA_T_Y },
};
enum { NNAMES = sizeof names / sizeof names[0] };

struct fixture {
	const char *name;
	struct mha_config c;
	struct mha_weights w;
	double *want[NNAMES]; /* the float64 reference of each output tensor */
	size_t len[NNAMES];
	double *writes;       /* (h, n, d) each head's write into Y */
};

/* "matrix b_Q 1 1 LEN" and the like: a bias, read into its vector. */
static bool read_bias(FILE *f, struct fixture *fx, const char *name)
{
	for (int k = 0; k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias(&fx->w, &fx->c, k);
		if (strcmp(b.key, name) != 0)
			continue;
		int count = (int)fixture_number(f, "count"), rows = (int)fixture_number(f, "rows"), cols = (int)fixture_number(f, "cols");
		if (!fx->c.bias || count != 1 || rows != 1 || cols != b.len)
			fail_msg("%s: fixture has %s as %dx%dx%d, the core wants 1x1x%d with bias on",
			         fx->name, name, count, rows, cols, b.len);
		for (int i = 0; i < b.len; i++)
			b.p[i] = (float)fixture_number(f, name);
		return true;
	}
	return false;
}

/* One "matrix NAME COUNT ROWS COLS" block: inputs go into the weights as
 * floats (written exactly by %.9g), outputs into a double array. */
static void read_matrix(FILE *f, struct fixture *fx)
{
	char name[64];
	if (!fixture_token(f, name, sizeof name))
		fail_msg("fixture: expected a matrix name");
	if (read_bias(f, fx, name))
		return;
	if (strcmp(name, "writes") == 0) { /* not a tensor of the core's table: pipeline_head_write's */
		int count = (int)fixture_number(f, "count"), rows = (int)fixture_number(f, "rows"), cols = (int)fixture_number(f, "cols");
		if (count != fx->c.h || rows != fx->c.n || cols != fx->c.d)
			fail_msg("%s: fixture has writes as %dx%dx%d, want %dx%dx%d", fx->name, count, rows, cols, fx->c.h,
			         fx->c.n, fx->c.d);
		size_t len = (size_t)count * rows * cols;
		fx->writes = calloc(len, sizeof(double));
		assert_non_null(fx->writes);
		for (size_t i = 0; i < len; i++)
			fx->writes[i] = fixture_number(f, name);
		return;
	}
	size_t k = 0;
	while (k < NNAMES && strcmp(names[k].name, name) != 0)
		k++;
	if (k == NNAMES)
		fail_msg("fixture: unknown matrix '%s'", name);
	struct mha_shape s = mha_tensor_shape(&fx->c, names[k].t);
	int count = (int)fixture_number(f, "count"), rows = (int)fixture_number(f, "rows"), cols = (int)fixture_number(f, "cols");
	if (count != s.count || rows != s.rows || cols != s.cols)
		fail_msg("%s: fixture has %s as %dx%dx%d, the core says %dx%dx%d", fx->name, name,
		         count, rows, cols, s.count, s.rows, s.cols);
	size_t len = (size_t)count * rows * cols;
	if (names[k].t <= MHA_T_WO) {
		float *dst = mha_tensor_data(&fx->w, NULL, names[k].t);
		for (size_t i = 0; i < len; i++)
			dst[i] = (float)fixture_number(f, name);
		return;
	}
	fx->want[k] = calloc(len ? len : 1, sizeof(double));
	assert_non_null(fx->want[k]);
	fx->len[k] = len;
	for (size_t i = 0; i < len; i++)
		fx->want[k][i] = fixture_number(f, name);
}

static void fixture_load(struct fixture *fx, const char *name)
{
	FILE *f = fixture_open(".", name);
	memset(fx, 0, sizeof *fx);
	fx->name = name;
	fixture_config(f, &fx->c);
	char msg[MHA_MSG_MAX];
	if (mha_config_check(&fx->c, msg, sizeof msg) != MHA_OK)
		fail_msg("%s: config refused: %s", name, msg);
	assert_int_equal(mha_weights_alloc(&fx->w, &fx->c), MHA_OK);
	char buf[64];
	while (fixture_token(f, buf, sizeof buf) && strcmp(buf, "end") != 0) {
		if (strcmp(buf, "matrix") != 0)
			fail_msg("%s: expected 'matrix' or 'end', got '%s'", name, buf);
		read_matrix(f, fx);
	}
	fclose(f);
	if (strcmp(buf, "end") != 0)
		fail_msg("%s: no 'end': fixture truncated", name);
	for (size_t k = MHA_T_Q; k < NNAMES; k++)
		if (!fx->want[k])
			fail_msg("%s: fixture lacks %s", name, names[k].name);
	if (!fx->writes)
		fail_msg("%s: fixture lacks writes", name);
	assert_int_equal(mha_weights_check(&fx->w, &fx->c, msg, sizeof msg), MHA_OK);
}

static void fixture_free(struct fixture *fx)
{
	for (size_t k = 0; k < NNAMES; k++)
		free(fx->want[k]);
	free(fx->writes);
	mha_weights_free(&fx->w);
}

/* Absolute tolerance scaled to the tensor: 1e-5 relative to its largest
 * magnitude (and at least 1e-5), about 100 float32 ulps. */
static double tolerance(const double *want, size_t len)
{
	double m = 1.0;
	for (size_t i = 0; i < len; i++)
		if (fabs(want[i]) > m)
			m = fabs(want[i]);
	return 1e-5 * m;
}

static void compare(const struct fixture *fx, const struct mha_acts *a, const char *path)
{
	for (size_t k = MHA_T_Q; k < NNAMES; k++) {
		char label[128];
		snprintf(label, sizeof label, "%s: %s (%s)", fx->name, names[k].name, path);
		check_close_d(mha_tensor_data(&fx->w, a, names[k].t), fx->want[k], fx->len[k],
		              tolerance(fx->want[k], fx->len[k]), label);
	}
	/* masked weights are exactly 0, where the reference has exactly 0 */
	const float *p = a->weights;
	for (size_t i = 0; i < fx->len[MHA_T_WEIGHTS]; i++)
		if (fx->want[MHA_T_WEIGHTS][i] == 0.0 && p[i] != 0.0f)
			fail_msg("%s: weights[%zu] = %g, masked so must be exactly 0 (%s)",
			         fx->name, i, (double)p[i], path);
	/* a row is dead (flagged) exactly where the reference's row is all 0 */
	const int n = fx->c.n;
	for (int r = 0; r < fx->c.h * n; r++) {
		bool zero = true;
		for (int j = 0; j < n; j++)
			zero &= fx->want[MHA_T_WEIGHTS][(size_t)r * n + j] == 0.0;
		if (a->dead_row[r] != zero)
			fail_msg("%s: head %d row %d: dead_row %d, the reference's row is %s (%s)", fx->name,
			         r / n, r % n, a->dead_row[r], zero ? "all 0" : "not all 0", path);
	}
	/* each head's write into Y, C_i = Concat_i W^O_i, against numpy's */
	const int h = fx->c.h, d = fx->c.d;
	size_t wl = (size_t)h * n * d;
	float *got = malloc(wl * sizeof *got);
	assert_non_null(got);
	for (int i = 0; i < h; i++)
		for (int r = 0; r < n; r++)
			for (int c = 0; c < d; c++)
				got[((size_t)i * n + r) * d + c] = (float)pipeline_head_write(&fx->c, &fx->w, a, 0, i, r, c);
	char label[128];
	snprintf(label, sizeof label, "%s: writes (%s)", fx->name, path);
	check_close_d(got, fx->writes, wl, tolerance(fx->writes, wl), label);
	/* and their sum (+ b^O) is numpy's Y */
	for (int r = 0; r < n; r++)
		for (int c = 0; c < d; c++)
			got[(size_t)r * d + c] = (float)pipeline_writes_sum(&fx->c, &fx->w, a, 0, r, c);
	snprintf(label, sizeof label, "%s: sum of the writes (%s)", fx->name, path);
	check_close_d(got, fx->want[MHA_T_Y], (size_t)n * d, tolerance(fx->want[MHA_T_Y], (size_t)n * d), label);
	free(got);
}

static void check_fixture(const char *name)
{
	struct fixture fx;
	fixture_load(&fx, name);
	struct mha_acts a, b;
	assert_int_equal(mha_acts_alloc(&a, &fx.c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&b, &fx.c), MHA_OK);
	mha_forward(&fx.c, &fx.w, &a);
	mha_forward_naive(&fx.c, &fx.w, &b);
	compare(&fx, &a, "BLAS");
	compare(&fx, &b, "naive");
	mha_acts_free(&a);
	mha_acts_free(&b);
	fixture_free(&fx);
}

#define FIXTURE_TEST(name) \
	static void test_fixture_##name##_matches_float64_reference(void **state) \
	{ (void)state; check_fixture(#name); }

FIXTURE_TEST(mha)
FIXTURE_TEST(gqa)
FIXTURE_TEST(mqa)
FIXTURE_TEST(causal)
FIXTURE_TEST(topk)
FIXTURE_TEST(topk_causal)
FIXTURE_TEST(dk_own)
FIXTURE_TEST(noscale)
FIXTURE_TEST(head_off)
FIXTURE_TEST(one_token)
FIXTURE_TEST(one_token_causal_topk)
FIXTURE_TEST(gqa_causal_topk_off)
FIXTURE_TEST(wide)
FIXTURE_TEST(pad_keys)
FIXTURE_TEST(pad_queries)
FIXTURE_TEST(window_causal)
FIXTURE_TEST(window_band)
FIXTURE_TEST(custom)
FIXTURE_TEST(masks_all)
FIXTURE_TEST(masks_topk_gqa)
FIXTURE_TEST(bias)
FIXTURE_TEST(bias_masks)

#define FIXTURE_ENTRY(name) cmocka_unit_test(test_fixture_##name##_matches_float64_reference)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FIXTURE_ENTRY(mha),
		FIXTURE_ENTRY(gqa),
		FIXTURE_ENTRY(mqa),
		FIXTURE_ENTRY(causal),
		FIXTURE_ENTRY(topk),
		FIXTURE_ENTRY(topk_causal),
		FIXTURE_ENTRY(dk_own),
		FIXTURE_ENTRY(noscale),
		FIXTURE_ENTRY(head_off),
		FIXTURE_ENTRY(one_token),
		FIXTURE_ENTRY(one_token_causal_topk),
		FIXTURE_ENTRY(gqa_causal_topk_off),
		FIXTURE_ENTRY(wide),
		FIXTURE_ENTRY(pad_keys),
		FIXTURE_ENTRY(pad_queries),
		FIXTURE_ENTRY(window_causal),
		FIXTURE_ENTRY(window_band),
		FIXTURE_ENTRY(custom),
		FIXTURE_ENTRY(masks_all),
		FIXTURE_ENTRY(masks_topk_gqa),
		FIXTURE_ENTRY(bias),
		FIXTURE_ENTRY(bias_masks),
	};
	return cmocka_run_group_tests_name("fixtures", tests, NULL, NULL);
}
