/*
 * tasks.c - the toy tasks, generated in C from a seeded stream (no data
 * files), and their default models. Each task names the head that would
 * solve it; doc/TRAINING.md has the table. This file does not train.
 */
#include "train.h"

#include <string.h>

/* splitmix64: tiny, fast, the same stream on every machine */
uint64_t train_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int below(uint64_t *rng, int k)
{
	return (int)(train_rand(rng) % (uint64_t)k);
}

/* name, what, head, layer, V, C, n, L, steps, lr, accuracy, score, ablation steps:
 * the defaults are what the tests check (tests/train/test_tasks.c). */
static const struct train_task tasks[TRAIN_TASK_COUNT] = {
	{ TRAIN_PREVIOUS, "previous", "copy the previous token: target_i = t_{i-1}",
	  TRAIN_PAT_PREVIOUS, 0, 16, 16, 16, 1, 200, 1e-2f, 0.95, 0.8, 100 },
	{ TRAIN_FIRST, "first", "copy the first token: target_i = t_0",
	  TRAIN_PAT_FIRST, 0, 16, 16, 16, 1, 200, 1e-2f, 0.95, 0.8, 100 },
	{ TRAIN_DUPLICATE, "duplicate", "1 when t_i occurred earlier in the sequence, else 0",
	  TRAIN_PAT_DUPLICATE, 0, 32, 2, 16, 1, 600, 1e-2f, 0.9, 0.5, 600 },
	{ TRAIN_MULTI, "multi", "the pair (t_0, t_{i-1}) as one class t_0 * 8 + t_{i-1}",
	  TRAIN_PAT_PREVIOUS, 0, 8, 64, 16, 1, 400, 1e-2f, 0.9, 0.5, 150 },
	{ TRAIN_INDUCTION, "induction",
	  "random tokens repeated with a random period: the token that followed this one before",
	  TRAIN_PAT_INDUCTION, 1, 32, 32, 32, 2, 600, 1e-2f, 0.9, 0.4, 400 },
};

const struct train_task *train_task_get(enum train_task_id id)
{
	return (unsigned)id < TRAIN_TASK_COUNT ? &tasks[id] : NULL;
}

const struct train_task *train_task_find(const char *name)
{
	for (int i = 0; i < TRAIN_TASK_COUNT; i++)
		if (!strcmp(tasks[i].name, name))
			return &tasks[i];
	return NULL;
}

const char *train_pattern_name(enum train_pattern p)
{
	static const char *names[TRAIN_PAT_COUNT] = { "previous", "first", "self", "duplicate",
	                                              "induction" };
	return (unsigned)p < TRAIN_PAT_COUNT ? names[p] : "?";
}

const char *train_pattern_brief(enum train_pattern p)
{
	static const char *names[TRAIN_PAT_COUNT] = { "prev", "first", "self", "dup", "induct" };
	return (unsigned)p < TRAIN_PAT_COUNT ? names[p] : "?";
}

/* m tokens, distinct while the vocabulary allows */
static void draw_distinct(int *t, int m, int vocab, uint64_t *rng)
{
	for (int i = 0; i < m; i++) {
		int tries = 0;
		bool dup;
		do {
			t[i] = below(rng, vocab);
			dup = false;
			for (int j = 0; j < i && m <= vocab; j++)
				dup |= t[j] == t[i];
		} while (dup && ++tries < 64);
	}
}

void train_task_sample(const struct train_task *t, int n, int vocab, uint64_t *rng,
                       int *tokens, int *targets)
{
	for (int i = 0; i < n; i++) {
		tokens[i] = below(rng, vocab);
		targets[i] = -1;
	}
	switch (t->id) {
	case TRAIN_PREVIOUS:
		for (int i = 1; i < n; i++)
			targets[i] = tokens[i - 1];
		break;
	case TRAIN_FIRST:
		for (int i = 1; i < n; i++)
			targets[i] = tokens[0];
		break;
	case TRAIN_DUPLICATE:
		/* half the positions repeat an earlier token, so both answers are common */
		for (int i = 1; i < n; i++) {
			if (train_rand(rng) & 1)
				tokens[i] = tokens[below(rng, i)];
			int seen = 0;
			for (int j = 0; j < i; j++)
				seen |= tokens[j] == tokens[i];
			targets[i] = seen;
		}
		break;
	case TRAIN_MULTI: {
		int side = t->classes / vocab > 0 ? vocab : 1; /* classes = vocab^2 */
		for (int i = 1; i < n; i++)
			targets[i] = (tokens[0] * side + tokens[i - 1]) % t->classes;
		break;
	}
	case TRAIN_INDUCTION: {
		/* a random block of m distinct tokens, m drawn from [n/4, n/2], then
		 * repeated to the end: t_i = t_{i-m}. The period varies, so no
		 * fixed offset solves it: only matching the current token does. */
		int lo = n / 4 > 1 ? n / 4 : 1, hi = n / 2 > lo ? n / 2 : lo;
		int m = lo + below(rng, hi - lo + 1);
		draw_distinct(tokens, m, vocab, rng);
		for (int i = m; i < n; i++)
			tokens[i] = tokens[i - m];
		/* in a repeat, t_{i+1} = t_{i-m+1}: what followed t_i the last time */
		for (int i = m; i + 1 < n; i++)
			targets[i] = tokens[i + 1];
		break;
	}
	case TRAIN_TASK_COUNT:
		break;
	}
}

struct train_shape train_task_shape(const struct train_task *t, int layers, int d, int h)
{
	struct train_shape s = {
		.layers = layers ? layers : t->layers, .d = d ? d : 32, .h = h ? h : 2,
		.vocab = t->vocab, .classes = t->classes, .n = t->tokens,
	};
	s.dk = s.h > 0 && s.d % s.h == 0 ? s.d / s.h : 0;
	return s;
}

enum mha_status train_shape_check(const struct train_shape *s, char *msg, size_t len)
{
	return train_shape_check_limit(s, TRAIN_MAX_VOCAB, msg, len);
}

enum mha_status train_shape_check_limit(const struct train_shape *s, int max_vocab, char *msg, size_t len)
{
	struct mha_config c = mha_config_default();
	c.n = s->n; c.d = s->d; c.h = s->h; c.g = s->h; c.dk = s->dk; c.causal = true;
	if (s->layers < 1 || s->layers > TRAIN_MAX_LAYERS) {
		snprintf(msg, len, "layers %d is out of range: allowed 1..%d", s->layers, TRAIN_MAX_LAYERS);
		return MHA_EINVAL;
	}
	if (s->d < 1 || s->d > TRAIN_MAX_D) {
		snprintf(msg, len, "d_model %d is out of range for training: allowed 1..%d", s->d, TRAIN_MAX_D);
		return MHA_EINVAL;
	}
	if (s->h < 1 || s->dk < 1 || (long long)s->h * s->dk != s->d) { /* as read from a model file: any int */
		snprintf(msg, len, "heads %d do not divide d_model %d: choose heads that divide it",
		         s->h, s->d);
		return MHA_EINVAL;
	}
	if (s->vocab < 1 || s->vocab > max_vocab || s->classes < 1 || s->classes > max_vocab) {
		snprintf(msg, len, "vocabulary %d or classes %d out of range 1..%d", s->vocab, s->classes,
		         max_vocab);
		return MHA_EINVAL;
	}
	return mha_config_check(&c, msg, len);
}
