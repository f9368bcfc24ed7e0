/*
 * train_view.c - the training screen mode, its model and its keys: start
 * / pause (Space), one step (.), restart with the next seed (r), a shared
 * start (s: each layer's heads begin as copies of head 0), the next task
 * (c), the layer shown (l), gradients or layer by layer first (v), a head
 * selected (h) and switched off or on in the model (x), each head's
 * importance (i), each head alone in its layer (e), the shown layer
 * opened in the workbench (o), your own
 * Table 3 row (A) beside the paper's (a, ablate_page.c), back (Esc, G).
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

#include "ablate_page.h"
#include "actions.h"
#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"
#include "train.h"
#include "train_view_int.h"

enum { TRAIN_SLICE_MS = 80 };

enum { HELD_OUT = 64 }; /* held-out sequences the screen evaluates after each slice */

static double seconds(void)
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

unsigned train_view_open(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	if (!app->train) {
		struct train_view *v = calloc(1, sizeof *v);
		if (!v) {
			app_message(app, true, "training: out of memory");
			return APP_REDRAW;
		}
		v->task = train_task_get(TRAIN_INDUCTION);
		v->seed = 1;
		app->train = v;
		if (!model_start(app, v)) {
			train_view_free(app);
			return APP_REDRAW;
		}
	}
	mode_enter(app, MODE_TRAIN);
	return APP_REDRAW;
}

void train_view_free(struct app *app)
{
	if (!app->train)
		return;
	model_free(app->train);
	ablate_page_free(app->train->ablate);
	free(app->train);
	app->train = NULL;
}

static void steps(struct train_view *v, int count, double budget_s)
{
	double t0 = seconds();
	for (int k = 0; k < count; k++) {
		struct train_stats st;
		double a = seconds();
		trainer_step(v->tr, &st);
		v->train_s += seconds() - a;
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
		if (budget_s > 0 && seconds() - t0 > budget_s)
			break;
	}
	analyse(v);
}

bool train_view_idle(struct app *app)
{
	struct train_view *v = app->train;
	if (v && v->ablate_shown && app->mode == MODE_TRAIN)
		return ablate_page_idle(v->ablate, TRAIN_SLICE_MS / 1000.0);
	if (!v || !v->running || app->mode != MODE_TRAIN)
		return false;
	steps(v, 1 << 20, TRAIN_SLICE_MS / 1000.0);
	return true;
}

static unsigned train_key(struct app *app, int key)
{
	struct train_view *v = app->train;
	if (!v)
		return MODE_PASS;
	if (key == 'a') {
		/* your own Table 3 row (A): the page trains while shown */
		if (!v->ablate && !(v->ablate = ablate_page_new())) {
			app_message(app, true, "ablation: out of memory");
			return APP_REDRAW;
		}
		v->ablate_shown = !v->ablate_shown;
		v->running = false;
		return APP_REDRAW;
	}
	if (v->ablate_shown && key != PROMPT_ESC && key != 'G' && key != '?' && key != 'q')
		return APP_REDRAW; /* the page has no other keys */
	if (v->ablate_shown && key == PROMPT_ESC) {
		v->ablate_shown = false;
		return APP_REDRAW;
	}
	switch (key) {
	case ' ':
		v->running = !v->running;
		return APP_REDRAW;
	case '.':
		v->running = false;
		steps(v, 1, 0);
		return APP_REDRAW;
	case 'r':
		v->seed++;
		model_start(app, v);
		app_message(app, false, "restarted with seed %llu", (unsigned long long)v->seed);
		return APP_REDRAW;
	case 's':
		/* a shared start: copies get the same gradient, so stay copies */
		v->shared = !v->shared;
		model_start(app, v);
		app_message(app, false, v->shared ? "shared start: each layer's heads begin as copies of head 0"
		                                   : "random start: every head drawn on its own");
		return APP_REDRAW;
	case 'v':
		v->depth_first = !v->depth_first;
		return APP_REDRAW;
	case 'c':
		v->task = train_task_get((enum train_task_id)((v->task->id + 1) % TRAIN_TASK_COUNT));
		model_start(app, v);
		return APP_REDRAW;
	case 'l':
		v->layer = (v->layer + 1) % v->m.s.layers;
		return APP_REDRAW;
	case 'h':
		v->sel = (v->sel + 1) % (v->m.s.layers * v->m.s.h);
		return APP_REDRAW;
	case 'x': {
		/* the selected head off / on in the model: held-out accuracy says
		 * what it did for the task (a head off also learns no more) */
		int l = v->sel / v->m.s.h, i = v->sel % v->m.s.h;
		v->m.head_off[l][i] = !v->m.head_off[l][i];
		analyse(v);
		app_message(app, false, "L%dH%d %s: held-out accuracy %.2f", l, i,
		            v->m.head_off[l][i] ? "off" : "on", v->held.accuracy);
		return APP_REDRAW;
	}
	case 'i':
		/* importance: held-out loss with each head switched off, minus with it on */
		train_head_importance(&v->m, v->task, v->importance);
		v->importance_ok = true;
		return APP_REDRAW;
	case 'e': {
		/* each head alone in its layer against the layer's heads together:
		 * an ensemble (the same job twice) or a division of labour */
		struct train_stats alone[MHA_MAX_HEADS], all;
		for (int l = 0; l < v->m.s.layers; l++) {
			train_heads_alone(&v->m, v->task, l, HELD_OUT, alone, &all);
			v->together[l] = all.accuracy;
			for (int i = 0; i < v->m.s.h; i++)
				v->alone[l * MHA_MAX_HEADS + i] = alone[i].accuracy;
		}
		v->alone_ok = true;
		return APP_REDRAW;
	}
	case 'o': {
		/* the shown layer on the probe, into the workbench (u undoes it);
		 * not over a lesson's bench: its goals would then be checked on
		 * the trained layer, not on what the learner did */
		if (app->learn.active) {
			app_message(app, false, "o opens a layer on the free workbench: f leaves the lesson first");
			return APP_REDRAW;
		}
		char msg[MHA_MSG_MAX];
		struct mha_config c;
		struct mha_weights w;
		if (train_layer_workbench(&v->m, v->layer, &c, &w, msg, sizeof msg) != MHA_OK) {
			app_message(app, true, "training: %s", msg);
			return APP_REDRAW;
		}
		v->running = false;
		mode_leave(app);
		unsigned f = app_replace(app, &c, &w);
		app_message(app, false, "layer %d of the %s model on the probe: every stage editable, "
		            "x switches a head off; u undoes", v->layer, v->task->name);
		return f | APP_REDRAW;
	}
	case PROMPT_ESC: case 'G':
		v->running = false;
		mode_leave(app);
		return APP_REDRAW;
	default: {
		/* a lesson's next / previous step leaves the screen first: the
		 * step it goes to may ask to predict what the screen shows */
		const struct action *a = actions_lookup(key);
		if (a && a->id && (!strcmp(a->id, "next") || !strcmp(a->id, "prev"))) {
			v->running = false;
			mode_leave(app);
		}
		return MODE_PASS;
	}
	}
}

static struct body_layout train_layout(const struct app *app, const struct layout *l, int cols)
{
	(void)app;
	(void)cols;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.lesson = l->side;
	b.body_h = l->body.h;
	return b;
}

static void train_body(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	if (app->train && app->train->tr && b->info.h > 0)
		train_draw_body(app->train, b->info);
}

static bool train_status(const struct app *app, struct rect r)
{
	if (app->status[0] && app->now_ms < app->status_until_ms) {
		draw_put(r.y, r.x, r.w, app->status, theme_attr(app->status_error ? ROLE_ERROR : ROLE_NORMAL));
		return true;
	}
	const struct train_view *v = app->train;
	draw_put(r.y, r.x, r.w, v && v->ablate_shown ? "trains in the pauses; a or Esc: back to training (it waits)"
	                        : "r restart s shared start c task l layer v grad/depth e alone a ablation",
	         theme_attr(ROLE_DIM));
	return true;
}

/* This screen's own keys on the hint line (the workbench's would mislead). */
static void train_hints(const struct app *app, struct rect r, struct hit_map *hits)
{
	(void)app;
	(void)hits;
	draw_put(r.y, r.x, r.w, "Space run  . step  h head  x off/on  i importance  o workbench  Esc back  ? q",
	         theme_attr(ROLE_HINT));
}

const struct mode_ops train_mode = {
	.name = "training",
	.key = train_key,
	.status = train_status,
	.hints = train_hints,
	.layout = train_layout,
	.body = train_body,
};
