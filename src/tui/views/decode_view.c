/*
 * decode_view.c - the decode view mode (o). The workbench's layer runs as
 * a causal decoder over its own tokens (teacher forcing): the prompt's K
 * and V are cached at once (prefill), then each step (Right, Space) feeds
 * the next token, whose query attends to every cached key (core:
 * mha_decoder_*). On screen: the tokens with the cache's extent, the new
 * row of P for each head, the new row of Y, whether it equals the same row
 * of the causal full pass (bit for bit: the same loops), and the step's
 * FLOPs against recomputing the whole pass; where there are rows, the
 * cache itself (K and V, a row a cached token). Left steps back, 0 restarts,
 * o or Esc leaves. The view holds its own decoder and causal full pass,
 * made when it opens (a step forward is one decode step; back empties the
 * cache and prefills), freed when it closes; the view is closed: other
 * keys but q, w and ? do nothing here, so the workbench it was opened on
 * stays as it was.
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "heatmap.h"
#include "mode.h"
#include "theme.h"

/* What the view holds while it is open: the decoder, and the causal pass
 * it is checked against. */
struct decode_state {
	bool open;             /* made (decode_enter), until the view closes */
	struct mha_config c;   /* the workbench's, causal */
	struct mha_weights w;  /* a view of the workbench's inputs (not owned) */
	struct mha_decoder dec;
	struct mha_acts full;  /* mha_forward_naive of c: the rows to equal */
	int prompt;            /* tokens prefilled at the start */
};

extern const struct mode_ops decode_view_mode;

static void decode_done(void *state)
{
	struct decode_state *s = state;
	if (!s->open)
		return;
	mha_decoder_free(&s->dec);
	mha_acts_free(&s->full);
	s->open = false;
}

static void decode_leave(struct app *app)
{
	struct decode_state *s = mode_state_if(app, &decode_view_mode);
	if (s)
		decode_done(s);
}

/* Open: the causal full pass once (what every row is checked against),
 * then the prompt prefilled. false when memory runs out. */
static bool decode_enter(struct app *app)
{
	struct decode_state *s = mode_state(app, &decode_view_mode);
	if (!s) {
		app_message(app, true, "out of memory for the decoder");
		return false;
	}
	decode_done(s);
	*s = (struct decode_state){ .c = app->cfg, .w = app->w, .prompt = 1 };
	/* a decoder's own tokens need the causal mask (a later one does not
	 * exist yet); cross-attention's keys are the source's, all there before
	 * the first step, and the core refuses causal between two sequences */
	s->c.causal = app->cfg.m == 0;
	if (mha_decoder_alloc(&s->dec, &s->c) != MHA_OK || mha_acts_alloc(&s->full, &s->c) != MHA_OK) {
		mha_decoder_free(&s->dec);
		app_message(app, true, "out of memory for the decoder");
		return false;
	}
	s->open = true;
	mha_forward_naive(&s->c, &s->w, &s->full);
	char msg[MHA_MSG_MAX];
	if (mha_decoder_prefill(&s->dec, &s->c, &s->w, s->prompt, msg, sizeof msg) != MHA_OK) {
		/* the decoder takes one layer: a stack is said, not drawn with no token */
		app_message(app, true, "decode: %s", msg);
		decode_done(s);
		return false;
	}
	return true;
}

/* The decoder while the view is open, else NULL. */
static const struct decode_state *decode_now(const struct app *app)
{
	const struct decode_state *s = mode_state_if(app, &decode_view_mode);
	return s && s->open ? s : NULL;
}

/* The decoder at len tokens: one step forward, or back by emptying the
 * cache and prefilling len tokens at once (one product for their K, V). */
static void decode_to(struct decode_state *s, int len)
{
	char msg[MHA_MSG_MAX];
	if (len < 1 || len > s->c.n || len == s->dec.len)
		return;
	if (len == s->dec.len + 1) {
		mha_decoder_step(&s->dec, &s->c, &s->w);
		return;
	}
	mha_decoder_reset(&s->dec);
	mha_decoder_prefill(&s->dec, &s->c, &s->w, len, msg, sizeof msg);
}

/* Right: a token more; Left: one back; 0: from the prompt again (arg
 * +1, -1, 0). */
static unsigned decode_step(struct app *app, int arg)
{
	struct decode_state *s = mode_state_if(app, &decode_view_mode);
	if (s && s->open)
		decode_to(s, arg == 0 ? 1 : s->dec.len + arg);
	return APP_REDRAW;
}

static bool decode_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	const struct decode_state *s = decode_now(app);
	char line[160];
	snprintf(line, sizeof line, "decode: %d of %d tokens cached", s ? s->dec.len : 0, app->cfg.n);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The tokens on one line: cached ones plain, the new one [bracketed],
 * those to come dim. Returns the x after the last. */
static void draw_tokens(const struct app *app, const struct decode_state *s, int y, struct rect r)
{
	int x = r.x;
	x += draw_put(y, x, r.w, "tokens ", theme_attr(ROLE_DIM));
	for (int t = 0; t < app->cfg.n && x < r.x + r.w; t++) {
		char tok[MHA_LABEL_MAX + 3];
		bool now = t == s->dec.len - 1;
		snprintf(tok, sizeof tok, now ? "[%s]" : "%s", app->w.labels[t]);
		attr_t a = now ? theme_attr(ROLE_SELECTED) : theme_attr(t < s->dec.len ? ROLE_NORMAL : ROLE_DIM);
		x += draw_put(y, x, r.x + r.w - x, tok, a) + 1;
	}
}

/* One of the cache's matrices (k: K, else V) at (y, x) in w columns:
 * its title, the columns' indices, a row a cached key (the newest one
 * highlighted), as many of its g*dk columns as w holds; returns the
 * rows drawn. */
static int draw_cache_matrix(const struct app *app, const struct decode_state *s, bool k, int y, int x, int w)
{
	const struct mha_config *c = &s->c;
	const int cols = c->g * c->dk, shown = (w - 5) / 6 < cols ? (w - 5) / 6 : cols;
	const float *m = k ? s->dec.k : s->dec.v;
	char line[96], num[32];
	if (shown < 1)
		return 0;
	int at = snprintf(line, sizeof line, "%s cache %dx%d", k ? "K" : "V", s->dec.keys, cols);
	if (shown < cols)
		snprintf(line + at, sizeof line - (size_t)at, " cols 0-%d", shown - 1);
	draw_put(y, x, w, line, theme_attr(ROLE_TITLE));
	for (int j = 0; j < shown; j++) {
		snprintf(num, sizeof num, "%5d", j);
		draw_put(y + 1, x + 5 + j * 6, 6, num, theme_attr(ROLE_DIM));
	}
	for (int r = 0; r < s->dec.keys; r++) {
		/* the newest row is the one this step wrote (self-attention) */
		bool now = c->m == 0 && r == s->dec.len - 1;
		char label[MHA_LABEL_MAX * 2];
		heatmap_token_label(label, sizeof label,
		                    (const char (*)[MHA_LABEL_MAX])(c->m > 0 ? app->w.kv_labels : app->w.labels),
		                    c->m > 0 ? c->m : c->n, r, 4); /* "the₀" as the workbench writes it */
		draw_put(y + 2 + r, x, 4, label, theme_attr(now ? ROLE_SELECTED : ROLE_NORMAL));
		for (int j = 0; j < shown; j++) {
			fmt_num(num, sizeof num, m[(size_t)r * cols + j], 5);
			draw_put(y + 2 + r, x + 5 + j * 6, 6, num, theme_attr(now ? ROLE_SELECTED : ROLE_NORMAL));
		}
	}
	return 2 + s->dec.keys;
}

/* Under the step, where the rows are (120x40 left 24 blank): the cache
 * itself, K over V when both fit whole that way, else side by side;
 * nothing when not even that fits. The room is that of the full cache,
 * so that it never vanishes as it fills. From row y to bottom. */
static void draw_cache(const struct app *app, const struct decode_state *s, int y, struct rect r, int bottom)
{
	int rows = 2 + (s->c.m > 0 ? s->c.m : s->c.n);
	if (bottom - y >= 2 * rows + 1) {
		y += draw_cache_matrix(app, s, true, y, r.x, r.w) + 1;
		draw_cache_matrix(app, s, false, y, r.x, r.w);
	} else if (bottom - y >= rows) {
		int half = (r.w - 2) / 2;
		draw_cache_matrix(app, s, true, y, r.x, half);
		draw_cache_matrix(app, s, false, y, r.x + half + 2, r.w - half - 2);
	}
}

static void decode_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct decode_state *s = decode_now(app);
	const struct rect r = b->info;
	if (!s)
		return;
	const struct mha_config *c = &s->c;
	const bool cross = c->m > 0; /* the keys are X_kv's, cached once before the first step */
	const int t = s->dec.len - 1, n = c->n, nk = mha_keys(c), bottom = r.y + r.h;
	int y = r.y;
	char line[512];
	draw_put(y++, r.x, r.w, cross ? "Prefill and decode: the new token's query attends to every source key"
	                              : "Prefill and decode: the new token's query attends to every cached key",
	         theme_attr(ROLE_TITLE));
	if (cross)
		snprintf(line, sizeof line, "queries from X (%d tokens), one a step; keys and values from X_kv (%d tokens), "
		         "cached once: no causal mask", n, c->m);
	else
		snprintf(line, sizeof line, "prompt: %d token%s prefilled; then a token a step%s", s->prompt,
		         s->prompt == 1 ? "" : "s", app->cfg.causal ? "" : " (causal, though m is off)");
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_tokens(app, s, y++, r);
	if (cross) { /* the source, every token cached */
		int x = r.x;
		x += draw_put(y, x, r.w, "source ", theme_attr(ROLE_DIM));
		for (int j = 0; j < c->m && x < r.x + r.w; j++)
			x += draw_put(y, x, r.x + r.w - x, app->w.kv_labels[j], theme_attr(ROLE_NORMAL)) + 1;
		y++;
	}
	/* the cache filling: one cell a token */
	int span = cross ? nk : n, done = cross ? s->dec.keys : s->dec.len;
	int bar = span < r.w - 30 ? span : r.w - 30, filled = bar * done / span, used;
	snprintf(line, sizeof line, "cache  ");
	used = (int)strlen(line);
	for (int i = 0; i < bar && used < (int)sizeof line - 2; i++)
		line[used++] = i < filled ? '#' : '.';
	snprintf(line + used, sizeof line - (size_t)used, "  K, V: %d x 2 x %d values%s",
	         done, c->g * c->dk, cross ? " (the source's, full from the start)" : "");
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	y++;
	/* the new row of P per head, as many heads as fit */
	snprintf(line, sizeof line, "step t = %d (%s): its row of P over %s keys 0..%d, per head", t, app->w.labels[t],
	         cross ? "X_kv's" : "the", s->dec.keys - 1);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	for (int i = 0; i < c->h && y < bottom - 5; i++) {
		int len = snprintf(line, sizeof line, "h%-2d", i);
		for (int j = 0; j < s->dec.keys && len < (int)sizeof line - 8; j++)
			len += snprintf(line + len, sizeof line - (size_t)len, " %.2f",
			                (double)s->dec.weights[(size_t)i * nk + j]);
		if (s->dec.dead[i])
			snprintf(line + len, sizeof line - (size_t)len, "  no key: row is 0");
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_HEAD_0 + i % 8));
	}
	/* y_t and the check against the full causal pass */
	double worst = 0.0;
	bool same = memcmp(s->dec.y, s->full.y + (size_t)t * c->d, (size_t)c->d * sizeof(float)) == 0;
	for (int e = 0; e < c->d; e++)
		worst = fmax(worst, fabs((double)s->dec.y[e] - s->full.y[(size_t)t * c->d + e]));
	for (int i = 0; i < c->h; i++)
		same &= memcmp(s->dec.weights + (size_t)i * nk, s->full.weights + ((size_t)i * n + t) * nk,
		               (size_t)s->dec.keys * sizeof(float)) == 0;
	int len = snprintf(line, sizeof line, "y_t  ");
	for (int e = 0; e < c->d && len < r.w; e++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %.3f", (double)s->dec.y[e]);
	if (y < bottom)
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, same ? "= row %d of the %sfull pass, bit for bit (P and Y)"
	                                 : "row %d differs from the %sfull pass by %.3g", t, cross ? "" : "causal ",
	         worst);
	if (y < bottom)
		draw_put(y++, r.x, r.w, line, theme_attr(same ? ROLE_MET : ROLE_ERROR));
	struct mha_decode_cost k = mha_decode_cost(c, t);
	snprintf(line, sizeof line, "this step: %" PRId64 " FLOPs; recomputing the %d token%s: %" PRId64
	         " (x%.1f)", k.step_flops, t + 1, t ? "s" : "", k.recompute_flops,
	         (double)k.recompute_flops / (double)k.step_flops);
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, cross ? "a step costs the same at every t (m keys), a recompute grows as t"
	                                  : "a step grows as t (one row of scores), a recompute as t^2");
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_cache(app, s, y + 2, r, bottom);
}

enum { FL = ACTION_BAR_BOTH };
static const struct action decode_opener = {
	.keys = { 'o' }, .label = "o", .name = "decode", .help = "decode token by token", .group = "General",
	.shows = MODE_SHOWS_ALL, .id = "decode",
};

static const struct action decode_keys[] = {
	{ .keys = { KEY_RIGHT, 'l', ' ' }, .label = "Right", .name = "next", .help = "the next token / one back",
	  .help_keys = "Right Left", .bar = FL, .call_arg = decode_step, .arg = 1, .id = "decode-next" },
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left", .name = "back", .help = "one token back", .help_keys = "",
	  .bar = FL, .call_arg = decode_step, .arg = -1, .id = "decode-back" },
	{ .keys = { '0' }, .label = "0", .name = "restart", .help = "from the prompt again", .bar = FL,
	  .call_arg = decode_step, .arg = 0, .id = "decode-restart" },
	{ .keys = { 0 } },
};

const struct mode_ops decode_view_mode = {
	.name = "decode",
	.opener = &decode_opener,
	.keys = decode_keys,
	.closed = true,
	.state_size = sizeof(struct decode_state),
	.enter = decode_enter,
	.leave = decode_leave,
	.done = decode_done,
	.status = decode_status,
	.layout = mode_layout_wide,
	.body = decode_body,
};
