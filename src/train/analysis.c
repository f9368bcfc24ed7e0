/*
 * analysis.c - what a model's heads do, for any weights (trained, edited
 * or random): pattern scores on a fixed probe batch, each head's
 * importance (held-out loss with the head off minus with it on) and the
 * greedy prune curve. Nothing here changes the weights; head_off is put
 * back as it was.
 */
#include "model.h"

#include <math.h>
#include <string.h>

enum { PROBE_SEQUENCES = 16, EVAL_SEQUENCES = 64 };

/* m = n/2 tokens, distinct while the vocabulary allows, then the same again */
void train_probe_sample(int n, int vocab, uint64_t *rng, int *tokens, int *targets)
{
	int half = n / 2;
	for (int i = 0; i < n; i++) {
		targets[i] = -1;
		if (i >= half && i < 2 * half) {
			tokens[i] = tokens[i - half];
			continue;
		}
		bool dup;
		int tries = 0;
		do {
			tokens[i] = (int)(train_rand(rng) % (uint64_t)vocab);
			dup = false;
			for (int j = 0; j < i && half <= vocab; j++)
				dup |= tokens[j] == tokens[i];
		} while (dup && ++tries < 64);
	}
}

void train_pattern_scores(const struct train_model *m, double *scores)
{
	const int n = m->s.n, half = n / 2;
	memset(scores, 0, sizeof(double) * TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT);
	struct seq_work w;
	if (seq_work_alloc(&w, m) != MHA_OK || n < 2)
		return;
	/* repeated random tokens: r_0..r_{m-1} r_0..r_{m-1}, m = n/2, distinct
	 * while the vocabulary allows */
	uint64_t rng = TRAIN_PROBE_SEED;
	int tokens[MHA_MAX_TOKENS], targets[MHA_MAX_TOKENS];
	double cnt[TRAIN_PAT_COUNT] = { 0 };
	for (int b = 0; b < PROBE_SEQUENCES; b++) {
		struct seq_result r;
		train_probe_sample(n, m->s.vocab, &rng, tokens, targets);
		seq_forward(m, &w, tokens, targets, &r);
		for (int l = 0; l < m->s.layers; l++)
			for (int i = 0; i < m->s.h; i++) {
				const float *p = w.acts[l].weights + (size_t)i * n * n;
				double *sc = scores + (l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT;
				for (int q = 1; q < n; q++) {
					sc[TRAIN_PAT_PREVIOUS] += p[q * n + q - 1];
					sc[TRAIN_PAT_FIRST] += p[q * n];
					sc[TRAIN_PAT_SELF] += p[q * n + q];
				}
				for (int q = half; q < 2 * half; q++) {
					sc[TRAIN_PAT_DUPLICATE] += p[q * n + q - half];
					sc[TRAIN_PAT_INDUCTION] += p[q * n + q - half + 1];
				}
			}
		cnt[TRAIN_PAT_PREVIOUS] = cnt[TRAIN_PAT_FIRST] = cnt[TRAIN_PAT_SELF] += n - 1;
		cnt[TRAIN_PAT_DUPLICATE] = cnt[TRAIN_PAT_INDUCTION] += half;
	}
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			for (int p = 0; p < TRAIN_PAT_COUNT; p++)
				if (cnt[p] > 0)
					scores[(l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + p] /= cnt[p];
	seq_work_free(&w);
}

void train_head_importance(struct train_model *m, const struct train_task *t, double *importance)
{
	struct train_stats base, off;
	train_evaluate(m, t, EVAL_SEQUENCES, &base);
	memset(importance, 0, sizeof(double) * TRAIN_MAX_LAYERS * MHA_MAX_HEADS);
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++) {
			bool was = m->head_off[l][i];
			m->head_off[l][i] = !was;
			train_evaluate(m, t, EVAL_SEQUENCES, &off);
			m->head_off[l][i] = was;
			/* switching an off head on: its importance is what it would add back */
			importance[l * MHA_MAX_HEADS + i] = was ? base.loss - off.loss : off.loss - base.loss;
		}
}

int train_prune_curve(struct train_model *m, const struct train_task *t,
                      struct train_prune_point *pts, int max_pts)
{
	bool saved[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];
	memcpy(saved, m->head_off, sizeof saved);
	int kept = 0;
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			kept += !m->head_off[l][i];
	struct train_stats st;
	int np = 0;
	train_evaluate(m, t, EVAL_SEQUENCES, &st);
	if (np < max_pts)
		pts[np++] = (struct train_prune_point){ kept, -1, -1, st.loss, st.accuracy };
	while (kept > 0 && np < max_pts) {
		int bl = -1, bi = -1;
		struct train_stats best = { 0 };
		for (int l = 0; l < m->s.layers; l++)
			for (int i = 0; i < m->s.h; i++) {
				if (m->head_off[l][i])
					continue;
				m->head_off[l][i] = true;
				train_evaluate(m, t, EVAL_SEQUENCES, &st);
				m->head_off[l][i] = false;
				if (bl < 0 || st.loss < best.loss) {
					best = st;
					bl = l;
					bi = i;
				}
			}
		m->head_off[bl][bi] = true;
		kept--;
		pts[np++] = (struct train_prune_point){ kept, bl, bi, best.loss, best.accuracy };
	}
	memcpy(m->head_off, saved, sizeof saved);
	return np;
}
