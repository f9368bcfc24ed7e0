/*
 * test_lm_text.c - the language model's text side on hand-made input:
 * the tokenizer's rules, unknown words, decoding, the vocabulary fitted
 * to a tiny corpus and its file (written, read back, refused when
 * broken), WordNet's data lines, the corpus read from a directory of
 * hand-made data files and its split, and the add-one unigram and bigram
 * figures worked out by hand. No model; fast (also under valgrind).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lm.h"

/* The tokens of text, joined by '|' */
static void split_joined(const char *text, char *out, size_t len)
{
	struct lm_piece pc[64];
	int n = lm_split_text(text, pc, 64);
	size_t at = 0;
	out[0] = '\0';
	for (int i = 0; i < n && i < 64 && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%.*s", i ? "|" : "", pc[i].len, text + pc[i].start);
}

static void test_split_rules(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "The dog saw the cat", "The|dog|saw|the|cat" },
		{ "the dog's bone, (a 'toy')!", "the|dog|'s|bone|,|(|a|'|toy|'|)|!" },
		{ "don't", "don|'t" },
		{ "self-propelled 1805", "self|-|propelled|1805" },
		{ "open violently; \"kick in the doors\"", "open|violently|;|\"|kick|in|the|doors|\"" },
		{ "<unk>'s <doc> <unknown>", "<unk>|'s|<doc>|<|unknown|>" },
		{ "caf\xc3\xa9 ok", "caf\xc3\xa9|ok" },
		{ "dogs' bones", "dogs|'|bones" },
		{ "a ' s", "a|'|s" },
		{ "   \t\n", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char got[256];
		split_joined(cases[i][0], got, sizeof got);
		if (strcmp(got, cases[i][1]) != 0)
			fail_msg("'%s' split as '%s', want '%s'", cases[i][0], got, cases[i][1]);
	}
	/* the count is returned even when the room is smaller */
	struct lm_piece pc[2];
	assert_int_equal(lm_split_text("a b c d", pc, 2), 4);
	assert_int_equal(lm_split_text("a b c d", NULL, 0), 4);
}

/* A corpus of hand-made documents (k % 20 == 19 held out) */
static struct lm_corpus hand_corpus(const char *const *docs, int n)
{
	struct lm_corpus c = { 0 };
	c.ndocs = n;
	c.doc = malloc((size_t)n * sizeof *c.doc);
	for (int k = 0; k < n; k++)
		c.doc[k] = strdup(docs[k]);
	return c;
}

static void hand_corpus_free(struct lm_corpus *c)
{
	for (int k = 0; k < c->ndocs; k++)
		free(c->doc[k]);
	free(c->doc);
}

static const char *const twenty[20] = {
	"the dog saw the cat", "the cat ran", "a dog ran", "the dog's bone", "The Dog",
	"the", "the", "the", "the", "the", "the", "the", "the", "the", "the", "the", "the", "the", "the",
	"zebra only here, held out",
};

static void test_vocabulary_fit_counts_training_text_only(void **state)
{
	(void)state;
	struct lm_corpus c = hand_corpus(twenty, 20);
	assert_int_equal(lm_doc_split(19), LM_SPLIT_HELDOUT);
	assert_int_equal(lm_doc_split(18), LM_SPLIT_TRAIN);
	assert_int_equal(lm_doc_split(39), LM_SPLIT_HELDOUT);
	struct lm_vocab v;
	char msg[256];
	assert_int_equal(lm_vocab_fit(&v, &c, 6, msg, sizeof msg), 0);
	/* counts: the 19, dog 4, cat 2, ran 2, 's 1, a 1, bone 1, saw 1: ties in byte order */
	static const char *const want[6] = { "<unk>", "<doc>", "the", "dog", "cat", "ran" };
	assert_int_equal(v.size, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(v.word[i], want[i]);
	assert_int_equal(lm_vocab_id(&v, "DOG", 3), 3);
	assert_int_equal(lm_vocab_id(&v, "zebra", 5), LM_UNK);
	assert_int_equal(lm_vocab_id(&v, "<doc>", 5), LM_DOC);
	/* a larger size than there are words: all of them, no more */
	struct lm_vocab all;
	assert_int_equal(lm_vocab_fit(&all, &c, 100, msg, sizeof msg), 0);
	assert_int_equal(all.size, 2 + 8);
	assert_string_equal(all.word[6], "'s"); /* ' sorts before letters */
	assert_int_equal(lm_vocab_id(&all, "zebra", 5), LM_UNK); /* held out: never counted */
	lm_vocab_free(&all);
	assert_int_equal(lm_vocab_fit(&all, &c, 2, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "out of range"));
	assert_null(all.word);

	/* the streams: <doc> before each document, unknown words counted */
	struct lm_stream tr, ho;
	assert_int_equal(lm_stream_encode(&tr, &v, &c, LM_SPLIT_TRAIN, msg, sizeof msg), 0);
	assert_int_equal(lm_stream_encode(&ho, &v, &c, LM_SPLIT_HELDOUT, msg, sizeof msg), 0);
	assert_int_equal(tr.docs, 19);
	assert_int_equal(ho.docs, 1);
	int want_ho[] = { LM_DOC, LM_UNK, LM_UNK, LM_UNK, LM_UNK, LM_UNK, LM_UNK };
	assert_int_equal(ho.len, 7);
	assert_memory_equal(ho.ids, want_ho, sizeof want_ho);
	assert_int_equal(ho.unknown, 6);
	assert_int_equal(tr.ids[0], LM_DOC);
	assert_int_equal(tr.ids[1], 2); /* the */
	assert_int_equal(tr.ids[2], 3); /* dog */
	lm_stream_free(&tr);
	lm_stream_free(&ho);
	lm_vocab_free(&v);
	hand_corpus_free(&c);
}

static void test_unknown_words_keep_their_spelling(void **state)
{
	(void)state;
	struct lm_corpus c = hand_corpus(twenty, 20);
	struct lm_vocab v;
	char msg[256];
	assert_int_equal(lm_vocab_fit(&v, &c, 6, msg, sizeof msg), 0);
	const char *text = "The zyzzyva's dog";
	int ids[8];
	struct lm_piece pc[8];
	assert_int_equal(lm_encode(&v, text, ids, pc, 8), 4);
	int want[4] = { 2, LM_UNK, LM_UNK, 3 }; /* 's is not in this vocabulary either */
	assert_memory_equal(ids, want, sizeof want);
	assert_int_equal(pc[1].len, 7);
	assert_memory_equal(text + pc[1].start, "zyzzyva", 7);
	/* decoding shows the unknown word as <unk>, and that reads back as <unk> */
	char out[64];
	lm_decode(&v, ids, 4, out, sizeof out);
	assert_string_equal(out, "the <unk> <unk> dog");
	int again[8];
	assert_int_equal(lm_encode(&v, out, again, NULL, 8), 4);
	assert_memory_equal(again, ids, sizeof want);
	/* max cuts the ids short */
	assert_int_equal(lm_encode(&v, text, ids, NULL, 2), 2);
	lm_vocab_free(&v);
	hand_corpus_free(&c);
}

/* A vocabulary holding exactly these tokens after the two specials */
static struct lm_vocab vocab_of(const char *const *words, int n)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[512], msg[256];
	snprintf(path, sizeof path, "%s/test_lm_text_%d.vocab", dir, (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "mha-tui vocab 1\nsize %d\n<unk>\n<doc>\n", n + 2);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\n", words[i]);
	fclose(f);
	struct lm_vocab v;
	if (lm_vocab_load(&v, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	unlink(path);
	return v;
}

static void test_decode_spacing_and_round_trip(void **state)
{
	(void)state;
	static const char *const words[] = { "the", "dog", "'s", "bone", ",", "(", "a", "toy", ")", "-", "\"",
	                                     "big", ";", ".", "'" };
	struct lm_vocab v = vocab_of(words, (int)(sizeof words / sizeof words[0]));
	static const char *const cases[][2] = {
		{ "the dog's bone, (a toy) - \"big\"", "the dog's bone, (a toy)-\"big\"" },
		{ "THE DOG ; a bone .", "the dog; a bone." },
		{ "\"the dog\" \"a toy\"", "\"the dog\" \"a toy\"" },
		{ "the ' dog", "the ' dog" },
		{ "<doc> the dog <doc> a bone", "<doc> the dog\n<doc> a bone" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int ids[32], again[32];
		char out[128];
		int n = lm_encode(&v, cases[i][0], ids, NULL, 32);
		size_t need = lm_decode(&v, ids, n, out, sizeof out);
		assert_int_equal(need, strlen(out));
		if (strcmp(out, cases[i][1]) != 0)
			fail_msg("'%s' decoded as '%s', want '%s'", cases[i][0], out, cases[i][1]);
		assert_int_equal(lm_encode(&v, out, again, NULL, 32), n);
		assert_memory_equal(again, ids, (size_t)n * sizeof *ids);
	}
	/* too small a buffer: cut, NUL-terminated, the whole length returned */
	int ids[8];
	char small[6];
	int n = lm_encode(&v, "the dog's bone", ids, NULL, 8);
	assert_int_equal(lm_decode(&v, ids, n, small, sizeof small), strlen("the dog's bone"));
	assert_string_equal(small, "the d");
	lm_vocab_free(&v);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_vocabulary_file_round_trip_and_refusals(void **state)
{
	(void)state;
	static const char *const words[] = { "the", "'s", "dog" };
	struct lm_vocab v = vocab_of(words, 3), back;
	char path[512], msg[512];
	snprintf(path, sizeof path, "%s/test_lm_text_rt_%d.vocab", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (int)getpid());
	assert_int_equal(lm_vocab_save(&v, path, msg, sizeof msg), 0);
	assert_int_equal(lm_vocab_load(&back, path, msg, sizeof msg), 0);
	assert_int_equal(back.size, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(back.word[i], v.word[i]);
	assert_true(back.fingerprint == v.fingerprint && back.fingerprint != 0);
	lm_vocab_free(&back);
	static const char *const broken[][2] = {
		{ "mha-tui vocab 2\nsize 3\n<unk>\n<doc>\nthe\n", ":1: vocabulary version not supported" },
		{ "hello\n", ":1: not an mha-tui vocabulary" },
		{ "mha-tui vocab 1\nsize 2\n<unk>\n<doc>\n", ":2: expected 'size V'" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\n", ":5: the file ends before its last token" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\nthe dog\n", ":5: not a token" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\nabcdefghijklmnop\n", ":5: not a token" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\nThe\n", ":5: a token with an upper-case letter" },
		{ "mha-tui vocab 1\nsize 3\n<doc>\n<unk>\nthe\n", ":3: tokens 0 and 1 are <unk> and <doc>" },
		{ "mha-tui vocab 1\nsize 4\n<unk>\n<doc>\nthe\nthe\n", ":6: a token listed twice" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\nthe\nextra\n", ":6: text after the last token" },
		{ "mha-tui vocab 1\nsize 3\n<unk>\n<doc>\n'\n", "" }, /* a lone apostrophe is a token */
	};
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		write_text(path, broken[i][0]);
		int rc = lm_vocab_load(&back, path, msg, sizeof msg);
		if (!broken[i][1][0]) {
			assert_int_equal(rc, 0);
			lm_vocab_free(&back);
			continue;
		}
		assert_int_equal(rc, -1);
		if (!strstr(msg, broken[i][1]) || strncmp(msg, path, strlen(path)) != 0)
			fail_msg("case %zu: '%s' does not say '%s'", i, msg, broken[i][1]);
		assert_null(back.word);
	}
	unlink(path);
	assert_int_equal(lm_vocab_load(&back, path, msg, sizeof msg), -1);
	lm_vocab_free(&v);
}

static void test_wordnet_lines(void **state)
{
	(void)state;
	size_t n;
	const char *g = lm_gloss_of("02084071 05 n 05 dog 0 domestic_dog 0 | a member of the genus Canis; "
	                            "\"the dog barked all night\"  \n", &n);
	assert_non_null(g);
	assert_int_equal(n, strlen("a member of the genus Canis; \"the dog barked all night\""));
	assert_memory_equal(g, "a member", 8);
	assert_null(lm_gloss_of("  1 This software and database is being provided to you | x\n", &n));
	assert_null(lm_gloss_of("00001740 03 n 01 entity 0 003 ~ 00001930 n 0000\n", &n));
	assert_null(lm_gloss_of("00001740 03 n 01 entity 0 |   \n", &n));
}

static void test_corpus_read_order_split_and_errors(void **state)
{
	(void)state;
	char dir[512], path[600], msg[1024];
	snprintf(dir, sizeof dir, "%s/test_lm_corpus_%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	struct lm_corpus c;
	assert_int_equal(lm_corpus_read(&c, dir, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "data.noun"));
	assert_non_null(strstr(msg, "wordnet-base"));
	/* 24 glosses: 12 nouns, 4 verbs, 4 adjectives, 4 adverbs; a licence line and a line without one */
	static const char *const files[4] = { "data.noun", "data.verb", "data.adj", "data.adv" };
	const int per[4] = { 12, 4, 4, 4 };
	int k = 0;
	for (int f = 0; f < 4; f++) {
		char text[4096];
		size_t at = (size_t)snprintf(text, sizeof text, "  1 licence text | not a gloss\n00000000 x\n");
		for (int i = 0; i < per[f]; i++, k++)
			at += (size_t)snprintf(text + at, sizeof text - at, "%08d 03 n 01 w%d 0 000 | gloss %d of %s  \n",
			                       k, k, k, files[f]);
		snprintf(path, sizeof path, "%s/%s", dir, files[f]);
		write_text(path, text);
	}
	assert_int_equal(lm_corpus_read(&c, dir, msg, sizeof msg), 0);
	assert_int_equal(c.ndocs, 24);
	assert_string_equal(c.doc[0], "gloss 0 of data.noun");
	assert_string_equal(c.doc[12], "gloss 12 of data.verb");
	assert_string_equal(c.doc[23], "gloss 23 of data.adv");
	assert_int_equal(lm_doc_split(19), LM_SPLIT_HELDOUT);
	uint64_t fp_train = c.fingerprint[0], fp_held = c.fingerprint[1];
	assert_true(fp_train != fp_held);
	/* the held-out fingerprint is of document 19 alone */
	uint64_t h = lm_fnv(lm_fnv(LM_FNV_START, c.doc[19], strlen(c.doc[19])), "\n", 1);
	assert_true(h == fp_held);
	lm_corpus_free(&c);
	/* too few glosses for a split: refused */
	write_text(path, "");
	snprintf(path, sizeof path, "%s/data.noun", dir);
	write_text(path, "00000000 03 n 01 w 0 000 | one\n");
	assert_int_equal(lm_corpus_read(&c, dir, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "glosses found"));
	for (int f = 0; f < 4; f++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[f]);
		unlink(path);
	}
	rmdir(dir);
}

/* Train 1 2 3 2 3 4, held out 1 2 3 3 4 read in windows of 2, V = 5: by hand */
static void test_unigram_and_bigram_by_hand(void **state)
{
	(void)state;
	int tr_ids[] = { 1, 2, 3, 2, 3, 4 }, ho_ids[] = { 1, 2, 3, 3, 4 };
	struct lm_stream tr = { tr_ids, 6, 0, 1 }, ho = { ho_ids, 5, 0, 1 };
	struct lm_baselines b;
	assert_int_equal(lm_baselines(&tr, &ho, 5, 2, 0, &b), 0);
	/* predictions: 1->2, 2->3 (window 0), 3->3, 3->4 (window 1) */
	assert_int_equal(b.counted, 4);
	/* unigram: c = (1: 1, 2: 2, 3: 2, 4: 1), N 6: P(b) = (c(b) + 1) / 11 */
	double uni = -(log(3.0 / 11) + log(3.0 / 11) + log(3.0 / 11) + log(2.0 / 11)) / 4;
	/* bigram: pairs 12 23 32 23 34; c(1.) 1, c(2.) 2, c(3.) 2; P(b|a) = (c(ab) + 1) / (c(a.) + 5) */
	double bi = -(log(2.0 / 6) + log(3.0 / 7) + log(1.0 / 7) + log(2.0 / 7)) / 4;
	assert_true(fabs(b.unigram - uni) < 1e-12);
	assert_true(fabs(b.bigram - bi) < 1e-12);
	/* the first window only */
	assert_int_equal(lm_baselines(&tr, &ho, 5, 2, 1, &b), 0);
	assert_int_equal(b.counted, 2);
	assert_true(fabs(b.bigram + (log(2.0 / 6) + log(3.0 / 7)) / 2) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_rules),
		cmocka_unit_test(test_vocabulary_fit_counts_training_text_only),
		cmocka_unit_test(test_unknown_words_keep_their_spelling),
		cmocka_unit_test(test_decode_spacing_and_round_trip),
		cmocka_unit_test(test_vocabulary_file_round_trip_and_refusals),
		cmocka_unit_test(test_wordnet_lines),
		cmocka_unit_test(test_corpus_read_order_split_and_errors),
		cmocka_unit_test(test_unigram_and_bigram_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
