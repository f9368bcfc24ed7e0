/*
 * analysis_view.c - the head analysis view (A): what each head of the
 * workbench's layer does, for whatever weights it holds (seeded, wired,
 * edited or a trained model's layer). Per head: its pattern scores
 * (previous, first, self, duplicate, induction: mean P over this
 * sentence's tokens), the label that fits best, its importance (how far Y
 * moves when it is switched off, ||Y - Y_without|| / ||Y||) and rank; then
 * the greedy prune curve (Y's change against heads kept) as a table and a
 * bar each. Every number comes from train_bench_analysis (src/train); this
 * file only lays them out. The workbench's keys act under it (x, L, H,
 * edits) and the figures follow; its table names those. A or Esc goes
 * back.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "heat_strip.h"
#include "mode.h"
#include "theme.h"
#include "train.h"

/* columns of the head table and of the prune table */
enum { HEAD_TABLE_W = 72, PRUNE_TABLE_W = 24, BAR_MAX = 40, SIDE_BY_SIDE_GAP = 3 };

static bool analysis_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	char line[160];
	snprintf(line, sizeof line, "head analysis of the workbench's %d heads: every edit and key below changes it",
	         app->cfg.h);
	draw_fit(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The head table from row y, heads that fit above bottom (a last row
 * says how many more when they do not all fit); returns the rows drawn. */
static int head_table(const struct app *app, const struct train_bench_analysis *an, int y, int x,
                      int w, int bottom)
{
	char line[256];
	int rows = 0;
	int len = snprintf(line, sizeof line, "head");
	for (int p = 0; p < TRAIN_PAT_COUNT; p++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %6s", train_pattern_brief((enum train_pattern)p));
	snprintf(line + len, sizeof line - (size_t)len, "  %-10s %10s %4s", "fits", "importance", "rank");
	if (y + rows < bottom)
		draw_put(y + rows++, x, w, line, theme_attr(ROLE_DIM) | A_BOLD);
	for (int i = 0; i < an->h && y + rows < bottom; i++) {
		if (y + rows == bottom - 1 && i < an->h - 1) {
			snprintf(line, sizeof line, "  ... %d more heads (a taller terminal shows them)", an->h - i);
			draw_put(y + rows++, x, w, line, theme_attr(ROLE_DIM));
			break;
		}
		len = snprintf(line, sizeof line, "%4d", i);
		for (int p = 0; p < TRAIN_PAT_COUNT; p++)
			len += an->scored[p]
			       ? snprintf(line + len, sizeof line - (size_t)len, " %6.2f", an->score[i][p])
			       : snprintf(line + len, sizeof line - (size_t)len, " %6s", "-");
		int best = train_pattern_best(an->score[i], an->scored, TRAIN_PATTERN_CLEAR);
		char fits[32];
		if (best >= 0)
			snprintf(fits, sizeof fits, "%s", train_pattern_name((enum train_pattern)best));
		else
			snprintf(fits, sizeof fits, "-");
		if (app->cfg.head_off[i])
			snprintf(line + len, sizeof line - (size_t)len, "  %-10s %10s %4s", fits, "off", "-");
		else
			snprintf(line + len, sizeof line - (size_t)len, "  %-10s %10.3f %4d", fits,
			         an->importance[i], an->rank[i]);
		attr_t a = i == app->head ? theme_attr(ROLE_SELECTED) : theme_head_attr(i);
		draw_put(y + rows++, x, w, line, a);
	}
	return rows;
}

/* The prune curve from row y: the rows that fit, always ending with the
 * last point (no head kept); returns the row under them. */
static int prune_table(const struct train_bench_analysis *an, int y, int x, int w, int bottom)
{
	char line[256], bar[BAR_MAX + 1];
	double top = 1.0;
	for (int k = 0; k < an->points; k++)
		if (an->prune[k].loss > top)
			top = an->prune[k].loss;
	int bar_w = w - PRUNE_TABLE_W - 1;
	bar_w = bar_w > BAR_MAX ? BAR_MAX : bar_w;
	draw_put(y++, x, w, "Prune: remove the head that moves Y least", theme_attr(ROLE_TITLE));
	if (y >= bottom)
		return y;
	draw_put(y++, x, w, "kept  removed  change of Y", theme_attr(ROLE_DIM) | A_BOLD);
	for (int k = 0; k < an->points && y < bottom; k++) {
		if (y == bottom - 1 && k < an->points - 1) {
			draw_put(y++, x, w, "  ...", theme_attr(ROLE_DIM)); /* the last row shows the end */
			k = an->points - 1;
			if (y >= bottom)
				return y;
		}
		const struct train_prune_point *pt = &an->prune[k];
		char removed[16];
		if (pt->head < 0)
			snprintf(removed, sizeof removed, "-");
		else
			snprintf(removed, sizeof removed, "head %d", pt->head);
		int fill = bar_w > 0 ? (int)(pt->loss / top * bar_w + 0.5) : 0;
		memset(bar, '#', (size_t)fill);
		bar[fill] = '\0';
		snprintf(line, sizeof line, "%4d  %-7s  %6.3f %s%s", pt->kept, removed, pt->loss,
		         bar_w > 0 ? "|" : "", bar);
		draw_put(y++, x, w, line, pt->head < 0 ? theme_attr(ROLE_NORMAL) : theme_head_attr(pt->head));
	}
	return y;
}

/* The prune curve in two rows: Y's change at h, h-1, .. 0 heads kept. */
static void prune_line(const struct train_bench_analysis *an, int y, int x, int w)
{
	char line[512];
	int len = snprintf(line, sizeof line, "Prune: change of Y with %d, %d, .. 0 heads kept", an->prune[0].kept,
	                   an->prune[0].kept - 1);
	draw_put(y++, x, w, line, theme_attr(ROLE_TITLE));
	len = 0;
	for (int k = 0; k < an->points && len < (int)sizeof line - 8; k++) {
		char v[16];
		snprintf(v, sizeof v, "%.2f", an->prune[k].loss);
		len += snprintf(line + len, sizeof line - (size_t)len, "%s ", v[0] == '0' ? v + 1 : v);
	}
	draw_put(y, x, w, line, theme_attr(ROLE_NORMAL));
}

/* Under the tables, when the rows are there (120x40 left 26 blank): each
 * head's weights P, the pattern its scores measure, with the title the
 * workbench gives it (what the map shows); from row y to bottom. */
static void heads_maps(const struct app *app, const struct frame *f, int y, struct rect r, int bottom)
{
	if (bottom - y < 3 + app->cfg.n + 1)
		return;
	struct rect maps = { y + 2, r.x, bottom - y - 2, r.w };
	if (heat_strip_weights_in(app, f, maps))
		draw_put(y + 1, r.x, r.w, "What the scores measure: each head's weights P on this sentence",
		         theme_attr(ROLE_TITLE));
}

static void analysis_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	const struct rect r = b->info;
	const int bottom = r.y + r.h;
	struct train_bench_analysis an;
	char line[256];
	int y = r.y;
	draw_put(y++, r.x, r.w, "Head analysis: what each head does with these weights", theme_attr(ROLE_TITLE));
	if (train_bench_analysis(&app->cfg, &app->w, &an) != MHA_OK) {
		draw_put(y, r.x, r.w, "out of memory", theme_attr(ROLE_ERROR));
		return;
	}
	if (y < bottom)
		draw_put(y++, r.x, r.w, app->cfg.m > 0 ? "scores: none between two sentences (a pattern reads one)"
		                                       : "scores: mean P on this sentence's tokens (dup, induct: repeated "
		                                         "words)", theme_attr(ROLE_DIM));
	snprintf(line, sizeof line, "importance: |Y - Y without the head| / |Y|, |Y| = %.3g; fits: score >= %.1f",
	         an.y_norm, TRAIN_PATTERN_CLEAR);
	if (y < bottom)
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	if (y < bottom)
		y++;
	if (r.w >= HEAD_TABLE_W + SIDE_BY_SIDE_GAP + PRUNE_TABLE_W + 10) {
		int px = r.x + HEAD_TABLE_W + SIDE_BY_SIDE_GAP;
		int hy = y + 1 + head_table(app, &an, y + 1, r.x, HEAD_TABLE_W, bottom), py = y;
		if (y < bottom)
			draw_put(y, r.x, HEAD_TABLE_W, "Heads", theme_attr(ROLE_TITLE));
		if (y < bottom)
			py = prune_table(&an, y, px, r.x + r.w - px, bottom);
		heads_maps(app, f, hy > py ? hy : py, r, bottom);
		return;
	}
	/* stacked: the prune table below the heads when both fit, else the
	 * curve in two rows under as many heads as fit */
	if (y + 1 + an.h + 1 + 2 + an.points <= bottom) {
		y += head_table(app, &an, y, r.x, r.w, bottom);
		heads_maps(app, f, prune_table(&an, y + 1, r.x, r.w, bottom), r, bottom);
	} else if (y + 5 <= bottom) {
		y += head_table(app, &an, y, r.x, r.w, bottom - 3);
		prune_line(&an, y + 1, r.x, r.w);
	} else {
		head_table(app, &an, y, r.x, r.w, bottom);
	}
}

enum { FL = ACTION_BAR_BOTH };
static const struct action analysis_opener = {
	.keys = { 'A' }, .label = "A", .name = "analysis", .help = "head analysis: patterns, importance, prune",
	.group = "Train", .shows = MODE_SHOWS_ALL, .id = "analysis",
};

/* The workbench's keys act under it (the figures follow): these it names. */
static const struct action analysis_keys[] = {
	{ .use = "head-toggle", .name = "head off/on", .help = "the selected head off / on: the figures follow",
	  .bar = FL },
	{ .use = "head-next", .name = "select", .bar_keys = "L H", .help = "select the next / previous head",
	  .bar = FL },
	{ .use = "head-prev", .help = "select the previous head" },
	{ .use = "edit", .name = "edit", .help = "edit a cell of the workbench: the figures follow", .bar = FL },
	{ .keys = { 0 } },
};

const struct mode_ops analysis_view_mode = {
	.name = "head analysis",
	.opener = &analysis_opener,
	.keys = analysis_keys,
	.status = analysis_status,
	.layout = mode_layout_wide,
	.body = analysis_body,
};
