/*
 * lm_heads.c - which heads of the language model do what, measured on
 * held-out text (doc/LANGUAGE_MODEL.md, "The heads"): the mean attention
 * weight each head puts on the previous token, the first token (the
 * attention sink), itself, and earlier copies of the query's word, over
 * held-out windows; its induction score on repeated held-out text (32
 * tokens, then the same 32 again: the weight on the token after the
 * query's earlier copy); what a head that spreads evenly would score on
 * the same tokens; and each head's importance (held-out loss with it off
 * minus with it on). It reads the model and puts head_off back as it was.
 */
#include "lm.h"

#include <stdlib.h>
#include <string.h>

enum { HEAD_BATCH = 16, DEFAULT_WINDOWS = 256 };

const char *lm_head_kind_name(int kind)
{
	static const char *const names[LM_HEAD_KINDS] = { "previous-token", "first-token", "same-word",
	                                                  "induction", "current-token" };
	return kind >= 0 && kind < LM_HEAD_KINDS ? names[kind] : "mixed";
}

/* Sums over queries: [pattern] as train_pattern_accumulate adds them */
struct sums {
	double s[TRAIN_MAX_LAYERS][MHA_MAX_HEADS][TRAIN_PAT_COUNT];
	double c[TRAIN_MAX_LAYERS][MHA_MAX_HEADS][TRAIN_PAT_COUNT];
	double ind[TRAIN_MAX_LAYERS][MHA_MAX_HEADS], ind_n;
	double us[TRAIN_PAT_COUNT], uc[TRAIN_PAT_COUNT], uind;
};

/* A head that spreads evenly over the keys a causal query sees: P[q][j] = 1/(q+1), j <= q */
static void uniform_causal(float *p, int n)
{
	for (int q = 0; q < n; q++)
		for (int j = 0; j < n; j++)
			p[q * n + j] = j <= q ? 1.0f / (float)(q + 1) : 0.0f;
}

/* Held-out windows: every head's P on the text as it is */
static void measure_text(struct train_model *m, struct lm_batch *bt, const struct lm_stream *s, int W,
                         struct sums *z, const float *uni)
{
	const int n = m->s.n;
	int tok[HEAD_BATCH * MHA_MAX_TOKENS], tgt[HEAD_BATCH * MHA_MAX_TOKENS];
	for (int w0 = 0; w0 < W; w0 += HEAD_BATCH) {
		int b = W - w0 < HEAD_BATCH ? W - w0 : HEAD_BATCH;
		memcpy(tok, s->ids + (size_t)w0 * n, (size_t)b * n * sizeof *tok);
		for (int k = 0; k < b * n; k++)
			tgt[k] = -1;
		struct lm_result r;
		lm_forward(m, bt, tok, tgt, b, n, 1, &r);
		for (int j = 0; j < b; j++) {
			const int *t = tok + (size_t)j * n;
			for (int l = 0; l < m->s.layers; l++)
				for (int i = 0; i < m->s.h; i++)
					train_pattern_accumulate(bt->acts[l * bt->cap_b + j].weights + (size_t)i * n * n, n, t,
					                         z->s[l][i], z->c[l][i]);
			train_pattern_accumulate(uni, n, t, z->us, z->uc);
		}
	}
}

/* Repeated text: 32 held-out tokens, then the same 32; the weight on the
 * token after the earlier copy, P[q][q - half + 1], over the second half */
static void measure_repeat(struct train_model *m, struct lm_batch *bt, const struct lm_stream *s, int W,
                           struct sums *z)
{
	const int n = m->s.n, half = n / 2;
	int tok[HEAD_BATCH * MHA_MAX_TOKENS], tgt[HEAD_BATCH * MHA_MAX_TOKENS];
	for (int w0 = 0; w0 < W; w0 += HEAD_BATCH) {
		int b = W - w0 < HEAD_BATCH ? W - w0 : HEAD_BATCH;
		for (int j = 0; j < b; j++)
			for (int q = 0; q < n; q++) {
				int src = q < half ? q : q - half;
				tok[j * n + q] = q < 2 * half ? s->ids[(size_t)(w0 + j) * half + src] : LM_DOC;
				tgt[j * n + q] = -1;
			}
		struct lm_result r;
		lm_forward(m, bt, tok, tgt, b, n, 1, &r);
		for (int j = 0; j < b; j++)
			for (int q = half; q < 2 * half; q++) {
				for (int l = 0; l < m->s.layers; l++)
					for (int i = 0; i < m->s.h; i++)
						z->ind[l][i] += bt->acts[l * bt->cap_b + j].weights[((size_t)i * n + q) * n + q - half + 1];
				z->uind += 1.0 / (q + 1);
				z->ind_n += 1;
			}
	}
}

int lm_head_analysis(struct train_model *m, const struct lm_stream *heldout, int windows,
                     struct lm_head_report *r)
{
	memset(r, 0, sizeof *r);
	const int n = m->s.n;
	long have = heldout->len > 1 ? (heldout->len - 1) / n : 0;
	int W = windows > 0 ? windows : DEFAULT_WINDOWS;
	if (W > have)
		W = (int)have;
	if (W < 1 || n < 4)
		return -1;
	struct sums *z = calloc(1, sizeof *z);
	float *uni = malloc((size_t)n * n * sizeof *uni);
	struct lm_batch bt;
	if (!z || !uni || lm_batch_alloc(&bt, m, HEAD_BATCH, 1) != MHA_OK) {
		free(z);
		free(uni);
		return -1;
	}
	uniform_causal(uni, n);
	measure_text(m, &bt, heldout, W, z, uni);
	measure_repeat(m, &bt, heldout, W, z);
	lm_batch_free(&bt);
	static const enum train_pattern from[LM_HEAD_KINDS] = { TRAIN_PAT_PREVIOUS, TRAIN_PAT_FIRST,
	                                                        TRAIN_PAT_DUPLICATE, 0, TRAIN_PAT_SELF };
	for (int k = 0; k < LM_HEAD_KINDS; k++)
		r->uniform[k] = k == LM_HEAD_INDUCTION ? z->uind / z->ind_n
		              : z->uc[from[k]] > 0 ? z->us[from[k]] / z->uc[from[k]] : 0;
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++) {
			for (int k = 0; k < LM_HEAD_KINDS; k++) {
				double c = z->c[l][i][from[k]];
				r->score[l][i][k] = k == LM_HEAD_INDUCTION ? z->ind[l][i] / z->ind_n
				                  : c > 0 ? z->s[l][i][from[k]] / c : 0;
			}
			int best = -1;
			for (int k = 0; k < LM_HEAD_KINDS; k++)
				if (r->score[l][i][k] >= LM_HEAD_CLEAR && (best < 0 || r->score[l][i][k] > r->score[l][i][best]))
					best = k;
			r->kind[l][i] = best;
		}
	free(z);
	free(uni);
	r->windows = W;
	// importance: held-out loss with the head off minus with every head as the model has it
	struct train_stats base, off;
	lm_evaluate(m, heldout, W, 1, &base);
	r->base_loss = base.loss;
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++) {
			bool was = m->head_off[l][i];
			m->head_off[l][i] = true;
			lm_evaluate(m, heldout, W, 1, &off);
			m->head_off[l][i] = was;
			r->importance[l][i] = off.loss - base.loss;
		}
	return 0;
}
