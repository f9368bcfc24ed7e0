/*
 * heat_view.c - the strip of per-head heatmaps under the matrices (Scores
 * onward): a page of heads, each an n x n map in the heat ramp (heatmap.c
 * draws one), masked cells at the bottom of the scale, the cursor's cell
 * marked, the legend with the value under the cursor and the page. The
 * scores' range is taken over every head's unmasked cells, so heads
 * compare. Drawing only; clicks land by the regions it records.
 */
#include "heat_view.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "draw.h"
#include "fmt.h"
#include "heatmap.h"
#include "learn.h"
#include "pipeline.h"
#include "theme.h"

static void heat_range(const struct app *app, bool scores, float *lo, float *hi)
{
	const struct mha_config *c = &app->cfg;
	*lo = 0.0f;
	*hi = 1.0f;
	if (!scores)
		return;
	bool first = true;
	for (int i = 0; i < c->h; i++) {
		for (int r = 0; r < c->n; r++)
			for (int k = 0; k < c->n; k++) {
				float v = app->a.scores[((size_t)i * c->n + r) * c->n + k];
				if (pipeline_masked(c, &app->a, i, r, k) || !isfinite(v))
					continue;
				if (first || v < *lo)
					*lo = v;
				if (first || v > *hi)
					*hi = v;
				first = false;
			}
	}
}

void heat_view_draw(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	const struct mha_config *c = &app->cfg;
	struct rect r = b->heat;
	if (r.h <= 0)
		return;
	bool scores = app->stage == PIPELINE_SCORES;
	if (b->heat_per_page <= 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "heatmaps need %d rows: enlarge the terminal or use fewer tokens (%s)", c->n + 3,
		         actions_key_name("tokens-less"));
		draw_put(r.y, r.x, r.w, msg, theme_attr(ROLE_DIM));
		return;
	}
	float lo, hi;
	heat_range(app, scores, &lo, &hi);
	int per = b->heat_per_page, pages = heatmap_pages(c->h, per);
	int page = app->heat_page < pages ? app->heat_page : pages - 1;
	if (page < 0)
		page = 0;
	struct heatmap hm;
	memset(&hm, 0, sizeof hm);
	hm.rows = c->n;
	hm.cols = c->n;
	struct heatmap_size one = heatmap_measure(&hm, b->heat_cell_w);
	struct stage_view v;
	struct cell cell;
	bool have = app_cursor_cell(app, &cell, NULL, &v);
	float buf[MHA_MAX_TOKENS * MHA_MAX_TOKENS]; /* one head's map with the mask applied */
	unsigned char hid[MHA_MAX_TOKENS * MHA_MAX_TOKENS]; /* its cells a lesson keeps hidden */
	enum mha_tensor ht = scores ? MHA_T_SCORES : MHA_T_WEIGHTS;
	for (int i = page * per; i < c->h && i < (page + 1) * per; i++) {
		int idx = i - page * per, row = idx / b->heat_per_row, col = idx % b->heat_per_row;
		char title[48], short_title[24];
		if (c->g == c->h) {
			snprintf(title, sizeof title, "head %d", i);
			snprintf(short_title, sizeof short_title, "h%d", i);
		} else {
			snprintf(title, sizeof title, "head %d kv %d", i, mha_kv_head(c, i));
			snprintf(short_title, sizeof short_title, "h%d>kv%d", i, mha_kv_head(c, i));
		}
		const float *src = (scores ? app->a.scores : app->a.weights) + (size_t)i * c->n * c->n;
		bool any = learn_hidden(app, ht, i, -1, -1);
		for (int y = 0; y < c->n; y++)
			for (int x = 0; x < c->n; x++) {
				buf[y * c->n + x] = scores && pipeline_masked(c, &app->a, i, y, x) ? lo : src[y * c->n + x];
				hid[y * c->n + x] = any && learn_hidden(app, ht, i, y, x);
			}
		hm.m = buf;
		hm.hidden = any ? hid : NULL;
		hm.lo = lo;
		hm.hi = hi;
		hm.labels = (const char (*)[MHA_LABEL_MAX])app->w.labels;
		hm.title = title;
		hm.short_title = short_title;
		hm.off = c->head_off[i];
		hm.title_attr = theme_head_attr(i);
		if (learn_head_marked(app, i)) { /* the head the lesson points at */
			size_t tl = strlen(title), sl = strlen(short_title);
			snprintf(title + tl, sizeof title - tl, " <");
			snprintf(short_title + sl, sizeof short_title - sl, "<");
			hm.title_attr = theme_attr(ROLE_MARK);
		}
		hm.cur_row = hm.cur_col = -1;
		if (have && cell.m == i && (cell.t == MHA_T_SCORES || cell.t == MHA_T_WEIGHTS)) {
			hm.cur_row = cell.r;
			hm.cur_col = cell.c;
		}
		int hy = r.y + row * one.rows, hx = r.x + col * (one.cols + 1);
		heatmap_draw(stdscr, hy, hx, &hm, b->heat_cell_w);
		int lw = heatmap_label_width(b->heat_cell_w);
		hit_add(hits, (struct rect){ hy + 2, hx + lw, c->n, one.cols - lw }, HIT_HEAT, i, 0, 0, b->heat_cell_w);
	}
	/* the legend, the value under the cursor, and the page */
	int ly = r.y + r.h - 1;
	char tail[160] = "";
	size_t l = 0;
	int lw = heatmap_legend_width(lo, hi);
	if (have && (cell.t == MHA_T_SCORES || cell.t == MHA_T_WEIGHTS)) {
		char val[32];
		const float *m = cell.t == MHA_T_SCORES ? app->a.scores : app->a.weights;
		float val_f = m[((size_t)cell.m * c->n + cell.r) * c->n + cell.c];
		bool hidden = learn_hidden(app, cell.t, cell.m, cell.r, cell.c);
		/* fewer digits until it fits beside the legend, never cut: a cut
		 * "1.70930533e-12" reads 1.7, a cut -0.02408 reads -0 */
		for (int digits = 9; digits >= 3; digits--) {
			fmt_sig(val, sizeof val, val_f, digits);
			if (hidden)
				snprintf(val, sizeof val, "?");
			l = (size_t)snprintf(tail, sizeof tail, " %s_%d[%s,%s]=%s", cell.t == MHA_T_SCORES ? "S" : "P",
			                     cell.m, app->w.labels[cell.r], app->w.labels[cell.c], val);
			if ((int)l <= r.w - lw)
				break;
		}
	}
	if (pages > 1 && l < sizeof tail)
		snprintf(tail + l, sizeof tail - l, " page %d/%d %s", page + 1, pages, actions_key_name("page-next"));
	/* the legend keeps its values whole: it gets its natural width, the
	 * tail what is left (cut at its end: the page hint goes before the value);
	 * a value that does not fit even at 3 digits takes half the ramp (one
	 * cell a level instead of two) */
	int tl = (int)strlen(tail), lw_min = lw - theme_heat_levels();
	if ((int)l > r.w - lw)
		lw = r.w - (int)l > lw_min ? r.w - (int)l : lw_min;
	if (lw > r.w)
		lw = r.w;
	if (lw < r.w - tl)
		lw = r.w - tl < 40 ? r.w - tl : 40; /* the tail keeps its old place when it fits */
	heatmap_legend_draw(stdscr, ly, r.x, lw, lo, hi);
	draw_put(ly, r.x + lw, r.w - lw, tail, theme_attr(ROLE_DIM));
}

