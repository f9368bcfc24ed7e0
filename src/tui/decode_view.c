/*
 * decode_view.c - the decode view mode (o). The workbench's layer runs as
 * a causal decoder over its own tokens (teacher forcing): the prompt's K
 * and V are cached at once (prefill), then each step (Right, Space) feeds
 * the next token, whose query attends to every cached key (core:
 * mha_decoder_*). On screen: the tokens with the cache's extent, the new
 * row of P for each head, the new row of Y, whether it equals the same row
 * of the causal full pass (bit for bit: the same loops), and the step's
 * FLOPs against recomputing the whole pass. Left steps back, 0 restarts,
 * o or Esc leaves. The view holds its own decoder and causal full pass,
 * made when it opens (a step forward is one decode step; back empties the
 * cache and prefills), freed when it closes; other keys but q, w and ? do
 * nothing here, so the workbench it was opened on stays as it was.
 */
#include "decode_view.h"

#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

/* What the view holds: the decoder, and the causal pass it is checked against. */
struct decode_state {
	struct mha_config c;   /* the workbench's, causal */
	struct mha_weights w;  /* a view of the workbench's inputs (not owned) */
	struct mha_decoder dec;
	struct mha_acts full;  /* mha_forward_naive of c: the rows to equal */
	int prompt;            /* tokens prefilled at the start */
};

void decode_view_free(struct app *app)
{
	struct decode_state *s = app->decode;
	if (!s)
		return;
	mha_decoder_free(&s->dec);
	mha_acts_free(&s->full);
	free(s);
	app->decode = NULL;
}

/* Open: the causal full pass once (what every row is checked against),
 * then the prompt prefilled. false when memory runs out. */
static bool decode_open(struct app *app)
{
	decode_view_free(app);
	struct decode_state *s = calloc(1, sizeof *s);
	if (!s)
		return false;
	s->c = app->cfg;
	s->c.causal = true;
	s->w = app->w;
	s->prompt = 1;
	if (mha_decoder_alloc(&s->dec, &s->c) != MHA_OK || mha_acts_alloc(&s->full, &s->c) != MHA_OK) {
		mha_decoder_free(&s->dec);
		free(s);
		return false;
	}
	app->decode = s;
	mha_forward_naive(&s->c, &s->w, &s->full);
	char msg[MHA_MSG_MAX];
	mha_decoder_prefill(&s->dec, &s->c, &s->w, s->prompt, msg, sizeof msg);
	return true;
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

unsigned decode_view_toggle(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	if (mode_base(app) == MODE_DECODE) {
		decode_view_free(app);
		mode_leave(app);
		return APP_REDRAW;
	}
	if (!decode_open(app)) {
		app_message(app, true, "out of memory for the decoder");
		return APP_REDRAW;
	}
	mode_enter(app, MODE_DECODE);
	return APP_REDRAW;
}

static unsigned decode_key(struct app *app, int key)
{
	struct decode_state *s = app->decode;
	if (!s)
		return decode_view_toggle(app, 0, key);
	int len = s->dec.len;
	switch (key) {
	case KEY_RIGHT: case 'l': case ' ':
		decode_to(s, len + 1);
		return APP_REDRAW;
	case KEY_LEFT: case 'h':
		decode_to(s, len - 1);
		return APP_REDRAW;
	case '0':
		decode_to(s, 1);
		return APP_REDRAW;
	case 'o': case PROMPT_ESC:
		return decode_view_toggle(app, 0, key);
	case 'q': case 'w': case '?': case KEY_MOUSE:
		return MODE_PASS;
	default:
		app_message(app, false, "decode view: Right next token, Left back, 0 restart, o back");
		return APP_REDRAW;
	}
}

static bool decode_status(const struct app *app, struct rect r)
{
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	const struct decode_state *s = app->decode;
	char line[160];
	snprintf(line, sizeof line, "decode: %d of %d tokens cached   Right next  Left back  0 restart  o back",
	         s ? s->dec.len : 0, app->cfg.n);
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

static void decode_body(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	const struct decode_state *s = app->decode;
	const struct rect r = b->info;
	if (!s)
		return;
	const struct mha_config *c = &s->c;
	const int t = s->dec.len - 1, n = c->n, bottom = r.y + r.h;
	int y = r.y;
	char line[512];
	draw_put(y++, r.x, r.w, "Prefill and decode: the new token's query attends to every cached key",
	         theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "prompt: %d token%s prefilled; then a token a step%s", s->prompt,
	         s->prompt == 1 ? "" : "s", app->cfg.causal ? "" : " (causal, though m is off)");
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	draw_tokens(app, s, y++, r);
	/* the cache filling: one cell a token */
	int bar = n < r.w - 30 ? n : r.w - 30, filled = bar * s->dec.len / n, used;
	snprintf(line, sizeof line, "cache  ");
	used = (int)strlen(line);
	for (int i = 0; i < bar && used < (int)sizeof line - 2; i++)
		line[used++] = i < filled ? '#' : '.';
	snprintf(line + used, sizeof line - (size_t)used, "  K, V: %d x 2 x %d values",
	         s->dec.len, c->g * c->dk);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	y++;
	/* the new row of P per head, as many heads as fit */
	snprintf(line, sizeof line, "step t = %d (%s): its row of P over keys 0..%d, per head", t, app->w.labels[t], t);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	for (int i = 0; i < c->h && y < bottom - 5; i++) {
		int len = snprintf(line, sizeof line, "h%-2d", i);
		for (int j = 0; j <= t && len < (int)sizeof line - 8; j++)
			len += snprintf(line + len, sizeof line - (size_t)len, " %.2f",
			                (double)s->dec.weights[(size_t)i * s->dec.cap + j]);
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
		same &= memcmp(s->dec.weights + (size_t)i * s->dec.cap, s->full.weights + ((size_t)i * n + t) * n,
		               (size_t)n * sizeof(float)) == 0;
	int len = snprintf(line, sizeof line, "y_t  ");
	for (int e = 0; e < c->d && len < r.w; e++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %.3f", (double)s->dec.y[e]);
	if (y < bottom)
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, same ? "= row %d of the causal full pass, bit for bit (P and Y)"
	                                 : "row %d differs from the causal full pass by %.3g", t, worst);
	if (y < bottom)
		draw_put(y++, r.x, r.w, line, theme_attr(same ? ROLE_MET : ROLE_ERROR));
	struct mha_decode_cost k = mha_decode_cost(c, t);
	snprintf(line, sizeof line, "this step: %" PRId64 " FLOPs; recomputing the %d token%s: %" PRId64
	         " (x%.1f)", k.step_flops, t + 1, t ? "s" : "", k.recompute_flops,
	         (double)k.recompute_flops / (double)k.step_flops);
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, "a step grows as t (one row of scores), a recompute as t^2");
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_DIM));
}

const struct mode_ops decode_view_mode = {
	.name = "decode",
	.key = decode_key,
	.status = decode_status,
	.layout = mode_layout_wide,
	.body = decode_body,
};
