/*
 * train_py.c - mha-tui's trainer seen from outside, for
 * tools/compare_torch_train.py (ctypes, in libmhapy.so beside mha_py.c):
 * a named training configuration, its initial weights, one step at a time
 * with the batch that step drew and its loss, and runs of many steps for
 * timing. The script builds the same model in PyTorch from these weights,
 * feeds it the same batches and compares the losses step by step
 * (doc/PERFORMANCE.md, "Training against PyTorch"). Nothing here
 * trains differently from `mha-tui --train`: it calls the same trainer.
 *
 * A configuration is a row of `configs` below: a name, the task the
 * trainer draws batches from, and its model (0: the task's default). A
 * new one (the language model, once it is a task) is one row here; the
 * script builds its PyTorch twin from mha_py_train_shape.
 */
#include "train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct train_config {
	const char *name;   /* what the script asks for */
	const char *task;   /* train_task_find's name */
	int layers, d, h;   /* 0: the task's default model */
	int batch;          /* sequences per step */
};

static const struct train_config configs[] = {
	/* doc/TRAINING.md's default induction model: 2 layers, d_model 32,
	 * 2 heads, context 32, batch 16 */
	{ "induction", "induction", 0, 0, 0, 16 },
};

struct mha_py_train {
	struct train_model m;
	struct trainer *tr;
	int batch;
};

/* The entry points, for ctypes (declared here: no header). */
struct mha_py_train *mha_py_train_create(const char *config, unsigned long long seed, int threads,
                                         char *msg, int len);
int mha_py_train_shape(const struct mha_py_train *t, long *out, int max);
void mha_py_train_hparams(const struct mha_py_train *t, double *out);
void mha_py_train_params(const struct mha_py_train *t, float *out);
double mha_py_train_step(struct mha_py_train *t, int *tokens, int *targets);
void mha_py_train_run(struct mha_py_train *t, int steps);
void mha_py_train_destroy(struct mha_py_train *t);
const char *mha_py_train_config_name(int i);

/* The i-th configuration's name, NULL past the last (for --list). */
const char *mha_py_train_config_name(int i)
{
	return i >= 0 && i < (int)(sizeof configs / sizeof configs[0]) ? configs[i].name : NULL;
}

/* The configuration's model, initialised with seed (train_model_init, as
 * `mha-tui --train --seed`), and a trainer on the task's stream with the
 * same seed and threads. NULL with msg for an unknown name or no memory. */
struct mha_py_train *mha_py_train_create(const char *config, unsigned long long seed, int threads,
                                         char *msg, int len)
{
	const struct train_config *c = NULL;
	for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
		if (!strcmp(configs[i].name, config))
			c = &configs[i];
	if (!c) {
		snprintf(msg, (size_t)len, "no training configuration '%s'", config);
		return NULL;
	}
	const struct train_task *task = train_task_find(c->task);
	struct mha_py_train *t = calloc(1, sizeof *t);
	if (!task || !t) {
		snprintf(msg, (size_t)len, task ? "out of memory" : "no task '%s'", c->task);
		free(t);
		return NULL;
	}
	struct train_shape s = train_task_shape(task, c->layers, c->d, c->h);
	if (train_shape_check(&s, msg, (size_t)len) != MHA_OK || train_model_alloc(&t->m, &s) != MHA_OK) {
		free(t);
		return NULL;
	}
	train_model_init(&t->m, seed);
	struct train_options o = { .batch = c->batch, .threads = threads };
	if (trainer_create(&t->tr, &t->m, task, &o, seed, msg, (size_t)len) != MHA_OK) {
		train_model_free(&t->m);
		free(t);
		return NULL;
	}
	t->batch = trainer_options(t->tr).batch;
	return t;
}

/* out[0..9]: layers, d, h, dk, vocab, classes, n, batch, nparams, threads.
 * Returns how many it wrote (at most max). */
int mha_py_train_shape(const struct mha_py_train *t, long *out, int max)
{
	const struct train_shape *s = &t->m.s;
	long v[] = { s->layers, s->d, s->h, s->dk, s->vocab, s->classes, s->n, t->batch,
	             (long)t->m.nparams, trainer_options(t->tr).threads };
	int k = (int)(sizeof v / sizeof v[0]);
	k = k < max ? k : max;
	memcpy(out, v, (size_t)k * sizeof *out);
	return k;
}

/* out[0..4]: the AdamW settings the trainer runs with: lr, beta1, beta2,
 * eps, weight decay (the clipping norm, 1, is fixed: doc/TRAINING.md). */
void mha_py_train_hparams(const struct mha_py_train *t, double *out)
{
	struct train_options o = trainer_options(t->tr);
	out[0] = o.lr;
	out[1] = o.beta1;
	out[2] = o.beta2;
	out[3] = o.eps;
	out[4] = o.weight_decay;
}

/* Every parameter (nparams floats) in train_model_view's order: E, P,
 * then per layer W^Q, W^K, W^V, W^O, then U, each row-major. */
void mha_py_train_params(const struct mha_py_train *t, float *out)
{
	memcpy(out, t->m.params, t->m.nparams * sizeof *out);
}

/* One training step. tokens, targets (batch * n each) receive the batch
 * it drew; returns that batch's mean loss before the update. */
double mha_py_train_step(struct mha_py_train *t, int *tokens, int *targets)
{
	struct train_stats st;
	trainer_step(t->tr, &st);
	const int *tok, *tgt;
	trainer_last_batch(t->tr, &tok, &tgt);
	size_t len = (size_t)t->batch * (size_t)t->m.s.n;
	memcpy(tokens, tok, len * sizeof *tokens);
	memcpy(targets, tgt, len * sizeof *targets);
	return st.loss;
}

/* steps training steps, nothing copied out: what the script times. */
void mha_py_train_run(struct mha_py_train *t, int steps)
{
	for (int i = 0; i < steps; i++)
		trainer_step(t->tr, NULL);
}

void mha_py_train_destroy(struct mha_py_train *t)
{
	if (!t)
		return;
	trainer_destroy(t->tr);
	train_model_free(&t->m);
	free(t);
}
