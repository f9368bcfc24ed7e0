/*
 * test_lm_shipped.c - the shipped language model (assets/lm.model) on
 * the held-out text of its corpus (WordNet 3.0's glosses, Debian's
 * wordnet-base): the corpus is the one it was trained on (fingerprints);
 * the tokenizer round trip on every held-out gloss; the held-out loss
 * doc/LANGUAGE_MODEL.md documents, and the add-one bigram and unigram
 * figures beside it, the model below the bigram; what the doc says its heads do.
 * The whole held-out text takes a few seconds; under valgrind and the
 * plain-loop BLAS (MHA_TEST_SMALL set, or gemm_backend() is the
 * reference loops) only its first windows, against their own figure.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gemm.h"
#include "lm.h"

/* doc/LANGUAGE_MODEL.md, "The shipped model" (nats per token on the
 * held-out text, windows of 64) */
#define DOC_MODEL_LOSS 4.078217
#define DOC_BIGRAM_LOSS 5.779249
#define DOC_UNIGRAM_LOSS 5.875663
/* the first SMALL_WINDOWS windows alone (what the small runs check) */
enum { SMALL_WINDOWS = 4 };
#define DOC_SMALL_LOSS 4.402916

struct shipped {
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	struct lm_corpus c;
	struct lm_stream tr, ho;
};

static bool small_run(void)
{
	return getenv("MHA_TEST_SMALL") || !strncmp(gemm_backend(), "reference", 9);
}

static int setup(void **state)
{
	struct shipped *s = calloc(1, sizeof *s);
	char path[4200], msg[4400];
	snprintf(path, sizeof path, "%s/assets/lm.model", getenv("MHA_SOURCE_ROOT"));
	*state = s;
	if (lm_model_load(&s->m, &s->v, &s->meta, path, msg, sizeof msg) != 0 ||
	    lm_corpus_read(&s->c, "/usr/share/wordnet", msg, sizeof msg) != 0 ||
	    lm_stream_encode(&s->tr, &s->v, &s->c, LM_SPLIT_TRAIN, msg, sizeof msg) != 0 ||
	    lm_stream_encode(&s->ho, &s->v, &s->c, LM_SPLIT_HELDOUT, msg, sizeof msg) != 0) {
		print_error("%s\n", msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	struct shipped *s = *state;
	if (!s)
		return 0;
	lm_stream_free(&s->tr);
	lm_stream_free(&s->ho);
	lm_corpus_free(&s->c);
	train_model_free(&s->m);
	lm_vocab_free(&s->v);
	free(s);
	return 0;
}

static void test_the_corpus_is_the_one_it_was_trained_on(void **state)
{
	struct shipped *s = *state;
	assert_int_equal(s->c.ndocs, 117659);
	assert_true(s->c.fingerprint[0] == s->meta.corpus_fingerprint[0]);
	assert_true(s->c.fingerprint[1] == s->meta.corpus_fingerprint[1]);
	assert_int_equal(s->ho.docs, 117659 / LM_HELDOUT_EVERY);
}

/* lower-case, blanks squeezed to one space, none at the ends */
static void normalise(const char *in, char *out, size_t cap)
{
	size_t at = 0;
	bool blank = false;
	for (const char *p = in; *p && at + 2 < cap; p++) {
		if (*p == ' ' || *p == '\t') {
			blank = at > 0;
			continue;
		}
		if (blank)
			out[at++] = ' ';
		blank = false;
		out[at++] = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
	}
	out[at] = '\0';
}

static void test_tokenizer_round_trip_on_the_held_out_glosses(void **state)
{
	struct shipped *s = *state;
	int ids[4096], again[4096], docs = 0, exact = 0, with_unknown = 0;
	char text[16384], want[16384];
	for (int k = 0; k < s->c.ndocs; k++) {
		if (lm_doc_split(k) != LM_SPLIT_HELDOUT)
			continue;
		int n = lm_encode(&s->v, s->c.doc[k], ids, NULL, 4096);
		assert_true(n > 0 && n < 4096);
		size_t len = lm_decode(&s->v, ids, n, text, sizeof text);
		assert_true(len < sizeof text);
		/* the ids come back exactly, unknown words as <unk> */
		int m = lm_encode(&s->v, text, again, NULL, 4096);
		if (m != n || memcmp(again, ids, (size_t)n * sizeof *ids) != 0)
			fail_msg("held-out gloss %d: '%s' -> '%s' does not encode back to its ids", k, s->c.doc[k], text);
		bool unknown = false;
		for (int i = 0; i < n; i++)
			unknown |= ids[i] == LM_UNK;
		docs++;
		if (unknown) {
			with_unknown++;
			continue;
		}
		/* and with every word known, the text itself up to case and blanks */
		normalise(s->c.doc[k], want, sizeof want);
		exact += !strcmp(text, want);
	}
	double rate = (double)exact / (double)(docs - with_unknown);
	print_message("%d held-out glosses: ids back for all; %d with an unknown word; of the rest %.1f%% "
	              "read back as written (lower case)\n", docs, with_unknown, 100 * rate);
	assert_int_equal(docs, s->ho.docs);
	assert_true(rate > 0.9);
}

static void test_the_documented_held_out_loss(void **state)
{
	struct shipped *s = *state;
	struct train_stats st;
	struct lm_baselines b;
	lm_evaluate(&s->m, &s->ho, SMALL_WINDOWS, 1, &st);
	print_message("first %d windows: %.6f nats/token\n", SMALL_WINDOWS, st.loss);
	assert_true(fabs(st.loss - DOC_SMALL_LOSS) < 1e-4 * DOC_SMALL_LOSS);
	if (small_run())
		return;
	lm_evaluate(&s->m, &s->ho, 0, 1, &st);
	assert_int_equal(lm_baselines(&s->tr, &s->ho, s->v.size, s->m.s.n, 0, &b), 0);
	print_message("held out: model %.6f (saved %.6f), bigram %.6f, unigram %.6f nats/token\n", st.loss,
	              s->meta.heldout_loss, b.bigram, b.unigram);
	assert_true(fabs(st.loss - s->meta.heldout_loss) < 1e-4 * s->meta.heldout_loss);
	assert_true(fabs(st.loss - DOC_MODEL_LOSS) < 1e-4);
	assert_true(fabs(b.bigram - DOC_BIGRAM_LOSS) < 1e-4);
	assert_true(fabs(b.unigram - DOC_UNIGRAM_LOSS) < 1e-4);
	assert_true(st.loss < b.bigram - 0.5);
	assert_int_equal(b.counted, st.counted);
}

/* What doc/LANGUAGE_MODEL.md says the heads do (on 64 windows here, a
 * quarter of --eval's, to stay fast): layer 0's head 0 reads the current
 * token, no head reaches 0.4 on the previous or the first token, and no
 * head is an induction head. */
static void test_the_documented_heads(void **state)
{
	struct shipped *s = *state;
	if (small_run())
		return;
	struct lm_head_report r;
	assert_int_equal(lm_head_analysis(&s->m, &s->ho, 64, &r), 0);
	assert_int_equal(r.kind[0][0], LM_HEAD_SELF);
	assert_true(r.score[0][0][LM_HEAD_SELF] > 0.55);
	assert_true(r.importance[0][0] > 0.5); /* the head the model can least do without */
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < 4; i++) {
			assert_true(r.score[l][i][LM_HEAD_PREVIOUS] < 0.4);
			assert_true(r.score[l][i][LM_HEAD_FIRST] < 0.1);
			assert_true(r.score[l][i][LM_HEAD_INDUCTION] < 0.1);
			assert_true(r.importance[l][i] > 0.05); /* every head matters */
		}
	assert_true(r.score[1][3][LM_HEAD_PREVIOUS] > 4 * r.uniform[LM_HEAD_PREVIOUS]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_corpus_is_the_one_it_was_trained_on),
		cmocka_unit_test(test_tokenizer_round_trip_on_the_held_out_glosses),
		cmocka_unit_test(test_the_documented_held_out_loss),
		cmocka_unit_test(test_the_documented_heads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
