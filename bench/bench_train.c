/*
 * bench_train.c - mha-bench-train: training speed of the default induction
 * model (2 layers, d_model 32, 2 heads a layer, context 32, batch 16),
 * in steps per second at 1 and 2 threads (rounds interleaved, median and
 * range); the same for the language model's configuration (lm_command.h's
 * defaults, batch 32) on a stream of random words (a step's cost does not
 * depend on the text); the time until its induction head forms (best layer-1 induction
 * score above 0.4, checked every 25 steps, training time only) over seeds;
 * and the wall time of the default ablation (`mha-tui --ablate multi`).
 * Run by `meson test -C build --benchmark`; figures in doc/TRAINING.md.
 * Timing only: the tests check what training learns.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "command.h"
#include "gemm.h"
#include "lm.h"
#include "lm_command.h"
#include "train.h"

enum { ROUNDS = 7, STEPS_PER_ROUND = 60, LM_STEPS_PER_ROUND = 6, SEEDS = 5 };

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct run {
	struct train_model m;
	struct trainer *tr;
};

static int run_open(struct run *r, const struct train_task *t, int threads, uint64_t seed)
{
	char msg[MHA_MSG_MAX];
	struct train_shape s = train_task_shape(t, 0, 0, 0);
	struct train_options o = { .threads = threads };
	if (train_model_alloc(&r->m, &s) != MHA_OK)
		return -1;
	train_model_init(&r->m, seed);
	if (trainer_create(&r->tr, &r->m, t, &o, seed, msg, sizeof msg) != MHA_OK) {
		fprintf(stderr, "mha-bench-train: %s\n", msg);
		return -1;
	}
	return 0;
}

static void run_close(struct run *r)
{
	trainer_destroy(r->tr);
	train_model_free(&r->m);
}

typedef void step_fn(void *run);

/* Steps per second of runs[0] (1 thread) and runs[1] (2 threads), their
 * rounds interleaved, the order swapping each round; printed as median and
 * range, then the 2-thread / 1-thread ratio of each round's pair. */
static void interleaved_speed(const char *what, step_fn *step, void *runs[2], int steps)
{
	double sps[2][ROUNDS], ratio[ROUNDS];
	for (int k = 0; k < 2; k++) /* warm up */
		for (int s = 0; s < steps / 3 + 1; s++)
			step(runs[k]);
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < 2; i++) {
			int k = round % 2 ? 1 - i : i;
			double t0 = clock_wall();
			for (int s = 0; s < steps; s++)
				step(runs[k]);
			sps[k][round] = steps / (clock_wall() - t0);
		}
		ratio[round] = sps[1][round] / sps[0][round];
	}
	for (int k = 0; k < 2; k++) {
		qsort(sps[k], ROUNDS, sizeof(double), cmp);
		printf("%s steps/s, %d thread%s: median %.1f (range %.1f..%.1f over %d rounds of %d steps)\n", what,
		       k + 1, k ? "s" : "", sps[k][ROUNDS / 2], sps[k][0], sps[k][ROUNDS - 1], ROUNDS, steps);
	}
	qsort(ratio, ROUNDS, sizeof(double), cmp);
	printf("%s 2 threads / 1 thread: median %.2fx (range %.2f..%.2f)\n", what, ratio[ROUNDS / 2], ratio[0],
	       ratio[ROUNDS - 1]);
}

static void induction_step(void *run)
{
	trainer_step(((struct run *)run)->tr, NULL);
}

struct lm_run {
	struct train_model m;
	struct lm_trainer *tr;
};

static void lm_step(void *run)
{
	lm_trainer_step(((struct lm_run *)run)->tr, NULL);
}

/* The language model's configuration at 1 and 2 threads. */
static int lm_speed(void)
{
	enum { WORDS = 1 << 20 };
	struct train_shape s = { .layers = LM_DEFAULT_LAYERS, .d = LM_DEFAULT_D, .h = LM_DEFAULT_HEADS,
	                         .dk = LM_DEFAULT_D / LM_DEFAULT_HEADS, .vocab = LM_DEFAULT_VOCAB,
	                         .classes = LM_DEFAULT_VOCAB, .n = LM_DEFAULT_CONTEXT };
	struct lm_stream text = { malloc(WORDS * sizeof(int)), WORDS, 0, 1 };
	if (!text.ids)
		return -1;
	uint64_t rng = 7;
	for (long i = 0; i < WORDS; i++)
		text.ids[i] = (int)(train_rand(&rng) % LM_DEFAULT_VOCAB);
	struct lm_run r[2];
	void *runs[2] = { &r[0], &r[1] };
	char msg[MHA_MSG_MAX];
	for (int k = 0; k < 2; k++) {
		struct lm_train_options o = { .threads = k + 1, .steps = 1000 };
		if (train_model_alloc(&r[k].m, &s) != MHA_OK)
			return -1;
		train_model_init(&r[k].m, 1);
		if (lm_trainer_create(&r[k].tr, &r[k].m, &text, &o, 1, msg, sizeof msg) != MHA_OK) {
			fprintf(stderr, "mha-bench-train: %s\n", msg);
			return -1;
		}
	}
	printf("language model: %d layers, d_model %d, %d heads, context %d, vocabulary %d, batch 32\n",
	       s.layers, s.d, s.h, s.n, s.vocab);
	interleaved_speed("language model", lm_step, runs, LM_STEPS_PER_ROUND);
	for (int k = 0; k < 2; k++) {
		lm_trainer_destroy(r[k].tr);
		train_model_free(&r[k].m);
	}
	free(text.ids);
	return 0;
}

int main(void)
{
	const struct train_task *t = train_task_find("induction");
	printf("mha-bench-train: %s; default induction model: 2 layers, d_model 32, 2 heads, "
	       "context 32, batch 16\n", gemm_backend());
	/* steps per second, 1 and 2 threads interleaved round by round */
	struct run r[2];
	void *runs[2] = { &r[0], &r[1] };
	for (int k = 0; k < 2; k++)
		if (run_open(&r[k], t, k + 1, 1) != 0)
			return 1;
	interleaved_speed("induction", induction_step, runs, STEPS_PER_ROUND);
	for (int k = 0; k < 2; k++)
		run_close(&r[k]);
	if (lm_speed() != 0)
		return 1;
	/* time until the induction head forms, 1 thread */
	double formed[SEEDS];
	long formed_step[SEEDS];
	for (int sd = 0; sd < SEEDS; sd++) {
		struct run x;
		if (run_open(&x, t, 1, (uint64_t)sd + 1) != 0)
			return 1;
		double used = 0, sc[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
		formed[sd] = -1;
		formed_step[sd] = -1;
		for (int step = 1; step <= 2000 && formed[sd] < 0; step++) {
			double t0 = clock_wall();
			trainer_step(x.tr, NULL);
			used += clock_wall() - t0;
			if (step % 25)
				continue;
			train_pattern_scores(&x.m, sc);
			for (int i = 0; i < x.m.s.h; i++)
				if (sc[(1 * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + TRAIN_PAT_INDUCTION] > 0.4) {
					formed[sd] = used;
					formed_step[sd] = step;
				}
		}
		printf("induction head (score > 0.4), seed %d: step %ld, %.3f s of training\n", sd + 1,
		       formed_step[sd], formed[sd]);
		run_close(&x);
	}
	qsort(formed, SEEDS, sizeof(double), cmp);
	printf("induction head forms in: median %.3f s (range %.3f..%.3f, %d seeds; target < 10 s)\n",
	       formed[SEEDS / 2], formed[0], formed[SEEDS - 1], SEEDS);
	/* the default ablation, as `mha-tui --ablate multi` runs it */
	FILE *devnull = fopen("/dev/null", "w");
	struct train_request rq = { .task = "multi", .seed = 1, .threads = 1 };
	double t0 = clock_wall();
	int rc = ablate_command(&rq, devnull, devnull);
	printf("default ablation (mha-tui --ablate multi: h 1..32, 5 seeds x 150 steps): %.1f s%s "
	       "(target < 180 s)\n", clock_wall() - t0, rc ? " (failed)" : "");
	fclose(devnull);
	return 0;
}
