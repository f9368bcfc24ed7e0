/*
 * matrix_panel.c - one matrix panel of the workbench's stage: its title
 * and where the window sits in a larger matrix, token labels, the cells
 * (the cursor, the cursor cell's sources, the last edit's changes, marks,
 * head colours, "?" for a hidden prediction, -inf for a masked score),
 * and a softmax panel's row sum and entropy.
 *
 * It deliberately does not decide where the panel goes or how wide its
 * cells are (panels.c), and computes no attention: values come from the
 * core's activations through app_panel_value and pipeline.h.
 */
#include "matrix_panel.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "heatmap.h"
#include "learn.h"
#include "panels.h"
#include "pipeline.h"
#include "theme.h"

/* v in w characters (w 3..15): as fmt_num, but a weight or an entropy (0
 * to 10) in 4 with two decimals, as in 5 ("0.31", "1.00", "1.71"). */
static void cell_num(char *buf, size_t len, float v, int w)
{
	if (w == 4 && v >= 0.0f && v < 9.995f)
		snprintf(buf, len, "%.2f", (double)v);
	else
		fmt_num(buf, len, v, w);
}

/* Row or column i's label: a token as the heatmaps label it (a repeated
 * word told apart: "the\u2080", "the\u2084"), X_kv's when kv (the
 * source's, cross-attention), else its index. */
static void token_label(const struct app *app, bool tokens, bool kv, int i, char *buf, size_t len, int width)
{
	if (tokens && kv)
		heatmap_token_label(buf, len, (const char (*)[MHA_LABEL_MAX])app->w.kv_labels, app->cfg.m, i, width);
	else if (tokens)
		heatmap_token_label(buf, len, (const char (*)[MHA_LABEL_MAX])app->w.labels, app->cfg.n, i, width);
	else
		snprintf(buf, len, "%d", i);
}

/* The panel shows masked scores as -inf. */
static bool is_masked(const struct app *app, const struct panel *p, int r, int c)
{
	return p->masked && pipeline_masked(&app->cfg, &app->a, p->m, r, c);
}

static attr_t cell_attr(const struct matrix_panel *k, int r, int c, bool cursor)
{
	const struct panel *p = k->p;
	int gc = p->col0 + c;
	if (cursor)
		return theme_attr(ROLE_SELECTED);
	if (!p->proof && !p->write && k->app->now_ms < k->app->changed_until_ms &&
	    app_cell_changed(k->app, p->t, p->m, r, gc))
		return theme_attr(ROLE_CHANGED);
	if (k->have_target) {
		const struct cell *t = &k->target;
		bool same = t->t == p->t && t->m == p->m && t->r == r && t->c == gc;
		if (same || pipeline_is_source(&k->app->cfg, t, p->t, p->m, r, gc))
			return theme_attr(ROLE_TRACE);
	}
	if (learn_marked(k->app, p->t, p->m, r, gc))
		return theme_attr(ROLE_MARK);
	if (p->t == MHA_T_HEADS && k->app->cfg.head_off[p->m])
		return theme_attr(ROLE_DIM);
	if (p->fixed_head >= 0)
		return theme_head_attr(p->fixed_head);
	if (p->colour_cols > 0)
		return theme_head_attr(gc / p->colour_cols);
	if (p->colour_rows > 0)
		return theme_head_attr(r / p->colour_rows);
	return theme_attr(ROLE_NORMAL);
}

/* First row / column to show so that `focus` is visible in `vis` slots. */
static int scroll_for(int focus, int vis, int total)
{
	if (vis <= 0 || total <= vis || focus < vis)
		return 0;
	int off = focus - vis + 1;
	return off > total - vis ? total - vis : off;
}

/* Which cell of this panel to keep in view: the cursor, else the first
 * cell the cursor's cell depends on, else the cursor's row. */
static void panel_focus(const struct matrix_panel *k, int *fr, int *fc)
{
	const struct app_cursor *cu = &k->app->cur[k->app->stage];
	const struct panel *p = k->p;
	*fr = 0;
	*fc = 0;
	if (k->has_cursor) {
		*fr = cu->row;
		*fc = cu->col;
		return;
	}
	struct cell_rect dr;
	if (k->have_target && pipeline_deps_rect(&k->app->cfg, &k->target, p->t, &dr) && dr.m == p->m) {
		*fr = dr.r0;
		*fc = dr.c0 - p->col0;
	} else if (k->have_target && k->target.t == p->t && k->target.m == p->m) {
		*fr = k->target.r;
		*fc = k->target.c - p->col0;
	} else if (p->row_tokens && !p->row_kv && k->have_target) {
		*fr = k->target.r;
	}
	if (*fc < 0 || *fc >= p->cols)
		*fc = 0;
	if (*fr < 0 || *fr >= p->rows)
		*fr = 0;
}

/* Each row's sum and entropy (nats) of a softmax panel. */
static void row_stats(const struct app *app, const struct panel *p, int r, double *sum, double *ent)
{
	struct mha_shape s = mha_tensor_shape(&app->cfg, p->t);
	const float *m = app_tensor(app, p->t);
	pipeline_row_entropy(m + ((size_t)p->m * s.rows + r) * s.cols + p->col0, p->cols, sum, ent);
}

void matrix_panel_draw(const struct matrix_panel *k, struct rect rc)
{
	const struct app *app = k->app;
	const struct panel *p = k->p;
	const struct app_cursor *cu = &app->cur[app->stage];
	int cw = k->cw, stats_w = p->row_stats ? 2 * cw : 0;
	int vis_c = (rc.w - PANELS_LABEL_W - stats_w) / cw, vis_r = rc.h - 2;
	if (rc.h <= 0 || rc.w <= 0)
		return;
	if (vis_c < 1)
		vis_c = 1;
	int fr, fc;
	panel_focus(k, &fr, &fc);
	int r0 = scroll_for(fr, vis_r, p->rows), c0 = scroll_for(fc, vis_c, p->cols);
	int nr = p->rows - r0 < vis_r ? p->rows - r0 : vis_r;
	int nc = p->cols - c0 < vis_c ? p->cols - c0 : vis_c;

	/* title, and where the window sits when the matrix is larger */
	attr_t ta = theme_attr(ROLE_TITLE);
	if (p->fixed_head >= 0)
		ta = theme_head_attr(p->fixed_head) | A_BOLD;
	int x = rc.x + draw_put(rc.y, rc.x, rc.w, p->title, ta | (k->has_cursor ? A_UNDERLINE : 0));
	char more[128] = "";
	if (nr < 0)
		nr = 0;
	if (nc < p->cols || (nr < p->rows && nr > 0)) {
		/* rows and columns shown, else the columns alone (with, then
		 * without the arrow), the rows alone, or nothing: each whole */
		/* in words a reader can take in: "rows 0-1 of 8", "cols 0-5 of
		 * 16 >", and for a head's block its own columns, "cols 4-5 of
		 * 4-7" (not "c4-5/8", of a block 4 wide) */
		char rs[48] = "", cs[64] = "", of[24];
		if (nr < p->rows && nr > 0)
			snprintf(rs, sizeof rs, " rows %d-%d of %d", r0, r0 + nr - 1, p->rows);
		if (p->col0 > 0)
			snprintf(of, sizeof of, "%d-%d", p->col0, p->col0 + p->cols - 1);
		else
			snprintf(of, sizeof of, "%d", p->cols);
		if (nc < p->cols)
			snprintf(cs, sizeof cs, " cols %d-%d of %s%s", p->col0 + c0, p->col0 + c0 + nc - 1, of,
			         c0 + nc < p->cols ? " >" : "");
		char bare[64];
		snprintf(bare, sizeof bare, "%.*s", (int)strcspn(cs, ">") - (strchr(cs, '>') ? 1 : 0), cs);
		const char *forms[5] = { more, cs, bare, rs, nc < p->cols && c0 + nc < p->cols ? " >" : "" };
		snprintf(more, sizeof more, "%s%s%s", rs, rs[0] && cs[0] ? "," : "", cs);
		/* the longest form that leaves the tag its room, else the
		 * longest that fits alone (the tag then waits) */
		int tag = p->tag[0] ? 1 + (int)strlen(p->tag) : 0, pick = -1;
		for (int pass = 0; pass < 2 && pick < 0; pass++)
			for (int i = 0; i < 5 && pick < 0; i++)
				if (forms[i][0] && (int)strlen(forms[i]) + (pass ? 0 : tag) <= rc.x + rc.w - x)
					pick = i;
		if (pick >= 0)
			x += draw_put(rc.y, x, rc.x + rc.w - x, forms[pick], theme_attr(ROLE_DIM));
	}
	if (p->tag[0] && x + 1 + (int)strlen(p->tag) <= rc.x + rc.w) /* whole or not at all */
		draw_put(rc.y, x + 1, (int)strlen(p->tag), p->tag, theme_head_attr(p->tag_head) | A_BOLD);
	if (vis_r <= 0)
		return;

	/* column header: token labels for key columns, else column numbers */
	char buf[64];
	for (int c = 0; c < nc; c++) {
		if (p->col_tokens) /* as the rows label the same token */
			token_label(app, true, p->col_kv, c0 + c, buf, sizeof buf, PANELS_LABEL_W - 1);
		else
			snprintf(buf, sizeof buf, "%d", p->col0 + c0 + c);
		char cell[80];
		theme_cut(cell, sizeof cell, buf, cw - 1, true);
		attr_t a = theme_attr(ROLE_DIM);
		if (p->colour_cols > 0)
			a = theme_head_attr((p->col0 + c0 + c) / p->colour_cols);
		draw_put(rc.y + 1, rc.x + PANELS_LABEL_W + c * cw, cw - 1, cell, a);
	}
	if (p->row_stats) {
		int sx = rc.x + PANELS_LABEL_W + nc * cw;
		snprintf(buf, sizeof buf, "%*s%*s", cw - 1, "sum", cw, "H");
		draw_put(rc.y + 1, sx, 2 * cw, buf, theme_attr(ROLE_TITLE));
	}

	/* a click on a cell (or the space after it) puts the cursor there */
	hit_add(k->hits, (struct rect){ rc.y + 2, rc.x + PANELS_LABEL_W, nr, nc * cw }, HIT_CELL, k->index, r0, c0, cw);
	for (int r = 0; r < nr; r++) {
		int gr = r0 + r, y = rc.y + 2 + r;
		token_label(app, p->row_tokens, p->row_kv, gr, buf, sizeof buf, PANELS_LABEL_W - 1);
		attr_t la = theme_attr(ROLE_DIM);
		if (p->colour_rows > 0)
			la = theme_head_attr(gr / p->colour_rows);
		draw_put(y, rc.x, PANELS_LABEL_W - 1, buf, la);
		for (int c = 0; c < nc; c++) {
			int gc = c0 + c;
			bool cursor = k->has_cursor && cu->row == gr && cu->col == gc;
			char num[32];
			if (learn_hidden(app, p->t, p->m, gr, gc))
				snprintf(num, sizeof num, "%*s", cw - 1, "?"); /* predict first */
			else if (is_masked(app, p, gr, gc))
				snprintf(num, sizeof num, "%*s", cw - 1, "-inf");
			else
				cell_num(num, sizeof num, app_panel_value(app, p, gr, gc), cw - 1);
			draw_put(y, rc.x + PANELS_LABEL_W + c * cw, cw - 1, num, cell_attr(k, gr, gc, cursor));
		}
		if (p->row_stats) {
			double sum, ent;
			row_stats(app, p, gr, &sum, &ent);
			char s1[32], s2[32];
			cell_num(s1, sizeof s1, (float)sum, cw - 1);
			cell_num(s2, sizeof s2, (float)ent, cw - 1);
			if (learn_hidden(app, p->t, p->m, gr, -1)) {
				snprintf(s1, sizeof s1, "%*s", cw - 1, "?");
				snprintf(s2, sizeof s2, "%*s", cw - 1, "?");
			}
			snprintf(buf, sizeof buf, "%s %s", s1, s2);
			draw_put(y, rc.x + PANELS_LABEL_W + nc * cw, 2 * cw, buf, theme_attr(ROLE_TITLE));
		}
	}
}
