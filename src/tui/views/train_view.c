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

#include <curses.h>

#include "clock.h"
#include "draw.h"
#include "mode.h"
#include "theme.h"
#include "train.h"
#include "train_view_int.h"

enum { HELD_OUT = 64 }; /* held-out sequences the screen evaluates after each slice */

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

const int train_speeds[TRAIN_SPEED_COUNT] = { 1, 2, 5, 20, 50, 100, 200, 500, 1000, 0 };

const struct train_snap *train_view_shown(const struct train_view *v)
{
	return v->scrub >= 0 ? &v->seen : &v->now;
}

/* The analysis after steps: pattern scores, gradient norms, the probe,
 * into v->now; kept in the record when its step is one the record keeps
 * (so which steps are recorded never depends on the speed). */
static void analyse(struct train_view *v)
{
	char msg[MHA_MSG_MAX];
	struct train_snap *a = &v->now;
	a->step = trainer_steps(v->tr);
	a->loss = v->nhist ? v->loss[v->nhist - 1] : 0;
	a->acc = v->nhist ? v->acc[v->nhist - 1] : 0;
	train_probe_measures(&v->m, a->scores, a->dist); /* pattern scores and distances, one pass */
	train_evaluate(&v->m, v->task, HELD_OUT, &a->held);
	v->importance_ok = false;
	v->alone_ok = false;
	trainer_head_grad_norms(v->tr, a->norms);
	train_head_spread(&v->m, a->spread);
	memcpy(a->head_off, v->m.head_off, sizeof a->head_off);
	probe_free(v);
	v->probe_ok = true;
	const struct train_shape *s = &v->m.s;
	size_t nn = (size_t)s->n * (size_t)s->n;
	for (int l = 0; l < s->layers && v->probe_ok; l++) {
		v->probe_ok = train_layer_workbench(&v->m, l, &v->pc[l], &v->pw[l], msg, sizeof msg) == MHA_OK &&
		              mha_acts_alloc(&v->pa[l], &v->pc[l]) == MHA_OK;
		if (v->probe_ok) {
			mha_forward(&v->pc[l], &v->pw[l], &v->pa[l]);
			memcpy(a->probe + (size_t)l * s->h * nn, v->pa[l].weights, (size_t)s->h * nn * sizeof *a->probe);
		}
	}
	a->probe_ok = v->probe_ok;
	train_record_put(&v->rec, a); /* and the marks: the phase change */
}

static void model_free(struct train_view *v)
{
	probe_free(v);
	train_record_free(&v->rec);
	free(v->now.probe);
	free(v->seen.probe);
	v->now.probe = v->seen.probe = NULL;
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
	/* the record: a head type has formed when a head scores above the
	 * task's threshold for the task's own type, above 0.4 (what the best
	 * column names) for the others */
	double thr[TRAIN_PAT_COUNT];
	for (int p = 0; p < TRAIN_PAT_COUNT; p++)
		thr[p] = p == (int)v->task->head ? v->task->want_score : TRAIN_HEAD_CLEAR;
	size_t probe = (size_t)s.layers * s.h * s.n * s.n;
	v->now.probe = malloc(probe * sizeof *v->now.probe);
	v->seen.probe = malloc(probe * sizeof *v->seen.probe);
	if (!v->now.probe || !v->seen.probe || train_record_init(&v->rec, &s, thr) != 0) {
		app_message(app, true, "training: out of memory");
		model_free(v);
		return false;
	}
	v->nhist = 0;
	v->train_s = 0;
	v->running = false;
	v->scrub = -1;
	v->pace_ms = -1;
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
	/* in a lesson slow enough to watch the loss fall, unless chosen */
	if (!v->speed_chosen)
		v->speed = app->learn.active ? TRAIN_SPEED_LESSON : TRAIN_SPEED_COUNT - 1;
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

/* Up to count steps, within budget_s of training when it is > 0; each
 * step the record keeps is analysed as it is trained, and the last one
 * after the lot. Returns the steps trained. */
static long steps(struct train_view *v, long count, double budget_s)
{
	double t0 = clock_wall();
	long k = 0;
	bool fresh = false; /* the last step analysed already */
	while (k < count) {
		struct train_stats st;
		double a = clock_wall();
		trainer_step(v->tr, &st);
		v->train_s += clock_wall() - a;
		k++;
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
		long step = trainer_steps(v->tr);
		train_record_loss(&v->rec, step, st.loss);
		fresh = train_record_wants(&v->rec, step);
		if (fresh)
			analyse(v);
		if (budget_s > 0 && clock_wall() - t0 > budget_s)
			break;
	}
	if (!fresh)
		analyse(v);
	return k;
}

/* The loop's pause: train while the screen shows and runs, at the chosen
 * speed on the app's clock (app->now_ms, which the tests set), else for a
 * slice of time. The pace never changes what is trained, only when. */
static bool train_idle(struct app *app)
{
	struct train_view *v = mode_state_if(app, &train_mode);
	if (!v || !v->running || app->mode != &train_mode)
		return false;
	int rate = train_speeds[v->speed];
	if (rate == 0) {
		steps(v, 1 << 20, TRAIN_SLICE_MS / 1000.0);
		return true;
	}
	/* steps owed since the pace began; more than a second's worth (keys
	 * held, another view) starts the pace again rather than catching up
	 * in a burst */
	long due = v->pace_ms < 0 ? -1 : (long)((app->now_ms - v->pace_ms) * rate / 1000) - v->pace_done;
	if (due < 0 || due > rate + 1) {
		v->pace_ms = app->now_ms;
		v->pace_done = 0;
		return false;
	}
	if (due == 0)
		return false;
	v->pace_done += steps(v, due, TRAIN_SLICE_MS / 1000.0);
	return true;
}

/* The rows of the table: each the key's work on the screen's state. */
static struct train_view *tv(struct app *app)
{
	return mode_state(app, &train_mode);
}

static unsigned run_pause(struct app *app)
{
	struct train_view *v = tv(app);
	v->running = !v->running;
	v->pace_ms = -1;
	if (v->running && v->scrub >= 0) {
		v->scrub = -1;
		app_message(app, false, "back to now: step %ld, running", trainer_steps(v->tr));
	}
	return APP_REDRAW;
}

static unsigned one_step(struct app *app)
{
	struct train_view *v = tv(app);
	v->running = false;
	v->scrub = -1;
	steps(v, 1, 0);
	return APP_REDRAW;
}

/* The speed as the screen says it: "20 steps/s", "full speed". */
static void speed_text(char *out, size_t len, int speed)
{
	if (train_speeds[speed])
		snprintf(out, len, "%d step%s/s", train_speeds[speed], train_speeds[speed] > 1 ? "s" : "");
	else
		snprintf(out, len, "full speed");
}

static unsigned speed_by(struct app *app, int by)
{
	struct train_view *v = tv(app);
	int s = v->speed + by;
	s = s < 0 ? 0 : s >= TRAIN_SPEED_COUNT ? TRAIN_SPEED_COUNT - 1 : s;
	char text[32];
	speed_text(text, sizeof text, s);
	if (s == v->speed)
		app_message(app, false, "already %s: %s goes the other way", text,
		            mode_key_name(app, by > 0 ? "train-slower" : "train-faster"));
	else
		app_message(app, false, "speed: %s (the numbers are the same at any speed)", text);
	v->speed = s;
	v->speed_chosen = true;
	v->pace_ms = -1;
	return APP_REDRAW;
}

static unsigned faster(struct app *app)
{
	return speed_by(app, 1);
}

static unsigned slower(struct app *app)
{
	return speed_by(app, -1);
}

/* Scrubbing: the recorded snapshot k shown (k past the last: now). */
static unsigned scrub_to(struct app *app, int k)
{
	struct train_view *v = tv(app);
	if (v->rec.count == 0)
		return APP_REDRAW;
	v->running = false;
	if (k >= v->rec.count || (k == v->rec.count - 1 && v->rec.steps[k] == trainer_steps(v->tr))) {
		v->scrub = -1;
		app_message(app, false, "now: step %ld (%s runs on)", trainer_steps(v->tr), mode_key_name(app, "train-run"));
		return APP_REDRAW;
	}
	v->scrub = k < 0 ? 0 : k;
	train_record_get(&v->rec, v->scrub, &v->seen);
	return APP_REDRAW;
}

static unsigned scrub_back(struct app *app)
{
	struct train_view *v = tv(app);
	int k = v->scrub >= 0 ? v->scrub - 1 : train_record_find(&v->rec, trainer_steps(v->tr));
	/* from now, the last recorded step before it */
	if (v->scrub < 0 && k > 0 && v->rec.steps[k] == trainer_steps(v->tr))
		k--;
	return scrub_to(app, k);
}

static unsigned scrub_forward(struct app *app)
{
	struct train_view *v = tv(app);
	if (v->scrub < 0) {
		app_message(app, false, "this is now: %s goes back through the recorded steps",
		            mode_key_name(app, "train-back"));
		return APP_REDRAW;
	}
	return scrub_to(app, v->scrub + 1);
}

static unsigned scrub_first(struct app *app)
{
	return scrub_to(app, 0);
}

static unsigned scrub_now(struct app *app)
{
	return scrub_to(app, tv(app)->rec.count);
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
	struct train_view *v = tv(app);
	v->depth_first = !v->depth_first;
	app_message(app, false, "%s first under the head table when only one block fits (both show when the "
	            "screen has room)", v->depth_first ? "layer by layer" : "each head's |grad|");
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
	app_message(app, false, "heatmaps of layer L%d when only one layer's fit (both show when the screen has room)",
	            v->layer);
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
	v->scrub = -1;
	app_message(app, false, "L%dH%d %s: held-out accuracy %.2f", l, i, v->m.head_off[l][i] ? "off" : "on",
	            v->now.held.accuracy);
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
	  .bar = MORE, .call = importance, .id = "train-importance" },
	{ .keys = { 'o' }, .label = "o", .name = "workbench", .help = "the shown layer on the probe, into the workbench",
	  .bar = MORE, .call = to_workbench, .id = "train-workbench" },
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
	{ .keys = { '+', '=' }, .label = "+", .name = "speed", .help = "faster / slower: steps a second, from 1 to full speed",
	  .help_keys = "+ -", .bar_keys = "+-", .bar = FL, .call = faster, .id = "train-faster" },
	{ .keys = { '-', '_' }, .label = "-", .name = "slower", .help = "slower", .help_keys = "", .call = slower,
	  .id = "train-slower" },
	{ .keys = { '[', KEY_LEFT }, .label = "[", .name = "back/on", .help = "back / on through the recorded run "
	  "(Left Right too)", .help_keys = "[ ]", .bar_keys = "[]", .bar = FL, .call = scrub_back,
	  .id = "train-back" },
	{ .keys = { ']', KEY_RIGHT }, .label = "]", .name = "on", .help = "on", .help_keys = "", .call = scrub_forward,
	  .id = "train-on" },
	{ .keys = { '{', KEY_HOME }, .label = "{", .name = "first", .help = "the first recorded step / now (Home End)",
	  .help_keys = "{ }", .bar = MORE, .bar_keys = "{}", .call = scrub_first, .id = "train-first" },
	{ .keys = { '}', KEY_END }, .label = "}", .name = "now", .help = "now", .help_keys = "", .call = scrub_now,
	  .id = "train-now" },
	{ .keys = { 0 } },
};

/* The screen's words, for the help (?). */
static const struct mode_word train_words[] = {
	{ "L0H1", "head 1 of layer 0 (the first layer); heads and layers count from 0" },
	{ "the probe", "16 fixed sequences of random tokens, each repeated once; the scores, distances and "
	  "heatmaps are measured on them, never trained on" },
	{ "prev 1st", "a head's mean attention on the probe to the token before (prev), to the first token (1st)" },
	{ "self", "to itself" },
	{ "dup", "to an earlier copy of its own token (a duplicate)" },
	{ "ind", "to the token right after that earlier copy: what an induction head copies" },
	{ "|grad|", "the size of the head's share of the step's gradient (its W^Q, W^K, W^V columns, W^O rows)" },
	{ "best", "the pattern the head follows most, when it scores over .40; - when none does" },
	{ "imp", "importance (i): how much the held-out loss rises with the head switched off" },
	{ "held-out", "sequences never trained on: the loss and accuracy that show what the model learnt" },
	{ "alone L0", "e: held-out accuracy with only that head on in layer 0 (the other layer as it is); "
	  "all: every head on" },
	{ "heads apart", "how different a layer's heads are: 0 for copies (s, a shared start), about 1.41 for "
	  "two random starts" },
	{ "back 0 1 ..", "how much of a head's attention lands that many tokens back, on the probe" },
	{ "loss chart", "the batch loss of every step so far, step 1 at the left on a log scale so the first steps "
	  "and the drop both show" },
	{ "^ind 140", "the step a head of that kind first scored over its threshold (the task's own head: the "
	  "task's; others .40)" },
	{ "recorded", "[ ] went back to a snapshot kept during the run: every 4th step while the run is short, "
	  "then evenly spaced (64 at most); } returns to now" },
	{ NULL, NULL },
};

const struct mode_ops train_mode = {
	.name = "training",
	.glossary = train_words,
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
