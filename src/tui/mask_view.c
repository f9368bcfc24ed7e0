/*
 * mask_view.c - the mask view mode (P): the n x n mask of the workbench,
 * queries down and keys across, each cell saying whether the query sees
 * the key and, when not, which rule hides it: c causal, w the window, p a
 * padding key, x a cell hidden by hand (core: mha_mask_row says what is
 * kept; the letters here only name the rule). Padding tokens are marked on
 * both axes, their rows "output ignored"; a row with no key left says its
 * P is 0. Keys: arrows move, Space hides or shows the cell, p makes the
 * cursor's key token padding (or not), ( ) narrow and widen the window,
 * P or Esc go back; the rest (m, t, ...) are the workbench's. Every change
 * goes through app_change_config (undo, recompute, the session).
 */
#include "mask_view.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

unsigned mask_view_toggle(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	if (mode_base(app) == MODE_MASK)
		mode_leave(app);
	else
		mode_enter(app, MODE_MASK);
	return APP_REDRAW;
}

/* The cursor, kept within the current n. */
static void cursor(const struct app *app, int *r, int *c)
{
	int n = app->cfg.n;
	*r = app->mask_row < n ? app->mask_row : n - 1;
	*c = app->mask_col < n ? app->mask_col : n - 1;
}

static unsigned mask_key(struct app *app, int key)
{
	int r, c, n = app->cfg.n;
	cursor(app, &r, &c);
	struct mha_config nx = app->cfg;
	char what[128];
	switch (key) {
	case KEY_UP: case 'k':    app->mask_row = r > 0 ? r - 1 : 0; return APP_REDRAW;
	case KEY_DOWN: case 'j':  app->mask_row = r + 1 < n ? r + 1 : r; return APP_REDRAW;
	case KEY_LEFT: case 'h':  app->mask_col = c > 0 ? c - 1 : 0; return APP_REDRAW;
	case KEY_RIGHT: case 'l': app->mask_col = c + 1 < n ? c + 1 : c; return APP_REDRAW;
	case 'P': case PROMPT_ESC:
		mode_leave(app);
		return APP_REDRAW;
	case ' ': {
		bool hidden = (nx.hide[r] >> c) & 1u;
		mha_mask_set(&nx, r, c, !hidden);
		snprintf(what, sizeof what, "%s -> %s %s by hand", app->w.labels[r], app->w.labels[c],
		         hidden ? "shown again" : "hidden");
		return app_change_config(app, &nx, what);
	}
	case 'p':
		nx.pad ^= (uint64_t)1 << c;
		snprintf(what, sizeof what, "%s %s", app->w.labels[c], mha_is_pad(&nx, c)
		         ? "is padding: no query sees it, its own output is ignored" : "is a token again");
		return app_change_config(app, &nx, what);
	case '(': case ')':
		nx.window = key == ')' ? nx.window + 1 : nx.window - 1;
		if (nx.window < 0 || nx.window > n)
			return APP_REDRAW;
		if (nx.window == 0)
			snprintf(what, sizeof what, "window off");
		else
			snprintf(what, sizeof what, "window %d: query i sees keys %s", nx.window,
			         nx.causal ? "i-w+1..i" : "i-w+1..i+w-1");
		return app_change_config(app, &nx, what);
	default:
		return MODE_PASS;
	}
}

static bool mask_status(const struct app *app, struct rect r)
{
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	draw_put(r.y, r.x, r.w, "mask: arrows  Space hide/show cell  p padding  ( ) window  m causal  P back",
	         theme_attr(ROLE_NORMAL));
	return true;
}

/* Why query i does not see key j: the first rule that hides it. */
static char why_hidden(const struct mha_config *c, int i, int j)
{
	int dist = i > j ? i - j : j - i;
	if (c->causal && j > i)
		return 'c';
	if (c->window > 0 && dist >= c->window)
		return 'w';
	if (mha_is_pad(c, j))
		return 'p';
	return 'x';
}

/* What the mask and top-k let a sparse kernel skip (mha_counts), on the
 * lines y..end-1 when there is room: the dense FLOPs never change. */
static void draw_saving(const struct mha_config *c, struct rect r, int y, int end)
{
	struct mha_counts k = mha_counts(c);
	char line[256];
	if (y + 3 > end)
		return;
	snprintf(line, sizeof line, "a head keeps %lld of %d x %d pairs (%lld visible); dense computes all",
	         (long long)k.pairs_kept, c->n, c->n, (long long)k.pairs_visible);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, "a sparse kernel skips %lld masked score FLOPs, %lld of P V (zero weights)",
	         (long long)k.flops_scores_masked, (long long)k.flops_weighted_skippable);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	if (c->top_k > 0)
		snprintf(line, sizeof line, "top-k: a selector saves %lld FLOPs if it costs < %.1f a visible pair",
		         (long long)k.flops_sparse_saving, k.selector_break_even);
	else
		snprintf(line, sizeof line, "top-k is off (t): every visible key is kept");
	draw_put(y, r.x, r.w, line, theme_attr(ROLE_DIM));
}

static void mask_body(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	const struct mha_config *c = &app->cfg;
	const struct rect r = b->info;
	const int n = c->n, bottom = r.y + r.h - 2;
	int cr, cc, y = r.y;
	cursor(app, &cr, &cc);
	char line[256];
	unsigned char keep[MHA_MAX_TOKENS];
	draw_put(y++, r.x, r.w, "Masks: which keys (across) each query (down) sees", theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "causal %s  window %d  top-k %d (after the mask, per head)",
	         c->causal ? "on" : "off", c->window, c->top_k);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_put(y++, r.x, r.w, "# sees; hidden by: c causal, w window, p padding key, x by hand",
	         theme_attr(ROLE_DIM));
	/* keys across: one 3-column cell each, as many as fit */
	const int lw = 10, cw = 3;
	int cols = (r.w - lw - 24) / cw, c0 = 0;
	if (cols < 1)
		cols = 1;
	if (cc >= cols)
		c0 = cc - cols + 1;
	int rows = bottom - y - 1, r0 = cr >= rows ? cr - rows + 1 : 0;
	int x = r.x + lw;
	for (int j = c0; j < n && j < c0 + cols; j++, x += cw) {
		snprintf(line, sizeof line, "%.2s", app->w.labels[j]);
		draw_put(y, x + 1, 2, line, theme_attr(mha_is_pad(c, j) ? ROLE_DIM : ROLE_NORMAL)
		         | (j == cc ? A_BOLD | A_UNDERLINE : 0));
	}
	y++;
	for (int i = r0; i < n && y < bottom; i++, y++) {
		int kept = mha_mask_row(c, i, NULL, keep);
		snprintf(line, sizeof line, "%-6.6s%s", app->w.labels[i], mha_is_pad(c, i) ? "pad" : "");
		draw_put(y, r.x, lw, line, theme_attr(mha_is_pad(c, i) ? ROLE_DIM : ROLE_NORMAL)
		         | (i == cr ? A_BOLD : 0));
		x = r.x + lw;
		for (int j = c0; j < n && j < c0 + cols; j++, x += cw) {
			char cell[4] = { ' ', keep[j] ? '#' : why_hidden(c, i, j), ' ', '\0' };
			attr_t a = theme_attr(keep[j] ? ROLE_MET : ROLE_DIM);
			if (i == cr && j == cc)
				a = theme_attr(ROLE_SELECTED);
			draw_put(y, x, cw, cell, a);
		}
		const char *note = kept == 0 ? "no key: P row is 0" : mha_is_pad(c, i) ? "output ignored" : "";
		draw_put(y, x + 1, r.x + r.w - x - 1, note, theme_attr(kept ? ROLE_DIM : ROLE_ERROR));
	}
	snprintf(line, sizeof line, "cursor %s -> %s   padding: hidden as a key, ignored as a query",
	         app->w.labels[cr], app->w.labels[cc]);
	draw_put(r.y + r.h - 1, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_saving(c, r, y + 1, r.y + r.h - 1);
}

const struct mode_ops mask_view_mode = {
	.name = "masks",
	.key = mask_key,
	.status = mask_status,
	.layout = mode_layout_wide,
	.body = mask_body,
};
