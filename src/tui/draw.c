/*
 * draw.c - the workbench on screen: the pipeline bar, the stage's formula
 * and matrices (names, shapes, token labels, the cursor, the cells it was
 * computed from, the cells the last edit changed, head colours), the
 * heatmaps (heatmap.c), the counts panel (counts_view.c), the status line,
 * the key hints and the help overlay, or the "needs 80x24" screen. It reads
 * the state and never changes it; every number comes from the core's
 * activations (or app_panel_value for the Reshape proof). As it draws it
 * records where the stage labels, matrix cells, heatmap cells, lesson menu
 * entries and key hints went (hit.h): an output, for app_mouse to read.
 */
#include "draw.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "counts_view.h"
#include "fmt.h"
#include "heatmap.h"
#include "learn.h"
#include "pane.h"
#include "pane_view.h"
#include "theme.h"

enum { LABEL_W = 5 }; /* row labels: 4 characters and a space */

static int put(int y, int x, int width, const char *s, attr_t a)
{
	return width > 0 ? theme_addstr(stdscr, y, x, width, s, a) : 0;
}

/* What each panel of v wants at cell width cw: its rows plus title and
 * header, its columns plus the row labels (and the softmax row stats). */
static void panel_wants(const struct stage_view *v, int cw, struct rect *want)
{
	for (int i = 0; i < v->count; i++) {
		const struct panel *p = &v->p[i];
		want[i] = (struct rect){ 0, 0, p->rows + 2, LABEL_W + p->cols * cw + (p->row_stats ? 2 * cw : 0) };
	}
}

/* Cell width, separator included: 6 (5-character numbers, "-0.56") on 80
 * columns; on wide terminals 7 ("-0.556") when every matrix still shows
 * all its columns and the shelves stay as few, else 6, so that a large
 * terminal shows more columns rather than more decimals of fewer. */
static int cell_width(const struct stage_view *v, int width, int cols)
{
	if (cols < 120)
		return 6;
	struct rect w7[STAGE_PANELS_MAX], w6[STAGE_PANELS_MAX];
	panel_wants(v, 7, w7);
	panel_wants(v, 6, w6);
	for (int i = 0; i < v->count; i++)
		if (w7[i].w > width)
			return 6;
	return layout_panels_height(width, v->count, w7) > layout_panels_height(width, v->count, w6) ? 6 : 7;
}

/* Rows the stage's matrices use at cell width cw (the Reshape proof adds
 * two lines under them). */
static int numbers_rows(const struct app *app, const struct stage_view *v, int width, int cw)
{
	struct rect want[STAGE_PANELS_MAX];
	panel_wants(v, cw, want);
	return layout_panels_height(width, v->count, want) + (app->stage == STAGE_RESHAPE && v->count == 3 ? 2 : 0);
}

static void draw_bar(const struct app *app, struct rect r, struct hit_map *hits)
{
	int x = r.x + 1;
	for (int s = 0; s < STAGE_COUNT && x < r.x + r.w; s++) {
		char label[32];
		snprintf(label, sizeof label, "%d %s", s + 1, stage_label((enum stage)s));
		attr_t a = theme_attr(s == (int)app->stage ? ROLE_STAGE_CURRENT : ROLE_STAGE);
		int w = put(r.y, x, r.x + r.w - x, label, a);
		hit_add(hits, (struct rect){ r.y, x, 1, w }, HIT_STAGE, s, 0, 0, 1);
		x += w + 2;
	}
}

/* ---- one matrix panel ---- */

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

static bool is_masked(const struct app *app, const struct panel *p, int r, int c)
{
	if (!p->masked)
		return false;
	const struct mha_config *cf = &app->cfg;
	if (cf->causal && c > r)
		return true;
	size_t i = ((size_t)p->m * cf->n + r) * cf->n + c;
	return cf->top_k > 0 && app->a.weights[i] == 0.0f && !app->a.dead_row[p->m * cf->n + r];
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
		if (same || deps_is_source(&k->app->cfg, t, p->t, p->m, r, gc))
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

static void label_of(const struct app *app, bool tokens, int i, char *buf, size_t len, int width)
{
	if (tokens)
		snprintf(buf, len, "%.*s", width, app->w.labels[i]);
	else
		snprintf(buf, len, "%d", i);
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
	if (k->have_target && deps_rect(&k->app->cfg, &k->target, p->t, &dr) && dr.m == p->m) {
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

/* Each row's sum and entropy (nats): a softmax row sums to 1; entropy 0 is
 * all weight on one key, ln(n) is uniform. */
static void row_stats(const struct app *app, const struct panel *p, int r, double *sum, double *ent)
{
	*sum = 0.0;
	*ent = 0.0;
	for (int c = 0; c < p->cols; c++) {
		double v = app_panel_value(app, p, r, c);
		*sum += v;
		if (v > 0.0)
			*ent -= v * log(v);
	}
}

static void draw_panel(const struct panel_ctx *k, struct rect rc)
{
	const struct app *app = k->app;
	const struct panel *p = k->p;
	const struct app_cursor *cu = &app->cur[app->stage];
	int cw = k->cw, stats_w = p->row_stats ? 2 * cw : 0;
	int vis_c = (rc.w - LABEL_W - stats_w) / cw, vis_r = rc.h - 2;
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
	int x = rc.x + put(rc.y, rc.x, rc.w, p->title, ta | (k->has_cursor ? A_UNDERLINE : 0));
	char more[64] = "";
	if (nr < 0)
		nr = 0;
	if (nc < p->cols || (nr < p->rows && nr > 0)) {
		size_t l = 0;
		if (nr < p->rows && nr > 0)
			l += (size_t)snprintf(more + l, sizeof more - l, " r%d-%d/%d", r0, r0 + nr - 1, p->rows);
		if (nc < p->cols)
			snprintf(more + l, sizeof more - l, " c%d-%d/%d%s", p->col0 + c0, p->col0 + c0 + nc - 1,
			         p->col0 + p->cols, c0 + nc < p->cols ? " >" : "");
		x += put(rc.y, x, rc.x + rc.w - x, more, theme_attr(ROLE_DIM));
	}
	if (p->tag[0] && x + 1 + (int)strlen(p->tag) <= rc.x + rc.w) /* whole or not at all */
		put(rc.y, x + 1, (int)strlen(p->tag), p->tag, theme_head_attr(p->tag_head) | A_BOLD);
	if (vis_r <= 0)
		return;

	/* column header: token labels for key columns, else column numbers */
	char buf[64];
	for (int c = 0; c < nc; c++) {
		if (p->col_tokens)
			label_of(app, true, c0 + c, buf, sizeof buf, cw - 1);
		else
			snprintf(buf, sizeof buf, "%d", p->col0 + c0 + c);
		char cell[80];
		snprintf(cell, sizeof cell, "%*.*s", cw - 1, cw - 1, buf);
		attr_t a = theme_attr(ROLE_DIM);
		if (p->colour_cols > 0)
			a = theme_head_attr((p->col0 + c0 + c) / p->colour_cols);
		put(rc.y + 1, rc.x + LABEL_W + c * cw, cw - 1, cell, a);
	}
	if (p->row_stats) {
		int sx = rc.x + LABEL_W + nc * cw;
		snprintf(buf, sizeof buf, "%*s%*s", cw - 1, "sum", cw, "H");
		put(rc.y + 1, sx, 2 * cw, buf, theme_attr(ROLE_TITLE));
	}

	/* a click on a cell (or the space after it) puts the cursor there */
	hit_add(k->hits, (struct rect){ rc.y + 2, rc.x + LABEL_W, nr, nc * cw }, HIT_CELL, k->index, r0, c0, cw);
	for (int r = 0; r < nr; r++) {
		int gr = r0 + r, y = rc.y + 2 + r;
		label_of(app, p->row_tokens, gr, buf, sizeof buf, LABEL_W - 1);
		attr_t la = theme_attr(ROLE_DIM);
		if (p->colour_rows > 0)
			la = theme_head_attr(gr / p->colour_rows);
		put(y, rc.x, LABEL_W - 1, buf, la);
		for (int c = 0; c < nc; c++) {
			int gc = c0 + c;
			bool cursor = k->has_cursor && cu->row == gr && cu->col == gc;
			char num[32];
			if (learn_hidden(app, p->t, p->m, gr, gc))
				snprintf(num, sizeof num, "%*s", cw - 1, "?"); /* predict first */
			else if (is_masked(app, p, gr, gc))
				snprintf(num, sizeof num, "%*s", cw - 1, "-inf");
			else
				fmt_num(num, sizeof num, app_panel_value(app, p, gr, gc), cw - 1);
			put(y, rc.x + LABEL_W + c * cw, cw - 1, num, cell_attr(k, gr, gc, cursor));
		}
		if (p->row_stats) {
			double sum, ent;
			row_stats(app, p, gr, &sum, &ent);
			char s1[32], s2[32];
			fmt_num(s1, sizeof s1, (float)sum, cw - 1);
			fmt_num(s2, sizeof s2, (float)ent, cw - 1);
			if (learn_hidden(app, p->t, p->m, gr, -1)) {
				snprintf(s1, sizeof s1, "%*s", cw - 1, "?");
				snprintf(s2, sizeof s2, "%*s", cw - 1, "?");
			}
			snprintf(buf, sizeof buf, "%s %s", s1, s2);
			put(y, rc.x + LABEL_W + nc * cw, 2 * cw, buf, theme_attr(ROLE_TITLE));
		}
	}
}

/* Reshape: the head block read from Q and the same block computed as
 * X . (column block of W) agree to rounding. With huge inputs (1e6 gives
 * Q near 1e13) float32 rounding is large in absolute terms, so the
 * difference is also given relative to the block's largest value. */
static void reshape_proof(const struct app *app, const struct stage_view *v, char *out, size_t len)
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
	const char *wn = t == MHA_T_Q ? "W^Q" : t == MHA_T_K ? "W^K" : "W^V";
	int c0 = v->p[1].col0, c1 = c0 + v->p[1].cols;
	char diff[16], rel[48] = "";
	fmt_num(diff, sizeof diff, (float)worst, 7);
	if (largest >= 1e3) {
		char r[16];
		fmt_num(r, sizeof r, (float)(worst / largest), 7);
		snprintf(rel, sizeof rel, ", %s of the largest", r + strspn(r, " "));
	}
	snprintf(out, len, "%s[:,%d:%d] = X . %s[:,%d:%d]  max |diff| %s%s", mha_tensor_info(t)->name,
	         c0, c1, wn, c0, c1, diff + strspn(diff, " "), rel);
}

static void draw_stage(const struct app *app, const struct stage_view *v, struct rect area, int cw,
                       struct hit_map *hits)
{
	struct rect want[STAGE_PANELS_MAX], got[STAGE_PANELS_MAX];
	panel_wants(v, cw, want);
	if (app->stage == STAGE_RESHAPE && v->count == 3 && area.h > 8) {
		/* the proof, under its two matrices (right under them when there is room) */
		char proof[160];
		int ph = layout_panels_height(area.w, v->count, want);
		if (ph + 2 < area.h)
			area.h = ph + 2;
		if (learn_hidden(app, v->p[1].t, 0, -1, -1))
			snprintf(proof, sizeof proof, "the same block as X . W: hidden until you answer");
		else
			reshape_proof(app, v, proof, sizeof proof);
		put(area.y + area.h - 1, area.x, area.w, proof, theme_attr(ROLE_TITLE));
		area.h -= 2;
	}
	layout_panels(area, v->count, want, LABEL_W + 2 * cw, got);
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
		k.index = i;
		k.has_cursor = i == app->cur[app->stage].panel;
		draw_panel(&k, got[i]);
	}
}

/* ---- info lines ---- */

static void draw_info(const struct app *app, const struct stage_view *v, struct rect r)
{
	const struct mha_config *c = &app->cfg;
	char cfg[96], line[256];
	snprintf(cfg, sizeof cfg, "n %d  d %d  h %d  g %d  d_k %d", c->n, c->d, c->h, c->g, c->dk);
	int cl = (int)strlen(cfg);
	if ((int)strlen(v->formula) + cl + 2 <= r.w) {
		put(r.y, r.x, r.w - cl - 2, v->formula, theme_attr(ROLE_TITLE));
		put(r.y, r.x + r.w - cl, cl, cfg, theme_attr(ROLE_DIM));
		put(r.y + 1, r.x, r.w, v->note, theme_attr(ROLE_DIM));
		return;
	}
	/* narrow (beside the lesson pane): the formula whole, the shape before
	 * the note; the shape squeezed ("n6 d512 h8 g2 d_k64") when that makes
	 * the note fit whole */
	put(r.y, r.x, r.w, v->formula, theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "n%d d%d h%d g%d d_k%d  %s", c->n, c->d, c->h, c->g, c->dk, v->note);
	if ((int)(cl + 3 + strlen(v->note)) <= r.w || (int)strlen(line) > r.w)
		snprintf(line, sizeof line, "%s   %s", cfg, v->note);
	put(r.y + 1, r.x, r.w, line, theme_attr(ROLE_DIM));
}

/* ---- heatmaps ---- */

static void heat_range(const struct app *app, bool scores, float *lo, float *hi)
{
	const struct mha_config *c = &app->cfg;
	*lo = 0.0f;
	*hi = 1.0f;
	if (!scores)
		return;
	struct panel p;
	memset(&p, 0, sizeof p);
	p.masked = true;
	bool first = true;
	for (int i = 0; i < c->h; i++) {
		p.m = i;
		for (int r = 0; r < c->n; r++)
			for (int k = 0; k < c->n; k++) {
				float v = app->a.scores[((size_t)i * c->n + r) * c->n + k];
				if (is_masked(app, &p, r, k) || !isfinite(v))
					continue;
				if (first || v < *lo)
					*lo = v;
				if (first || v > *hi)
					*hi = v;
				first = false;
			}
	}
}

static void draw_heat(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	const struct mha_config *c = &app->cfg;
	struct rect r = b->heat;
	if (r.h <= 0)
		return;
	bool scores = app->stage == STAGE_SCORES;
	if (b->heat_per_page <= 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "heatmaps need %d rows: enlarge the terminal or use fewer tokens (,)", c->n + 3);
		put(r.y, r.x, r.w, msg, theme_attr(ROLE_DIM));
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
		struct panel p;
		memset(&p, 0, sizeof p);
		p.masked = scores;
		p.m = i;
		bool any = learn_hidden(app, ht, i, -1, -1);
		for (int y = 0; y < c->n; y++)
			for (int x = 0; x < c->n; x++) {
				buf[y * c->n + x] = is_masked(app, &p, y, x) ? lo : src[y * c->n + x];
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
		snprintf(tail + l, sizeof tail - l, " page %d/%d PgDn", page + 1, pages);
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
	put(ly, r.x + lw, r.w - lw, tail, theme_attr(ROLE_DIM));
}

/* ---- status line, hints, help ---- */

/* "X[the,3]" or "W^Q[2,5]" or "S_1[the,cat]". */
static void cell_name(const struct app *app, const struct cell *c, char *buf, size_t len)
{
	struct mha_shape s = mha_tensor_shape(&app->cfg, c->t);
	const char *name = mha_tensor_info(c->t)->name;
	bool rt = c->t != MHA_T_WQ && c->t != MHA_T_WK && c->t != MHA_T_WV && c->t != MHA_T_WO;
	bool ct = c->t == MHA_T_SCORES || c->t == MHA_T_WEIGHTS;
	char rs[24], cs[24], ms[8] = "";
	label_of(app, rt, c->r, rs, sizeof rs, MHA_LABEL_MAX);
	label_of(app, ct, c->c, cs, sizeof cs, MHA_LABEL_MAX);
	if (s.count > 1)
		snprintf(ms, sizeof ms, "_%d", c->m);
	snprintf(buf, len, "%s%s[%s,%s]", name, ms, rs, cs);
}

static void draw_status(const struct app *app, struct rect r)
{
	char line[APP_STATUS_MAX + 128];
	if (app->editing) {
		struct stage_view v;
		struct cell c;
		char name[64];
		if (app_cursor_cell(app, &c, NULL, &v))
			cell_name(app, &c, name, sizeof name);
		else
			snprintf(name, sizeof name, "?");
		snprintf(line, sizeof line, "%s = %s_   (Enter sets, Esc cancels)", name, app->edit);
		put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
		return;
	}
	struct scale_block sb;
	if (app->scaling && actions_scale_block(app, &sb)) {
		snprintf(line, sizeof line, "%s *= %s_   (Tab: matrix, head block, row, column; =v sets; Enter, Esc)",
		         sb.name, app->edit);
		put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
		return;
	}
	if (app->learn.answering) {
		const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
		char choices[64] = "";
		for (int i = 0, at = 0; q && i < q->nchoices && at < (int)sizeof choices; i++)
			at += snprintf(choices + at, sizeof choices - (size_t)at, "%s%s", i ? "/" : " (", q->choices[i].key);
		if (choices[0])
			strncat(choices, ")", sizeof choices - strlen(choices) - 1);
		snprintf(line, sizeof line, "answer%s: %s_   (%s, Esc cancels)", choices, app->learn.answer,
		         q && q->nchoices ? "a choice's key answers" : "type a number, Enter answers");
		put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
		return;
	}
	if (app->status[0] && app->now_ms < app->status_until_ms) {
		put(r.y, r.x, r.w, app->status, theme_attr(app->status_error ? ROLE_ERROR : ROLE_NORMAL));
		return;
	}
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	if (!app_cursor_cell(app, &c, &p, &v))
		return;
	char name[64], val[32];
	cell_name(app, &c, name, sizeof name);
	const struct app_cursor *cu = &app->cur[app->stage];
	fmt_full(val, sizeof val, app_panel_value(app, p, cu->row, cu->col));
	if (learn_hidden(app, c.t, c.m, c.r, c.c))
		snprintf(val, sizeof val, "? (answer first: %s)", actions_key_name("answer"));
	size_t l = (size_t)snprintf(line, sizeof line, "%s = %s", name, val);
	/* what it was computed from, numpy-style */
	const char *sep = "   from ";
	for (int t = 0; t < MHA_T_COUNT && l < sizeof line; t++) {
		struct cell_rect d;
		if (!deps_rect(&app->cfg, &c, (enum mha_tensor)t, &d))
			continue;
		struct mha_shape s = mha_tensor_shape(&app->cfg, (enum mha_tensor)t);
		char ms[8] = "", rs[24], cs[24];
		if (s.count > 1)
			snprintf(ms, sizeof ms, "_%d", d.m);
		if (d.r1 - d.r0 == s.rows)
			snprintf(rs, sizeof rs, ":");
		else
			snprintf(rs, sizeof rs, "%d", d.r0);
		if (d.c1 - d.c0 == s.cols)
			snprintf(cs, sizeof cs, ":");
		else if (d.c1 - d.c0 == 1)
			snprintf(cs, sizeof cs, "%d", d.c0);
		else
			snprintf(cs, sizeof cs, "%d:%d", d.c0, d.c1);
		l += (size_t)snprintf(line + l, sizeof line - l, "%s%s%s[%s,%s]", sep, mha_tensor_info((enum mha_tensor)t)->name,
		                      ms, rs, cs);
		sep = ", ";
	}
	if (mha_tensor_info(c.t)->input && !p->proof && l < sizeof line)
		snprintf(line + l, sizeof line - l, "   Enter edits, +/- nudge");
	put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
}

static void draw_hints(const struct app *app, struct rect r, struct hit_map *hits)
{
	int count, x = r.x;
	const struct action *t = actions_table(&count);
	unsigned bar = learn_lesson(app) ? ACTIONS_BAR_LESSON : ACTIONS_BAR_FREE;
	for (int i = 0; i < count; i++) {
		if (!(t[i].bar & bar))
			continue;
		char h[48];
		snprintf(h, sizeof h, "%s %s", t[i].key_label, t[i].name);
		int len = (int)strlen(h);
		if (x + len > r.x + r.w)
			break;
		put(r.y, x, len, t[i].key_label, theme_attr(ROLE_HINT) | A_BOLD);
		put(r.y, x + (int)strlen(t[i].key_label) + 1, len, t[i].name, theme_attr(ROLE_HINT));
		hit_add(hits, (struct rect){ r.y, x, 1, len }, HIT_ACTION, i, 0, 0, 1);
		x += len + 2;
	}
}

/* Piece j of s word-wrapped at width columns: its start in *at and its
 * length, or -1 when s has no piece j (a word longer than width is cut). */
static int wrap_piece(const char *s, int width, int j, const char **at)
{
	if (width < 1)
		width = 1;
	for (int k = 0; *s; k++) {
		int n = (int)strlen(s);
		int take = n <= width ? n : width;
		if (take < n)
			while (take > 0 && s[take] != ' ')
				take--;
		if (take == 0)
			take = n < width ? n : width;
		if (k == j) {
			*at = s;
			return take;
		}
		s += take;
		while (*s == ' ')
			s++;
	}
	return -1;
}

/* Help lines: section headers and one line per action, its text wrapped at
 * textw columns under itself (at 80 columns a column holds 25). */
static int help_line(int i, int textw, char *buf, size_t len, attr_t *a)
{
	int count;
	const struct action *t = actions_table(&count);
	int line = 0;
	const char *group = NULL;
	for (int k = 0; k < count; k++) {
		if (!group || strcmp(group, t[k].group) != 0) {
			group = t[k].group;
			if (line++ == i) {
				snprintf(buf, len, "%s", group);
				*a = theme_attr(ROLE_TITLE);
				return 1;
			}
		}
		if (t[k].help_keys && !t[k].help_keys[0])
			continue; /* shown on the line of the row above */
		const char *at;
		int n;
		for (int j = 0; (n = wrap_piece(t[k].help, textw, j, &at)) >= 0; j++)
			if (line++ == i) {
				snprintf(buf, len, " %-11s %.*s", j ? "" : t[k].help_keys ? t[k].help_keys : t[k].key_label, n,
				         at);
				*a = theme_attr(ROLE_NORMAL);
				return 1;
			}
	}
	return 0;
}

static void draw_help(const struct app *app, int rows, int cols)
{
	int y0 = 1, h = rows - 3;
	for (int y = y0; y < y0 + h; y++) {
		move(y, 0);
		clrtoeol();
	}
	put(y0, 1, cols - 2, "mha-tui keys   (Up/Down scroll, any other key closes)", theme_attr(ROLE_TITLE) | A_BOLD);
	/* the rule for shape changes, wrapped, at the bottom */
	const char *rule = actions_keep_rule;
	char lines[6][160];
	int rule_lines = 0, width = cols - 4 < (int)sizeof lines[0] - 1 ? cols - 4 : (int)sizeof lines[0] - 1;
	const char *at;
	for (int n; rule_lines < 6 && (n = wrap_piece(rule, width, rule_lines, &at)) >= 0; rule_lines++)
		snprintf(lines[rule_lines], sizeof lines[0], "%.*s", n, at);
	int avail = h - 2 - rule_lines;
	int colw = (cols - 2) / 2;
	int ncol = colw < cols - 2 ? 2 : 1;
	int textw = colw - 1 - 13; /* " %-11s " before the text */
	char buf[160];
	attr_t a;
	int total = 0;
	while (help_line(total, textw, buf, sizeof buf, &a))
		total++;
	int start = app->help_scroll;
	if (start > total - 1)
		start = total > 0 ? total - 1 : 0;
	for (int i = start, slot = 0; i < total && slot < ncol * avail; i++, slot++) {
		help_line(i, textw, buf, sizeof buf, &a);
		put(y0 + 2 + slot % avail, 1 + (slot / avail) * colw, colw - 1, buf, a);
	}
	for (int i = 0; i < rule_lines; i++)
		put(y0 + h - rule_lines + i, 2, width, lines[i], theme_attr(ROLE_DIM));
}

static void draw_too_small(int rows, int cols)
{
	char msg[128];
	snprintf(msg, sizeof msg, "mha-tui needs a terminal of at least %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	int y = rows / 2 - 1;
	int x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	put(y, x, cols - x, msg, theme_attr(ROLE_ERROR));
	snprintf(msg, sizeof msg, "this one is %dx%d: enlarge it (q quits)", cols, rows);
	x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	put(y + 1, x, cols - x, msg, theme_attr(ROLE_NORMAL));
}

/* The lesson pane; without the lessons (the workbench's own tests), a
 * note of how to open one. Returns how far the pane scrolls. */
static int draw_lesson(const struct app *app, struct rect r, struct hit_map *hits)
{
	if (r.h <= 0)
		return 0;
	if (app->learn.enabled)
		return pane_view_draw(app, r, hits);
	put(r.y, r.x, r.w, "Lesson", theme_attr(ROLE_TITLE));
	put(r.y + 1, r.x, r.w, "none open: mha-tui --lesson ID", theme_attr(ROLE_DIM));
	return 0;
}

/* Predict, then reveal: the stage the lesson hides, in place of its
 * numbers (shapes and formulas too: they can give the answer away). */
static void draw_hidden_stage(const struct app *app, struct rect r)
{
	int from = 0;
	while (from < STAGE_COUNT && !learn_stage_hidden(app, (enum stage)from))
		from++;
	char msg[320];
	snprintf(msg, sizeof msg, "%s%s stays hidden until you answer the lesson's question: %s, then "
	         "your answer. Right or wrong, it shows then.", stage_label((enum stage)from),
	         from + 1 < STAGE_COUNT ? " and every later stage" : "", actions_key_name("answer"));
	struct lesson_text t = { 0 };
	lesson_wrap(&t, msg, r.w, LESSON_LINE_PROSE, NULL, NULL);
	for (int i = 0; i < t.count; i++)
		put(r.y + i, r.x, r.w, t.lines[i].text, theme_attr(ROLE_TITLE));
	lesson_text_free(&t);
}

static void draw_counts(const struct app *app, struct rect r)
{
	if (r.h <= 0)
		return;
	if (!learn_counts_hidden(app)) {
		counts_view_draw(stdscr, r.y, r.x, r.h, r.w, &app->cfg);
		return;
	}
	put(r.y, r.x, r.w, "Counts", theme_attr(ROLE_TITLE));
	put(r.y + 1, r.x, r.w, "hidden until you answer", theme_attr(ROLE_DIM));
}

struct body_layout draw_screen(const struct app *app, int rows, int cols)
{
	return draw_screen_hits(app, rows, cols, NULL);
}

struct body_layout draw_screen_hits(const struct app *app, int rows, int cols, struct hit_map *hits)
{
	hit_clear(hits);
	erase();
	/* # trades the narrow side column for the counts: in a lesson the
	 * counts' full form there, in the free workbench its own layout */
	enum layout_pane pane = !app->learn.enabled ? LAYOUT_PANE_NONE
	                      : !app->learn.show_counts ? LAYOUT_PANE_LESSON
	                      : learn_lesson(app) ? LAYOUT_PANE_COUNTS : LAYOUT_PANE_NONE;
	struct layout l = layout_frame(rows, cols, pane);
	struct body_layout b;
	memset(&b, 0, sizeof b);
	if (l.too_small) {
		draw_too_small(rows, cols);
		return b;
	}
	struct stage_view v;
	app_view(app, &v);
	int nw = layout_numbers_width(&l), cw = cell_width(&v, nw, cols);
	b = layout_body(&l, stage_has_heatmaps(app->stage), app->cfg.n, app->cfg.h, counts_view_height,
	                numbers_rows(app, &v, nw, cw));
	draw_bar(app, l.bar, hits);
	if (app->help_open) {
		draw_help(app, rows, cols);
	} else {
		if (learn_stage_hidden(app, app->stage)) {
			struct rect all = { b.info.y, b.info.x, l.body.h, b.info.w };
			draw_hidden_stage(app, all);
		} else {
			draw_info(app, &v, b.info);
			draw_stage(app, &v, b.numbers, cw, hits);
			draw_heat(app, &b, hits);
		}
		draw_counts(app, b.counts);
		b.pane_scroll_max = draw_lesson(app, b.lesson, hits);
	}
	draw_status(app, l.status);
	draw_hints(app, l.hints, hits);
	return b;
}
