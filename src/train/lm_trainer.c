/*
 * lm_trainer.c - training the language model: each step draws a batch of
 * windows of n + 1 tokens at random offsets of the training stream
 * (seeded), runs the batched forward and backward (lm_model.c), clips the
 * gradient's global norm at 1 and takes one AdamW step (the toy trainer's
 * train_adamw_update) at the learning rate of a warm-up then cosine
 * schedule. Same seed, same bits, for any thread count. It does not
 * evaluate (lm_eval.c) or write files (lm_file.c).
 */
#include "lm.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lm_trainer {
	struct train_model *m;
	const struct lm_stream *data;
	struct lm_train_options o;
	struct train_options adam;
	uint64_t rng;
	long step;
	int *tokens, *targets;   /* (B, n) */
	float *grad, *am, *av;   /* (nparams) */
	float *slots;            /* (B, layer parameters) */
	struct lm_batch bt;
};

struct lm_train_options lm_train_defaults(const struct lm_train_options *o)
{
	struct lm_train_options d = { .batch = 32, .threads = 1, .steps = 1000, .warmup = 100, .lr = 3e-3f,
	                              .lr_end = 0.1f };
	if (!o)
		return d;
	if (o->batch > 0) d.batch = o->batch;
	if (o->threads > 0) d.threads = o->threads;
	if (o->steps > 0) d.steps = o->steps;
	if (o->warmup > 0) d.warmup = o->warmup;
	if (o->lr > 0) d.lr = o->lr;
	if (o->lr_end > 0) d.lr_end = o->lr_end;
	return d;
}

float lm_lr_at(const struct lm_train_options *o, long k)
{
	// warm-up: lr k / warmup; then cosine from lr down to lr_end lr at the last step
	if (k <= o->warmup)
		return o->lr * (float)k / (float)o->warmup;
	double span = o->steps > o->warmup ? (double)(o->steps - o->warmup) : 1.0;
	double u = fmin(1.0, (double)(k - o->warmup) / span);
	double f = o->lr_end + (1.0 - o->lr_end) * 0.5 * (1.0 + cos(M_PI * u));
	return (float)(o->lr * f);
}

void lm_trainer_destroy(struct lm_trainer *t)
{
	if (!t)
		return;
	lm_batch_free(&t->bt);
	free(t->tokens);
	free(t->targets);
	free(t->grad);
	free(t->am);
	free(t->av);
	free(t->slots);
	free(t);
}

enum mha_status lm_trainer_create(struct lm_trainer **out, struct train_model *m,
                                  const struct lm_stream *train, const struct lm_train_options *o,
                                  uint64_t seed, char *msg, size_t len)
{
	*out = NULL;
	if (train->len < m->s.n + 2) {
		snprintf(msg, len, "the training text has %ld tokens: a window needs %d", train->len, m->s.n + 1);
		return MHA_EINVAL;
	}
	struct lm_trainer *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(msg, len, "out of memory for the trainer");
		return MHA_ENOMEM;
	}
	t->m = m;
	t->data = train;
	t->o = lm_train_defaults(o);
	/* AdamW as the toy tasks have it: betas 0.9 / 0.98, eps 1e-8, decay 0.01 */
	t->adam = (struct train_options){ .batch = t->o.batch, .threads = t->o.threads, .beta1 = 0.9f,
	                                  .beta2 = 0.98f, .eps = 1e-8f, .weight_decay = 0.01f, .lr = t->o.lr };
	t->rng = seed ^ 0x6c6d747261696eULL;
	size_t B = (size_t)t->o.batch, n = (size_t)m->s.n, np = m->nparams;
	t->tokens = malloc(B * n * sizeof *t->tokens);
	t->targets = malloc(B * n * sizeof *t->targets);
	t->grad = calloc(np, sizeof *t->grad);
	t->am = calloc(np, sizeof *t->am);
	t->av = calloc(np, sizeof *t->av);
	t->slots = malloc(B * lm_slot_floats(m) * sizeof *t->slots);
	if (!t->tokens || !t->targets || !t->grad || !t->am || !t->av || !t->slots ||
	    lm_batch_alloc(&t->bt, m, t->o.batch, t->o.threads) != MHA_OK) {
		lm_trainer_destroy(t);
		snprintf(msg, len, "out of memory for the trainer (batch %d)", t->o.batch);
		return MHA_ENOMEM;
	}
	*out = t;
	return MHA_OK;
}

void lm_trainer_step(struct lm_trainer *t, struct train_stats *st)
{
	struct train_model *m = t->m;
	const int B = t->o.batch, n = m->s.n;
	const long span = t->data->len - n; /* offsets 0 .. len - n - 1: n inputs and their n next tokens */
	for (int b = 0; b < B; b++) {
		long off = (long)(train_rand(&t->rng) % (uint64_t)span);
		memcpy(t->tokens + (size_t)b * n, t->data->ids + off, (size_t)n * sizeof *t->tokens);
		memcpy(t->targets + (size_t)b * n, t->data->ids + off + 1, (size_t)n * sizeof *t->targets);
	}
	struct lm_result r;
	lm_forward(m, &t->bt, t->tokens, t->targets, B, n, t->o.threads, &r);
	float scale = r.counted ? 1.0f / (float)r.counted : 0.0f;
	struct train_model g;
	train_model_view(&g, &m->s, t->grad);
	lm_backward(m, &t->bt, t->tokens, t->targets, scale, t->o.threads, t->slots, &g);
	t->step++;
	train_adamw_update(m->params, t->grad, t->am, t->av, m->nparams, t->step, &t->adam,
	                   lm_lr_at(&t->o, t->step));
	if (st) {
		st->counted = r.counted;
		st->loss = r.counted ? r.loss / (double)r.counted : 0;
		st->accuracy = r.counted ? (double)r.correct / (double)r.counted : 0;
	}
}
