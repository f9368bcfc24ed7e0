/*
 * trainer.c - the batch loop and AdamW. Each step draws a fresh batch from
 * the task's seeded stream, runs every sequence's forward and backward
 * (on the trainer's pool of threads, started once: pool.h), keeps each
 * sequence's gradient in its own slot and sums the slots in sequence
 * order, so the result does not depend on which thread ran what. The layers run
 * with the engine's vector softmax row (mha_forward_vector: the same
 * activations for the backward, a faster exp; the model's other users keep
 * the core's row, bit for bit what the workbench shows). Then global-norm
 * clipping (at 1) and one AdamW update. This file does not evaluate or
 * analyse the model.
 */
#include "model.h"
#include "gemm.h"
#include "pool.h"
#include "vexp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 16 };
enum { SUM_CHUNK = 4096 }; /* parameters a task sums: fixed, so the bits do not depend on threads */

struct trainer {
	struct train_model *m;
	const struct train_task *task;
	struct train_options o;
	uint64_t rng;        /* the training data stream */
	long step;
	int *tokens, *targets; /* (B, n) the current batch */
	float *slots;        /* (B, nparams) each sequence's gradient */
	float *grad;         /* (nparams) their sum */
	float *adam_m, *adam_v; /* (nparams) AdamW moments */
	struct seq_result *res; /* (B) */
	float scale;         /* 1 / counted positions of the batch */
	struct train_head_norm head_norm[TRAIN_MAX_LAYERS * MHA_MAX_HEADS]; /* of grad, each step */
	struct seq_work work[MAX_THREADS];
	struct pool *pool;   /* o.threads threads (the caller is thread 0) */
};

static struct train_options options_default(const struct train_task *t)
{
	struct train_options o = { .batch = 16, .threads = 1, .beta1 = 0.9f, .beta2 = 0.98f,
	                           .eps = 1e-8f, .weight_decay = 0.01f, .lr = t->lr };
	return o;
}

void trainer_destroy(struct trainer *tr)
{
	if (!tr)
		return;
	for (int i = 0; i < MAX_THREADS; i++)
		if (tr->work[i].mem)
			seq_work_free(&tr->work[i]);
	free(tr->tokens);
	free(tr->targets);
	free(tr->slots);
	free(tr->grad);
	free(tr->adam_m);
	free(tr->adam_v);
	free(tr->res);
	pool_destroy(tr->pool);
	free(tr);
}

enum mha_status trainer_create(struct trainer **out, struct train_model *m,
                               const struct train_task *t, const struct train_options *o,
                               uint64_t seed, char *msg, size_t len)
{
	*out = NULL;
	struct trainer *tr = calloc(1, sizeof *tr);
	if (!tr) {
		snprintf(msg, len, "out of memory for the trainer");
		return MHA_ENOMEM;
	}
	tr->m = m;
	tr->task = t;
	tr->o = options_default(t);
	if (o) {
		struct train_options d = tr->o;
		tr->o = *o;
		/* a field left 0 takes its default (weight decay: set it < 0 for none) */
		if (!o->lr) tr->o.lr = d.lr;
		if (!o->batch) tr->o.batch = d.batch;
		if (!o->threads) tr->o.threads = d.threads;
		if (!o->beta1) tr->o.beta1 = d.beta1;
		if (!o->beta2) tr->o.beta2 = d.beta2;
		if (!o->eps) tr->o.eps = d.eps;
		if (!o->weight_decay) tr->o.weight_decay = d.weight_decay;
		if (o->weight_decay < 0) tr->o.weight_decay = 0;
	}
	if (tr->o.threads > MAX_THREADS)
		tr->o.threads = MAX_THREADS;
	if (tr->o.threads > tr->o.batch)
		tr->o.threads = tr->o.batch;
	tr->rng = seed ^ 0x747261696eULL;
	size_t B = (size_t)tr->o.batch, n = (size_t)m->s.n, np = m->nparams;
	tr->tokens = calloc(B * n, sizeof(int));
	tr->targets = calloc(B * n, sizeof(int));
	tr->slots = calloc(B * np, sizeof(float));
	tr->grad = calloc(np, sizeof(float));
	tr->adam_m = calloc(np, sizeof(float));
	tr->adam_v = calloc(np, sizeof(float));
	tr->res = calloc(B, sizeof *tr->res);
	tr->pool = pool_create(tr->o.threads);
	if (!tr->pool) { /* no thread to be had: the caller alone */
		tr->o.threads = 1;
		tr->pool = pool_create(1);
	}
	bool ok = tr->tokens && tr->targets && tr->slots && tr->grad && tr->adam_m && tr->adam_v && tr->res &&
	          tr->pool;
	for (int i = 0; ok && i < tr->o.threads; i++) {
		ok = seq_work_alloc(&tr->work[i], m) == MHA_OK;
		tr->work[i].vector = true; /* the engine's softmax row: doc/PERFORMANCE.md */
	}
	if (!ok) {
		trainer_destroy(tr);
		snprintf(msg, len, "out of memory for the trainer");
		return MHA_ENOMEM;
	}
	*out = tr;
	return MHA_OK;
}

long trainer_steps(const struct trainer *tr)
{
	return tr->step;
}

/* Sequence b's forward and backward, its gradient into slot b; the
 * thread's own scratch (work[thread]) holds nothing between sequences. */
static void sequence_task(void *ctx, int b, int thread)
{
	struct trainer *tr = ctx;
	const struct train_model *m = tr->m;
	size_t n = (size_t)m->s.n;
	struct train_model g;
	train_model_view(&g, &m->s, tr->slots + (size_t)b * m->nparams);
	seq_forward(m, &tr->work[thread], tr->tokens + b * n, tr->targets + b * n, &tr->res[b]);
	seq_backward(m, &tr->work[thread], tr->tokens + b * n, tr->targets + b * n, tr->scale, &g);
}

/* grad[e] = slot_0[e] + slot_1[e] + ... in sequence order, for the
 * parameters of chunk c: the same bits for any thread count. */
static void sum_task(void *ctx, int c, int thread)
{
	(void)thread;
	struct trainer *tr = ctx;
	const size_t np = tr->m->nparams, e0 = (size_t)c * SUM_CHUNK;
	const size_t e1 = e0 + SUM_CHUNK < np ? e0 + SUM_CHUNK : np;
	memcpy(tr->grad + e0, tr->slots + e0, (e1 - e0) * sizeof(float));
	for (int b = 1; b < tr->o.batch; b++)
		vexp_add(tr->grad + e0, tr->slots + (size_t)b * np + e0, e1 - e0);
}

void trainer_step(struct trainer *tr, struct train_stats *st)
{
	struct train_model *m = tr->m;
	const size_t n = (size_t)m->s.n, np = m->nparams;
	const int B = tr->o.batch;
	long counted = 0;
	for (int b = 0; b < B; b++) {
		train_task_sample(tr->task, m->s.n, m->s.vocab, &tr->rng, tr->tokens + b * n,
		                  tr->targets + b * n);
		for (size_t i = 0; i < n; i++)
			counted += tr->targets[b * n + i] >= 0;
	}
	tr->scale = counted ? 1.0f / (float)counted : 0.0f;

	// forward and backward of every sequence, BLAS single-threaded inside
	int had = gemm_threads_set(1);
	pool_run(tr->pool, sequence_task, tr, B);
	gemm_threads_set(had);
	pool_run(tr->pool, sum_task, tr, (int)((np + SUM_CHUNK - 1) / SUM_CHUNK));
	struct train_stats bs = { 0 };
	long correct = 0;
	for (int b = 0; b < B; b++) {
		bs.loss += tr->res[b].loss;
		correct += tr->res[b].correct;
	}
	bs.counted = counted;
	if (counted) {
		bs.loss /= (double)counted;
		bs.accuracy = (double)correct / (double)counted;
	}
	if (st)
		*st = bs;

	struct train_model g;
	train_model_view(&g, &m->s, tr->grad);
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			tr->head_norm[l * MHA_MAX_HEADS + i] = train_head_slice_norm(&g, l, i);

	tr->step++;
	train_adamw_update(m->params, tr->grad, tr->adam_m, tr->adam_v, np, tr->step, &tr->o, tr->o.lr);
}

float train_clip_factor(const float *grad, size_t np)
{
	// clip the global norm at 1: every element times min(1, 1 / ||g||)
	double norm = 0;
	for (size_t e = 0; e < np; e++)
		norm += (double)grad[e] * grad[e];
	norm = sqrt(norm);
	return norm > 1.0 ? (float)(1.0 / norm) : 1.0f;
}

void train_adamw_update(float *params, const float *grad, float *am, float *av, size_t np, long step,
                        const struct train_options *o, float lr)
{
	const float clip = train_clip_factor(grad, np);
	// AdamW, decoupled weight decay:
	//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,  mh = m / (1 - b1^t),  vh = v / (1 - b2^t)
	//   p -= lr (mh / (sqrt(vh) + eps) + wd p)
	const float b1 = o->beta1, b2 = o->beta2, wd = o->weight_decay;
	const float c1 = 1.0f - powf(b1, (float)step), c2 = 1.0f - powf(b2, (float)step);
	for (size_t e = 0; e < np; e++) {
		float gr = grad[e] * clip;
		am[e] = b1 * am[e] + (1.0f - b1) * gr;
		av[e] = b2 * av[e] + (1.0f - b2) * gr * gr;
		float mh = am[e] / c1, vh = av[e] / c2;
		params[e] -= lr * (mh / (sqrtf(vh) + o->eps) + wd * params[e]);
	}
}

void trainer_head_grad_norms(const struct trainer *tr, double *norms)
{
	for (int k = 0; k < TRAIN_MAX_LAYERS * MHA_MAX_HEADS; k++)
		norms[k] = tr->head_norm[k].all;
}

void trainer_head_grads(const struct trainer *tr, struct train_head_norm *norms)
{
	memcpy(norms, tr->head_norm, sizeof tr->head_norm);
}

const float *trainer_last_grad(const struct trainer *tr)
{
	return tr->grad;
}

void trainer_last_batch(const struct trainer *tr, const int **tokens, const int **targets)
{
	*tokens = tr->tokens;
	*targets = tr->targets;
}

struct train_options trainer_options(const struct trainer *tr)
{
	return tr->o;
}
