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
 * goes through app_change_config (undo, recompute, the session). Its
 * state is its cursor.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "theme.h"

/* The view's own state: its cursor, a query and a key. */
struct mask_view {
	int row, col;
};

extern const struct mode_ops mask_view_mode;

/* Key j's label: X_kv's token with cross-attention, else X's. */
static const char *key_label(const struct app *app, int j)
{
	return app->cfg.m > 0 ? app->w.kv_labels[j] : app->w.labels[j];
}

/* The cursor, kept within the current n queries and nk keys. */
static void cursor(const struct app *app, int *r, int *c)
{
	const struct mask_view *v = mode_state_if(app, &mask_view_mode);
	int n = app->cfg.n, nk = mha_keys(&app->cfg);
	*r = !v ? 0 : v->row < n ? v->row : n - 1;
	*c = !v ? 0 : v->col < nk ? v->col : nk - 1;
}

/* arg: 0 left, 1 down, 2 up, 3 right */
static unsigned mask_move(struct app *app, int arg)
{
	struct mask_view *v = mode_state(app, &mask_view_mode);
	int r, c, n = app->cfg.n, nk = mha_keys(&app->cfg);
	cursor(app, &r, &c);
	if (!v)
		return APP_REDRAW;
	r += arg == 1 ? 1 : arg == 2 ? -1 : 0;
	c += arg == 3 ? 1 : arg == 0 ? -1 : 0;
	v->row = r < 0 ? 0 : r >= n ? n - 1 : r;
	v->col = c < 0 ? 0 : c >= nk ? nk - 1 : c;
	return APP_REDRAW;
}

static unsigned mask_cell(struct app *app)
{
	int r, c;
	cursor(app, &r, &c);
	struct mha_config nx = app->cfg;
	char what[128];
	bool hidden = (nx.hide[r] >> c) & 1u;
	mha_mask_set(&nx, r, c, !hidden);
	snprintf(what, sizeof what, "%s -> %s %s by hand", app->w.labels[r], key_label(app, c),
	         hidden ? "shown again" : "hidden");
	return app_change_config(app, &nx, what);
}

static unsigned mask_pad(struct app *app)
{
	int r, c;
	cursor(app, &r, &c);
	struct mha_config nx = app->cfg;
	char what[128];
	nx.pad ^= (uint64_t)1 << c;
	/* cross-attention: the bit marks a source token, which is no query */
	snprintf(what, sizeof what, "%s %s", key_label(app, c), !mha_is_pad(&nx, c) ? "is a token again"
	         : nx.m > 0 ? "(X_kv) is padding: no query of X sees it"
	         : "is padding: no query sees it, its own output is ignored");
	return app_change_config(app, &nx, what);
}

/* ) widens the window, ( narrows it (arg +1, -1). */
static unsigned mask_window(struct app *app, int arg)
{
	struct mha_config nx = app->cfg;
	char what[128];
	nx.window += arg;
	int most = app->cfg.n > mha_keys(&app->cfg) ? app->cfg.n : mha_keys(&app->cfg);
	if (nx.window < 0 || nx.window > most)
		return APP_REDRAW;
	if (nx.window == 0)
		snprintf(what, sizeof what, "window off");
	else
		snprintf(what, sizeof what, "window %d: query i sees keys %s", nx.window,
		         nx.causal ? "i-w+1..i" : "i-w+1..i+w-1");
	return app_change_config(app, &nx, what);
}

static bool mask_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	int cr, cc;
	char line[160];
	cursor(app, &cr, &cc);
	snprintf(line, sizeof line, "mask: causal %s, window %d, top-k %d; the cursor on %s -> %s",
	         app->cfg.causal ? "on" : "off", app->cfg.window, app->cfg.top_k, app->w.labels[cr],
	         key_label(app, cc));
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
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
	         (long long)k.pairs_kept, c->n, mha_keys(c), (long long)k.pairs_visible);
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

static void mask_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct mha_config *c = &app->cfg;
	const struct rect r = b->info;
	const int n = c->n, nk = mha_keys(c), bottom = r.y + r.h - 2;
	const bool cross = c->m > 0; /* keys are X_kv's tokens; padding marks the source's */
	int cr, cc, y = r.y;
	cursor(app, &cr, &cc);
	char line[256];
	unsigned char keep[MHA_MAX_TOKENS];
	draw_put(y++, r.x, r.w, cross ? "Masks: which keys of X_kv (across) each query of X (down) sees"
	                              : "Masks: which keys (across) each query (down) sees", theme_attr(ROLE_TITLE));
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
	for (int j = c0; j < nk && j < c0 + cols; j++, x += cw) {
		snprintf(line, sizeof line, "%.2s", key_label(app, j));
		draw_put(y, x + 1, 2, line, theme_attr(mha_is_pad(c, j) ? ROLE_DIM : ROLE_NORMAL)
		         | (j == cc ? A_BOLD | A_UNDERLINE : 0));
	}
	y++;
	for (int i = r0; i < n && y < bottom; i++, y++) {
		int kept = mha_mask_row(c, i, NULL, keep);
		bool pad_row = !cross && mha_is_pad(c, i); /* a query is padding only in its own sequence */
		snprintf(line, sizeof line, "%-6.6s%s", app->w.labels[i], pad_row ? "pad" : "");
		draw_put(y, r.x, lw, line, theme_attr(pad_row ? ROLE_DIM : ROLE_NORMAL) | (i == cr ? A_BOLD : 0));
		x = r.x + lw;
		for (int j = c0; j < nk && j < c0 + cols; j++, x += cw) {
			char cell[4] = { ' ', keep[j] ? '#' : why_hidden(c, i, j), ' ', '\0' };
			attr_t a = theme_attr(keep[j] ? ROLE_MET : ROLE_DIM);
			if (i == cr && j == cc)
				a = theme_attr(ROLE_SELECTED);
			draw_put(y, x, cw, cell, a);
		}
		const char *note = kept == 0 ? "no key: P row is 0" : pad_row ? "output ignored" : "";
		draw_put(y, x + 1, r.x + r.w - x - 1, note, theme_attr(kept ? ROLE_DIM : ROLE_ERROR));
	}
	snprintf(line, sizeof line, "cursor %s -> %s   padding: %s", app->w.labels[cr], key_label(app, cc),
	         cross ? "a source token no query sees" : "hidden as a key, ignored as a query");
	draw_put(r.y + r.h - 1, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_saving(c, r, y + 1, r.y + r.h - 1);
}

enum { FL = ACTION_BAR_BOTH };
static const struct action mask_opener = {
	.keys = { 'P' }, .label = "P", .name = "masks", .help = "masks: padding, window", .group = "General",
	.shows = MODE_SHOWS_ALL, .id = "masks",
};

static const struct action mask_keys[] = {
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left h", .bar_keys = "arrows", .name = "move",
	  .help = "move the cursor: a query (down), a key (across)", .help_keys = "arrows hjkl", .bar = FL,
	  .call_arg = mask_move, .arg = 0, .id = "mask-left" },
	{ .keys = { KEY_DOWN, 'j' }, .label = "Down j", .name = "down", .help = "the next query", .help_keys = "",
	  .call_arg = mask_move, .arg = 1, .id = "mask-down" },
	{ .keys = { KEY_UP, 'k' }, .label = "Up k", .name = "up", .help = "the query before", .help_keys = "",
	  .call_arg = mask_move, .arg = 2, .id = "mask-up" },
	{ .keys = { KEY_RIGHT, 'l' }, .label = "Right l", .name = "right", .help = "the next key", .help_keys = "",
	  .call_arg = mask_move, .arg = 3, .id = "mask-right" },
	{ .keys = { ' ' }, .label = "Space", .name = "hide/show", .help = "hide the cell by hand, or show it again",
	  .bar = FL, .call = mask_cell, .id = "mask-cell" },
	{ .keys = { 'p' }, .label = "p", .name = "padding", .help = "the cursor's key token padding, or not",
	  .bar = FL, .call = mask_pad, .id = "mask-pad" },
	{ .keys = { ')' }, .label = ")", .bar_keys = "( )", .name = "window", .help = "widen / narrow the window",
	  .help_keys = ") (", .bar = FL, .call_arg = mask_window, .arg = 1, .id = "mask-window-wider" },
	{ .keys = { '(' }, .label = "(", .name = "narrower", .help = "narrow the window", .help_keys = "",
	  .call_arg = mask_window, .arg = -1, .id = "mask-window-narrower" },
	{ .use = "causal", .name = "causal", .bar = FL },
	{ .keys = { 0 } },
};

const struct mode_ops mask_view_mode = {
	.name = "masks",
	.opener = &mask_opener,
	.keys = mask_keys,
	.state_size = sizeof(struct mask_view),
	.status = mask_status,
	.layout = mode_layout_wide,
	.body = mask_body,
};
