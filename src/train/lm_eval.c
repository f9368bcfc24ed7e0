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

long lm_windows(const struct lm_stream *s, int n, long max_windows, long *starts)
{
	bool marks = false;
	for (long i = 0; i < s->len && !marks; i++)
		marks = s->ids[i] == LM_DOC;
	long w = 0, p = 0;
	// window k: inputs ids[p .. p + n - 1], targets ids[p + 1 .. p + n]; the next from the first "<doc>" at p + n or after
	while (marks && p < s->len && s->ids[p] != LM_DOC)
		p++;
	while (p + n < s->len && (max_windows <= 0 || w < max_windows)) {
		if (starts)
			starts[w] = p;
		w++;
		p += n;
		while (marks && p < s->len && s->ids[p] != LM_DOC)
			p++;
	}
	return w;
}

/* The windows' starts, allocated (*W of them); NULL when out of memory */
static long *windows_of(const struct lm_stream *s, int n, int max_windows, long *W)
{
	*W = lm_windows(s, n, max_windows, NULL);
	long *starts = malloc((size_t)(*W ? *W : 1) * sizeof *starts);
	if (starts)
		lm_windows(s, n, max_windows, starts);
	return starts;
}

void lm_evaluate(const struct train_model *m, const struct lm_stream *s, int max_windows,
                 int threads, struct train_stats *st)
{
	memset(st, 0, sizeof *st);
	const int n = m->s.n;
	long W;
	long *starts = windows_of(s, n, max_windows, &W);
	struct lm_batch bt;
	if (!starts || W == 0 || lm_batch_alloc(&bt, m, EVAL_BATCH, threads) != MHA_OK) {
		free(starts);
		return;
	}
	int *tok = malloc((size_t)EVAL_BATCH * n * sizeof *tok), *tgt = malloc((size_t)EVAL_BATCH * n * sizeof *tgt);
	double loss = 0;
	long correct = 0;
	for (long w0 = 0; tok && tgt && w0 < W; w0 += EVAL_BATCH) {
		int b = W - w0 < EVAL_BATCH ? (int)(W - w0) : EVAL_BATCH;
		// window w: inputs ids[p .. p + n - 1], targets ids[p + 1 .. p + n], p = starts[w]
		for (int j = 0; j < b; j++) {
			memcpy(tok + (size_t)j * n, s->ids + starts[w0 + j], (size_t)n * sizeof *tok);
			memcpy(tgt + (size_t)j * n, s->ids + starts[w0 + j] + 1, (size_t)n * sizeof *tgt);
		}
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
	free(starts);
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
	long pairs = train->len > 1 ? train->len - 1 : 0, W;
	uint64_t *keys = malloc((size_t)(pairs ? pairs : 1) * sizeof *keys);
	long *starts = windows_of(heldout, n, max_windows, &W);
	if (!uni || !first || !keys || !starts) {
		free(uni);
		free(first);
		free(keys);
		free(starts);
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
	double hu = 0, hb = 0;
	for (long w = 0; w < W; w++)
		for (int i = 0; i < n; i++) {
			int a = heldout->ids[starts[w] + i], b = heldout->ids[starts[w] + i + 1];
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
	free(starts);
	return 0;
}
