/*
 * test_head_title.c - train_head_measure and train_head_holds on maps
 * written by hand, each built to show one kind: the kind named, its score
 * worked out by hand, broad and mixed when none clears, punctuation only
 * where marks are few, and a wired kind that holds at most queries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "train.h"

enum { N = 6 };
static char labels[N][MHA_LABEL_MAX];
static float p[N * N];

static void sentence(const char *const *w)
{
	for (int i = 0; i < N; i++)
		snprintf(labels[i], MHA_LABEL_MAX, "%s", w[i]);
}

static struct mha_config config(bool causal)
{
	struct mha_config c = mha_config_default();
	c.n = N;
	c.h = c.g = 1;
	c.causal = causal;
	return c;
}

/* Row q of P: all its weight on key k. */
static void one_hot(int q, int k)
{
	memset(p + q * N, 0, sizeof(float) * N);
	p[q * N + k] = 1;
}

static int measure(bool causal, struct train_head_measure *m)
{
	struct mha_config c = config(causal);
	return train_head_measure(&c, (const char (*)[MHA_LABEL_MAX])labels, p, 0, m);
}

static void test_positional_kinds(void **state)
{
	(void)state;
	static const char *const w[N] = { "the", "cat", "sat", "on", "a", "mat" };
	sentence(w);
	struct train_head_measure m;
	for (int q = 0; q < N; q++)
		one_hot(q, q ? q - 1 : 0);
	assert_int_equal(measure(true, &m), TRAIN_HEAD_PREVIOUS);
	assert_float_equal(m.score[TRAIN_HEAD_PREVIOUS], 1.0, 1e-12);
	assert_float_equal(m.score[TRAIN_HEAD_FIRST], 1.0 / 5, 1e-12); /* q = 1's previous is the first */
	for (int q = 0; q < N; q++)
		one_hot(q, 0);
	assert_int_equal(measure(true, &m), TRAIN_HEAD_FIRST);
	for (int q = 0; q < N; q++)
		one_hot(q, q);
	assert_int_equal(measure(true, &m), TRAIN_HEAD_SELF);
	for (int q = 0; q < N; q++)
		one_hot(q, q + 1 < N ? q + 1 : q);
	assert_int_equal(measure(false, &m), TRAIN_HEAD_NEXT);
	assert_float_equal(m.score[TRAIN_HEAD_NEXT], 1.0, 1e-12);
	assert_float_equal(train_head_holds(&(struct mha_config){ .n = N }, NULL, p, 0, TRAIN_HEAD_NEXT), 1.0, 0);
}

static void test_word_kinds(void **state)
{
	(void)state;
	static const char *const w[N] = { "the", "dog", "ran", "the", "dog", "sat" };
	sentence(w);
	struct train_head_measure m;
	/* every word on its other copy (same word): the, dog, the, dog; ran, sat on themselves */
	int same[N] = { 3, 4, 2, 0, 1, 5 };
	for (int q = 0; q < N; q++)
		one_hot(q, same[q]);
	assert_int_equal(measure(false, &m), TRAIN_HEAD_SAME);
	assert_float_equal(m.score[TRAIN_HEAD_SAME], 1.0, 1e-12); /* the 4 queries with a copy */
	/* induction: the second "the" looks at "dog" (after the first), the second "dog" at "ran" */
	int ind[N] = { 0, 0, 1, 1, 2, 4 };
	for (int q = 0; q < N; q++)
		one_hot(q, ind[q]);
	assert_int_equal(measure(true, &m), TRAIN_HEAD_INDUCTION);
	assert_float_equal(m.score[TRAIN_HEAD_INDUCTION], 1.0, 1e-12);
	/* the same-word check of a wired head counts the query's own copy:
	 * "the" and "dog" on themselves hold, "dog" 4 on "ran" does not */
	int wired[N] = { 0, 1, 2, 3, 2, 5 };
	for (int q = 0; q < N; q++)
		one_hot(q, wired[q]);
	struct mha_config c = config(false);
	assert_float_equal(train_head_holds(&c, (const char (*)[MHA_LABEL_MAX])labels, p, 0, TRAIN_HEAD_SAME), 3.0 / 4,
	                   1e-12);
}

static void test_punctuation_broad_and_mixed(void **state)
{
	(void)state;
	static const char *const w[N] = { "yes", ",", "he", "said", ".", "<unk>" };
	sentence(w);
	struct train_head_measure m;
	for (int q = 0; q < N; q++) /* the words on the comma, the marks on themselves */
		one_hot(q, q == 4 ? 4 : 1);
	assert_int_equal(measure(false, &m), TRAIN_HEAD_PUNCT);
	assert_float_equal(m.score[TRAIN_HEAD_PUNCT], 1.0, 1e-12); /* 4 word queries ("<unk>" is one) */
	/* every row even over the keys the causal mask shows */
	for (int q = 0; q < N; q++)
		for (int k = 0; k < N; k++)
			p[q * N + k] = k <= q ? 1.0f / (float)(q + 1) : 0;
	assert_int_equal(measure(true, &m), TRAIN_HEAD_BROAD);
	assert_float_equal(m.spread, 1.0, 1e-6);
	/* 0.4 on the first token, 0.3 on the word and on the one before: first */
	for (int q = 0; q < N; q++)
		for (int k = 0; k < N; k++)
			p[q * N + k] = q == 0 ? k == 0 : (k == q || k == q - 1) ? 0.3f : k == 0 ? 0.4f : 0;
	p[1 * N + 0] = 0.7f; /* q = 1: its previous is the first */
	int kind = measure(true, &m);
	assert_int_equal(kind, TRAIN_HEAD_FIRST);
	/* each row on a key of its own kind (current, first, none, previous,
	 * none): every kind 0.2 at most, rows one-hot (spread 0): mixed */
	int keys[N] = { 0, 1, 0, 1, 3, 2 };
	for (int q = 0; q < N; q++)
		one_hot(q, keys[q]);
	assert_int_equal(measure(true, &m), TRAIN_HEAD_MIXED);
	assert_string_equal(train_head_kind_name(TRAIN_HEAD_MIXED, false), "mixed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positional_kinds),
		cmocka_unit_test(test_word_kinds),
		cmocka_unit_test(test_punctuation_broad_and_mixed),
	};
	return cmocka_run_group_tests_name("head titles", tests, NULL, NULL);
}
