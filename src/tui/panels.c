/*
 * panels.c - the stage's matrices on the workbench: each panel of the
 * stage view (stage.h) with its title and shape, token labels, the cursor,
 * the cells the cursor's cell was computed from (deps.h), the cells the
 * last edit changed, head colours, the softmax rows' sum and entropy, and
 * under Reshape the proof that the head block is X times a column block of
 * W. Drawing only: it reads the state, records where each matrix's cells
 * went (hit.h), and computes no attention (numbers come from the core's
 * activations, or app_panel_value for the proof).
 */
#include "panels.h"

#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline.h"
#include "draw.h"
#include "fmt.h"
#include "heatmap.h"
#include "learn.h"
#include "notation.h"
#include "theme.h"
#include "workbench.h"

/* The columns panel p takes at cell width cw: row labels, its cells,
 * and the softmax row stats. */
static int panel_width(const struct panel *p, int cw)
{
	return PANELS_LABEL_W + p->cols * cw + (p->row_stats ? 2 * cw : 0);
}

/* What each panel of v wants at its cell width cws[i] (NULL: cw each): its
 * rows plus title and header, its columns plus the row labels (and the
 * softmax row stats). */
static void panel_wants(const struct stage_view *v, int cw, const int *cws, struct rect *want)
{
	for (int i = 0; i < v->count; i++)
		want[i] = (struct rect){ 0, 0, v->p[i].rows + 2, panel_width(&v->p[i], cws ? cws[i] : cw) };
}

/* Cell width, separator included: 6 (5-character numbers, "-0.56") on 80
 * columns; on wide terminals 7 ("-0.556") when every matrix still shows
 * all its columns and the shelves stay as few, else 6, so that a large
 * terminal shows more columns rather than more decimals of fewer. */
int panels_cell_width(const struct stage_view *v, int width, int cols)
{
	if (cols < 120)
		return 6;
	struct rect w7[STAGE_PANELS_MAX], w6[STAGE_PANELS_MAX];
	panel_wants(v, 7, NULL, w7);
	panel_wants(v, 6, NULL, w6);
	for (int i = 0; i < v->count; i++)
		if (w7[i].w > width)
			return 6;
	return layout_panels_height(width, v->count, w7) > layout_panels_height(width, v->count, w6) ? 6 : 7;
}

/* Rows the stage's matrices use at cell width cw (the Reshape proof adds
 * two lines under them). */
int panels_rows(const struct app *app, const struct stage_view *v, int width, int cw)
{
	struct rect want[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX];
	panels_cell_widths(app, v, width, cw, cws);
	panel_wants(v, cw, cws, want);
	return layout_panels_height(width, v->count, want) + (app->stage == PIPELINE_RESHAPE && v->count == 3 ? 2 : 0);
}

/* Is the open lesson step about the heatmaps (its prose or question
 * names them)? Then they keep their room. */
static bool step_about_heatmaps(const struct app *app)
{
	if (!learn_lesson(app) || !app->learn.active)
		return false;
	const struct lesson_step *s = lesson_run_step(&app->learn.run);
	const char *q = s->question ? s->question->text : NULL;
	return strstr(s->prose, "heatmap") || (q && strstr(q, "heatmap"));
}

int panels_focus(const struct app *app, const struct stage_view *v, int *rows)
{
	int i = app->learn.active ? app->cur[app->stage].panel : v->count - 1;
	if (i < 0 || i >= v->count)
		return -1;
	/* a lesson: the step's matrix whole up to 8 rows; the free workbench:
	 * 4 rows of the result before the heatmaps (which show the same P at
	 * Scores and Softmax), the rest shared */
	int n = v->p[i].rows;
	*rows = !app->learn.active || step_about_heatmaps(app) ? (n < 4 ? n : 4) : n <= 8 ? n : 6;
	return i;
}

int panels_cell_widths(const struct app *app, const struct stage_view *v, int width, int cw, int *cws)
{
	for (int i = 0; i < v->count; i++)
		cws[i] = cw;
	int rows, f = panels_focus(app, v, &rows);
	if (f >= 0 && v->p[f].t == MHA_T_WEIGHTS && cw > PANELS_NARROW_CW && panel_width(&v->p[f], cw) > width)
		cws[f] = PANELS_NARROW_CW;
	return f;
}

/* v in w characters (w 3..15): as fmt_num, but a weight or an entropy (0
 * to 10) in 4 with two decimals, as in 5 ("0.31", "1.00", "1.71"). */
static void cell_num(char *buf, size_t len, float v, int w)
{
	if (w == 4 && v >= 0.0f && v < 9.995f)
		snprintf(buf, len, "%.2f", (double)v);
	else
		fmt_num(buf, len, v, w);
}

int panels_cols_shown(const struct panel *p, struct rect got, int cw)
{
	int c = (got.w - PANELS_LABEL_W - (p->row_stats ? 2 * cw : 0)) / cw;
	c = c < 1 ? 1 : c;
	return got.h > 2 && got.w > 0 ? (c < p->cols ? c : p->cols) : 0;
}

/* Whether text names the matrix name as a word ("row i of Q", "Q₀",
 * "K^T", "W^O", "Y[3,0]"), not inside another ("QK", "W^Q" for Q). */
static bool names(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *at = text ? strstr(text, name) : NULL; at; at = strstr(at + 1, name)) {
		char before = at == text ? ' ' : at[-1], after = at[n];
		bool starts = !isalnum((unsigned char)before) && before != '^' && before != '_' && before != '{';
		bool ends = !isalnum((unsigned char)after) && after != '\'';
		if (starts && ends)
			return true;
	}
	return false;
}

bool panels_step_names(const struct app *app, const struct stage_view *v, int i)
{
	if (!learn_lesson(app) || !app->learn.active || i < 0 || i >= v->count)
		return false;
	const struct lesson_step *s = lesson_run_step(&app->learn.run);
	const char *q = s->question ? s->question->text : NULL, *name = mha_tensor_info(v->p[i].t)->name;
	if (step_about_heatmaps(app))
		return false;
	bool named = names(s->prose, name) || names(q, name);
	for (int c = 0; s->question && c < s->question->nchoices && !named; c++)
		named = names(s->question->choices[c].text, name);
	return named;
}

int panels_named_rows(const struct app *app, const struct stage_view *v)
{
	int rows = 0, focus_rows, f = panels_focus(app, v, &focus_rows);
	for (int i = 0; i < v->count; i++)
		if (i != f && panels_step_names(app, v, i))
			rows += 1 + 2 + (v->p[i].rows < 3 ? v->p[i].rows : 3); /* a gap, title, header, 3 rows */
	return rows;
}

/* ---- one matrix panel ---- */

/* Row or column i's label: a token as the heatmaps label it (a repeated
 * word told apart: "the\u2080", "the\u2084"), else its index. */
static void token_label(const struct app *app, bool tokens, int i, char *buf, size_t len, int width)
{
	if (tokens)
		heatmap_token_label(buf, len, (const char (*)[MHA_LABEL_MAX])app->w.labels, app->cfg.n, i, width);
	else
		snprintf(buf, len, "%d", i);
}

struct panel_ctx {
	const struct app *app;
	const struct panel *p;
	bool has_cursor;      /* the cursor is in this panel */
	bool have_target;     /* the cursor's cell, for the trace */
	struct cell target;
	int cw;               /* cell width, separator included */
	int index;            /* the panel's index in the stage view */
	struct hit_map *hits; /* where its cells go (NULL: not recorded) */
};

/* The panel shows masked scores as -inf. */
static bool is_masked(const struct app *app, const struct panel *p, int r, int c)
{
	return p->masked && pipeline_masked(&app->cfg, &app->a, p->m, r, c);
}

static attr_t cell_attr(const struct panel_ctx *k, int r, int c, bool cursor)
{
	const struct panel *p = k->p;
	int gc = p->col0 + c;
	if (cursor)
		return theme_attr(ROLE_SELECTED);
	if (!p->proof && k->app->now_ms < k->app->changed_until_ms &&
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
static void panel_focus(const struct panel_ctx *k, int *fr, int *fc)
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
	} else if (p->row_tokens && k->have_target) {
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
	const float *m = mha_tensor_data(&app->w, &app->a, p->t);
	pipeline_row_entropy(m + ((size_t)p->m * s.rows + r) * s.cols + p->col0, p->cols, sum, ent);
}

static void draw_panel(const struct panel_ctx *k, struct rect rc)
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
		char rs[48] = "", cs[64] = "";
		if (nr < p->rows && nr > 0)
			snprintf(rs, sizeof rs, " r%d-%d/%d", r0, r0 + nr - 1, p->rows);
		if (nc < p->cols)
			snprintf(cs, sizeof cs, " c%d-%d/%d%s", p->col0 + c0, p->col0 + c0 + nc - 1, p->col0 + p->cols,
			         c0 + nc < p->cols ? " >" : "");
		char bare[64];
		snprintf(bare, sizeof bare, "%.*s", (int)strcspn(cs, ">") - (strchr(cs, '>') ? 1 : 0), cs);
		const char *forms[4] = { more, cs, bare, rs };
		snprintf(more, sizeof more, "%s%s", rs, cs);
		for (int i = 0; i < 4; i++)
			if (forms[i][0] && (int)strlen(forms[i]) <= rc.x + rc.w - x) {
				x += draw_put(rc.y, x, rc.x + rc.w - x, forms[i], theme_attr(ROLE_DIM));
				break;
			}
	}
	if (p->tag[0] && x + 1 + (int)strlen(p->tag) <= rc.x + rc.w) /* whole or not at all */
		draw_put(rc.y, x + 1, (int)strlen(p->tag), p->tag, theme_head_attr(p->tag_head) | A_BOLD);
	if (vis_r <= 0)
		return;

	/* column header: token labels for key columns, else column numbers */
	char buf[64];
	for (int c = 0; c < nc; c++) {
		if (p->col_tokens) /* as the rows label the same token */
			token_label(app, true, c0 + c, buf, sizeof buf, PANELS_LABEL_W - 1);
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
		token_label(app, p->row_tokens, gr, buf, sizeof buf, PANELS_LABEL_W - 1);
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

/* Reshape: the head block read from Q and the same block computed as
 * X . (column block of W) agree to rounding. With huge inputs (1e6 gives
 * Q near 1e13) float32 rounding is large in absolute terms, so the
 * difference is also given relative to the block's largest value. */
/* "Q[*,0..3] = X . W^Q[*,0..3]  max |diff| 0" in at most width columns:
 * whole, or "Q[*,0..3] = X.W^Q[*,0..3]  |diff| 0", or its short form. */
static void reshape_proof(const struct app *app, const struct stage_view *v, char *out, size_t len, int width)
{
	double worst = 0.0, largest = 0.0;
	for (int r = 0; r < v->p[1].rows; r++)
		for (int c = 0; c < v->p[1].cols; c++) {
			double q = (double)app_panel_value(app, &v->p[1], r, c);
			double d = fabs(q - (double)app_panel_value(app, &v->p[2], r, c));
			if (d > worst)
				worst = d;
			if (fabs(q) > largest)
				largest = fabs(q);
		}
	enum mha_tensor t = v->p[0].t;
	int c0 = v->p[1].col0, c1 = c0 + v->p[1].cols;
	char diff[16], rel[48] = "";
	fmt_num(diff, sizeof diff, (float)worst, 7);
	if (largest >= 1e3) {
		char r[16];
		fmt_num(r, sizeof r, (float)(worst / largest), 7);
		snprintf(rel, sizeof rel, ", %s of the largest", r + strspn(r, " "));
	}
	/* the blocks in the cell notation: "Q[*,0..3] = X . W^Q[*,0..3]" */
	char qs[40], ws[40]; /* "W^Q[*,1008..1023]" */
	struct cell_rect blk = { 0, 0, app->cfg.n, c0, c1 };
	notation_rect(qs, sizeof qs, &app->cfg, t, &blk, theme_utf8());
	blk.r1 = app->cfg.d;
	notation_rect(ws, sizeof ws, &app->cfg, t == MHA_T_Q ? MHA_T_WQ : t == MHA_T_K ? MHA_T_WK : MHA_T_WV, &blk,
	              theme_utf8());
	snprintf(out, len, "%s = X . %s  max |diff| %s%s", qs, ws, diff + strspn(diff, " "), rel);
	if (draw_width(out) > width)
		snprintf(out, len, "%s = X.%s  |diff| %s%s", qs, ws, diff + strspn(diff, " "), rel);
}

/* Under Reshape, the height of area that the matrices and the proof's two
 * lines under them take (right under them when there is room); 0 when
 * there is no proof. */
static int proof_area_h(const struct app *app, const struct stage_view *v, struct rect area, const struct rect *want)
{
	if (app->stage != PIPELINE_RESHAPE || v->count != 3 || area.h <= 8)
		return 0;
	int ph = layout_panels_height(area.w, v->count, want);
	return ph + 2 < area.h ? ph + 2 : area.h;
}

int panels_place(const struct app *app, const struct stage_view *v, struct rect area, int cw, struct rect *got)
{
	struct rect want[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX], rows = 0;
	int f = panels_cell_widths(app, v, area.w, cw, cws);
	panel_wants(v, cw, cws, want);
	if (proof_area_h(app, v, area, want) > 0)
		area.h = proof_area_h(app, v, area, want) - 2;
	panels_focus(app, v, &rows);
	/* a lesson's focus shows 6 of its columns, P all of them (the free
	 * workbench's too: on Softmax S is the stage before's), the others
	 * taking what is left */
	int focus_w = 0;
	if (f >= 0 && (app->learn.active || v->p[f].t == MHA_T_WEIGHTS)) {
		struct panel six = v->p[f];
		six.cols = six.t == MHA_T_WEIGHTS || six.cols < 6 ? six.cols : 6;
		focus_w = panel_width(&six, cws[f]);
	}
	return layout_panels_focus(area, v->count, want, PANELS_LABEL_W + 2 * cw, f, rows + 2, focus_w, got);
}

void panels_draw(const struct app *app, const struct stage_view *v, struct rect area, int cw,
                       struct hit_map *hits)
{
	struct rect want[STAGE_PANELS_MAX], got[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX];
	panels_cell_widths(app, v, area.w, cw, cws);
	panel_wants(v, cw, cws, want);
	panels_place(app, v, area, cw, got);
	int proof_h = proof_area_h(app, v, area, want);
	if (proof_h > 0) {
		char proof[160];
		area.h = proof_h;
		if (learn_hidden(app, v->p[1].t, 0, -1, -1))
			snprintf(proof, sizeof proof, "the same block as X . W: hidden until answered right");
		else
			reshape_proof(app, v, proof, sizeof proof, area.w);
		draw_fit(area.y + area.h - 1, area.x, area.w, proof, theme_attr(ROLE_TITLE));
	}
	struct panel_ctx k;
	memset(&k, 0, sizeof k);
	k.app = app;
	k.cw = cw;
	k.hits = hits;
	const struct panel *cp = NULL;
	struct stage_view tmp;
	k.have_target = app_cursor_cell(app, &k.target, &cp, &tmp);
	for (int i = 0; i < v->count; i++) {
		k.p = &v->p[i];
		k.cw = cws[i];
		k.index = i;
		k.has_cursor = i == app->cur[app->stage].panel;
		draw_panel(&k, got[i]);
	}
}

