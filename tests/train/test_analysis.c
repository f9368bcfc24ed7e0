/*
 * test_analysis.c - head analysis for any weights (src/train/analysis.c),
 * on cases worked by hand: a head whose P is exactly the previous-token
 * (or induction) pattern scores 1 on it; uniform causal attention scores
 * the means of 1/(q+1) written out below; a head switched off, or one whose
 * W^O rows are zero, has importance 0; a lone head has importance 1; the
 * greedy prune curve starts at 0 and ends at 1 (no head: Y = 0); and,
 * with a bias, every importance and point equals two forward passes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "train.h"

enum { N = 6 };
static const int period3[N] = { 0, 1, 2, 0, 1, 2 }; /* a b c a b c */

static void test_an_exact_previous_token_head_scores_one(void **state)
{
	(void)state;
	float p[N * N] = { 0 };
	p[0] = 1;
	for (int q = 1; q < N; q++)
		p[q * N + q - 1] = 1;
	double sum[TRAIN_PAT_COUNT] = { 0 }, cnt[TRAIN_PAT_COUNT] = { 0 };
	train_pattern_accumulate(p, N, period3, sum, cnt);
	assert_true(sum[TRAIN_PAT_PREVIOUS] / cnt[TRAIN_PAT_PREVIOUS] == 1.0);
	/* only query 1 has its previous token at 0: 1 of 5 queries */
	assert_true(fabs(sum[TRAIN_PAT_FIRST] / cnt[TRAIN_PAT_FIRST] - 0.2) < 1e-12);
	assert_true(sum[TRAIN_PAT_SELF] == 0.0);
	/* queries 3, 4, 5 repeat tokens 0, 1, 2; a previous-token head looks at
	 * neither the earlier copy nor the token after it (period 3) */
	assert_true(cnt[TRAIN_PAT_DUPLICATE] == 3.0 && cnt[TRAIN_PAT_INDUCTION] == 3.0);
	assert_true(sum[TRAIN_PAT_DUPLICATE] == 0.0 && sum[TRAIN_PAT_INDUCTION] == 0.0);
	assert_int_equal(train_pattern_best(sum, NULL, 0), TRAIN_PAT_PREVIOUS);
}

static void test_an_exact_induction_head_scores_one(void **state)
{
	(void)state;
	float p[N * N] = { 0 };
	for (int q = 0; q < N; q++)
		p[q * N + (q >= 3 ? q - 2 : 0)] = 1; /* q >= 3: the token after the earlier copy */
	double sum[TRAIN_PAT_COUNT] = { 0 }, cnt[TRAIN_PAT_COUNT] = { 0 };
	train_pattern_accumulate(p, N, period3, sum, cnt);
	assert_true(sum[TRAIN_PAT_INDUCTION] / cnt[TRAIN_PAT_INDUCTION] == 1.0);
	assert_true(sum[TRAIN_PAT_DUPLICATE] == 0.0);
	double mean[TRAIN_PAT_COUNT];
	for (int k = 0; k < TRAIN_PAT_COUNT; k++)
		mean[k] = sum[k] / cnt[k];
	assert_int_equal(train_pattern_best(mean, NULL, TRAIN_PATTERN_CLEAR), TRAIN_PAT_INDUCTION);
	/* first: queries 1, 2 of 5 */
	assert_true(fabs(mean[TRAIN_PAT_FIRST] - 0.4) < 1e-12);
}

/* n = 6 tokens a b c a b c, d = 4, two heads of dk = 2, causal, seeded */
static void bench(struct mha_config *c, struct mha_weights *w)
{
	*c = mha_config_default();
	c->n = N;
	c->d = 4;
	c->h = c->g = 2;
	c->dk = 2;
	c->causal = true;
	c->top_k = 0;
	c->bias = false;
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	mha_weights_init(w, c, 7);
	for (int i = 0; i < N; i++)
		snprintf(w->labels[i], MHA_LABEL_MAX, "%c", 'a' + period3[i]);
}

static void test_uniform_causal_attention_scores_by_hand(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	bench(&c, &w);
	memset(w.wq, 0, sizeof(float) * (size_t)c.d * c.h * c.dk); /* scores 0: P[q][j] = 1/(q+1) */
	struct train_bench_analysis an;
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	/* previous, first, self: (1/2 + 1/3 + 1/4 + 1/5 + 1/6) / 5 = 87/300;
	 * duplicate and induction: queries 3, 4, 5, one key each: (1/4 + 1/5 + 1/6) / 3 = 37/180 */
	for (int i = 0; i < 2; i++) {
		for (int p = TRAIN_PAT_PREVIOUS; p <= TRAIN_PAT_SELF; p++)
			assert_true(fabs(an.score[i][p] - 87.0 / 300) < 1e-6);
		assert_true(fabs(an.score[i][TRAIN_PAT_DUPLICATE] - 37.0 / 180) < 1e-6);
		assert_true(fabs(an.score[i][TRAIN_PAT_INDUCTION] - 37.0 / 180) < 1e-6);
		assert_true(train_pattern_best(an.score[i], an.scored, TRAIN_PATTERN_CLEAR) < 0);
	}
	assert_true(an.scored[TRAIN_PAT_DUPLICATE] && an.scored[TRAIN_PAT_INDUCTION]);
	/* no repeated label: nothing for duplicate and induction to count */
	for (int i = 0; i < N; i++)
		snprintf(w.labels[i], MHA_LABEL_MAX, "w%d", i);
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	assert_false(an.scored[TRAIN_PAT_DUPLICATE] || an.scored[TRAIN_PAT_INDUCTION]);
	assert_true(an.scored[TRAIN_PAT_PREVIOUS]);
	mha_weights_free(&w);
}

static void test_a_head_off_has_importance_zero_and_a_lone_head_one(void **state)
{
	(void)state;
	struct mha_config c, before;
	struct mha_weights w;
	bench(&c, &w);
	c.head_off[1] = true;
	before = c;
	struct train_bench_analysis an;
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	assert_memory_equal(&c, &before, sizeof c); /* head_off put back */
	assert_true(an.importance[1] == 0.0);
	assert_true(fabs(an.importance[0] - 1.0) < 1e-12); /* without it, Y = 0 */
	assert_int_equal(an.rank[0], 1);
	assert_int_equal(an.rank[1], 2);
	/* one head on: two points, kept 1 (change 0) then 0 (change 1) */
	assert_int_equal(an.points, 2);
	assert_int_equal(an.prune[0].kept, 1);
	assert_true(an.prune[0].loss == 0.0);
	assert_int_equal(an.prune[1].kept, 0);
	assert_int_equal(an.prune[1].head, 0);
	assert_true(fabs(an.prune[1].loss - 1.0) < 1e-12);
	mha_weights_free(&w);
}

static void test_a_head_that_writes_nothing_is_pruned_first(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	bench(&c, &w);
	/* W^O rows dk..2dk-1 (head 1's) zero: head 1 adds nothing to Y */
	memset(w.wo + (size_t)c.dk * c.d, 0, sizeof(float) * (size_t)c.dk * c.d);
	struct train_bench_analysis an;
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	assert_true(an.importance[1] == 0.0);
	assert_true(fabs(an.importance[0] - 1.0) < 1e-12);
	assert_int_equal(an.order[0], 0);
	assert_int_equal(an.order[1], 1);
	assert_int_equal(an.points, 3);
	assert_int_equal(an.prune[0].kept, 2);
	assert_int_equal(an.prune[1].head, 1); /* removes Y's change least: 0 */
	assert_true(an.prune[1].loss == 0.0);
	assert_int_equal(an.prune[2].head, 0);
	assert_true(fabs(an.prune[2].loss - 1.0) < 1e-12);
	mha_weights_free(&w);
}

static void test_the_prune_curve_removes_the_least_important_head_first(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	bench(&c, &w);
	struct train_bench_analysis an;
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	assert_true(an.importance[0] > 0 && an.importance[1] > 0);
	/* from two heads, removing one changes Y by exactly that head's importance */
	int least = an.order[1];
	assert_int_equal(an.prune[1].head, least);
	assert_true(fabs(an.prune[1].loss - an.importance[least]) < 1e-12);
	assert_true(fabs(an.prune[2].loss - 1.0) < 1e-12);
	mha_weights_free(&w);
}

/* ||Y - Y with `off` heads switched off|| / ||Y|| by two forward passes */
static double change_by_forward(const struct mha_config *c, const struct mha_weights *w, const bool *off)
{
	struct mha_config co = *c;
	struct mha_acts a, b;
	assert_int_equal(mha_acts_alloc(&a, c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&b, c), MHA_OK);
	mha_forward(c, w, &a);
	for (int i = 0; i < c->h; i++)
		co.head_off[i] |= off[i];
	mha_forward(&co, w, &b);
	double diff = 0, norm = 0;
	for (int k = 0; k < c->n * c->d; k++) {
		diff += ((double)a.y[k] - b.y[k]) * ((double)a.y[k] - b.y[k]);
		norm += (double)a.y[k] * a.y[k];
	}
	mha_acts_free(&a);
	mha_acts_free(&b);
	return sqrt(diff / norm);
}

/* The view's figures come from each head's share of Y (analysis.c); here
 * they are the forward pass's own, with and without the heads, bias on. */
static void test_importance_and_curve_equal_forward_passes_with_heads_off(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	bench(&c, &w);
	c.h = c.g = 4;
	c.dk = 1;
	c.bias = true;
	mha_weights_free(&w);
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 11);
	mha_biases_init(&w, &c, 11);
	struct train_bench_analysis an;
	assert_int_equal(train_bench_analysis(&c, &w, &an), MHA_OK);
	for (int i = 0; i < c.h; i++) {
		bool off[MHA_MAX_HEADS] = { false };
		off[i] = true;
		assert_true(fabs(an.importance[i] - change_by_forward(&c, &w, off)) < 1e-5);
	}
	bool off[MHA_MAX_HEADS] = { false };
	for (int k = 1; k < an.points; k++) {
		off[an.prune[k].head] = true;
		assert_true(fabs(an.prune[k].loss - change_by_forward(&c, &w, off)) < 1e-5);
	}
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_exact_previous_token_head_scores_one),
		cmocka_unit_test(test_an_exact_induction_head_scores_one),
		cmocka_unit_test(test_uniform_causal_attention_scores_by_hand),
		cmocka_unit_test(test_a_head_off_has_importance_zero_and_a_lone_head_one),
		cmocka_unit_test(test_a_head_that_writes_nothing_is_pruned_first),
		cmocka_unit_test(test_the_prune_curve_removes_the_least_important_head_first),
		cmocka_unit_test(test_importance_and_curve_equal_forward_passes_with_heads_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
