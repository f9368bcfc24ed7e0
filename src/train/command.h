/*
 * command.h - the headless commands `mha-tui --train TASK` and
 * `mha-tui --ablate TASK` (doc/TRAINING.md): they print to the streams
 * they are given and return an exit status; main.c only dispatches.
 */
#ifndef TRAIN_COMMAND_H
#define TRAIN_COMMAND_H

#include <stdint.h>
#include <stdio.h>

struct train_request {
	const char *task;   /* a name train_task_find knows */
	int layers, d_model, heads, steps, seeds; /* 0: default */
	uint64_t seed;
	const char *save;   /* model file to write, or NULL */
	int threads;        /* 0: 1 */
};

/* Progress on err, the final line (loss, held-out accuracy, pattern
 * scores) on out. 0, 1 (could not save), 2 (bad shape). */
int train_command(const struct train_request *rq, FILE *out, FILE *err);
/* h = 1, 2, 4, ... d_model with d_k = d_model / h, each over rq->seeds
 * seeds: a table and a text plot of held-out accuracy and loss on out. */
int ablate_command(const struct train_request *rq, FILE *out, FILE *err);

#endif
