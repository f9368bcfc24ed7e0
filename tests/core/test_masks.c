/*
 * test_masks.c - masks beyond causal (mask.c): each rule worked by hand on
 * a small case (padding keys and queries, the window with and without
 * causality, custom cells, top-k after them, GQA sharing one mask), then
 * properties on seeded random masks: every row of P sums to 1 or is
 * exactly 0, a dead row is flagged exactly when no key is visible, masked
 * weights are exactly 0, the forward's record of kept keys (what the
 * screen marks masked) is the rule's, even where a weight underflowed to 0,
 * BLAS and the plain loops agree, the teaching-size
 * plan agrees, the large path's tiles agree and it refuses biases. The float64
 * fixtures (test_fixtures.c) check the numbers themselves.
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
#include "engine.h"
#include "pipeline.h"

/* The structural mask of every row as a string of 0/1 rows, "100|110|...". */
static void mask_text(const struct mha_config *c, char *out)
{
	unsigned char keep[MHA_MAX_TOKENS];
	for (int i = 0; i < c->n; i++) {
		mha_mask_row(c, i, NULL, keep);
		for (int j = 0; j < c->n; j++)
			*out++ = (char)('0' + keep[j]);
		*out++ = i + 1 < c->n ? '|' : '\0';
	}
}

static struct mha_config small(int n)
{
	struct mha_config c = mha_config_default();
	c.n = n;
	return c;
}

static void test_padding_hides_keys_from_every_query(void **state)
{
	(void)state;
	struct mha_config c = small(4);
	c.pad = 1u << 2;
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "1101|1101|1101|1101");
	assert_true(mha_is_pad(&c, 2));
	assert_false(mha_is_pad(&c, 1));
	assert_true(mha_mask_extra(&c));
}

static void test_padding_first_under_causal_leaves_row_zero_nothing(void **state)
{
	(void)state;
	struct mha_config c = small(3);
	c.causal = true;
	c.pad = 1u << 0;
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "000|010|011");
}

static void test_causal_window_sees_the_last_w_keys(void **state)
{
	(void)state;
	struct mha_config c = small(5);
	c.causal = true;
	c.window = 2;
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "10000|11000|01100|00110|00011");
}

static void test_window_without_causal_is_a_band(void **state)
{
	(void)state;
	struct mha_config c = small(5);
	c.window = 2;
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "11000|11100|01110|00111|00011");
}

static void test_custom_cells_combine_with_window_and_padding(void **state)
{
	(void)state;
	struct mha_config c = small(4);
	c.window = 3;
	c.pad = 1u << 3;
	mha_mask_set(&c, 1, 0, true);
	mha_mask_set(&c, 2, 2, true);
	mha_mask_set(&c, 2, 2, false); /* shown again */
	mha_mask_set(&c, 0, 0, true);
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "0110|0110|1110|0110");
}

static void test_bits_past_n_are_ignored(void **state)
{
	(void)state;
	struct mha_config c = small(3);
	c.pad = 1u << 5;
	mha_mask_set(&c, 1, 4, true);
	assert_false(mha_mask_extra(&c));
	char s[128];
	mask_text(&c, s);
	assert_string_equal(s, "111|111|111");
}

static void test_top_k_ranks_only_the_visible_keys(void **state)
{
	(void)state;
	struct mha_config c = small(5);
	c.pad = 1u << 1;   /* key 1 holds the largest score, but is padding */
	c.top_k = 2;
	const float s[5] = { 0.5f, 9.0f, 0.7f, 0.7f, -1.0f };
	unsigned char keep[5];
	assert_int_equal(mha_mask_row(&c, 0, s, keep), 2);
	/* of the visible 0.5, 0.7, 0.7, -1 the two 0.7s */
	assert_memory_equal(keep, ((unsigned char[]){ 0, 0, 1, 1, 0 }), 5);
	c.top_k = 4; /* more than the 4 visible keys: all of them */
	assert_int_equal(mha_mask_row(&c, 0, s, keep), 4);
	assert_memory_equal(keep, ((unsigned char[]){ 1, 0, 1, 1, 1 }), 5);
}

static void test_softmax_keep_gives_zero_row_when_nothing_kept(void **state)
{
	(void)state;
	const float s[3] = { 1.0f, 2.0f, 3.0f };
	float p[3] = { 7, 7, 7 };
	assert_true(mha_softmax_keep(s, p, 3, (unsigned char[]){ 0, 0, 0 }));
	assert_true(p[0] == 0.0f && p[1] == 0.0f && p[2] == 0.0f);
	assert_false(mha_softmax_keep(s, p, 3, (unsigned char[]){ 1, 0, 1 }));
	assert_true(p[1] == 0.0f);
	/* e^1 / (e^1 + e^3) by hand */
	assert_true(fabs(p[0] - 0.119202922) < 1e-6 && fabs(p[2] - 0.880797078) < 1e-6);
}

/* One head, dk = 1, no scale: S[q][k] = x_q x_k W^Q W^K = x_q x_k, so a
 * row's scores are chosen by hand. */
static struct mha_config scalar(int n, const float *x, struct mha_weights *w, struct mha_acts *a)
{
	struct mha_config c = small(n);
	c.d = c.h = c.g = c.dk = 1;
	c.scale = false;
	assert_int_equal(mha_weights_alloc(w, &c), MHA_OK);
	assert_int_equal(mha_acts_alloc(a, &c), MHA_OK);
	mha_weights_init(w, &c, 1);
	memcpy(w->x, x, (size_t)n * sizeof *x);
	w->wq[0] = w->wk[0] = 1.0f;
	return c;
}

/* Top-k keeps the two largest of row 0's scores 400, -400, 10, 20: keys 0
 * and 3. exp(20 - 400) underflows, so key 3's weight is exactly 0, yet it
 * was kept: the screen must not mark it masked; keys 1 and 2 are. The same
 * through a mask that is no prefix (padding key 2: the keep-vector row). */
static void test_a_kept_key_whose_weight_underflowed_is_not_masked(void **state)
{
	(void)state;
	const float x[4] = { 20.0f, -20.0f, 0.5f, 1.0f };
	struct mha_weights w;
	struct mha_acts a;
	struct mha_config c = scalar(4, x, &w, &a);
	c.top_k = 2;
	for (int pad = 0; pad < 2; pad++) {
		c.pad = pad ? (uint64_t)1 << 2 : 0;
		mha_forward(&c, &w, &a);
		assert_true(a.scores[0] == 400.0f && a.scores[3] == 20.0f);
		assert_true(a.weights[0] == 1.0f && a.weights[3] == 0.0f); /* the premise: underflow */
		assert_false(pipeline_masked(&c, &a, 0, 0, 0));
		assert_false(pipeline_masked(&c, &a, 0, 0, 3));
		assert_true(pipeline_masked(&c, &a, 0, 0, 1));
		assert_true(pipeline_masked(&c, &a, 0, 0, 2));
	}
	/* without top-k, causal: row 3 sees keys 0..3, all kept, weights
	 * 1, 0, 0, 0 (scores 20, -20, 0.5, 1): nothing in it is masked */
	c.top_k = 0;
	c.pad = 0;
	c.causal = true;
	mha_forward(&c, &w, &a);
	for (int k = 0; k < 4; k++)
		assert_false(pipeline_masked(&c, &a, 0, 3, k));
	assert_true(pipeline_masked(&c, &a, 0, 0, 1)); /* the future */
	mha_acts_free(&a);
	mha_weights_free(&w);
}

/* xorshift64*: this test's own stream of shapes and masks. */
static uint64_t pick_state = 0x9E3779B97F4A7C15ull;

static struct mha_config random_masked_config(void)
{
	struct mha_config c = mha_config_default();
	c.n = pick_int(&pick_state, 1, 20);
	c.h = pick_int(&pick_state, 1, 6);
	c.g = c.h % 2 == 0 && pick_int(&pick_state, 0, 1) ? c.h / 2 : pick_int(&pick_state, 0, 1) ? 1 : c.h;
	c.dk = pick_int(&pick_state, 1, 6);
	c.d = pick_int(&pick_state, 1, 24);
	c.causal = pick_int(&pick_state, 0, 1);
	c.top_k = pick_int(&pick_state, 0, 2) ? 0 : pick_int(&pick_state, 1, c.n);
	c.window = pick_int(&pick_state, 0, 1) ? 0 : pick_int(&pick_state, 1, c.n + 1);
	for (int t = 0; t < c.n; t++)
		if (pick_int(&pick_state, 0, 4) == 0)
			c.pad |= (uint64_t)1 << t;
	if (pick_int(&pick_state, 0, 1))
		for (int k = pick_int(&pick_state, 1, c.n * 2); k > 0; k--)
			mha_mask_set(&c, pick_int(&pick_state, 0, c.n - 1), pick_int(&pick_state, 0, c.n - 1), true);
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = pick_int(&pick_state, 0, 6) == 0;
	return c;
}

/* Rows sum to 1 or are exactly 0; dead exactly when nothing is visible;
 * hidden keys exactly 0; at most top_k kept; the cells pipeline_masked
 * reports are those mask.c's rule drops, top-k on the row's scores included. */
static void check_rows(const struct mha_config *c, const struct mha_acts *a, const char *what)
{
	const int n = c->n;
	unsigned char keep[MHA_MAX_TOKENS];
	for (int i = 0; i < c->h; i++) {
		for (int r = 0; r < n; r++) {
			const float *p = a->weights + ((size_t)i * n + r) * n;
			int visible = mha_mask_row(c, r, NULL, keep);
			double sum = 0.0;
			int nonzero = 0;
			for (int j = 0; j < n; j++) {
				if (!keep[j] && p[j] != 0.0f)
					fail_msg("%s: head %d row %d key %d hidden but P = %g", what, i, r, j, (double)p[j]);
				sum += p[j];
				nonzero += p[j] != 0.0f;
			}
			if (a->dead_row[i * n + r] != (visible == 0))
				fail_msg("%s: head %d row %d: dead_row %d with %d visible keys", what, i, r,
				         a->dead_row[i * n + r], visible);
			if (fabs(sum - (visible ? 1.0 : 0.0)) > 1e-5 || (!visible && sum != 0.0))
				fail_msg("%s: head %d row %d sums to %.9g", what, i, r, sum);
			if (c->top_k > 0 && nonzero > c->top_k)
				fail_msg("%s: head %d row %d keeps %d > top-k %d", what, i, r, nonzero, c->top_k);
			mha_mask_row(c, r, a->scores + ((size_t)i * n + r) * n, keep);
			for (int j = 0; j < n; j++)
				if (pipeline_masked(c, a, i, r, j) != !keep[j])
					fail_msg("%s: head %d row %d key %d: masked %d, the rule keeps %d", what, i, r,
					         j, pipeline_masked(c, a, i, r, j), keep[j]);
		}
	}
}

static void test_random_masks_rows_sum_to_one_or_exactly_zero(void **state)
{
	(void)state;
	for (int k = 0; k < 60; k++) {
		struct mha_config c = random_masked_config();
		char msg[MHA_MSG_MAX], what[64];
		assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
		struct mha_weights w;
		struct mha_acts a, b;
		const struct mha_acts *pa;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, 100 + (uint64_t)k);
		assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
		assert_int_equal(mha_acts_alloc(&b, &c), MHA_OK);
		mha_forward(&c, &w, &a);
		mha_forward_naive(&c, &w, &b);
		snprintf(what, sizeof what, "config %d (BLAS)", k);
		check_rows(&c, &a, what);
		snprintf(what, sizeof what, "config %d (naive)", k);
		check_rows(&c, &b, what);
		assert_memory_equal(a.dead_row, b.dead_row, (size_t)c.h * c.n);
		check_close(a.weights, b.weights, (size_t)c.h * c.n * c.n, 1e-5, "weights BLAS vs naive");
		check_close(a.y, b.y, (size_t)c.n * c.d, 1e-4, "Y BLAS vs naive");
		/* the teaching-size plan is the same forward, with the engine's vector softmax row */
		struct mha_plan *p;
		assert_int_equal(mha_plan_create(&p, &c, NULL, msg, sizeof msg), MHA_OK);
		mha_plan_forward(p, &w);
		pa = mha_plan_acts(p);
		check_close(pa->weights, a.weights, (size_t)c.h * c.n * c.n, 1e-6, "weights plan vs forward");
		assert_memory_equal(pa->dead_row, a.dead_row, (size_t)c.h * c.n);
		assert_memory_equal(pa->kept, a.kept, (size_t)c.h * c.n * MHA_KEPT_WORDS(c.n) * sizeof *a.kept);
		mha_plan_destroy(p);
		mha_acts_free(&a);
		mha_acts_free(&b);
		mha_weights_free(&w);
	}
}

/* The large (tiled) path applies every mask itself (tests/engine checks its
 * numbers; here the window, against the forward); what it has no place
 * for, biases, it refuses by name. */
static void test_large_path_takes_masks_and_refuses_biases(void **state)
{
	(void)state;
	struct mha_config c = small(8);
	c.window = 3;
	struct mha_plan_options o = { .large = true, .block_rows = 3, .block_cols = 2 };
	struct mha_plan *p;
	struct mha_weights w;
	struct mha_acts a;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 9);
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
	mha_plan_forward(p, &w);
	check_close(mha_plan_acts(p)->y, a.y, (size_t)c.n * c.d, 1e-5, "Y, tiles vs forward, window 3");
	mha_plan_destroy(p);
	mha_acts_free(&a);
	mha_weights_free(&w);
	c.window = 0;
	c.bias = true;
	assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_EINVAL);
	assert_null(p);
	assert_non_null(strstr(msg, "biases"));
}

static void test_window_is_checked(void **state)
{
	(void)state;
	struct mha_config c = small(4);
	char msg[MHA_MSG_MAX];
	c.window = -1;
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "window"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_padding_hides_keys_from_every_query),
		cmocka_unit_test(test_padding_first_under_causal_leaves_row_zero_nothing),
		cmocka_unit_test(test_causal_window_sees_the_last_w_keys),
		cmocka_unit_test(test_window_without_causal_is_a_band),
		cmocka_unit_test(test_custom_cells_combine_with_window_and_padding),
		cmocka_unit_test(test_bits_past_n_are_ignored),
		cmocka_unit_test(test_top_k_ranks_only_the_visible_keys),
		cmocka_unit_test(test_softmax_keep_gives_zero_row_when_nothing_kept),
		cmocka_unit_test(test_a_kept_key_whose_weight_underflowed_is_not_masked),
		cmocka_unit_test(test_random_masks_rows_sum_to_one_or_exactly_zero),
		cmocka_unit_test(test_large_path_takes_masks_and_refuses_biases),
		cmocka_unit_test(test_window_is_checked),
	};
	return cmocka_run_group_tests_name("masks", tests, NULL, NULL);
}
