/*
 * circ_lens.c - the logit lens and direct logit attribution at one
 * position (circuits.h): the read-out U applied to the residual stream
 * after each layer, and to each part that was added into it (the token's
 * embedding, the position's, each head's write). The model has no norm
 * and no bias, so the parts' logits add up to the model's own; the lens
 * reports them, it does not rank heads by them (circ_patch.c measures
 * what a head is needed for).
 */
#include "circ_int.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* logits (C) = x (d) U (d, C), and the entry's target and top figures. */
static void entry_fill(const struct circ_model *cm, const double *x, int target,
                       struct circ_lens_entry *e)
{
	const int d = cm->s.d, C = cm->s.classes;
	gemm_rm_f64(false, false, 1, C, d, 1.0, x, d, (size_t)d, cm->unemb, C, (size_t)d * C, e->logits,
	            C, (size_t)C);
	e->target_logit = target >= 0 ? e->logits[target] : NAN;
	e->target_rank = 0;
	if (target >= 0) {
		e->target_rank = 1;
		for (int c = 0; c < C; c++)
			e->target_rank += e->logits[c] > e->logits[target];
	}
	// the CIRC_TOP largest, ties to the lower class
	for (int k = 0; k < CIRC_TOP; k++) {
		int best = -1;
		for (int c = 0; c < C; c++) {
			bool taken = false;
			for (int j = 0; j < k; j++)
				taken |= e->top[j] == c;
			if (!taken && (best < 0 || e->logits[c] > e->logits[best]))
				best = c;
		}
		e->top[k] = best;
	}
}

enum mha_status circ_lens(const struct circ_model *cm, const int *tokens, int position, int target,
                          struct circ_lens *out)
{
	const struct train_shape *s = &cm->s;
	const int n = s->n, d = s->d, C = s->classes, L = s->layers, heads = L * s->h;
	memset(out, 0, sizeof *out);
	if (position < 0 || position >= n || target >= C || !circ_data_fits(cm, tokens, NULL, 1))
		return MHA_EINVAL;
	int entries = L + 1 + 2 + heads;
	out->tokens = malloc(sizeof(int) * (size_t)n);
	out->head = calloc((size_t)heads, sizeof *out->head);
	double *logits = malloc(sizeof(double) * (size_t)entries * C);
	struct circ_run r;
	if (!out->tokens || !out->head || !logits || circ_run_alloc(&r, cm) != MHA_OK) {
		free(out->tokens);
		free(out->head);
		free(logits);
		memset(out, 0, sizeof *out);
		return MHA_ENOMEM;
	}
	memcpy(out->tokens, tokens, sizeof(int) * (size_t)n);
	out->position = position;
	out->target = target;
	struct circ_lens_entry *all[TRAIN_MAX_LAYERS + 3];
	for (int l = 0; l <= L; l++)
		all[l] = &out->resid[l];
	all[L + 1] = &out->embed;
	all[L + 2] = &out->pos;
	for (int e = 0; e < entries; e++) {
		struct circ_lens_entry *en = e < L + 3 ? all[e] : &out->head[e - L - 3];
		en->logits = logits + (size_t)e * C;
	}
	circ_forward(cm, tokens, NULL, NULL, &r);
	const size_t at = (size_t)position * d;
	// after layer l - 1 (x_0: the embeddings): x_l[position] U
	for (int l = 0; l <= L; l++)
		entry_fill(cm, r.x + (size_t)l * n * d + at, target, &out->resid[l]);
	// the parts of x_L: E[t], P[position], and each head's write
	entry_fill(cm, cm->emb + (size_t)tokens[position] * d, target, &out->embed);
	entry_fill(cm, cm->pos + at, target, &out->pos);
	for (int k = 0; k < heads; k++)
		entry_fill(cm, circ_run_write(cm, &r, k / s->h, k % s->h) + at, target, &out->head[k]);
	circ_run_free(&r);
	return MHA_OK;
}

void circ_lens_free(struct circ_lens *lens)
{
	free(lens->tokens);
	free(lens->resid[0].logits); /* every entry's logits live in one block, the first's */
	free(lens->head);
	memset(lens, 0, sizeof *lens);
}
