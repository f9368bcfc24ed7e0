/*
 * panels.c - the stage's matrices on the workbench as a set: how wide
 * their cells are, how many rows they want, which one is the focus and
 * which others a lesson step names (so they get room), where each goes,
 * under Reshape the proof that the head block is X times a column
 * block of W, and under Output the proof that the heads' writes add up
 * to Y. Each panel itself is drawn by matrix_panel.c; what a step's
 * words name is read by step_text.c.
 *
 * Drawing and placing only: it reads the state, and computes no
 * attention (numbers come from the core's activations, or
 * app_panel_value for the proof).
 */
#include "panels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "learn.h"
#include "matrix_panel.h"
#include "notation.h"
#include "pipeline.h"
#include "step_text.h"
#include "theme.h"

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

/* The stage shows a proof under its matrices: Reshape (the block is X
 * times W's block), Output (the heads' writes add up to Y). */
static bool has_proof(const struct app *app, const struct stage_view *v)
{
	return (app->stage == PIPELINE_RESHAPE && v->count == 3) || (app->stage == PIPELINE_OUTPUT && v->count == 4);
}

/* Rows the stage's matrices use at cell width cw (a proof adds two lines
 * under them). */
int panels_rows(const struct app *app, const struct stage_view *v, int width, int cw)
{
	struct rect want[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX];
	panels_cell_widths(app, v, width, cw, cws);
	panel_wants(v, cw, cws, want);
	return layout_panels_height(width, v->count, want) + (has_proof(app, v) ? 2 : 0);
}

/* The open lesson step, whose text says what it is about; NULL when none. */
static const struct lesson_step *open_step(const struct app *app)
{
	return learn_lesson(app) && app->learn.active ? lesson_run_step(&app->learn.run) : NULL;
}

int panels_focus(const struct app *app, const struct stage_view *v, int *rows)
{
	/* the free workbench: the result (Y before a head's write into it) */
	int i = app->learn.active ? app->cur[app->stage].panel : v->count - 1 - (v->count > 1 && v->p[v->count - 1].write);
	if (i < 0 || i >= v->count)
		return -1;
	/* a lesson: the step's matrix whole up to 8 rows; the free workbench:
	 * 4 rows of the result before the heatmaps (which show the same P at
	 * Scores and Softmax), the rest shared */
	int n = v->p[i].rows;
	*rows = !app->learn.active || step_text_about_heatmaps(open_step(app)) ? (n < 4 ? n : 4) : n <= 8 ? n : 6;
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

int panels_widest(const struct app *app, const struct stage_view *v, int width, int cw)
{
	int cws[STAGE_PANELS_MAX], w = 0;
	panels_cell_widths(app, v, width, cw, cws);
	for (int i = 0; i < v->count; i++)
		w = panel_width(&v->p[i], cws[i]) > w ? panel_width(&v->p[i], cws[i]) : w;
	return w;
}

int panels_cols_shown(const struct panel *p, struct rect got, int cw)
{
	int c = (got.w - PANELS_LABEL_W - (p->row_stats ? 2 * cw : 0)) / cw;
	c = c < 1 ? 1 : c;
	return got.h > 2 && got.w > 0 ? (c < p->cols ? c : p->cols) : 0;
}

bool panels_step_names(const struct app *app, const struct stage_view *v, int i)
{
	const struct lesson_step *s = open_step(app);
	if (i < 0 || i >= v->count || step_text_about_heatmaps(s))
		return false;
	/* a head's write is C_i, not the Y it adds into */
	return step_text_names(s, v->p[i].write ? "C" : mha_tensor_info(v->p[i].t)->name);
}

int panels_named_rows(const struct app *app, const struct stage_view *v)
{
	int rows = 0, focus_rows, f = panels_focus(app, v, &focus_rows);
	for (int i = 0; i < v->count; i++)
		if (i != f && panels_step_names(app, v, i))
			rows += 1 + 2 + (v->p[i].rows < 3 ? v->p[i].rows : 3); /* a gap, title, header, 3 rows */
	return rows;
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
	struct cell_rect blk = { 0, 0, v->p[1].rows, c0, c1 }; /* K, V: X_kv's m rows with cross-attention */
	notation_rect(qs, sizeof qs, &app->cfg, t, &blk, theme_utf8());
	blk.r1 = app->cfg.d;
	notation_rect(ws, sizeof ws, &app->cfg, t == MHA_T_Q ? MHA_T_WQ : t == MHA_T_K ? MHA_T_WK : MHA_T_WV, &blk,
	              theme_utf8());
	/* the input as the proof's title names it: "X", "x₁", "X_kv" */
	const char *title = v->p[2].title, *dot = strstr(title, " . ");
	int xl = dot ? (int)(dot - title) : 1;
	snprintf(out, len, "%s = %.*s . %s  max |diff| %s%s", qs, xl, title, ws, diff + strspn(diff, " "), rel);
	if (draw_width(out) > width)
		snprintf(out, len, "%s = %.*s.%s  |diff| %s%s", qs, xl, title, ws, diff + strspn(diff, " "), rel);
}

/* Output: Y and the heads' writes added up, C_0 + ... + C_{h-1} (+ b^O),
 * agree to rounding: "Y = C₀ + C₁ + b^O  max |diff| 0". Every cell when
 * that is at most 2^22 multiply-adds (d_model 1024 with 64 tokens is 2^28,
 * too slow for a frame), else the cursor's row ("Y[2,*] = ..."). */
static void writes_proof(const struct app *app, char *out, size_t len, int width)
{
	const struct mha_config *c = &app->cfg;
	bool all = (long)c->n * c->d * c->h * c->dk <= 1L << 22;
	int r0 = all ? 0 : app->cur[app->stage].row, r1 = all ? c->n : r0 + 1;
	double worst = 0.0, largest = 0.0;
	for (int r = r0; r < r1; r++)
		for (int col = 0; col < c->d; col++) {
			double y = app->a.y[(size_t)r * c->d + col];
			double d = fabs(y - pipeline_writes_sum(c, &app->w, &app->a, app->layer, r, col));
			worst = d > worst ? d : worst;
			largest = fabs(y) > largest ? fabs(y) : largest;
		}
	char diff[16], rel[48] = "", ys[24] = "Y", a[16], b[16];
	fmt_num(diff, sizeof diff, (float)worst, 7);
	if (largest >= 1e3) {
		char r[16];
		fmt_num(r, sizeof r, (float)(worst / largest), 7);
		snprintf(rel, sizeof rel, ", %s of the largest", r + strspn(r, " "));
	}
	if (!all)
		snprintf(ys, sizeof ys, "Y[%d,*]", r0);
	notation_sub_name(a, sizeof a, "C", 0, theme_utf8());
	notation_sub_name(b, sizeof b, "C", c->h - 1, theme_utf8());
	const char *d = diff + strspn(diff, " ");
	snprintf(out, len, "%s = %s%s%s%s (each head's write)  max |diff| %s%s", ys, a,
	         c->h > 2 ? " + ... + " : c->h == 2 ? " + " : "", c->h > 1 ? b : "", c->bias ? " + b^O" : "", d, rel);
	if (draw_width(out) > width)
		snprintf(out, len, "%s = %s%s%s%s  |diff| %s%s", ys, a, c->h > 2 ? "+..+" : c->h == 2 ? "+" : "",
		         c->h > 1 ? b : "", c->bias ? "+b^O" : "", d, rel);
}

/* Under Reshape and Output, the height of area that the matrices and the
 * proof's two lines under them take (right under them when there is
 * room); 0 when there is no proof. */
static int proof_area_h(const struct app *app, const struct stage_view *v, struct rect area, const struct rect *want)
{
	if (!has_proof(app, v) || area.h <= 8)
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
	/* side by side the others keep PANELS_READABLE_COLS columns before
	 * the focus widens (Scores at 80x24: Q₀, K₀ 3 columns each, S₀ 4,
	 * not 2, 2 and all 6) */
	return layout_panels_focus(area, v->count, want, PANELS_LABEL_W + 2 * cw, PANELS_LABEL_W + PANELS_READABLE_COLS * cw,
	                           f, rows + 2, focus_w, got);
}

void panels_draw(const struct app *app, const struct frame *f, struct rect area, int cw, struct hit_map *hits)
{
	const struct stage_view *v = &f->view;
	struct rect want[STAGE_PANELS_MAX], got[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX];
	panels_cell_widths(app, v, area.w, cw, cws);
	panel_wants(v, cw, cws, want);
	panels_place(app, v, area, cw, got);
	int proof_h = proof_area_h(app, v, area, want);
	if (proof_h > 0) {
		char proof[160];
		area.h = proof_h;
		if (app->stage == PIPELINE_OUTPUT && learn_hidden(app, MHA_T_Y, 0, -1, -1))
			snprintf(proof, sizeof proof, "the heads' writes added up: hidden until answered right");
		else if (app->stage == PIPELINE_OUTPUT)
			writes_proof(app, proof, sizeof proof, area.w);
		else if (learn_hidden(app, v->p[1].t, 0, -1, -1))
			snprintf(proof, sizeof proof, "the same block as X . W: hidden until answered right");
		else
			reshape_proof(app, v, proof, sizeof proof, area.w);
		draw_fit(area.y + area.h - 1, area.x, area.w, proof, theme_attr(ROLE_TITLE));
	}
	struct matrix_panel k;
	memset(&k, 0, sizeof k);
	k.app = app;
	k.cw = cw;
	k.hits = hits;
	k.have_target = f->has_cursor;
	k.target = f->cursor;
	for (int i = 0; i < v->count; i++) {
		k.p = &v->p[i];
		k.cw = cws[i];
		k.index = i;
		k.has_cursor = i == app->cur[app->stage].panel;
		matrix_panel_draw(&k, got[i]);
	}
}

