/*
 * train_ablate.c - the training screen's ablation page, a mode of its own
 * (a from the training screen; a or Esc goes back to it): your own Table 3
 * row (A) beside the paper's. It runs the default `mha-tui --ablate multi`
 * (same task, seeds and budget, so the same numbers) through the stepwise
 * API of src/train/ablation.c a few steps at a time in the idle pauses,
 * and draws the table as rows finish: h, d_k, held-out accuracy and loss
 * (mean +- sd over the seeds done), solved seeds, and the paper's BLEU for
 * the same h from train_paper_row_a. It does not train anything itself
 * beyond calling train_ablation_step. The ablation is made the first
 * time the page opens and kept (it waits while the learner is away).
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "draw.h"
#include "mode.h"
#include "theme.h"
#include "train.h"
#include "train_view_int.h"

enum { SLICE_STEPS = 5 }; /* steps between looks at the clock */

/* The page's own state. */
struct ablate_page {
	bool started;
	struct train_ablation ab;
	bool failed; /* out of memory mid-way */
};

static bool ablate_enter(struct app *app)
{
	struct ablate_page *p = mode_state(app, &train_ablate_mode);
	char msg[MHA_MSG_MAX];
	if (!p) {
		app_message(app, true, "ablation: out of memory");
		return false;
	}
	if (p->started)
		return true;
	/* the headless default: --ablate multi, seed 1, its seeds and steps */
	if (train_ablation_start(&p->ab, train_task_find("multi"), 0, 0, 0, 0, 1, 1, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "ablation: %s", msg);
		return false;
	}
	p->started = true;
	return true;
}

static void ablate_done(void *state)
{
	struct ablate_page *p = state;
	if (p->started)
		train_ablation_free(&p->ab);
}

static bool ablate_finished(const struct ablate_page *p)
{
	return p->failed || train_ablation_done(&p->ab);
}

/* The loop's pause while the page shows: train for a slice of time. */
static bool ablate_idle(struct app *app)
{
	struct ablate_page *p = mode_state_if(app, &train_ablate_mode);
	if (app->mode != &train_ablate_mode || !p || !p->started || ablate_finished(p))
		return false;
	double t0 = clock_wall();
	do {
		if (train_ablation_step(&p->ab, SLICE_STEPS) < 0)
			p->failed = true;
	} while (!ablate_finished(p) && clock_wall() - t0 < TRAIN_SLICE_MS / 1000.0);
	return true;
}

/* The paper's point for h, or NULL. */
static const struct train_paper_point *paper_at(int h)
{
	for (int i = 0; i < TRAIN_PAPER_ROW_A; i++)
		if (train_paper_row_a[i].h == h)
			return &train_paper_row_a[i];
	return NULL;
}

static void ablate_draw(const struct ablate_page *p, struct rect r)
{
	const struct train_ablation *a = &p->ab;
	char line[256];
	int y = r.y, bottom = r.y + r.h;
	if (y >= bottom)
		return;
	/* 45 columns wide: it fits beside the lesson list at 80x24 */
	snprintf(line, sizeof line, "Your own Table 3 row (A): '%s', d_model %d", a->task->name, a->d);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	if (y < bottom) {
		int runs = a->nh * a->seeds;
		if (p->failed)
			snprintf(line, sizeof line, "stopped: out of memory after %d of %d runs", a->runs_done, runs);
		else if (train_ablation_done(a))
			snprintf(line, sizeof line, "done: %d runs, %d seeds x %d steps", runs, a->seeds, a->steps);
		else
			snprintf(line, sizeof line, "run %d/%d: h %d seed %llu, step %d/%d", a->runs_done + 1, runs,
			         a->row[a->k].h, (unsigned long long)(a->seed + (uint64_t)a->sd), a->run_step, a->steps);
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	if (y < bottom) {
		snprintf(line, sizeof line, "held-out, mean+-sd; ok: seeds at acc >= %.2f", a->task->want_accuracy);
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	}
	if (y < bottom)
		draw_put(y++, r.x, r.w, "  h  d_k accuracy      loss       ok   | BLEU", theme_attr(ROLE_DIM));
	for (int k = 0; k < a->nh && y < bottom; k++) {
		const struct train_ablation_row *row = &a->row[k];
		int n = snprintf(line, sizeof line, "%3d %4d ", row->h, a->d / row->h);
		if (row->done) {
			double am, as, lm, ls;
			train_ablation_summary(row, &am, &as, &lm, &ls);
			n += snprintf(line + n, sizeof line - (size_t)n, "%.3f+-%.3f  %.2f+-%.2f %2d/%-2d", am, as, lm, ls,
			              row->solved, row->done);
		} else {
			n += snprintf(line + n, sizeof line - (size_t)n, "%-30s", k == a->k ? "running" : "-");
		}
		const struct train_paper_point *pp = paper_at(row->h);
		if (pp)
			snprintf(line + n, sizeof line - (size_t)n, "| %.1f", pp->bleu);
		else
			snprintf(line + n, sizeof line - (size_t)n, "|");
		draw_put(y++, r.x, r.w, line, theme_attr(row->done == a->seeds ? ROLE_NORMAL : ROLE_DIM));
	}
	/* paper points with an h this d_model does not have (d_model < 32) */
	for (int i = 0; i < TRAIN_PAPER_ROW_A && y < bottom; i++) {
		bool shown = false;
		for (int k = 0; k < a->nh; k++)
			shown = shown || a->row[k].h == train_paper_row_a[i].h;
		if (shown)
			continue;
		snprintf(line, sizeof line, "%3d %35s| %.1f", train_paper_row_a[i].h, "", train_paper_row_a[i].bleu);
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	if (y < bottom)
		draw_put(y++, r.x, r.w, "BLEU: paper's EN-DE, d_model 512, d_k 512/h", theme_attr(ROLE_DIM));
	/* accuracy as bars, when there is room */
	int w = r.w - 16 < 50 ? r.w - 16 : 50;
	if (y + 1 + a->nh > bottom || w < 10)
		return;
	draw_put(++y, r.x, r.w, "your held-out accuracy (mean), 0 to 1:", theme_attr(ROLE_DIM));
	y++;
	for (int k = 0; k < a->nh && y < bottom; k++, y++) {
		const struct train_ablation_row *row = &a->row[k];
		double am = 0, as, lm, ls;
		if (row->done)
			train_ablation_summary(row, &am, &as, &lm, &ls);
		int bar = (int)(am * w + 0.5);
		snprintf(line, sizeof line, "h %2d ", row->h);
		draw_put(y, r.x, 5, line, theme_attr(ROLE_DIM));
		char bars[256];
		memset(bars, '#', (size_t)bar);
		bars[bar] = '\0';
		draw_put(y, r.x + 5, w, bars, theme_head_attr(k));
		if (row->done) {
			snprintf(line, sizeof line, " %.3f", am);
			draw_put(y, r.x + 5 + bar, 7, line, theme_attr(ROLE_NORMAL));
		}
	}
}

static void ablate_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct ablate_page *p = mode_state_if(app, &train_ablate_mode);
	if (p && p->started && b->info.h > 0)
		ablate_draw(p, b->info);
}

static bool ablate_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false;
	draw_put(r.y, r.x, r.w, "trains in the pauses; it waits while you are back on the training screen",
	         theme_attr(ROLE_DIM));
	return true;
}

static const struct action ablate_keys[] = {
	{ .keys = { 'a' }, .label = "a", .name = "training", .help = "back to the training screen (Esc too)",
	  .bar = ACTION_BAR_BOTH, .call = train_view_back, .id = "ablation-back" },
	{ .keys = { 0 } },
};

const struct mode_ops train_ablate_mode = {
	.name = "ablation (Table 3 row A)",
	.keys = ablate_keys,
	.closed = true,
	.back = &train_mode,
	.state_size = sizeof(struct ablate_page),
	.enter = ablate_enter,
	.done = ablate_done,
	.idle = ablate_idle,
	.status = ablate_status,
	.layout = train_view_layout,
	.body = ablate_body,
};
