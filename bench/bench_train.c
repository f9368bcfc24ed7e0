/*
 * bench_train.c - mha-bench-train: training speed of the default induction
 * model (2 layers, d_model 32, 2 heads a layer, context 32, batch 16),
 * in steps per second at 1 and 2 threads (rounds interleaved, median and
 * range); the time until its induction head forms (best layer-1 induction
 * score above 0.4, checked every 25 steps, training time only) over seeds;
 * and the wall time of the default ablation (`mha-tui --ablate multi`).
 * Run by `meson test -C build --benchmark`; figures in doc/TRAINING.md.
 * Timing only: the tests check what training learns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "command.h"
#include "gemm.h"
#include "train.h"

enum { ROUNDS = 7, STEPS_PER_ROUND = 60, SEEDS = 5 };

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

int main(void)
{
	const struct train_task *t = train_task_find("induction");
	printf("mha-bench-train: %s; default induction model: 2 layers, d_model 32, 2 heads, "
	       "context 32, batch 16\n", gemm_backend());
	/* steps per second, 1 and 2 threads interleaved round by round */
	struct run r[2];
	double sps[2][ROUNDS];
	for (int k = 0; k < 2; k++)
		if (run_open(&r[k], t, k + 1, 1) != 0)
			return 1;
	for (int k = 0; k < 2; k++) /* warm up */
		for (int s = 0; s < 20; s++)
			trainer_step(r[k].tr, NULL);
	for (int round = 0; round < ROUNDS; round++)
		for (int k = 0; k < 2; k++) {
			double t0 = now();
			for (int s = 0; s < STEPS_PER_ROUND; s++)
				trainer_step(r[k].tr, NULL);
			sps[k][round] = STEPS_PER_ROUND / (now() - t0);
		}
	for (int k = 0; k < 2; k++) {
		qsort(sps[k], ROUNDS, sizeof(double), cmp);
		printf("train steps/s, %d thread%s: median %.0f (range %.0f..%.0f over %d rounds of %d steps)\n",
		       k + 1, k ? "s" : "", sps[k][ROUNDS / 2], sps[k][0], sps[k][ROUNDS - 1], ROUNDS,
		       STEPS_PER_ROUND);
		run_close(&r[k]);
	}
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
			double t0 = now();
			trainer_step(x.tr, NULL);
			used += now() - t0;
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
	double t0 = now();
	int rc = ablate_command(&rq, devnull, devnull);
	printf("default ablation (mha-tui --ablate multi: h 1..32, 5 seeds x 150 steps): %.1f s%s "
	       "(target < 180 s)\n", now() - t0, rc ? " (failed)" : "");
	fclose(devnull);
	return 0;
}
