/*
 * test_text.c - your own text (text.c): one token a word, words that are
 * not labels refused with a message, and the embedding table: a repeated
 * word shares its row of X, a word keeps its row in another sentence of
 * the same seed, another seed gives other rows, values in [-1, 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"

static void test_one_token_a_word(void **state)
{
	(void)state;
	char labels[8][MHA_LABEL_MAX], msg[MHA_MSG_MAX];
	assert_int_equal(mha_text_split("  the\tcat  sat ", labels, 8, msg, sizeof msg), 3);
	assert_string_equal(labels[0], "the");
	assert_string_equal(labels[1], "cat");
	assert_string_equal(labels[2], "sat");
	assert_int_equal(mha_text_split("día 猫", labels, 8, msg, sizeof msg), 2);
	assert_string_equal(labels[1], "猫");
}

static void test_words_that_are_not_labels_are_refused(void **state)
{
	(void)state;
	char labels[2][MHA_LABEL_MAX], msg[MHA_MSG_MAX];
	assert_int_equal(mha_text_split("", labels, 2, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "no words"));
	assert_int_equal(mha_text_split("a b c", labels, 2, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "more than 2 words"));
	assert_int_equal(mha_text_split("ok sixteen_bytes_xy", labels, 2, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "word 2"));
	assert_int_equal(mha_text_split("a\x01z", labels, 2, msg, sizeof msg), -1);
	assert_int_equal(mha_text_split("\xff", labels, 2, msg, sizeof msg), -1);
}

static void embed(const char *text, uint64_t seed, struct mha_config *c, struct mha_weights *w)
{
	char msg[MHA_MSG_MAX];
	char labels[MHA_MAX_TOKENS][MHA_LABEL_MAX];
	*c = mha_config_default();
	c->n = mha_text_split(text, labels, MHA_MAX_TOKENS, msg, sizeof msg);
	assert_true(c->n > 0);
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	memcpy(w->labels, labels, (size_t)c->n * MHA_LABEL_MAX);
	mha_embed_words(w, c, seed);
}

static void test_a_word_has_one_vector(void **state)
{
	(void)state;
	struct mha_config c, c2;
	struct mha_weights w, w2;
	embed("the cat sat on the mat", 1, &c, &w);
	const size_t row = (size_t)c.d * sizeof(float);
	assert_memory_equal(w.x, w.x + 4 * c.d, row);          /* the ... the */
	assert_memory_not_equal(w.x, w.x + 1 * c.d, row);      /* the, cat */
	for (int i = 0; i < c.n * c.d; i++)
		assert_true(w.x[i] >= -1.0f && w.x[i] < 1.0f);
	embed("a cat", 1, &c2, &w2);
	assert_memory_equal(w.x + 1 * c.d, w2.x + 1 * c2.d, row); /* cat in another sentence */
	mha_embed_words(&w2, &c2, 2);
	assert_memory_not_equal(w.x + 1 * c.d, w2.x + 1 * c2.d, row); /* another seed */
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_weights_check(&w, &c, msg, sizeof msg), MHA_OK);
	mha_weights_free(&w);
	mha_weights_free(&w2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_token_a_word),
		cmocka_unit_test(test_words_that_are_not_labels_are_refused),
		cmocka_unit_test(test_a_word_has_one_vector),
	};
	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
