/*
 * train_view.c - the training screen mode: start / pause (Space), one
 * step (.), restart with the next seed (r), the next task (c), the layer
 * shown (l), a head selected (h) and switched off or on in the model (x),
 * each head's importance (i), the shown layer opened in the workbench (o),
 * your own Table 3 row (A) beside the paper's (a, ablate_page.c),
 * back (Esc, G). After every change the held-out loss and accuracy show
 * what the heads do for the task.
 * While it runs, the loop's idle call trains for a slice of time
 * (TRAIN_SLICE_MS) and the screen redraws: the loss and accuracy of each
 * batch as sparklines, steps per second, each head's five pattern scores
 * (the best one named) and gradient norm, and the shown layer's attention
 * on the probe sequence as heatmaps when they fit. The numbers all come
 * from the training library; drawing never trains.
 */
#include "train_view.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ablate_page.h"
#include "draw.h"
#include "heatmap.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"
#include "train.h"

enum { HIST = 512, TRAIN_SLICE_MS = 80 };

struct train_view {
	const struct train_task *task;
	struct train_model m;
	struct trainer *tr;
	uint64_t seed;
	bool running;
	int layer;                      /* the layer whose heatmaps show */
	double train_s;                 /* seconds spent in steps */
	float loss[HIST], acc[HIST];    /* each batch's, the last HIST steps */
	int nhist;
	double scores[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
	double norms[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	struct mha_config pc[TRAIN_MAX_LAYERS]; /* the probe through each layer */
	struct mha_weights pw[TRAIN_MAX_LAYERS];
	struct mha_acts pa[TRAIN_MAX_LAYERS];
	bool probe_ok;
	struct train_stats held;        /* on held-out sequences, as of the last analysis */
	int sel;                        /* the selected head, layer * h + head (h, x) */
	double importance[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	bool importance_ok;             /* computed (i) since the last change */
	long formed_step;               /* when the task's head first scored above its threshold, or -1 */
	double formed_s;                /*   after this much training */
	struct ablate_page *ablate;     /* the ablation page (a), made the first time */
	bool ablate_shown;              /* it is the page shown; it trains in the pauses */
};

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
	train_pattern_scores(&v->m, v->scores);
	train_evaluate(&v->m, v->task, HELD_OUT, &v->held);
	v->importance_ok = false;
	/* the moment the head that solves the task appears (the phase change) */
	for (int i = 0; i < v->m.s.h && v->formed_step < 0 && v->task->layer < v->m.s.layers; i++)
		if (v->scores[(v->task->layer * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + v->task->head] > v->task->want_score) {
			v->formed_step = trainer_steps(v->tr);
			v->formed_s = v->train_s;
		}
	trainer_head_grad_norms(v->tr, v->norms);
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
		if (v->nhist == HIST) {
			memmove(v->loss, v->loss + 1, (HIST - 1) * sizeof *v->loss);
			memmove(v->acc, v->acc + 1, (HIST - 1) * sizeof *v->acc);
			v->nhist--;
		}
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
	case 'o': {
		/* the shown layer on the probe, into the workbench (u undoes it) */
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
	default:
		return MODE_PASS;
	}
}

/* n values as a sparkline w cells wide, lo..hi: all of them, each cell
 * the mean of its share, so the whole fall of the loss stays in view. */
static void sparkline(int y, int x, int w, const float *vals, int n, float lo, float hi)
{
	static const char *bars[8] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587",
	                               "\u2588" };
	static const char ascii[8] = { '_', '.', '-', '~', '=', '+', '*', '#' };
	int cells = n < w ? n : w;
	for (int c = 0; c < cells; c++) {
		int a = (int)((long)c * n / cells), b = (int)((long)(c + 1) * n / cells);
		double sum = 0;
		for (int i = a; i < b; i++)
			sum += vals[i];
		float t = hi > lo && b > a ? ((float)(sum / (b - a)) - lo) / (hi - lo) : 0.0f;
		int lev = (int)(t * 7.999f);
		lev = lev < 0 ? 0 : lev > 7 ? 7 : lev;
		char glyph[2] = { ascii[lev], '\0' };
		draw_put(y, x + c, 1, theme_utf8() ? bars[lev] : glyph, theme_attr(ROLE_NORMAL));
	}
}

/* A score in 0..1 in three characters: ".29", "1.0" */
static void score_text(char out[8], double v)
{
	if (v >= 0.995)
		snprintf(out, 8, "1.0");
	else
		snprintf(out, 8, ".%02d", (int)(v * 100 + 0.5));
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
	const struct train_view *v = app->train;
	struct rect r = b->info;
	if (!v || !v->tr || r.h < 1)
		return;
	if (v->ablate_shown) {
		ablate_page_draw(v->ablate, r);
		return;
	}
	const struct train_shape *s = &v->m.s;
	char line[512];
	int y = r.y, bottom = r.y + r.h;
	snprintf(line, sizeof line, "Training: %s (%s)", v->task->name, v->task->what);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "%d layer%s  d_model %d  %d heads x d_k %d  %d tokens  seed %llu", s->layers,
	         s->layers > 1 ? "s" : "", s->d, s->h, s->dk, s->n, (unsigned long long)v->seed);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	long st = trainer_steps(v->tr);
	float loss = v->nhist ? v->loss[v->nhist - 1] : 0, acc = v->nhist ? v->acc[v->nhist - 1] : 0;
	snprintf(line, sizeof line, "step %ld %s %.0f/s  loss %.3f  acc %.2f", st,
	         v->running ? "running" : "paused", v->train_s > 0 ? (double)st / v->train_s : 0.0, loss, acc);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	if (y < bottom) {
		char formed[96] = "";
		if (v->formed_step >= 0)
			snprintf(formed, sizeof formed, "%s head at step %ld (%.1f s)", train_pattern_name(v->task->head),
			         v->formed_step, v->formed_s);
		int n = snprintf(line, sizeof line, "held-out: loss %.3f  accuracy %.2f", v->held.loss, v->held.accuracy);
		bool beside = n + 2 + (int)strlen(formed) <= r.w; /* else on a line of its own */
		if (formed[0] && beside)
			snprintf(line + n, sizeof line - (size_t)n, "  %s", formed);
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
		if (formed[0] && !beside && y < bottom)
			draw_put(y++, r.x, r.w, formed, theme_attr(ROLE_TITLE));
	}
	if (y < bottom) {
		float hi = 0;
		for (int i = 0; i < v->nhist; i++)
			hi = v->loss[i] > hi ? v->loss[i] : hi;
		draw_put(y, r.x, 5, "loss", theme_attr(ROLE_DIM));
		sparkline(y++, r.x + 5, r.w - 5, v->loss, v->nhist, 0, hi);
	}
	if (y < bottom) {
		draw_put(y, r.x, 5, "acc", theme_attr(ROLE_DIM));
		sparkline(y++, r.x + 5, r.w - 5, v->acc, v->nhist, 0, 1);
	}
	if (y < bottom)
		draw_put(y++, r.x, r.w, v->importance_ok ? "head  prev 1st self dup ind |grad| best  imp"
		                                        : "head  prev 1st self dup ind |grad| best",
		         theme_attr(ROLE_DIM));
	static const char *short_name[TRAIN_PAT_COUNT] = { "prev", "first", "self", "dup", "ind" };
	for (int l = 0; l < s->layers; l++)
		for (int i = 0; i < s->h && y < bottom; i++) {
			const double *sc = v->scores + (l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT;
			int best = 0;
			for (int p = 1; p < TRAIN_PAT_COUNT; p++)
				if (sc[p] > sc[best])
					best = p;
			bool off = v->m.head_off[l][i];
			char f[TRAIN_PAT_COUNT][8];
			for (int p = 0; p < TRAIN_PAT_COUNT; p++)
				score_text(f[p], sc[p]);
			int n = snprintf(line, sizeof line, "%cL%dH%d  %s  %s  %s %s %s %.3f %-5s",
			                 v->sel == l * s->h + i ? '>' : ' ', l, i, f[TRAIN_PAT_PREVIOUS],
			                 f[TRAIN_PAT_FIRST], f[TRAIN_PAT_SELF], f[TRAIN_PAT_DUPLICATE],
			                 f[TRAIN_PAT_INDUCTION], v->norms[l * MHA_MAX_HEADS + i],
			                 off ? "off" : sc[best] > 0.4 ? short_name[best] : "-");
			if (v->importance_ok && n > 0 && (size_t)n < sizeof line)
				snprintf(line + n, sizeof line - (size_t)n, " %+.2f", v->importance[l * MHA_MAX_HEADS + i]);
			draw_put(y++, r.x, r.w, line, off ? theme_attr(ROLE_DIM) : theme_head_attr(i));
		}
	/* the shown layer's attention on the probe, when the heatmaps fit */
	if (!v->probe_ok || y + 1 >= bottom)
		return;
	const struct mha_config *c = &v->pc[v->layer];
	int cell_w = 2;
	struct heatmap hm = { .rows = c->n, .cols = c->n, .lo = 0, .hi = 1, .labels = (const char (*)[MHA_LABEL_MAX])v->pw[v->layer].labels,
	                      .cur_row = -1, .cur_col = -1 };
	struct heatmap_size hs = heatmap_measure(&hm, cell_w);
	if (hs.cols * s->h + 2 * (s->h - 1) > r.w) {
		cell_w = 1;
		hs = heatmap_measure(&hm, cell_w);
	}
	y++;
	if (y + hs.rows > bottom || hs.cols * s->h + 2 * (s->h - 1) > r.w) {
		snprintf(line, sizeof line, "L%d heatmaps need %dx%d (o: workbench)", v->layer,
		         hs.cols * s->h + 2 * (s->h - 1), y - r.y + hs.rows);
		draw_put(y, r.x, r.w, line, theme_attr(ROLE_DIM));
		return;
	}
	for (int i = 0; i < s->h; i++) {
		char title[48];
		/* labelled with the pattern it fits best, as the table says */
		const double *sc = v->scores + (v->layer * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT;
		int best = 0;
		for (int p = 1; p < TRAIN_PAT_COUNT; p++)
			if (sc[p] > sc[best])
				best = p;
		snprintf(title, sizeof title, "L%dH%d on the probe: %s %.2f", v->layer, i,
		         train_pattern_name((enum train_pattern)best), sc[best]);
		hm.m = v->pa[v->layer].weights + (size_t)i * c->n * c->n;
		hm.title = title;
		hm.title_attr = theme_head_attr(i);
		hm.off = c->head_off[i];
		heatmap_draw(stdscr, y, r.x + i * (hs.cols + 2), &hm, cell_w);
	}
}

static bool train_status(const struct app *app, struct rect r)
{
	if (app->status[0] && app->now_ms < app->status_until_ms) {
		draw_put(r.y, r.x, r.w, app->status, theme_attr(app->status_error ? ROLE_ERROR : ROLE_NORMAL));
		return true;
	}
	const struct train_view *v = app->train;
	draw_put(r.y, r.x, r.w, v && v->ablate_shown ? "trains in the pauses; a or Esc: back to training (it waits)"
	                        : "r restart c task l layer a ablation  scores: mean attention on the expected key",
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
