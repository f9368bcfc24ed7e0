/*
 * lm_eval.c - how well the language model predicts held-out text: its
 * cross-entropy in nats per token over the stream cut into windows of the
 * model's context, and, on exactly the same predictions, the
 * cross-entropy of add-one unigram and bigram models counted on the
 * training stream (the floor any model with attention should clear).
 * This file reads models and streams; it changes neither.
 */
#include "lm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EVAL_BATCH = 16 };

/* Windows of n inputs and their n next tokens in a stream of len tokens */
static long windows_of(long len, int n, int max_windows)
{
	long w = len > 1 ? (len - 1) / n : 0;
	return max_windows > 0 && w > max_windows ? max_windows : w;
}

void lm_evaluate(const struct train_model *m, const struct lm_stream *s, int max_windows,
                 int threads, struct train_stats *st)
{
	memset(st, 0, sizeof *st);
	const int n = m->s.n;
	const long W = windows_of(s->len, n, max_windows);
	struct lm_batch bt;
	if (W == 0 || lm_batch_alloc(&bt, m, EVAL_BATCH, threads) != MHA_OK)
		return;
	int *tok = malloc((size_t)EVAL_BATCH * n * sizeof *tok), *tgt = malloc((size_t)EVAL_BATCH * n * sizeof *tgt);
	double loss = 0;
	long correct = 0;
	for (long w0 = 0; tok && tgt && w0 < W; w0 += EVAL_BATCH) {
		int b = W - w0 < EVAL_BATCH ? (int)(W - w0) : EVAL_BATCH;
		// window w: inputs ids[w n .. w n + n - 1], targets ids[w n + 1 .. w n + n]
		memcpy(tok, s->ids + w0 * n, (size_t)b * n * sizeof *tok);
		memcpy(tgt, s->ids + w0 * n + 1, (size_t)b * n * sizeof *tgt);
		struct lm_result r;
		lm_forward(m, &bt, tok, tgt, b, n, threads, &r);
		loss += r.loss;
		correct += r.correct;
		st->counted += r.counted;
	}
	if (st->counted) {
		st->loss = loss / (double)st->counted;
		st->accuracy = (double)correct / (double)st->counted;
	}
	free(tok);
	free(tgt);
	lm_batch_free(&bt);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* How many of the sorted keys equal key */
static long count_key(const uint64_t *keys, long n, uint64_t key)
{
	long lo = 0, hi = n;
	while (lo < hi) { /* first >= key */
		long mid = lo + (hi - lo) / 2;
		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	long first = lo;
	hi = n;
	while (lo < hi) { /* first > key */
		long mid = lo + (hi - lo) / 2;
		if (keys[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

int lm_baselines(const struct lm_stream *train, const struct lm_stream *heldout, int vocab, int n,
                 int max_windows, struct lm_baselines *out)
{
	memset(out, 0, sizeof *out);
	long *uni = calloc((size_t)vocab, sizeof *uni), *first = calloc((size_t)vocab, sizeof *first);
	long pairs = train->len > 1 ? train->len - 1 : 0;
	uint64_t *keys = malloc((size_t)(pairs ? pairs : 1) * sizeof *keys);
	if (!uni || !first || !keys) {
		free(uni);
		free(first);
		free(keys);
		return -1;
	}
	// c(b): every training token; c(a b): every pair of neighbours, c(a .) their first halves
	for (long i = 0; i < train->len; i++)
		uni[train->ids[i]]++;
	for (long i = 0; i < pairs; i++) {
		keys[i] = (uint64_t)train->ids[i] * (uint64_t)vocab + (uint64_t)train->ids[i + 1];
		first[train->ids[i]]++;
	}
	qsort(keys, (size_t)pairs, sizeof *keys, by_key);
	const long W = windows_of(heldout->len, n, max_windows);
	double hu = 0, hb = 0;
	for (long w = 0; w < W; w++)
		for (int i = 0; i < n; i++) {
			int a = heldout->ids[w * n + i], b = heldout->ids[w * n + i + 1];
			// -log P(b) = -log((c(b) + 1) / (N + V))
			hu -= log((double)(uni[b] + 1) / (double)(train->len + vocab));
			// -log P(b | a) = -log((c(a b) + 1) / (c(a .) + V))
			long cab = count_key(keys, pairs, (uint64_t)a * (uint64_t)vocab + (uint64_t)b);
			hb -= log((double)(cab + 1) / (double)(first[a] + vocab));
			out->counted++;
		}
	if (out->counted) {
		out->unigram = hu / (double)out->counted;
		out->bigram = hb / (double)out->counted;
	}
	free(uni);
	free(first);
	free(keys);
	return 0;
}
