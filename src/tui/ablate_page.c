/*
 * ablate_page.c - the training screen's ablation page: your own Table 3
 * row (A) beside the paper's. It runs the default `mha-tui --ablate multi`
 * (same task, seeds and budget, so the same numbers) through the stepwise
 * API of src/train/ablation.c a few steps at a time in the idle pauses,
 * and draws the table as rows finish: h, d_k, held-out accuracy and loss
 * (mean +- sd over the seeds done), solved seeds, and the paper's BLEU for
 * the same h from train_paper_row_a. It does not train anything itself
 * beyond calling train_ablation_step, and does not read keys.
 */
#include "ablate_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "theme.h"
#include "train.h"

enum { SLICE_STEPS = 5 }; /* steps between looks at the clock */

struct ablate_page {
	struct train_ablation ab;
	bool failed; /* out of memory mid-way */
};

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct ablate_page *ablate_page_new(void)
{
	struct ablate_page *p = calloc(1, sizeof *p);
	char msg[MHA_MSG_MAX];
	/* the headless default: --ablate multi, seed 1, its seeds and steps */
	if (p && train_ablation_start(&p->ab, train_task_find("multi"), 0, 0, 0, 0, 1, 1, msg, sizeof msg) != MHA_OK) {
		free(p);
		return NULL;
	}
	return p;
}

void ablate_page_free(struct ablate_page *p)
{
	if (!p)
		return;
	train_ablation_free(&p->ab);
	free(p);
}

bool ablate_page_done(const struct ablate_page *p)
{
	return p->failed || train_ablation_done(&p->ab);
}

bool ablate_page_idle(struct ablate_page *p, double budget_s)
{
	if (ablate_page_done(p))
		return false;
	double t0 = seconds();
	do {
		if (train_ablation_step(&p->ab, SLICE_STEPS) < 0)
			p->failed = true;
	} while (!ablate_page_done(p) && seconds() - t0 < budget_s);
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

void ablate_page_draw(const struct ablate_page *p, struct rect r)
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
