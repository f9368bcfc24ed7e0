/*
 * text.c - the learner's own sentence as tokens: one token a word, and an
 * embedding table keyed by the word itself, so "the" gets the same row of
 * X wherever it appears. No tokenizer beyond spaces (a teaching tool, not
 * a model's vocabulary), and no allocation.
 */
#include "mha.h"

#include <stdio.h>
#include <string.h>

int mha_text_split(const char *text, char (*labels)[MHA_LABEL_MAX], int max, char *msg, size_t len)
{
	int n = 0;
	for (const char *p = text; *p;) {
		size_t skip = strspn(p, " \t"), k;
		p += skip;
		if (!*p)
			break;
		k = strcspn(p, " \t");
		if (n == max) {
			snprintf(msg, len, "more than %d words: one token a word, at most %d tokens", max, max);
			return -1;
		}
		char word[MHA_LABEL_MAX];
		if (k >= MHA_LABEL_MAX || (memcpy(word, p, k), word[k] = '\0', !mha_label_valid(word))) {
			snprintf(msg, len, "word %d ('%.*s') is not a token label: at most %d bytes of "
			         "UTF-8 text without control characters", n + 1, (int)(k < 20 ? k : 20), p,
			         MHA_LABEL_MAX - 1);
			return -1;
		}
		memcpy(labels[n++], word, k + 1);
		p += k;
	}
	if (n == 0)
		snprintf(msg, len, "no words: write the sentence as words separated by spaces");
	return n ? n : -1;
}

/* FNV-1a over the word's bytes: the word's key in the table. */
static uint64_t word_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* MurmurHash3's finaliser: a counter-based stream, value k of key x. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* rows (count, d) from their labels: a word's row depends on (seed, word) only */
static void embed_rows(float *x, const char (*labels)[MHA_LABEL_MAX], int count, int d, uint64_t seed)
{
	for (int t = 0; t < count; t++) {
		uint64_t key = mix(seed ^ mix(word_key(labels[t])));
		for (int k = 0; k < d; k++) {
			// top 24 bits -> an exact float u in [0, 1); x = 2u - 1 in [-1, 1)
			float u = (float)(mix(key + (uint64_t)k) >> 40) / 16777216.0f;
			x[(size_t)t * d + k] = 2.0f * u - 1.0f;
		}
	}
}

void mha_embed_words(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	embed_rows(w->x, (const char (*)[MHA_LABEL_MAX])w->labels, c->n, c->d, seed);
}

void mha_embed_kv_words(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	embed_rows(w->x_kv, (const char (*)[MHA_LABEL_MAX])w->kv_labels, c->m, c->d, seed);
}
