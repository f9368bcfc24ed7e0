/*
 * heat_strip.c - the strip of per-head heatmaps under the matrices (Scores
 * onward): a page of heads, each an n x n map in the heat ramp (heatmap.c
 * draws one), masked cells with their own mark, the cursor's cell framed,
 * the legend (which scale, what the mark means, rows are queries and
 * columns keys) with the value under the cursor in the map's own matrix,
 * and the page. The scale is the learner's choice (the e key), the
 * default the honest one: weights on 0..1 (near-uniform looks
 * near-uniform), scores each head on its own (an edit to one head never
 * restyles another); then each head / each row (softmax's own view: which
 * key each query prefers), never stretched from a narrow span; or shared.
 * Drawing only; clicks land by the regions it records.
 */
#include "heat_strip.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cell_text.h"
#include "draw.h"
#include "fmt.h"
#include "heatmap.h"
#include "learn.h"
#include "mode.h"
#include "pipeline.h"
#include "theme.h"
#include "train.h"

/* app->heat_scale 0, 1, 2, per matrix; 0 is the honest default.
 * Weights P: 0..1 for every head (a near-uniform row of 0.15..0.24 stays
 * pale, an edit to one row never re-shades another), then each head and
 * each row stretched from 0 but never past 0..WEIGHT_SPAN. Scores S: no
 * natural bounds, so each head's own range (an edit to one head never
 * restyles another) but never narrower than SCORE_SPAN, then each row,
 * then one range over all heads (so heads compare). */
static const enum heatmap_scale weight_scales[] = { HEATMAP_SCALE_FIXED, HEATMAP_SCALE_MAP, HEATMAP_SCALE_ROW };
static const enum heatmap_scale score_scales[] = { HEATMAP_SCALE_MAP, HEATMAP_SCALE_ROW, HEATMAP_SCALE_FIXED };
enum { N_SCALES = sizeof weight_scales / sizeof weight_scales[0] };
/* a weight range is never stretched past 2x (0..0.5 at least); a score
 * range is at least 2 wide: scores 2 apart give weights e^2 = 7.4 times
 * apart, a difference worth a shade or two */
static const float WEIGHT_SPAN = 0.5f, SCORE_SPAN = 2.0f;

static enum heatmap_scale scale_for(const struct app *app, bool scores)
{
	int k = app->heat_scale;
	const enum heatmap_scale *s = scores ? score_scales : weight_scales;
	return s[k >= 0 && k < N_SCALES ? k : 0];
}

static enum heatmap_scale scale_of(const struct app *app)
{
	return scale_for(app, app->stage == PIPELINE_SCORES);
}

unsigned heat_strip_scale_next(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app->heat_scale = (app->heat_scale + 1) % N_SCALES;
	enum heatmap_scale s = scale_of(app);
	bool scores = app->stage == PIPELINE_SCORES;
	if (s == HEATMAP_SCALE_FIXED && !scores)
		app_message(app, false, "heatmaps: weights 0..1, the same for all heads");
	else if (s == HEATMAP_SCALE_FIXED)
		app_message(app, false, "heatmaps: one scale for all heads (the scores' range)");
	else if (scores)
		app_message(app, false, "heatmaps: %s its own range, at least 2 wide", heatmap_scale_name(s));
	else
		app_message(app, false, "heatmaps: %s 0..its largest weight, at least 0.5", heatmap_scale_name(s));
	return APP_REDRAW;
}

static void heat_range(const struct app *app, bool scores, float *lo, float *hi)
{
	const struct mha_config *c = &app->cfg;
	*lo = 0.0f;
	*hi = 1.0f;
	if (!scores)
		return;
	bool first = true;
	int nk = mha_keys(c); /* S is n x nk: the source's m keys with cross-attention */
	for (int i = 0; i < c->h; i++) {
		for (int r = 0; r < c->n; r++)
			for (int k = 0; k < nk; k++) {
				float v = app->a.scores[((size_t)i * c->n + r) * nk + k];
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

/* The wired roles (mha_wired_role: previous token, same word, first
 * token, next token) as the measured kinds that show them. */
static const int wired_kind[] = { TRAIN_HEAD_PREVIOUS, TRAIN_HEAD_SAME, TRAIN_HEAD_FIRST, TRAIN_HEAD_NEXT };

/* Head i's title words, in full and brief: its wired name while its map
 * still does that at most queries (train_head_holds >= TRAIN_HEAD_HOLDS
 * on the sentence as it is), else "~" and what the map shows
 * (train_head_measure); false for a head that is off (its map says so). */
static bool heat_title(const struct app *app, int i, char *what, size_t wlen, char *brief, size_t blen)
{
	const struct mha_config *c = &app->cfg;
	if (c->head_off[i] || c->m > 0)
		return false;
	struct train_head_measure hm;
	int kind = train_head_measure(c, (const char (*)[MHA_LABEL_MAX])app->w.labels, app->a.weights, i, &hm);
	const char (*labels)[MHA_LABEL_MAX] = (const char (*)[MHA_LABEL_MAX])app->w.labels;
	int role = mha_wired_role(&app->w, c, i);
	if (role >= 0 && role < (int)(sizeof wired_kind / sizeof wired_kind[0]) &&
	    train_head_holds(c, labels, app->a.weights, i, wired_kind[role]) >= TRAIN_HEAD_HOLDS) {
		snprintf(what, wlen, "%s", mha_wired_role_name(role, false));
		snprintf(brief, blen, "%s", mha_wired_role_name(role, true));
	} else {
		snprintf(what, wlen, "~%s", train_head_kind_name(kind, false));
		snprintf(brief, blen, "~%s", train_head_kind_name(kind, true));
	}
	return true;
}

/* The strip b->heat of the scores' maps (scores) or the weights'. */
static void strip_draw(const struct app *app, const struct frame *f, const struct body_layout *b,
                       struct hit_map *hits, bool scores)
{
	const struct mha_config *c = &app->cfg;
	struct rect r = b->heat;
	if (r.h <= 0)
		return;
	if (b->heat_per_page <= 0) {
		/* the longest form that fits whole; none when not even the shortest does */
		char msg[3][128];
		snprintf(msg[0], sizeof msg[0], "heatmaps need %d rows: enlarge the terminal or use fewer tokens (key %s)",
		         c->n + 3, mode_key_name(app, "tokens-less"));
		snprintf(msg[1], sizeof msg[1], "heatmaps need %d rows: a larger terminal", c->n + 3);
		snprintf(msg[2], sizeof msg[2], "heatmaps: a larger terminal");
		for (int i = 0; i < 3; i++)
			if ((int)strlen(msg[i]) <= r.w) {
				draw_put(r.y, r.x, r.w, msg[i], theme_attr(ROLE_DIM));
				break;
			}
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
	/* rows: the queries (X's tokens); columns: the keys, X_kv's tokens
	 * with cross-attention (labelled with the source's words) */
	int nk = mha_keys(c);
	hm.rows = c->n;
	hm.cols = nk;
	hm.row_h = b->heat_row_h;
	struct heatmap_size one = heatmap_measure(&hm, b->heat_cell_w);
	const struct cell cell = f->cursor;
	bool have = f->has_cursor;
	unsigned char masked[MHA_MAX_TOKENS * MHA_MAX_TOKENS]; /* one head's masked cells */
	unsigned char hid[MHA_MAX_TOKENS * MHA_MAX_TOKENS]; /* its cells a lesson keeps hidden */
	bool any_masked = false;
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
		/* what the head's map shows on this sentence, measured now: a head
		 * of the default workbench keeps the name it was wired with
		 * ("head 0 previous token", "h0 prev") only while its map still
		 * shows that; any other says what it shows ("~previous word") */
		char what[40], brief[16];
		if (heat_title(app, i, what, sizeof what, brief, sizeof brief)) {
			size_t tl = strlen(title), sl = strlen(short_title);
			snprintf(title + tl, sizeof title - tl, " %s", what);
			snprintf(short_title + sl, sizeof short_title - sl, " %s", brief);
		}
		const float *src = (scores ? app->a.scores : app->a.weights) + (size_t)i * c->n * nk;
		bool any = learn_hidden(app, ht, i, -1, -1);
		for (int y = 0; y < c->n; y++)
			for (int x = 0; x < nk; x++) {
				masked[y * nk + x] = pipeline_masked(c, &app->a, i, y, x);
				any_masked |= masked[y * nk + x];
				hid[y * nk + x] = any && learn_hidden(app, ht, i, y, x);
			}
		hm.m = src;
		hm.masked = masked;
		hm.hidden = any ? hid : NULL;
		hm.lo = lo;
		hm.hi = hi;
		hm.scale = scale_for(app, scores);
		hm.min_span = scores ? SCORE_SPAN : WEIGHT_SPAN;
		hm.labels = (const char (*)[MHA_LABEL_MAX])app->w.labels;
		hm.col_labels = c->m > 0 ? (const char (*)[MHA_LABEL_MAX])app->w.kv_labels : NULL;
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
		hit_add_cells(hits, (struct rect){ hy + 2, hx + lw, one.rows - 2, one.cols - lw }, HIT_HEAT, i, 0, 0,
		              b->heat_cell_w, heatmap_row_h(&hm));
	}
	/* the legend, the value under the cursor in the maps' own matrix (P on
	 * Softmax even when the cursor is in S), and the page */
	int ly = r.y + r.h - 1;
	struct heatmap_key key = { lo, hi, scale_for(app, scores), any_masked, true, c->m > 0 };
	char tail[160] = "";
	size_t l = 0;
	/* the bounds, one ramp cell a level and what the masked mark means
	 * come before the readout (a mark nobody explained reads as a value) */
	int key_min = heatmap_key_min_width(&key);
	if (have && (cell.t == MHA_T_SCORES || cell.t == MHA_T_WEIGHTS)) {
		const float *m = scores ? app->a.scores : app->a.weights;
		struct cell mc = { ht, cell.m, cell.r, cell.c };
		float val = m[((size_t)cell.m * c->n + cell.r) * nk + cell.c];
		bool hidden = learn_hidden(app, ht, cell.m, cell.r, cell.c);
		/* the cell without its labels (the status line below has them),
		 * fewer digits until it fits beside the legend, never cut: a
		 * cut "1.70930533e-12" reads 1.7 */
		memcpy(tail, "  ", 3);
		cell_text_value(app, &mc, val, hidden, false, r.w - key_min - 2, 3, tail + 2, sizeof tail - 2);
		l = strlen(tail);
	}
	if (pages > 1 && l < sizeof tail)
		snprintf(tail + l, sizeof tail - l, "  page %d/%d %s", page + 1, pages, mode_key_name(app, "page-next"));
	/* the legend drops its optional parts (the axes, the scale's name) to
	 * leave the tail its room; the tail takes its short form (the page
	 * hint goes before the value) */
	int kw = r.w - (int)strlen(tail);
	if (kw < key_min)
		kw = key_min < r.w ? key_min : r.w;
	int drawn = heatmap_key_draw(stdscr, ly, r.x, kw, &key);
	draw_fit(ly, r.x + drawn, r.w - drawn, tail, theme_attr(ROLE_DIM));
}

void heat_strip_draw(const struct app *app, const struct frame *f, const struct body_layout *b,
                     struct hit_map *hits)
{
	strip_draw(app, f, b, hits, app->stage == PIPELINE_SCORES);
}

bool heat_strip_weights_in(const struct app *app, const struct frame *f, struct rect r)
{
	const struct mha_config *c = &app->cfg;
	struct body_layout b;
	memset(&b, 0, sizeof b);
	/* the widest cells at which every head fits above the legend line */
	for (int cw = HEATMAP_CELL_W_MAX; cw >= HEATMAP_CELL_W_MIN; cw--) {
		int per_row = 0;
		if (heatmap_fit(c->n, mha_keys(c), r.h - 1, r.w, cw, &per_row) >= c->h && per_row > 0) {
			struct heatmap hm = { .rows = c->n, .cols = mha_keys(c), .row_h = 1 };
			int rows = (c->h + per_row - 1) / per_row * heatmap_measure(&hm, cw).rows + 1;
			b.heat = (struct rect){ r.y, r.x, rows, r.w };
			b.heat_cell_w = cw;
			b.heat_row_h = 1;
			b.heat_per_page = c->h;
			b.heat_per_row = per_row;
			strip_draw(app, f, &b, NULL, false);
			return true;
		}
	}
	return false;
}
