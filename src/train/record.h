/*
 * record.h - a training run recorded so it can be watched again: what the
 * training screen draws of one step (struct train_snap: the batch's loss,
 * held-out figures, every head's pattern scores, gradient norm, distances
 * back, how far apart its layer's heads are, and the probe's attention),
 * kept at steps spaced so that memory stays bounded, the whole run's loss
 * step by step (pairs merged when it grows long), and the step at which
 * each head type formed. Pure data: it computes no score (the caller
 * hands it each snapshot) and draws nothing. doc/TRAINING.md, "Watching
 * a run".
 *
 * Spacing: a snapshot every `stride` steps, TRAIN_RECORD_STRIDE at first; when
 * TRAIN_RECORD_MAX are kept, every other one is dropped (those whose step
 * is not a multiple of 2 stride) and stride doubles. So at most
 * TRAIN_RECORD_MAX snapshots, evenly spaced over the run, step 0 always
 * among them; which steps are kept depends on the step count only, never
 * on how fast the run went.
 */
#ifndef TRAIN_RECORD_H
#define TRAIN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "train.h"

enum {
	TRAIN_RECORD_MAX = 64,    /* snapshots kept */
	TRAIN_RECORD_STRIDE = 4,  /* steps between them at first (a snapshot costs ~8 steps' time) */
	TRAIN_RUN_LOSS_MAX = 8192, /* entries of the whole run's loss, each the mean of `loss_per` steps */
	TRAIN_SNAP_HEADS = TRAIN_MAX_LAYERS * MHA_MAX_HEADS, /* index l * MHA_MAX_HEADS + i */
};

/* One step as drawn; probe is the caller's (layers x h x n x n floats),
 * the rest fixed-size. */
struct train_snap {
	long step;
	double loss, acc;               /* that step's batch (0 at step 0: no batch yet) */
	struct train_stats held;        /* held-out loss and accuracy */
	double scores[TRAIN_SNAP_HEADS * TRAIN_PAT_COUNT];
	double norms[TRAIN_SNAP_HEADS];  /* each head's |grad| of the step */
	struct train_head_distance dist[TRAIN_SNAP_HEADS];
	double spread[TRAIN_MAX_LAYERS];
	bool head_off[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];
	float *probe;                   /* layer l, head i at (l h + i) n n */
	bool probe_ok;
};

struct train_record {
	struct train_shape s;
	int count;                      /* snapshots kept */
	long stride;                    /* steps between them */
	size_t snap_doubles, snap_floats; /* one snapshot: its figures (doubles) and its probe (floats) */
	double *dmem;                   /* TRAIN_RECORD_MAX x snap_doubles */
	float *pmem;                    /* TRAIN_RECORD_MAX x snap_floats */
	long steps[TRAIN_RECORD_MAX];
	bool probe_ok[TRAIN_RECORD_MAX];
	float loss[TRAIN_RUN_LOSS_MAX]; /* the whole run's batch loss, steps 1.. */
	int nloss;                      /* entries */
	long loss_per;                  /* steps an entry averages (1, 2, 4, ...) */
	double pending;                 /* the sum of the steps not yet a whole entry */
	long npending;
	long last_step;                 /* the last step whose loss was added */
	double threshold[TRAIN_PAT_COUNT]; /* a head type has formed above this score */
	bool below[TRAIN_PAT_COUNT];    /* some snapshot had every head at or under it */
	long formed[TRAIN_PAT_COUNT];   /* the first snapshot's step above it after that, or -1 */
};

/* For a model of shape s; thresholds per pattern. Out of memory: -1. */
int train_record_init(struct train_record *r, const struct train_shape *s, const double threshold[TRAIN_PAT_COUNT]);
void train_record_free(struct train_record *r);
/* Empty again (a new run), memory kept. */
void train_record_clear(struct train_record *r);
/* Bytes the record holds (its snapshots' memory and the run's loss). */
size_t train_record_bytes(const struct train_record *r);
/* Is step one the record keeps (a multiple of the stride, after the last kept)? */
bool train_record_wants(const struct train_record *r, long step);
/* Keep snap (when wanted), and note the marks. */
void train_record_put(struct train_record *r, const struct train_snap *snap);
/* Snapshot k (0 .. count-1, oldest first) into out (its probe buffer
 * must hold layers h n n floats). */
void train_record_get(const struct train_record *r, int k, struct train_snap *out);
/* The index of the last snapshot at or before step (0 when none). */
int train_record_find(const struct train_record *r, long step);
/* Add step's batch loss to the whole run's (steps in order from 1). */
void train_record_loss(struct train_record *r, long step, double loss);
/* The whole run's loss: the mean over steps a..b (1-based, inclusive) of
 * what is kept (entries overlapping the range); false when none. */
bool train_record_loss_mean(const struct train_record *r, long a, long b, double *out);

#endif
