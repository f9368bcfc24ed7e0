/*
 * circ_scores.c - head scores that separate content from position:
 * prefix matching at several repeat periods, on probes the training never
 * saw (their own seeds; for the induction task periods 4 and 24 lie
 * outside the periods it trains on, n/4..n/2), and the previous, first,
 * self and duplicate scores over all those probes together. A head that
 * attends a fixed number of tokens back matches one period only; a head
 * that finds the earlier copy of the current token matches them all.
 * The per-query rules are the analysis's (train_pattern_accumulate), so
 * the single-period induction score of the training screen is the same
 * measure on another probe. Weight figures (copying) come from
 * circ_weights.c.
 */
#include "circ_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool circ_probe_period(int n, int vocab, int period, int count, uint64_t seed, int *tokens)
{
	if (period < 1 || period > vocab || period + 2 > n)
		return false;
	uint64_t rng = seed ^ ((uint64_t)period * 0x9e3779b97f4a7c15ULL);
	int block[MHA_MAX_TOKENS];
	for (int b = 0; b < count; b++) {
		circ_draw_distinct(&rng, vocab, period, block);
		for (int t = 0; t < n; t++)
			tokens[(size_t)b * n + t] = block[t % period];
	}
	return true;
}

enum mha_status circ_patterns(const struct circ_model *cm, const int *tokens, int count,
                              double *scores, double *sum, double *cnt)
{
	const struct train_shape *s = &cm->s;
	const int n = s->n, heads = s->layers * s->h;
	if (!circ_data_fits(cm, tokens, NULL, count))
		return MHA_EINVAL;
	struct circ_run r;
	float *p = malloc(sizeof(float) * (size_t)n * n);
	double *acc = calloc(2 * (size_t)heads * TRAIN_PAT_COUNT, sizeof(double));
	if (!p || !acc || circ_run_alloc(&r, cm) != MHA_OK) {
		free(p);
		free(acc);
		return MHA_ENOMEM;
	}
	double *c = acc + (size_t)heads * TRAIN_PAT_COUNT;
	for (int b = 0; b < count; b++) {
		const int *tok = tokens + (size_t)b * n;
		circ_forward(cm, tok, NULL, NULL, &r);
		for (int k = 0; k < heads; k++) {
			const double *pd = circ_run_pattern(cm, &r, k / s->h, k % s->h);
			for (size_t e = 0; e < (size_t)n * n; e++)
				p[e] = (float)pd[e];
			train_pattern_accumulate(p, n, tok, acc + (size_t)k * TRAIN_PAT_COUNT,
			                         c + (size_t)k * TRAIN_PAT_COUNT);
		}
	}
	for (size_t e = 0; e < (size_t)heads * TRAIN_PAT_COUNT; e++) {
		if (scores)
			scores[e] = c[e] > 0 ? acc[e] / c[e] : NAN;
		if (sum)
			sum[e] += acc[e];
		if (cnt)
			cnt[e] += c[e];
	}
	circ_run_free(&r);
	free(p);
	free(acc);
	return MHA_OK;
}

enum mha_status circ_head_scores(const struct circ_model *cm, int count, uint64_t seed,
                                 struct circ_head *heads)
{
	const struct train_shape *s = &cm->s;
	const int heads_n = s->layers * s->h;
	size_t per = (size_t)heads_n * TRAIN_PAT_COUNT;
	double *mem = calloc(3 * per, sizeof(double));
	int *tok = malloc(sizeof(int) * (size_t)count * s->n);
	if (!mem || !tok) {
		free(mem);
		free(tok);
		return MHA_ENOMEM;
	}
	double *sc = mem, *sum = mem + per, *cnt = sum + per;
	enum mha_status st = MHA_OK;
	for (int p = 0; p < CIRC_PERIODS && st == MHA_OK; p++) {
		if (!circ_probe_period(s->n, s->vocab, circ_periods[p], count, seed, tok))
			continue;
		st = circ_patterns(cm, tok, count, sc, sum, cnt);
		for (int k = 0; k < heads_n && st == MHA_OK; k++) {
			struct circ_head *hd = &heads[k];
			hd->prefix[p] = sc[(size_t)k * TRAIN_PAT_COUNT + TRAIN_PAT_INDUCTION];
			hd->periods_scored++;
			if (isnan(hd->prefix_min) || hd->prefix[p] < hd->prefix_min)
				hd->prefix_min = hd->prefix[p];
		}
	}
	for (int k = 0; k < heads_n && st == MHA_OK; k++) {
		struct circ_head *hd = &heads[k];
		const double *a = sum + (size_t)k * TRAIN_PAT_COUNT, *c = cnt + (size_t)k * TRAIN_PAT_COUNT;
		double v[TRAIN_PAT_COUNT];
		for (int q = 0; q < TRAIN_PAT_COUNT; q++)
			v[q] = c[q] > 0 ? a[q] / c[q] : NAN;
		hd->previous = v[TRAIN_PAT_PREVIOUS];
		hd->first = v[TRAIN_PAT_FIRST];
		hd->self = v[TRAIN_PAT_SELF];
		hd->duplicate = v[TRAIN_PAT_DUPLICATE];
		// content, not position: prefix matching at every period, and it copies
		hd->induction = hd->periods_scored >= CIRC_MIN_PERIODS &&
		                hd->prefix_min >= CIRC_PREFIX_CLEAR && hd->copying > 0;
	}
	free(mem);
	free(tok);
	return st;
}
