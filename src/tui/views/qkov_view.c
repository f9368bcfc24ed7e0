/*
 * qkov_view.c - the workbench's QK and OV circuits view (W): for the
 * current head i (L and H, the workbench's keys, act under it) the two
 * d_model x d_model matrices a head is made of,
 *   W_QK = W^Q_i (W^K_j)^T   what a query token looks for in a key token
 *                            (S_i = X W_QK X^T / sqrt(d_k) without biases; X_kv^T with a source)
 *   W_OV = W^V_j W^O_i       what attending to a token writes into Y
 * (j the kv head query head i reads), each with its rank, at most d_k
 * however large d_model is, its norm and its largest singular values,
 * and both as heatmaps where they fit. The numbers are the circuits
 * library's (circ_bench_make for the ranks, circ_bench_view_rows for the
 * matrices), made again after every forward pass while the view is open;
 * this file only lays them out.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits.h"
#include "draw.h"
#include "heatmap.h"
#include "mode.h"
#include "theme.h"

enum { QKOV_MAX_D = 64 }; /* matrices kept (and drawn) up to this d_model; ranks always */

/* The view's own state: the bench's figures and the current head's two matrices. */
struct qkov_view {
	bool made;
	struct circ_bench b;
	float *m[2];        /* (h, d, d) every head's W_QK, W_OV as floats; NULL above QKOV_MAX_D */
};

extern const struct mode_ops qkov_view_mode;

static void qkov_free(struct qkov_view *v)
{
	if (v->made)
		circ_bench_free(&v->b);
	v->made = false;
	for (int k = 0; k < 2; k++) {
		free(v->m[k]);
		v->m[k] = NULL;
	}
}

/* The figures for the workbench as it is now. */
static void qkov_make(struct app *app, struct qkov_view *v)
{
	qkov_free(v);
	const struct mha_config *c = &app->cfg;
	if (circ_bench_make(c, &app->w, &app->a, &v->b) != MHA_OK) {
		app_message(app, true, "QK/OV: out of memory");
		return;
	}
	v->made = true;
	if (c->d > QKOV_MAX_D)
		return;
	size_t dd = (size_t)c->d * c->d;
	double *row = malloc(sizeof(double) * dd);
	bool ok = row != NULL;
	for (int k = 0; k < 2 && ok; k++) {
		v->m[k] = malloc(sizeof(float) * dd * c->h);
		ok = v->m[k] != NULL;
		for (int i = 0; i < c->h && ok; i++) {
			ok = circ_bench_view_rows(c, &app->w, i, k ? CIRC_VIEW_OV : CIRC_VIEW_QK, 0, c->d, row) == MHA_OK;
			for (size_t e = 0; e < dd && ok; e++)
				v->m[k][i * dd + e] = (float)row[e];
		}
	}
	free(row);
	if (!ok)
		for (int k = 0; k < 2; k++) {
			free(v->m[k]);
			v->m[k] = NULL;
		}
}

static bool qkov_enter(struct app *app)
{
	struct qkov_view *v = mode_state(app, &qkov_view_mode);
	if (!v) {
		app_message(app, true, "QK/OV: out of memory");
		return false;
	}
	qkov_make(app, v);
	return v->made;
}

static void qkov_leave(struct app *app)
{
	struct qkov_view *v = mode_state_if(app, &qkov_view_mode);
	if (v)
		qkov_free(v);
}

static void qkov_done(void *state)
{
	qkov_free(state);
}

/* After every forward pass, while the view is open. */
static void qkov_recompute(struct app *app)
{
	struct qkov_view *v = mode_state_if(app, &qkov_view_mode);
	if (v && app->mode == &qkov_view_mode)
		qkov_make(app, v);
}

/* A norm or singular value in 3 digits; weights edited past what a
 * double holds make it infinite: said in words, never "inf". */
static const char *figure(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "too big");
	return buf;
}

static void qkov_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct qkov_view *v = mode_state_if(app, &qkov_view_mode);
	const struct mha_config *c = &app->cfg;
	struct rect r = b->info;
	if (!v || !v->made || r.h <= 0)
		return;
	int i = app->head < c->h && app->head >= 0 ? app->head : 0, j = mha_kv_head(c, i), y = r.y, bottom = r.y + r.h;
	char line[256];
	snprintf(line, sizeof line, "Head %d (kv head %d): what it reads (QK) and what it writes (OV)", i, j);
	draw_put(y++, r.x, r.w, line, theme_head_attr(i));
	const struct circ_rank *rk[2] = { &v->b.qk[i], &v->b.ov[i] };
	const char *what[2] = { "W_QK = W^Q_i (W^K_j)^T", "W_OV = W^V_j W^O_i" };
	for (int k = 0; k < 2 && y < bottom; k++) {
		char g[32];
		int n = snprintf(line, sizeof line, "%-23s %dx%d, rank %d of d_k %d, |.|_F %s; sv:", what[k], c->d, c->d,
		                 rk[k]->rank, c->dk, figure(g, sizeof g, rk[k]->norm));
		for (int q = 0; q < c->dk && q < 4; q++)
			n += snprintf(line + n, sizeof line - (size_t)n, " %s", figure(g, sizeof g, rk[k]->sv[q]));
		snprintf(line + n, sizeof line - (size_t)n, "%s", c->dk > 4 ? " ..." : "");
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	if (y < bottom)
		draw_put(y++, r.x, r.w, c->bias ? "scores: x_q W_QK x_k^T / sqrt(d_k), plus the biases' terms; each of "
		                                   "rank d_k at most: a head reads and writes d_k numbers"
		         : c->m > 0 ? "scores: S_i = X W_QK X_kv^T / sqrt(d_k) (keys from the source); each of rank d_k at "
		                      "most: a head reads and writes d_k numbers"
		                    : "scores: S_i = X W_QK X^T / sqrt(d_k); each of rank d_k at most: a "
		                      "head reads and writes d_k numbers",
		         theme_attr(ROLE_DIM));
	if (!v->m[0] || !v->m[1]) {
		snprintf(line, sizeof line, "the matrices are drawn up to d_model %d", QKOV_MAX_D);
		if (y < bottom)
			draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
		return;
	}
	struct heatmap hm[2];
	struct heatmap_size hs[2];
	int cw = 2;
	for (int k = 0; k < 2; k++) {
		hm[k] = (struct heatmap){ .m = v->m[k] + (size_t)i * c->d * c->d, .rows = c->d, .cols = c->d, .cur_row = -1, .cur_col = -1,
		                          .title = k ? "W_OV (row: from, column: into)" : "W_QK (row: query, column: key)",
		                          .short_title = k ? "W_OV" : "W_QK", .title_attr = theme_head_attr(i),
		                          .scale = HEATMAP_SCALE_MAP };
		hs[k] = heatmap_measure(&hm[k], cw);
	}
	bool side = hs[0].cols + 2 + hs[1].cols <= r.w && hs[0].rows + 1 <= bottom - y;
	if (!side && hs[0].rows * 2 + 2 > bottom - y) {
		snprintf(line, sizeof line, "their heatmaps need %d columns and %d rows: a larger terminal",
		         hs[0].cols * 2 + 2, hs[0].rows + 1);
		if (y < bottom)
			draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
		return;
	}
	for (int k = 0; k < 2; k++) {
		int x = side ? r.x + k * (hs[0].cols + 2) : r.x, top = side ? y : y + k * (hs[0].rows + 1);
		heatmap_draw(stdscr, top, x, &hm[k], cw);
		heatmap_range(&hm[k], -1, &hm[k].lo, &hm[k].hi);
		heatmap_legend_draw(stdscr, top + hs[k].rows, x, hs[k].cols, hm[k].lo, hm[k].hi);
	}
}

static bool qkov_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false;
	draw_put(r.y, r.x, r.w, "L / H: the next / previous head; an edit on the workbench updates both",
	         theme_attr(ROLE_DIM));
	return true;
}

static const struct action qkov_opener = {
	.keys = { 'Q' }, .label = "Q", .name = "QK/OV", .help = "a head's QK and OV circuits (rank d_k)",
	.group = "Views", .shows = MODE_SHOWS_ALL, .id = "qkov",
};

static const struct action qkov_keys[] = {
	{ .keys = { 0 } },
};

const struct mode_ops qkov_view_mode = {
	.name = "QK and OV circuits",
	.opener = &qkov_opener,
	.keys = qkov_keys,
	.state_size = sizeof(struct qkov_view),
	.enter = qkov_enter,
	.leave = qkov_leave,
	.done = qkov_done,
	.recompute = qkov_recompute,
	.status = qkov_status,
	.layout = mode_layout_wide,
	.body = qkov_body,
};
