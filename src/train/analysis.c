/*
 * analysis.c - what a model's heads do, for any weights (trained, edited
 * or random): pattern scores on a fixed probe batch, each head's
 * importance (held-out loss with the head off minus with it on) and the
 * greedy prune curve. Nothing here changes the weights; head_off is put
 * back as it was. For the workbench's one layer, which has no task, the
 * same measures on its own tokens: pattern scores from its P and labels,
 * importance and prune curve as the relative change of Y
 * (train_bench_analysis).
 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EVAL_SEQUENCES = 64 };

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

void train_pattern_accumulate(const float *p, int n, const int *tok, double *sum, double *cnt)
{
	for (int q = 1; q < n; q++) {
		sum[TRAIN_PAT_PREVIOUS] += p[q * n + q - 1];
		sum[TRAIN_PAT_FIRST] += p[q * n];
		sum[TRAIN_PAT_SELF] += p[q * n + q];
		cnt[TRAIN_PAT_PREVIOUS] += 1;
		cnt[TRAIN_PAT_FIRST] += 1;
		cnt[TRAIN_PAT_SELF] += 1;
		/* earlier keys j < q with tok_j = tok_q (duplicate), and the keys
		 * j + 1 <= q right after them (induction) */
		double dup = 0, ind = 0;
		bool seen = false;
		for (int j = 0; j < q; j++)
			if (tok[j] == tok[q]) {
				dup += p[q * n + j];
				ind += p[q * n + j + 1];
				seen = true;
			}
		if (seen) {
			sum[TRAIN_PAT_DUPLICATE] += dup;
			sum[TRAIN_PAT_INDUCTION] += ind;
			cnt[TRAIN_PAT_DUPLICATE] += 1;
			cnt[TRAIN_PAT_INDUCTION] += 1;
		}
	}
}

bool train_probe_each(const struct train_model *m, train_probe_fn fn, void *ctx)
{
	const int n = m->s.n;
	struct seq_work w;
	if (n < 2 || seq_work_alloc(&w, m) != MHA_OK)
		return false;
	/* repeated random tokens: r_0..r_{m-1} r_0..r_{m-1}, m = n/2, distinct
	 * while the vocabulary allows (every head sees the same queries) */
	uint64_t rng = TRAIN_PROBE_SEED;
	int tokens[MHA_MAX_TOKENS], targets[MHA_MAX_TOKENS];
	for (int b = 0; b < TRAIN_PROBE_SEQUENCES; b++) {
		struct seq_result r;
		train_probe_sample(n, m->s.vocab, &rng, tokens, targets);
		seq_forward(m, &w, tokens, targets, &r);
		for (int l = 0; l < m->s.layers; l++)
			for (int i = 0; i < m->s.h; i++)
				fn(ctx, l, i, w.acts[l].weights + (size_t)i * n * n, n, tokens);
	}
	seq_work_free(&w);
	return true;
}

struct probe_sums {
	double *scores;                   /* or NULL */
	struct train_head_distance *dist; /* or NULL */
	double cnt[TRAIN_MAX_LAYERS * MHA_MAX_HEADS][TRAIN_PAT_COUNT];
	double queries[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
};

static void probe_add(void *ctx, int l, int i, const float *p, int n, const int *tokens)
{
	struct probe_sums *ps = ctx;
	int k = l * MHA_MAX_HEADS + i;
	if (ps->scores)
		train_pattern_accumulate(p, n, tokens, ps->scores + k * TRAIN_PAT_COUNT, ps->cnt[k]);
	if (ps->dist)
		train_distance_accumulate(p, n, &ps->dist[k], &ps->queries[k]);
}

void train_probe_measures(const struct train_model *m, double *scores, struct train_head_distance *dist)
{
	if (scores)
		memset(scores, 0, sizeof(double) * TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT);
	if (dist)
		memset(dist, 0, sizeof *dist * TRAIN_MAX_LAYERS * MHA_MAX_HEADS);
	struct probe_sums ps = { .scores = scores, .dist = dist };
	if (!train_probe_each(m, probe_add, &ps))
		return;
	for (int k = 0; k < TRAIN_MAX_LAYERS * MHA_MAX_HEADS; k++) {
		for (int p = 0; p < TRAIN_PAT_COUNT && scores; p++)
			if (ps.cnt[k][p] > 0)
				scores[k * TRAIN_PAT_COUNT + p] /= ps.cnt[k][p];
		if (!dist || ps.queries[k] <= 0)
			continue;
		dist[k].mean /= ps.queries[k];
		for (int b = 0; b < TRAIN_DIST_BUCKETS; b++)
			dist[k].share[b] /= ps.queries[k];
	}
}

void train_pattern_scores(const struct train_model *m, double *scores)
{
	train_probe_measures(m, scores, NULL);
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

/* Greedy pruning over the heads of off (stride MHA_MAX_HEADS a layer):
 * eval(ctx, st) scores the heads off as off says now; each step switches
 * off the head whose removal gives the least st.loss. off is put back. */
static int prune_greedy(bool *off, int layers, int h, void (*eval)(void *, struct train_stats *),
                        void *ctx, struct train_prune_point *pts, int max_pts)
{
	bool saved[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	memcpy(saved, off, sizeof(bool) * (size_t)layers * MHA_MAX_HEADS);
	int kept = 0;
	for (int l = 0; l < layers; l++)
		for (int i = 0; i < h; i++)
			kept += !off[l * MHA_MAX_HEADS + i];
	struct train_stats st;
	int np = 0;
	eval(ctx, &st);
	if (np < max_pts)
		pts[np++] = (struct train_prune_point){ kept, -1, -1, st.loss, st.accuracy };
	while (kept > 0 && np < max_pts) {
		int bl = -1, bi = -1;
		struct train_stats best = { 0 };
		for (int l = 0; l < layers; l++)
			for (int i = 0; i < h; i++) {
				bool *o = &off[l * MHA_MAX_HEADS + i];
				if (*o)
					continue;
				*o = true;
				eval(ctx, &st);
				*o = false;
				if (bl < 0 || st.loss < best.loss) {
					best = st;
					bl = l;
					bi = i;
				}
			}
		off[bl * MHA_MAX_HEADS + bi] = true;
		kept--;
		pts[np++] = (struct train_prune_point){ kept, bl, bi, best.loss, best.accuracy };
	}
	memcpy(off, saved, sizeof(bool) * (size_t)layers * MHA_MAX_HEADS);
	return np;
}

struct task_eval {
	const struct train_model *m;
	const struct train_task *t;
};

static void task_evaluate(void *ctx, struct train_stats *st)
{
	const struct task_eval *e = ctx;
	train_evaluate(e->m, e->t, EVAL_SEQUENCES, st);
}

int train_prune_curve(struct train_model *m, const struct train_task *t,
                      struct train_prune_point *pts, int max_pts)
{
	struct task_eval e = { m, t };
	return prune_greedy(&m->head_off[0][0], m->s.layers, m->s.h, task_evaluate, &e, pts, max_pts);
}

int train_pattern_best(const double *scores, const bool *scored, double clear)
{
	int best = -1;
	for (int p = 0; p < TRAIN_PAT_COUNT; p++)
		if ((!scored || scored[p]) && scores[p] >= clear && (best < 0 || scores[p] > scores[best]))
			best = p;
	return best;
}

/* ---- the workbench: one layer, any weights, no task ---- */

/* Switching heads off only zeroes their blocks of Concat, so with C_i =
 * O_i W^O_i (n, d: head i's share of Y, W^O_i its dk rows)
 *   Y - Y_without(R) = sum_{i in R} C_i,  ||.||^2 = sum_{i,j in R} G_ij,
 * G_ij = <C_i, C_j> (Frobenius), which holds bias or not: one forward and
 * the Gram matrix give every importance and every point of the curve. */
struct bench_eval {
	const bool *was_off;  /* (h) the workbench's heads off */
	const bool *off;      /* (h) off now, as the prune switches them */
	int h;
	const double *gram;   /* (h, h) G */
	double y_norm;        /* ||Y|| */
};

/* st->loss = ||Y - Y_kept|| / ||Y|| (0 when Y = 0) */
static void bench_evaluate(void *ctx, struct train_stats *st)
{
	const struct bench_eval *e = ctx;
	double sq = 0;
	for (int i = 0; i < e->h; i++)
		for (int j = 0; j < e->h; j++)
			if (e->off[i] && !e->was_off[i] && e->off[j] && !e->was_off[j])
				sq += e->gram[i * e->h + j];
	memset(st, 0, sizeof *st);
	st->loss = e->y_norm > 0 ? sqrt(sq > 0 ? sq : 0) / e->y_norm : 0;
}

/* Head i's mean scores on the workbench's P (weights: (h, n, n)), a token
 * being its label: a repeated word is a duplicate and the word after its
 * earlier copy an induction key. With cross-attention (P n x m) none is
 * scored: each pattern relates a token to its own sentence's tokens. */
static void bench_head_scores(const struct mha_config *c, const struct mha_weights *w,
                              const float *weights, int i, double *score, bool *scored)
{
	const int n = c->n;
	if (c->m > 0) {
		memset(score, 0, sizeof(double) * TRAIN_PAT_COUNT);
		memset(scored, 0, sizeof(bool) * TRAIN_PAT_COUNT);
		return;
	}
	int tok[MHA_MAX_TOKENS];
	for (int t = 0; t < n; t++) {
		tok[t] = t;
		for (int j = 0; j < t && w->labels; j++)
			if (!strcmp(w->labels[j], w->labels[t])) {
				tok[t] = tok[j];
				break;
			}
	}
	double cnt[TRAIN_PAT_COUNT] = { 0 };
	memset(score, 0, sizeof(double) * TRAIN_PAT_COUNT);
	train_pattern_accumulate(weights + (size_t)i * n * n, n, tok, score, cnt);
	for (int p = 0; p < TRAIN_PAT_COUNT; p++) {
		scored[p] = cnt[p] > 0;
		if (cnt[p] > 0)
			score[p] /= cnt[p];
	}
}

int train_bench_head_pattern(const struct mha_config *c, const struct mha_weights *w,
                             const float *weights, int head)
{
	double score[TRAIN_PAT_COUNT];
	bool scored[TRAIN_PAT_COUNT];
	if (head < 0 || head >= c->h || c->head_off[head])
		return -1;
	bench_head_scores(c, w, weights, head, score, scored);
	return train_pattern_best(score, scored, TRAIN_PATTERN_CLEAR);
}

enum mha_status train_bench_analysis(const struct mha_config *c, const struct mha_weights *w,
                                     struct train_bench_analysis *out)
{
	memset(out, 0, sizeof *out);
	out->h = c->h;
	const int n = c->n, d = c->d, h = c->h, dk = c->dk;
	const size_t nd = (size_t)n * d;
	struct mha_acts a;
	enum mha_status st = mha_acts_alloc(&a, c);
	if (st != MHA_OK)
		return st;
	double *share = malloc(sizeof(double) * (nd * h + (size_t)h * h + nd)); /* C_i, G, Y */
	if (!share) {
		mha_acts_free(&a);
		return MHA_ENOMEM;
	}
	double *gram = share + nd * h, *y = gram + (size_t)h * h;
	mha_forward(c, w, &a);

	for (int i = 0; i < h; i++) {
		bench_head_scores(c, w, a.weights, i, out->score[i], out->scored);
		out->best[i] = train_pattern_best(out->score[i], out->scored, 0);
	}

	/* C_i = O_i W^O_i for the heads on (0 for those off); Y = sum C_i (+ b^O) */
	memset(share, 0, sizeof(double) * nd * h);
	for (size_t k = 0; k < nd; k++)
		y[k] = c->bias ? w->bo[k % d] : 0;
	for (int i = 0; i < h; i++) {
		if (c->head_off[i])
			continue;
		double *ci = share + nd * i;
		for (int t = 0; t < n; t++)
			for (int k = 0; k < dk; k++) {
				double o = a.heads[((size_t)i * n + t) * dk + k];
				const float *wo = w->wo + (size_t)(i * dk + k) * d;
				for (int col = 0; col < d; col++)
					ci[(size_t)t * d + col] += o * wo[col];
			}
		for (size_t k = 0; k < nd; k++)
			y[k] += ci[k];
	}
	for (int i = 0; i < h; i++)
		for (int j = i; j < h; j++) {
			double g = 0;
			for (size_t k = 0; k < nd; k++)
				g += share[nd * i + k] * share[nd * j + k];
			gram[i * h + j] = gram[j * h + i] = g;
		}
	for (size_t k = 0; k < nd; k++)
		out->y_norm += y[k] * y[k];
	out->y_norm = sqrt(out->y_norm);

	/* importance: ||C_i|| / ||Y||, 0 for a head off */
	for (int i = 0; i < h; i++)
		out->importance[i] = out->y_norm > 0 ? sqrt(gram[i * h + i]) / out->y_norm : 0;
	for (int i = 0; i < h; i++) { /* insertion sort: most important first, ties by index */
		int k = i;
		while (k > 0 && out->importance[out->order[k - 1]] < out->importance[i]) {
			out->order[k] = out->order[k - 1];
			k--;
		}
		out->order[k] = i;
	}
	for (int r = 0; r < h; r++)
		out->rank[out->order[r]] = r + 1;

	bool off[MHA_MAX_HEADS];
	memcpy(off, c->head_off, sizeof off);
	struct bench_eval e = { c->head_off, off, h, gram, out->y_norm };
	out->points = prune_greedy(off, 1, h, bench_evaluate, &e, out->prune, MHA_MAX_HEADS + 1);
	free(share);
	mha_acts_free(&a);
	return MHA_OK;
}
