/*
 * lm_decode.c - the language model generating text token by token with a
 * K/V cache in every layer (doc/LANGUAGE_MODEL.md, "Generating"). A token
 * goes in as x_0[t] = E[t] + P[t] (lm_embed's sum), then through each
 * layer as one step of the core's decoder (mha_decoder_*, a cache a
 * layer): the layer's new query row attends to the K and V rows cached
 * for tokens 0..t, and x_{l+1}[t] = x_l[t] + y_l[t] is the next layer's
 * input row, whose own K and V join that layer's cache. After the last
 * layer one row of the read-out: logits = x_L[t] U. The prompt goes in
 * the same way, a token at a time (the rows a one-pass prefill gives:
 * the core's decoder uses the causal pass's plain loops); the next token
 * is the most probable (greedy) or drawn from softmax(logits / T) with a
 * seeded uniform of its own per position, so the same seed, temperature
 * and prompt give the same text. It stops at the context the model was
 * trained with: its learned positions P have s.n rows and no more.
 *
 * It reads the model's weights and heads off at every step (edits made
 * elsewhere reach the next step); it never trains, prints or draws.
 */
#include "lm.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lm_decoder_alloc(struct lm_decoder *dec, const struct train_model *m)
{
	memset(dec, 0, sizeof *dec);
	const struct train_shape *s = &m->s;
	const size_t nd = (size_t)s->n * s->d;
	dec->m = m;
	dec->cap = s->n;
	dec->mem = calloc((size_t)(s->layers + 1) * nd + 2 * (size_t)s->classes, sizeof(float));
	if (!dec->mem)
		return -1;
	dec->xs = dec->mem;
	dec->logits = dec->xs + (size_t)(s->layers + 1) * nd;
	dec->probs = dec->logits + s->classes;
	for (int l = 0; l < s->layers; l++) {
		dec->c[l] = train_layer_config(m, l); /* n = the context: the cache's room */
		dec->w[l] = (struct mha_weights){ .x = dec->xs + (size_t)l * nd, .wq = m->wq[l], .wk = m->wk[l],
		                                  .wv = m->wv[l], .wo = m->wo[l] };
		if (mha_decoder_alloc(&dec->dec[l], &dec->c[l]) != MHA_OK) {
			lm_decoder_free(dec);
			return -1;
		}
	}
	return 0;
}

void lm_decoder_free(struct lm_decoder *dec)
{
	for (int l = 0; l < TRAIN_MAX_LAYERS; l++)
		if (dec->dec[l].mem)
			mha_decoder_free(&dec->dec[l]);
	free(dec->mem);
	memset(dec, 0, sizeof *dec);
}

void lm_decoder_reset(struct lm_decoder *dec)
{
	dec->len = 0;
	for (int l = 0; l < dec->m->s.layers; l++)
		mha_decoder_reset(&dec->dec[l]);
}

/* logits (1,V) = x_L[t] (1,d) @ U (d,V), then p = softmax(logits) in double */
static void read_out(struct lm_decoder *dec, const float *xl)
{
	const struct train_model *m = dec->m;
	const int d = m->s.d, V = m->s.classes;
	gemm_rm_naive(false, false, 1, V, d, 1.0f, xl, d, (size_t)d, m->unemb, V, (size_t)d * V,
	              dec->logits, V, (size_t)V);
	float mx = dec->logits[0];
	for (int k = 1; k < V; k++)
		mx = fmaxf(mx, dec->logits[k]);
	// p_k = exp(z_k - max) / sum_k' exp(z_k' - max)
	double sum = 0.0;
	for (int k = 0; k < V; k++)
		sum += exp((double)dec->logits[k] - mx);
	for (int k = 0; k < V; k++)
		dec->probs[k] = (float)(exp((double)dec->logits[k] - mx) / sum);
}

int lm_decoder_push(struct lm_decoder *dec, int id, char *msg, size_t len)
{
	const struct train_model *m = dec->m;
	const int d = m->s.d, t = dec->len;
	const size_t nd = (size_t)m->s.n * d;
	if (id < 0 || id >= m->s.vocab) {
		snprintf(msg, len, "token id %d is not in the vocabulary (0..%d)", id, m->s.vocab - 1);
		return -1;
	}
	if (t >= dec->cap) {
		snprintf(msg, len, "the context is full: the model was trained on %d tokens of context (its "
		         "learned positions P have %d rows), so it cannot place token %d", dec->cap, dec->cap, t + 1);
		return -1;
	}
	// x_0[t] (1,d) = E[id] + P[t]
	float *x0 = dec->xs + (size_t)t * d;
	for (int e = 0; e < d; e++)
		x0[e] = m->emb[(size_t)id * d + e] + m->pos[(size_t)t * d + e];
	for (int l = 0; l < m->s.layers; l++) {
		for (int i = 0; i < m->s.h; i++) /* the heads off as the model has them now */
			dec->c[l].head_off[i] = m->head_off[l][i];
		if (mha_decoder_step(&dec->dec[l], &dec->c[l], &dec->w[l]) != MHA_OK) {
			snprintf(msg, len, "layer %d's cache refused token %d", l, t);
			return -1;
		}
		// x_{l+1}[t] = x_l[t] + y_l[t]: the residual stream, the next layer's input row
		const float *xl = dec->xs + (size_t)l * nd + (size_t)t * d;
		float *xn = dec->xs + (size_t)(l + 1) * nd + (size_t)t * d;
		for (int e = 0; e < d; e++)
			xn[e] = xl[e] + dec->dec[l].y[e];
	}
	read_out(dec, dec->xs + (size_t)m->s.layers * nd + (size_t)t * d);
	dec->ids[t] = id;
	dec->len = t + 1;
	return 0;
}

int lm_decoder_prefill(struct lm_decoder *dec, const int *ids, int count, char *msg, size_t len)
{
	if (count < 1 || count > dec->cap) {
		snprintf(msg, len, "a prompt of %d tokens: the model takes 1 to %d", count, dec->cap);
		return -1;
	}
	lm_decoder_reset(dec);
	for (int t = 0; t < count; t++)
		if (lm_decoder_push(dec, ids[t], msg, len) != 0)
			return -1;
	return 0;
}

double lm_sample_uniform(uint64_t seed, int t)
{
	uint64_t st = seed ^ ((uint64_t)(t + 1) * 0xd1b54a32d192ed03ULL);
	return (double)(train_rand(&st) >> 11) / 9007199254740992.0; /* [0, 1), 53 bits */
}

int lm_decoder_pick(const struct lm_decoder *dec, double temperature, uint64_t seed, double *prob)
{
	const int V = dec->m->s.classes;
	int best = 0;
	for (int k = 1; k < V; k++)
		if (dec->logits[k] > dec->logits[best])
			best = k;
	if (!(temperature > 0.0)) {
		if (prob)
			*prob = dec->probs[best];
		return best;
	}
	// q_k = exp((z_k - max) / T) / sum: the model's distribution sharpened (T < 1) or flattened
	const double mx = dec->logits[best];
	double sum = 0.0;
	for (int k = 0; k < V; k++)
		sum += exp(((double)dec->logits[k] - mx) / temperature);
	/* the first k whose cumulative share passes u (a share that rounds short: the last) */
	const double u = lm_sample_uniform(seed, dec->len) * sum;
	double acc = 0.0;
	int pick = V - 1;
	for (int k = 0; k < V; k++) {
		acc += exp(((double)dec->logits[k] - mx) / temperature);
		if (u < acc) {
			pick = k;
			break;
		}
	}
	if (prob)
		*prob = exp(((double)dec->logits[pick] - mx) / temperature) / sum;
	return pick;
}

struct lm_decode_cost lm_decode_cost(const struct train_model *m, int t)
{
	struct lm_decode_cost k = { 0 };
	for (int l = 0; l < m->s.layers; l++) {
		struct mha_config c = train_layer_config(m, l);
		struct mha_decode_cost one = mha_decode_cost(&c, t);
		k.step_flops += one.step_flops;
		k.recompute_flops += one.recompute_flops;
		k.cache_values += one.cache_values;
	}
	/* one row of the read-out either way: 2 d V for the product, 5 V for the softmax */
	k.readout_flops = 2 * (int64_t)m->s.d * m->s.classes + 5 * (int64_t)m->s.classes;
	k.cache_bytes = k.cache_values * (int64_t)sizeof(float);
	return k;
}
