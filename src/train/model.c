/*
 * model.c - the attention-only model of train.h: parameters in one array,
 * the forward and backward of one sequence (embeddings, the core's
 * mha_forward / mha_backward per layer, residual adds, read-out and
 * cross-entropy), and the held-out evaluation. The optimiser and the batch
 * loop are in trainer.c; nothing here draws training data.
 */
#include "model.h"
#include "engine.h"
#include "gemm.h"
#include "vexp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t layer_params(const struct train_shape *s)
{
	return 4 * (size_t)s->d * s->h * s->dk;
}

static size_t model_params(const struct train_shape *s)
{
	size_t d = (size_t)s->d;
	return (size_t)s->vocab * d + (size_t)s->n * d + s->layers * layer_params(s) + d * (size_t)s->classes;
}

void train_model_view(struct train_model *v, const struct train_shape *s, float *p)
{
	size_t hw = (size_t)s->h * s->dk, d = (size_t)s->d;
	v->s = *s;
	v->nparams = model_params(s);
	v->params = p;
	v->emb = p;  p += (size_t)s->vocab * d;
	v->pos = p;  p += (size_t)s->n * d;
	for (int l = 0; l < TRAIN_MAX_LAYERS; l++) {
		if (l >= s->layers) {
			v->wq[l] = v->wk[l] = v->wv[l] = v->wo[l] = NULL;
			continue;
		}
		v->wq[l] = p; p += d * hw;
		v->wk[l] = p; p += d * hw;
		v->wv[l] = p; p += d * hw;
		v->wo[l] = p; p += hw * d;
	}
	v->unemb = p;
}

enum mha_status train_model_alloc(struct train_model *m, const struct train_shape *s)
{
	memset(m, 0, sizeof *m);
	float *p = calloc(model_params(s), sizeof *p);
	if (!p)
		return MHA_ENOMEM;
	train_model_view(m, s, p);
	return MHA_OK;
}

void train_model_free(struct train_model *m)
{
	free(m->params);
	memset(m, 0, sizeof *m);
}

/* U(-a, a) from the stream, 24 random bits */
static void fill(float *p, size_t len, float a, uint64_t *rng)
{
	for (size_t i = 0; i < len; i++)
		p[i] = a * ((float)(train_rand(rng) >> 40) / 8388608.0f - 1.0f);
}

void train_model_init(struct train_model *m, uint64_t seed)
{
	const struct train_shape *s = &m->s;
	uint64_t rng = seed ^ 0x6d6f64656cULL;
	size_t d = (size_t)s->d, hw = (size_t)s->h * s->dk;
	float glorot = sqrtf(6.0f / (float)(s->d + s->h * s->dk));
	fill(m->emb, (size_t)s->vocab * d, 1.0f, &rng);
	fill(m->pos, (size_t)s->n * d, 1.0f, &rng);
	for (int l = 0; l < s->layers; l++) {
		fill(m->wq[l], d * hw, glorot, &rng);
		fill(m->wk[l], d * hw, glorot, &rng);
		fill(m->wv[l], d * hw, glorot, &rng);
		fill(m->wo[l], hw * d, glorot, &rng);
	}
	fill(m->unemb, d * (size_t)s->classes, sqrtf(6.0f / (float)(s->d + s->classes)), &rng);
}

struct mha_config train_layer_config(const struct train_model *m, int l)
{
	struct mha_config c = mha_config_default();
	c.n = m->s.n; c.d = m->s.d; c.h = m->s.h; c.g = m->s.h; c.dk = m->s.dk;
	c.causal = true; c.top_k = 0; c.scale = true;
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = m->head_off[l][i];
	return c;
}

enum mha_status seq_work_alloc(struct seq_work *w, const struct train_model *m)
{
	memset(w, 0, sizeof *w);
	const struct train_shape *s = &m->s;
	struct mha_config c = train_layer_config(m, 0);
	size_t nd = (size_t)s->n * s->d;
	w->mem = calloc((s->layers + 2) * nd + (size_t)s->n * s->classes, sizeof(float));
	w->e = malloc((size_t)s->classes * sizeof *w->e);
	if (!w->mem || !w->e) {
		seq_work_free(w);
		return MHA_ENOMEM;
	}
	w->x = w->mem;
	w->dx = w->x + (s->layers + 1) * nd;
	w->probs = w->dx + nd;
	for (int l = 0; l < s->layers; l++)
		if (mha_acts_alloc(&w->acts[l], &c) != MHA_OK || mha_grads_alloc(&w->grads[l], &c) != MHA_OK) {
			seq_work_free(w);
			return MHA_ENOMEM;
		}
	return MHA_OK;
}

void seq_work_free(struct seq_work *w)
{
	for (int l = 0; l < TRAIN_MAX_LAYERS; l++) {
		if (w->acts[l].mem)
			mha_acts_free(&w->acts[l]);
		if (w->grads[l].mem)
			mha_grads_free(&w->grads[l]);
	}
	free(w->mem);
	free(w->e);
	memset(w, 0, sizeof *w);
}

/* Layer l's inputs as the core's weights: X is the residual stream x_l. */
static struct mha_weights layer_view(const struct train_model *m, const struct seq_work *w, int l)
{
	struct mha_weights v = { 0 };
	v.x = w->x + (size_t)l * m->s.n * m->s.d;
	v.wq = m->wq[l]; v.wk = m->wk[l]; v.wv = m->wv[l]; v.wo = m->wo[l];
	return v;
}

void seq_forward(const struct train_model *m, struct seq_work *w, const int *tokens,
                 const int *targets, struct seq_result *r)
{
	const struct train_shape *s = &m->s;
	const int n = s->n, d = s->d, C = s->classes;
	const size_t nd = (size_t)n * d;
	// x_0[i] = E[t_i] + P[i]
	for (int i = 0; i < n; i++)
		for (int e = 0; e < d; e++)
			w->x[(size_t)i * d + e] = m->emb[(size_t)tokens[i] * d + e] + m->pos[(size_t)i * d + e];
	// x_{l+1} = x_l + MHA_l(x_l)
	for (int l = 0; l < s->layers; l++) {
		struct mha_config c = train_layer_config(m, l);
		struct mha_weights v = layer_view(m, w, l);
		if (w->vector)
			mha_forward_vector(&c, &v, &w->acts[l]);
		else
			mha_forward(&c, &v, &w->acts[l]);
		const float *xl = w->x + l * nd;
		float *xn = w->x + (l + 1) * nd;
		for (size_t e = 0; e < nd; e++)
			xn[e] = xl[e] + w->acts[l].y[e];
	}
	// logits (n,C) = x_L (n,d) @ U (d,C); probs = softmax per row
	gemm_rm(false, false, n, C, d, 1.0f, w->x + s->layers * nd, d, nd, m->unemb, C,
	        (size_t)d * C, w->probs, C, (size_t)n * C);
	r->loss = 0;
	r->correct = r->counted = 0;
	for (int i = 0; i < n; i++) {
		float *p = w->probs + (size_t)i * C;
		int best = 0;
		for (int k = 1; k < C; k++)
			if (p[k] > p[best])
				best = k;
		double mx = p[best], sum = 0;
		for (int k = 0; k < C; k++) {
			w->e[k] = exp((double)p[k] - mx);
			sum += w->e[k];
		}
		if (targets[i] >= 0) {
			// cross-entropy = log sum exp(logits) - logits[target]
			r->loss += mx + log(sum) - p[targets[i]];
			r->counted++;
			r->correct += best == targets[i];
		}
		for (int k = 0; k < C; k++)
			p[k] = (float)(w->e[k] / sum);
	}
}

void seq_backward(const struct train_model *m, struct seq_work *w, const int *tokens,
                  const int *targets, float scale, struct train_model *g)
{
	const struct train_shape *s = &m->s;
	const int n = s->n, d = s->d, C = s->classes, hw = s->h * s->dk;
	const size_t nd = (size_t)n * d, nc = (size_t)n * C;
	// dlogits = (probs - onehot(target)) * scale on counted rows, else 0 (in place)
	for (int i = 0; i < n; i++) {
		float *p = w->probs + (size_t)i * C;
		if (targets[i] < 0) {
			memset(p, 0, (size_t)C * sizeof *p);
			continue;
		}
		p[targets[i]] -= 1.0f;
		for (int k = 0; k < C; k++)
			p[k] *= scale;
	}
	// dU (d,C) = x_L^T (d,n) @ dlogits (n,C); dx_L (n,d) = dlogits @ U^T
	gemm_rm(true, false, d, C, n, 1.0f, w->x + s->layers * nd, d, nd, w->probs, C, nc,
	        g->unemb, C, (size_t)d * C);
	gemm_rm(false, true, n, d, C, 1.0f, w->probs, C, nc, m->unemb, C, (size_t)d * C, w->dx, d, nd);
	// through each layer: dx_l = dx_{l+1} + MHA_l's dX
	for (int l = s->layers - 1; l >= 0; l--) {
		struct mha_config c = train_layer_config(m, l);
		struct mha_weights v = layer_view(m, w, l);
		struct mha_grads *gr = &w->grads[l];
		if (w->vector)
			mha_backward_vector(&c, &v, &w->acts[l], w->dx, gr);
		else
			mha_backward(&c, &v, &w->acts[l], w->dx, gr);
		memcpy(g->wq[l], gr->wq, (size_t)d * hw * sizeof(float));
		memcpy(g->wk[l], gr->wk, (size_t)d * hw * sizeof(float));
		memcpy(g->wv[l], gr->wv, (size_t)d * hw * sizeof(float));
		memcpy(g->wo[l], gr->wo, (size_t)hw * d * sizeof(float));
		vexp_add(w->dx, gr->x, nd);
	}
	// dP = dx_0; dE[t_i] += dx_0[i]
	memcpy(g->pos, w->dx, nd * sizeof(float));
	memset(g->emb, 0, (size_t)s->vocab * d * sizeof(float));
	for (int i = 0; i < n; i++)
		for (int e = 0; e < d; e++)
			g->emb[(size_t)tokens[i] * d + e] += w->dx[(size_t)i * d + e];
}

/* The held-out stream: a seed no training run uses (training seeds are
 * mixed with another constant in trainer.c). */
uint64_t train_heldout_seed(const struct train_task *t)
{
	return 0x686f6c646f7574ULL + (uint64_t)t->id;
}

void train_evaluate(const struct train_model *m, const struct train_task *t, int sequences,
                    struct train_stats *st)
{
	struct seq_work w;
	memset(st, 0, sizeof *st);
	if (seq_work_alloc(&w, m) != MHA_OK)
		return;
	uint64_t rng = train_heldout_seed(t);
	int tokens[MHA_MAX_TOKENS], targets[MHA_MAX_TOKENS];
	long correct = 0;
	for (int b = 0; b < sequences; b++) {
		struct seq_result r;
		train_task_sample(t, m->s.n, m->s.vocab, &rng, tokens, targets);
		seq_forward(m, &w, tokens, targets, &r);
		st->loss += r.loss;
		st->counted += r.counted;
		correct += r.correct;
	}
	if (st->counted) {
		st->loss /= (double)st->counted;
		st->accuracy = (double)correct / (double)st->counted;
	}
	seq_work_free(&w);
}
