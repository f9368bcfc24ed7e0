/*
 * train_view.c - the training screen mode, its model and its keys: start
 * / pause (Space), one step (.), restart with the next seed (r), a shared
 * start (s: each layer's heads begin as copies of head 0), the next task
 * (c), the layer shown (l), gradients or layer by layer first (v), a head
 * selected (h) and switched off or on in the model (x), each head's
 * importance (i), each head alone in its layer (e), the shown layer
 * opened in the workbench (o), your own
 * Table 3 row (A) beside the paper's (a: train_ablate.c), the circuits
 * of the model as trained so far (k: train_circuits.c), back (Esc, G).
 * After every change the held-out loss and accuracy show what the heads
 * do for the task.
 * While it runs, the loop's idle call trains for a slice of time
 * (TRAIN_SLICE_MS), keeps each step's loss, accuracy and per-head gradient
 * norms, and analyses the model (pattern scores, distances, the probe).
 * Drawing is train_draw.c and train_heads_view.c; the numbers all come
 * from the training library.
 */
#include "train_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "mode.h"
#include "theme.h"
#include "train.h"
#include "train_view_int.h"

enum { HELD_OUT = 64 }; /* held-out sequences the screen evaluates after each slice */

double train_view_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void probe_free(struct train_view *v)
{
	for (int l = 0; l < TRAIN_MAX_LAYERS; l++) {
		if (v->pa[l].mem)
			mha_acts_free(&v->pa[l]);
		if (v->pw[l].mem)
			mha_weights_free(&v->pw[l]);
	}
	v->probe_ok = false;
}

/* The analysis after steps: pattern scores, gradient norms, the probe. */
static void analyse(struct train_view *v)
{
	char msg[MHA_MSG_MAX];
	train_probe_measures(&v->m, v->scores, v->dist); /* pattern scores and distances, one pass */
	train_evaluate(&v->m, v->task, HELD_OUT, &v->held);
	v->importance_ok = false;
	v->alone_ok = false;
	/* the moment the head that solves the task appears (the phase change) */
	for (int i = 0; i < v->m.s.h && v->formed_step < 0 && v->task->layer < v->m.s.layers; i++)
		if (v->scores[(v->task->layer * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + v->task->head] > v->task->want_score) {
			v->formed_step = trainer_steps(v->tr);
			v->formed_s = v->train_s;
		}
	trainer_head_grad_norms(v->tr, v->norms);
	train_head_spread(&v->m, v->spread);
	probe_free(v);
	v->probe_ok = true;
	for (int l = 0; l < v->m.s.layers && v->probe_ok; l++) {
		v->probe_ok = train_layer_workbench(&v->m, l, &v->pc[l], &v->pw[l], msg, sizeof msg) == MHA_OK &&
		              mha_acts_alloc(&v->pa[l], &v->pc[l]) == MHA_OK;
		if (v->probe_ok)
			mha_forward(&v->pc[l], &v->pw[l], &v->pa[l]);
	}
}

static void model_free(struct train_view *v)
{
	probe_free(v);
	trainer_destroy(v->tr);
	v->tr = NULL;
	if (v->m.params)
		train_model_free(&v->m);
}

static bool model_start(struct app *app, struct train_view *v)
{
	char msg[MHA_MSG_MAX];
	model_free(v);
	struct train_shape s = train_task_shape(v->task, 0, 0, 0);
	if (train_model_alloc(&v->m, &s) != MHA_OK) {
		app_message(app, true, "training: out of memory");
		return false;
	}
	train_model_init(&v->m, v->seed);
	if (v->shared)
		train_model_share_heads(&v->m);
	if (trainer_create(&v->tr, &v->m, v->task, NULL, v->seed, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "training: %s", msg);
		train_model_free(&v->m);
		return false;
	}
	v->nhist = 0;
	v->train_s = 0;
	v->formed_step = -1;
	v->running = false;
	v->layer = v->task->layer < s.layers ? v->task->layer : 0;
	v->sel = 0;
	analyse(v);
	return true;
}

const struct train_view *train_view_now(const struct app *app)
{
	return mode_state_if(app, &train_mode);
}

/* G: the model is made the first time, the induction task by default. */
static bool train_enter(struct app *app)
{
	struct train_view *v = mode_state(app, &train_mode);
	if (!v) {
		app_message(app, true, "training: out of memory");
		return false;
	}
	if (v->task)
		return true;
	v->task = train_task_get(TRAIN_INDUCTION);
	v->seed = 1;
	if (!model_start(app, v)) {
		v->task = NULL; /* tried again the next time */
		return false;
	}
	return true;
}

bool train_view_ready(struct app *app)
{
	return train_enter(app);
}

static void train_leave(struct app *app)
{
	struct train_view *v = mode_state_if(app, &train_mode);
	if (v)
		v->running = false;
}

static void train_done(void *state)
{
	model_free(state);
}

static void steps(struct train_view *v, int count, double budget_s)
{
	double t0 = train_view_seconds();
	for (int k = 0; k < count; k++) {
		struct train_stats st;
		double a = train_view_seconds();
		trainer_step(v->tr, &st);
		v->train_s += train_view_seconds() - a;
		if (v->nhist == TRAIN_HIST) {
			memmove(v->loss, v->loss + 1, (TRAIN_HIST - 1) * sizeof *v->loss);
			memmove(v->acc, v->acc + 1, (TRAIN_HIST - 1) * sizeof *v->acc);
			for (int i = 0; i < TRAIN_HEADS; i++)
				memmove(v->grad[i], v->grad[i] + 1, (TRAIN_HIST - 1) * sizeof **v->grad);
			v->nhist--;
		}
		double norms[TRAIN_HEADS];
		trainer_head_grad_norms(v->tr, norms);
		for (int i = 0; i < TRAIN_HEADS; i++)
			v->grad[i][v->nhist] = (float)norms[i];
		v->loss[v->nhist] = (float)st.loss;
		v->acc[v->nhist++] = (float)st.accuracy;
		if (budget_s > 0 && train_view_seconds() - t0 > budget_s)
			break;
	}
	analyse(v);
}

/* The loop's pause: train for a slice of time while the screen shows and runs. */
static bool train_idle(struct app *app)
{
	struct train_view *v = mode_state_if(app, &train_mode);
	if (!v || !v->running || app->mode != &train_mode)
		return false;
	steps(v, 1 << 20, TRAIN_SLICE_MS / 1000.0);
	return true;
}

/* The rows of the table: each the key's work on the screen's state. */
static struct train_view *tv(struct app *app)
{
	return mode_state(app, &train_mode);
}

static unsigned run_pause(struct app *app)
{
	tv(app)->running = !tv(app)->running;
	return APP_REDRAW;
}

static unsigned one_step(struct app *app)
{
	struct train_view *v = tv(app);
	v->running = false;
	steps(v, 1, 0);
	return APP_REDRAW;
}

static unsigned restart(struct app *app)
{
	struct train_view *v = tv(app);
	v->seed++;
	model_start(app, v);
	app_message(app, false, "restarted with seed %llu", (unsigned long long)v->seed);
	return APP_REDRAW;
}

static unsigned shared_start(struct app *app)
{
	/* a shared start: copies get the same gradient, so stay copies */
	struct train_view *v = tv(app);
	v->shared = !v->shared;
	model_start(app, v);
	app_message(app, false, v->shared ? "shared start: each layer's heads begin as copies of head 0"
	                                   : "random start: every head drawn on its own");
	return APP_REDRAW;
}

static unsigned depth_first(struct app *app)
{
	tv(app)->depth_first = !tv(app)->depth_first;
	return APP_REDRAW;
}

static unsigned next_task(struct app *app)
{
	struct train_view *v = tv(app);
	v->task = train_task_get((enum train_task_id)((v->task->id + 1) % TRAIN_TASK_COUNT));
	model_start(app, v);
	return APP_REDRAW;
}

static unsigned next_layer(struct app *app)
{
	struct train_view *v = tv(app);
	v->layer = (v->layer + 1) % v->m.s.layers;
	return APP_REDRAW;
}

static unsigned next_head(struct app *app)
{
	struct train_view *v = tv(app);
	v->sel = (v->sel + 1) % (v->m.s.layers * v->m.s.h);
	return APP_REDRAW;
}

static unsigned head_off(struct app *app)
{
	/* the selected head off / on in the model: held-out accuracy says
	 * what it did for the task (a head off also learns no more) */
	struct train_view *v = tv(app);
	int l = v->sel / v->m.s.h, i = v->sel % v->m.s.h;
	v->m.head_off[l][i] = !v->m.head_off[l][i];
	analyse(v);
	app_message(app, false, "L%dH%d %s: held-out accuracy %.2f", l, i, v->m.head_off[l][i] ? "off" : "on",
	            v->held.accuracy);
	return APP_REDRAW;
}

static unsigned importance(struct app *app)
{
	/* importance: held-out loss with each head switched off, minus with it on */
	struct train_view *v = tv(app);
	train_head_importance(&v->m, v->task, v->importance);
	v->importance_ok = true;
	return APP_REDRAW;
}

static unsigned alone(struct app *app)
{
	/* each head alone in its layer against the layer's heads together:
	 * an ensemble (the same job twice) or a division of labour */
	struct train_view *v = tv(app);
	struct train_stats each[MHA_MAX_HEADS], all;
	for (int l = 0; l < v->m.s.layers; l++) {
		train_heads_alone(&v->m, v->task, l, HELD_OUT, each, &all);
		v->together[l] = all.accuracy;
		for (int i = 0; i < v->m.s.h; i++)
			v->alone[l * MHA_MAX_HEADS + i] = each[i].accuracy;
	}
	v->alone_ok = true;
	return APP_REDRAW;
}

static unsigned to_workbench(struct app *app)
{
	/* the shown layer on the probe, into the workbench (u undoes it);
	 * not over a lesson's bench: its goals would then be checked on the
	 * trained layer, not on what the learner did */
	struct train_view *v = tv(app);
	if (app->learn.active) {
		app_message(app, false, "%s opens a layer on the free workbench: %s leaves the lesson first",
		            mode_key_name(app, "train-workbench"), mode_key_name(app, "leave"));
		return APP_REDRAW;
	}
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	if (train_layer_workbench(&v->m, v->layer, &c, &w, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "training: %s", msg);
		return APP_REDRAW;
	}
	mode_leave(app);
	unsigned f = app_replace(app, &c, &w);
	app_message(app, false, "layer %d of the %s model on the probe: every stage editable, "
	            "x switches a head off; u undoes", v->layer, v->task->name);
	return f | APP_REDRAW;
}

static unsigned ablation(struct app *app)
{
	/* your own Table 3 row (A): the page trains while shown */
	tv(app)->running = false;
	mode_open(app, &train_ablate_mode);
	return APP_REDRAW;
}

static unsigned circuits(struct app *app)
{
	/* what each head reads and writes, as trained so far */
	tv(app)->running = false;
	mode_open(app, &train_circuits_mode);
	return APP_REDRAW;
}

unsigned train_view_back(struct app *app)
{
	mode_leave(app);
	return APP_REDRAW;
}

struct body_layout train_view_layout(const struct app *app, const struct frame *f, const struct layout *l, int cols)
{
	(void)f;
	(void)app;
	(void)cols;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.lesson = l->side;
	b.body_h = l->body.h;
	return b;
}

static void train_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct train_view *v = train_view_now(app);
	if (v && v->tr && b->info.h > 0)
		train_draw_body(v, b->info);
}

enum { FL = ACTION_BAR_BOTH, MORE = ACTION_BAR_MORE };
static const struct action train_opener = {
	.keys = { 'G' }, .label = "G", .name = "train", .help = "watch a tiny model's heads learn", .group = "Train",
	.shows = MODE_SHOWS_ALL, .id = "train",
};

/* bar: the hint line (FL); MORE, the status line while no message shows */
static const struct action train_keys[] = {
	{ .keys = { ' ' }, .label = "Space", .name = "run", .help = "run / pause the training", .bar = FL,
	  .call = run_pause, .id = "train-run" },
	{ .keys = { '.' }, .label = ".", .name = "step", .help = "one training step", .bar = FL, .call = one_step,
	  .id = "train-step" },
	{ .keys = { 'h' }, .label = "h", .name = "head", .help = "select the next head", .bar = FL, .call = next_head,
	  .id = "train-head" },
	{ .keys = { 'x' }, .label = "x", .name = "off/on", .help = "the selected head off / on in the model",
	  .bar = FL, .call = head_off, .id = "train-head-off" },
	{ .keys = { 'i' }, .label = "i", .name = "importance", .help = "each head's importance (held-out loss)",
	  .bar = FL, .call = importance, .id = "train-importance" },
	{ .keys = { 'o' }, .label = "o", .name = "workbench", .help = "the shown layer on the probe, into the workbench",
	  .bar = FL, .call = to_workbench, .id = "train-workbench" },
	{ .keys = { 'r' }, .label = "r", .name = "restart", .help = "restart with the next seed", .bar = MORE,
	  .call = restart, .id = "train-restart" },
	{ .keys = { 's' }, .label = "s", .name = "shared start", .help = "a shared start: heads begin as copies",
	  .bar = MORE, .call = shared_start, .id = "train-shared" },
	{ .keys = { 'c' }, .label = "c", .name = "task", .help = "the next task", .bar = MORE, .call = next_task,
	  .id = "train-task" },
	{ .keys = { 'l' }, .label = "l", .name = "layer", .help = "the other layer's heatmaps", .bar = MORE,
	  .call = next_layer, .id = "train-layer" },
	{ .keys = { 'v' }, .label = "v", .name = "grad/depth", .help = "gradients or layer by layer first",
	  .bar = MORE, .call = depth_first, .id = "train-depth" },
	{ .keys = { 'e' }, .label = "e", .name = "alone", .help = "each head alone in its layer", .bar = MORE,
	  .call = alone, .id = "train-alone" },
	{ .keys = { 'a' }, .label = "a", .name = "ablation", .help = "your own Table 3 row (A) beside the paper's",
	  .bar = MORE, .call = ablation, .id = "train-ablation" },
	{ .keys = { 'k' }, .label = "k", .name = "circuits", .help = "circuits: what each head reads and writes",
	  .bar = FL, .call = circuits, .id = "train-circuits" },
	{ .keys = { 0 } },
};

const struct mode_ops train_mode = {
	.name = "training",
	.opener = &train_opener,
	.keys = train_keys,
	.state_size = sizeof(struct train_view),
	.enter = train_enter,
	.leave = train_leave,
	.done = train_done,
	.idle = train_idle,
	.layout = train_view_layout,
	.body = train_body,
};
