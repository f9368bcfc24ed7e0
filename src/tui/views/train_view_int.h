/*
 * train_view_int.h - what the training screen's files share (its family:
 * train_*.c): the screen's state. train_view.c owns it (the model, its
 * trainer, the keys), train_draw.c draws its top part (progress, the head
 * table, the probe's heatmaps), train_heads_view.c the heads apart (each
 * head's gradient, layer by layer how far back heads look),
 * train_ablate.c is the ablation page, train_circuits.c the circuits
 * page, each a mode of its own. Drawing reads
 * this state and never trains.
 */
#ifndef TRAIN_VIEW_INT_H
#define TRAIN_VIEW_INT_H

#include <stdbool.h>

#include "app.h"
#include "layout.h"
#include "mode.h"
#include "record.h"
#include "train.h"

enum { TRAIN_HIST = 512 };             /* steps of history the sparklines show */
enum { TRAIN_HEADS = TRAIN_MAX_LAYERS * MHA_MAX_HEADS }; /* index l * MHA_MAX_HEADS + i */
enum { TRAIN_SLICE_MS = 80 };          /* training in one of the loop's pauses */

/* The modes: the training screen (train_view.c), its ablation page
 * (train_ablate.c), its circuits page (train_circuits.c). */
extern const struct mode_ops train_mode, train_ablate_mode, train_circuits_mode;

/* The speeds + and - step through, in steps a second; 0: as fast as the
 * machine trains (slices of TRAIN_SLICE_MS). */
enum { TRAIN_SPEED_COUNT = 10, TRAIN_SPEED_LESSON = 3 }; /* 20 steps/s in a lesson */
extern const int train_speeds[TRAIN_SPEED_COUNT];

struct train_view {
	const struct train_task *task;
	struct train_model m;
	struct trainer *tr;
	uint64_t seed;
	bool shared;                    /* a shared start: each layer's heads begin as copies of head 0 */
	bool running;
	int speed;                      /* index into train_speeds */
	bool speed_chosen;              /* by + or -: a lesson's default no longer applies */
	long long pace_ms;              /* the paced run's start on the app's clock (-1: not started) */
	long pace_done;                 /*   and the steps trained since */
	int layer;                      /* the layer whose heatmaps show (when not both fit) */
	bool depth_first;               /* v: layer by layer before the gradients when not both fit */
	double train_s;                 /* seconds spent in steps */
	float loss[TRAIN_HIST], acc[TRAIN_HIST]; /* each batch's, the last TRAIN_HIST steps */
	float grad[TRAIN_HEADS][TRAIN_HIST];     /* each head's |grad| (all four slices), the same steps */
	int nhist;
	struct train_snap now;          /* the analysis as of the last step (its probe: the model's) */
	struct train_record rec;        /* the run so far, for scrubbing back and the whole-run loss */
	int scrub;                      /* the recorded snapshot shown, or -1: now */
	struct train_snap seen;         /*   that snapshot, unpacked */
	struct mha_config pc[TRAIN_MAX_LAYERS]; /* the probe through each layer */
	struct mha_weights pw[TRAIN_MAX_LAYERS];
	struct mha_acts pa[TRAIN_MAX_LAYERS];
	bool probe_ok;
	int sel;                        /* the selected head, layer * h + head (h, x) */
	double importance[TRAIN_HEADS];
	bool importance_ok;             /* computed (i) since the last change */
	double alone[TRAIN_HEADS];      /* held-out accuracy with each head alone in its layer (e) */
	double together[TRAIN_MAX_LAYERS]; /*   and with the layer's heads as they are */
	bool alone_ok;                  /* computed (e) since the last change */
};

/* What the screen draws: the recorded step scrubbed to, else now. */
const struct train_snap *train_view_shown(const struct train_view *v);

/* train_view.c: the ablation page's a (back to the training screen); the
 * layout both pages draw in. */
/* The training screen's model made (as G makes it the first time) for a
 * page opened before the screen was; false with a message when it cannot be. */
bool train_view_ready(struct app *app);
unsigned train_view_back(struct app *app);
struct body_layout train_view_layout(const struct app *app, const struct frame *f, const struct layout *l,
                                     int cols);

/* The training screen's body in r (train_draw.c). */
void train_draw_body(const struct train_view *v, struct rect r);
/* n values as a sparkline w cells wide, lo..hi, each cell the mean of its
 * share of the values (train_draw.c). */
void train_draw_sparkline(int y, int x, int w, const float *vals, int n, float lo, float hi);
/* The heads apart from row y, above bottom: each head's gradient and, layer
 * by layer, how far back its heads look; as much as fits (v picks which
 * first). Returns the next free row (train_heads_view.c). */
int train_draw_heads_apart(const struct train_view *v, int y, int x, int w, int bottom);
/* How many of the last steps' sparkline values belong at or before the
 * shown step (all of them when not scrubbing) (train_draw.c). */
int train_draw_history(const struct train_view *v);
/* The whole run's loss on a log-step axis, with a mark where each head
 * type formed and the shown step marked when scrubbing, from row y: rows
 * of the chart, then the marks, then the axis. Returns the next row
 * (train_chart.c). */
int train_draw_run_loss(const struct train_view *v, int y, int x, int w, int rows, int bottom);

#endif
