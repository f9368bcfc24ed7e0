/*
 * lm_generate.c - the language model's generation page (g in the
 * language model's view; g or Esc goes back): the learner's sentence is
 * the prompt, prefilled, then each Right puts one more token through the
 * model (src/train/lm_decode.c: the core's decoder in every layer, a K/V
 * cache each). The next token is the most probable (greedy) or drawn at a
 * temperature from a seed, both on screen (m switches, + and - change the
 * temperature, s the seed). On screen, for the newest token: its query
 * row in every layer x head (the keys each head weighs most), the top 5
 * for the token after it, each layer's cache growing (rows, values,
 * bytes), this step's FLOPs against recomputing the whole prefix, and the
 * check that its probabilities equal row t of the full forward over every
 * token so far. It stops at the context the model was trained with.
 *
 * It decodes on the view's model as the learner left it (weights edited
 * on the workbench, heads off) and never changes it; the decoder and the
 * full pass it is checked against are made when the page opens and freed
 * when it closes. Drawing reads them and computes nothing.
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "lm.h"
#include "lm_view_int.h"
#include "mode.h"
#include "theme.h"

enum {
	TEMP_MIN = 1, TEMP_MAX = 20, /* the temperature in tenths */
	KEYS_SHOWN = 3,              /* keys a head's row names, at most */
};

struct lm_gen {
	bool open;
	const struct lm_view *lv;  /* the view whose model it decodes on */
	struct lm_decoder dec;
	struct lm_batch bt;        /* the full forward over the tokens so far */
	int prompt;                /* tokens prefilled: the sentence */
	bool sampled;              /* false: greedy */
	int temp10;                /* the temperature in tenths */
	uint64_t seed;
	double chosen_p[MHA_MAX_TOKENS]; /* a generated token's probability under the rule that chose it */
	bool chosen_sampled[MHA_MAX_TOKENS];
	int top_id[TOP];           /* the next token's top 5 (the model's own probabilities) */
	float top_p[TOP];
	double worst;              /* |decoder - full forward| over the last row's probabilities */
};

static void gen_done(void *state)
{
	struct lm_gen *g = state;
	if (!g->open)
		return;
	lm_decoder_free(&g->dec);
	lm_batch_free(&g->bt);
	g->open = false;
}

static void gen_leave(struct app *app)
{
	struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	if (g)
		gen_done(g);
}

/* After every change of the decoder: the top 5 after the newest token,
 * and the full forward over the tokens so far, its last row compared. */
static void gen_measure(struct lm_gen *g)
{
	const struct train_model *m = &g->lv->m;
	const int V = m->s.classes, n = g->dec.len;
	lm_top_k(g->dec.probs, V, TOP, g->top_id, g->top_p);
	int none[MHA_MAX_TOKENS];
	for (int i = 0; i < n; i++)
		none[i] = -1;
	struct lm_result r;
	lm_forward(m, &g->bt, g->dec.ids, none, 1, n, 1, &r);
	const float *row = g->bt.logits + (size_t)(n - 1) * V;
	g->worst = 0;
	for (int k = 0; k < V; k++)
		g->worst = fmax(g->worst, fabs((double)g->dec.probs[k] - row[k]));
}

/* The prompt again: the sentence's tokens prefilled. */
static void gen_restart(struct lm_gen *g)
{
	char msg[256];
	lm_decoder_prefill(&g->dec, g->lv->ids, g->prompt, msg, sizeof msg);
	gen_measure(g);
}

static bool gen_enter(struct app *app)
{
	if (!lm_view_ready(app))
		return false; /* the view said why */
	const struct lm_view *lv = mode_state_if(app, &lm_view_mode);
	struct lm_gen *g = mode_state(app, &lm_gen_mode);
	if (!g) {
		app_message(app, true, "generate: out of memory");
		return false;
	}
	gen_done(g);
	g->lv = lv;
	g->prompt = lv->n;
	if (g->temp10 < TEMP_MIN)
		*g = (struct lm_gen){ .lv = lv, .prompt = lv->n, .temp10 = 8, .seed = 1 };
	if (lm_decoder_alloc(&g->dec, &lv->m) != 0 || lm_batch_alloc(&g->bt, &lv->m, 1, 1) != MHA_OK) {
		lm_decoder_free(&g->dec);
		app_message(app, true, "generate: out of memory for the decoder");
		return false;
	}
	g->open = true;
	gen_restart(g);
	return true;
}

/* ---- keys ---- */

static unsigned gen_next(struct app *app)
{
	struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	if (!g || !g->open)
		return 0;
	if (g->dec.len >= g->dec.cap) {
		app_message(app, true, "the model was trained on %d tokens of context (its learned positions P have %d "
		            "rows): there is no position for another token; %s goes back to the prompt",
		            g->dec.cap, g->dec.cap, mode_key_name(app, "generate-restart"));
		return APP_REDRAW;
	}
	double p;
	int next = lm_decoder_pick(&g->dec, g->sampled ? g->temp10 / 10.0 : 0.0, g->seed, &p);
	char msg[256];
	if (lm_decoder_push(&g->dec, next, msg, sizeof msg) != 0) {
		app_message(app, true, "generate: %s", msg);
		return APP_REDRAW;
	}
	g->chosen_p[g->dec.len - 1] = p;
	g->chosen_sampled[g->dec.len - 1] = g->sampled;
	gen_measure(g);
	return APP_REDRAW;
}

static unsigned gen_back(struct app *app)
{
	struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	if (!g || !g->open || g->dec.len <= g->prompt)
		return 0;
	int keep[MHA_MAX_TOKENS], n = g->dec.len - 1;
	memcpy(keep, g->dec.ids, sizeof(int) * (size_t)n);
	char msg[256];
	lm_decoder_prefill(&g->dec, keep, n, msg, sizeof msg); /* the cache refilled, one token shorter */
	gen_measure(g);
	return APP_REDRAW;
}

static unsigned gen_restart_key(struct app *app)
{
	struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	if (!g || !g->open || g->dec.len == g->prompt)
		return 0;
	gen_restart(g);
	return APP_REDRAW;
}

/* m, +, -, s: the rule changes; the text goes back to the prompt */
static unsigned gen_rule(struct app *app, int arg)
{
	struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	if (!g || !g->open)
		return 0;
	if (arg == 'm') {
		g->sampled = !g->sampled;
	} else if (arg == 's') {
		g->seed++;
		g->sampled = true;
	} else {
		int t = g->temp10 + (arg == '+' ? 1 : -1);
		if (t < TEMP_MIN || t > TEMP_MAX) {
			app_message(app, true, "the temperature stays within %.1f..%.1f", TEMP_MIN / 10.0, TEMP_MAX / 10.0);
			return APP_REDRAW;
		}
		g->temp10 = t;
		g->sampled = true;
	}
	gen_restart(g);
	if (g->sampled)
		app_message(app, false, "sampled at temperature %.1f, seed %" PRIu64 ": from the prompt again",
		            g->temp10 / 10.0, g->seed);
	else
		app_message(app, false, "greedy (the most probable token): from the prompt again");
	return APP_REDRAW;
}

static unsigned gen_back_to_view(struct app *app)
{
	mode_leave(app);
	return APP_REDRAW;
}

/* ---- drawing ---- */

static const struct lm_gen *gen_now(const struct app *app)
{
	const struct lm_gen *g = mode_state_if(app, &lm_gen_mode);
	return g && g->open ? g : NULL;
}

static bool gen_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false;
	const struct lm_gen *g = gen_now(app);
	char line[200];
	if (!g)
		return false;
	snprintf(line, sizeof line, "generate: %d of %d tokens (prompt %d, generated %d)", g->dec.len, g->dec.cap,
	         g->prompt, g->dec.len - g->prompt);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The token's text: its vocabulary entry ("<unk>" for a word it lacks). */
static const char *word(const struct lm_gen *g, int id)
{
	return g->lv->v.word[id];
}

/* Token t as the text shows it: the newest [bracketed]. */
static void token_text(const struct lm_gen *g, int t, char *out, size_t len)
{
	snprintf(out, len, t == g->dec.len - 1 ? "[%s]" : "%s", word(g, g->dec.ids[t]));
}

/* Tokens from..len-1 laid out from column x0 in lines of w (after
 * `indent`); draws them when draw is true. Returns the lines used. */
static int lay_text(const struct lm_gen *g, int from, int y, int x, int w, bool draw)
{
	const int indent = 6;
	int col = x + indent, lines = 1;
	if (from > 0) {
		if (draw)
			draw_put(y, col, 4, "...", theme_attr(ROLE_DIM));
		col += 4;
	}
	for (int t = from; t < g->dec.len; t++) {
		char tok[MHA_LABEL_MAX + 4];
		token_text(g, t, tok, sizeof tok);
		int tw = draw_width(tok);
		if (col + tw > x + w && col > x + indent) {
			lines++;
			col = x + indent;
		}
		if (draw) {
			bool now = t == g->dec.len - 1, made = t >= g->prompt;
			attr_t a = now ? theme_attr(ROLE_SELECTED)
			               : made ? theme_attr(ROLE_CHANGED) | A_BOLD : theme_attr(ROLE_NORMAL);
			draw_put(y + lines - 1, col, x + w - col, tok, a);
		}
		col += tw + 1;
	}
	return lines;
}

/* The text so far in at most `rows` lines from row y: the prompt plain,
 * generated tokens marked, the newest [bracketed]; when it does not fit,
 * its end after "...". Returns the row after it. */
static int draw_text(const struct lm_gen *g, int y, int x, int w, int rows)
{
	int from = 0;
	while (from < g->dec.len - 1 && lay_text(g, from, y, x, w, false) > rows)
		from++;
	draw_put(y, x, w, "text:", theme_attr(ROLE_DIM));
	return y + lay_text(g, from, y, x, w, true);
}

/* Each layer x head's query row for the newest token: the keys it weighs
 * most ("3:the .62"), as many heads a row as fit. Returns the row after. */
static int draw_query_rows(const struct lm_gen *g, int y, int x, int w, int bottom)
{
	const struct train_model *m = &g->lv->m;
	const int t = g->dec.len - 1, H = m->s.h, L = m->s.layers;
	const int cell = w >= 4 * 44 ? w / 4 : w >= 2 * 36 ? w / 2 : w;
	int per_row = w / cell, k = 0;
	for (int l = 0; l < L; l++)
		for (int i = 0; i < H; i++, k++) {
			int row = y + k / per_row, col = x + (k % per_row) * cell;
			if (row >= bottom)
				return row;
			char line[256];
			int len = snprintf(line, sizeof line, "L%dH%d", l, i);
			if (m->head_off[l][i]) {
				snprintf(line + len, sizeof line - (size_t)len, " off: adds nothing");
			} else {
				const float *p = g->dec.dec[l].weights + (size_t)i * g->dec.dec[l].cap;
				bool used[MHA_MAX_TOKENS] = { false };
				for (int shown = 0; shown < KEYS_SHOWN && shown <= t && len < cell - 12; shown++) {
					int best = -1;
					for (int j = 0; j <= t; j++)
						if (!used[j] && (best < 0 || p[j] > p[best]))
							best = j;
					used[best] = true;
					char pr[16];
					lm_prob_text(pr, sizeof pr, p[best]);
					len += snprintf(line + len, sizeof line - (size_t)len, " %d:%.8s %s", best,
					                word(g, g->dec.ids[best]), pr);
				}
			}
			draw_put(row, col, cell - 1, line, theme_head_attr(i));
		}
	return y + (k + per_row - 1) / per_row;
}

static void gen_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct lm_gen *g = gen_now(app);
	const struct rect r = b->info;
	const int bottom = r.y + r.h;
	if (!g)
		return;
	const struct train_model *m = &g->lv->m;
	const int t = g->dec.len - 1, L = m->s.layers;
	int y = r.y;
	char line[512], a[40], c[40], e[40];
	draw_fit(y++, r.x, r.w, "Generate from your sentence, a token a step: K and V cached in every layer",
	         theme_attr(ROLE_TITLE));
	if (g->sampled)
		snprintf(line, sizeof line, "rule: sampled at temperature %.1f, seed %" PRIu64 " (%s %s: temperature, %s: "
		         "seed, %s: greedy)", g->temp10 / 10.0, g->seed, mode_key_name(app, "generate-hotter"),
		         mode_key_name(app, "generate-colder"), mode_key_name(app, "generate-seed"),
		         mode_key_name(app, "generate-rule"));
	else
		snprintf(line, sizeof line, "rule: greedy, the most probable token (%s: sample at a temperature)",
		         mode_key_name(app, "generate-rule"));
	draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	y = draw_text(g, y, r.x, r.w, r.h >= 30 ? 6 : 3);
	/* the newest token and how it came */
	if (t >= g->prompt) {
		lm_prob_text(a, sizeof a, (float)g->chosen_p[t]);
		snprintf(line, sizeof line, "token %d \"%s\": %s (probability %s)", t, word(g, g->dec.ids[t]),
		         g->chosen_sampled[t] ? "drawn at the temperature" : "the most probable", a);
	} else {
		snprintf(line, sizeof line, "token %d \"%s\": the prompt's last, prefilled with the %d before it", t,
		         word(g, g->dec.ids[t]), t);
	}
	draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "its query row, layer x head: the keys it weighs most (position:word weight)");
	draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	y = draw_query_rows(g, y, r.x, r.w, bottom);
	/* the next token's top 5 */
	if (y < bottom) {
		int len = snprintf(line, sizeof line, g->sampled ? "next (model's p): " : "next: ");
		for (int k = 0; k < TOP; k++) {
			lm_prob_text(a, sizeof a, g->top_p[k]);
			len += snprintf(line + len, sizeof line - (size_t)len, "%s %s  ", word(g, g->top_id[k]), a);
		}
		if (g->dec.len >= g->dec.cap)
			snprintf(line, sizeof line, "the context is full: the model was trained on %d tokens", g->dec.cap);
		draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	/* the caches */
	struct lm_decode_cost k = lm_decode_cost(m, t), full = lm_decode_cost(m, g->dec.cap - 1);
	const int gw = m->s.h * m->s.dk;
	for (int l = 0; l < L && y < bottom; l++, y++) {
		int bar = g->dec.cap < r.w / 5 ? g->dec.cap : r.w / 5, filled = bar * g->dec.len / g->dec.cap;
		int len = snprintf(line, sizeof line, "cache L%d ", l);
		for (int i = 0; i < bar; i++)
			line[len++] = i < filled ? '#' : '.';
		snprintf(line + len, sizeof line - (size_t)len, " K, V: %d rows x %d x 2 = %s values, %s", g->dec.len, gw,
		         fmt_grouped(a, sizeof a, 2 * (int64_t)gw * g->dec.len),
		         fmt_bytes(c, sizeof c, 2 * (int64_t)gw * g->dec.len * (int64_t)sizeof(float)));
		draw_fit(y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	if (y < bottom) {
		snprintf(line, sizeof line, "all %d layers: %s (float32); at %d tokens, the context: %s", L,
		         fmt_bytes(a, sizeof a, k.cache_bytes), g->dec.cap, fmt_bytes(c, sizeof c, full.cache_bytes));
		draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	}
	/* the step's cost against recomputing the prefix */
	if (y < bottom) {
		snprintf(line, sizeof line, "this step, layers: %s FLOPs; recomputing all %d tokens: %s (x%.1f)",
		         fmt_grouped(a, sizeof a, k.step_flops), t + 1, fmt_grouped(c, sizeof c, k.recompute_flops),
		         (double)k.recompute_flops / (double)k.step_flops);
		draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	}
	if (y < bottom) {
		snprintf(line, sizeof line, "saved: %s; the read-out to %d words costs %s either way",
		         fmt_grouped(a, sizeof a, k.recompute_flops - k.step_flops), m->s.classes,
		         fmt_grouped(e, sizeof e, k.readout_flops));
		draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	}
	if (y < bottom) {
		bool same = g->worst <= 1e-5;
		snprintf(line, sizeof line, same ? "= row %d of the full forward over all %d tokens (probabilities within %.0e)"
		                                 : "differs from row %d of the full forward over %d tokens by %.3g",
		         t, t + 1, same ? fmax(g->worst, 1e-9) : g->worst);
		draw_fit(y++, r.x, r.w, line, theme_attr(same ? ROLE_MET : ROLE_ERROR));
	}
}

enum { FL = ACTION_BAR_BOTH };
static const struct action gen_keys[] = {
	{ .keys = { KEY_RIGHT, 'l', ' ' }, .label = "Right", .name = "next", .help = "the next token / one back",
	  .help_keys = "Right Left", .bar = FL, .call = gen_next, .id = "generate-next" },
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left", .name = "back", .help = "one token back", .help_keys = "",
	  .call = gen_back, .id = "generate-back" },
	{ .keys = { '0' }, .label = "0", .name = "prompt", .help = "back to the prompt", .bar = FL,
	  .call = gen_restart_key, .id = "generate-restart" },
	{ .keys = { 'm' }, .label = "m", .name = "greedy/sample", .help = "greedy or sampled at a temperature",
	  .bar = FL, .call_arg = gen_rule, .arg = 'm', .id = "generate-rule" },
	{ .keys = { '+', '=' }, .label = "+", .name = "temperature", .help = "temperature up / down by 0.1 (0.1..2.0)",
	  .help_keys = "+ -", .bar_keys = "+ -", .bar = FL, .call_arg = gen_rule, .arg = '+', .id = "generate-hotter" },
	{ .keys = { '-', '_' }, .label = "-", .help = "temperature down by 0.1", .help_keys = "",
	  .call_arg = gen_rule, .arg = '-', .id = "generate-colder" },
	{ .keys = { 's' }, .label = "s", .name = "seed", .help = "the next seed (sampling)", .bar = FL,
	  .call_arg = gen_rule, .arg = 's', .id = "generate-seed" },
	{ .keys = { 'g' }, .label = "g", .name = "back to the model", .help = "back to the language model's view (Esc too)",
	  .bar = FL, .call = gen_back_to_view, .id = "generate-leave" },
	{ .keys = { 0 } },
};

const struct mode_ops lm_gen_mode = {
	.name = "generate",
	.keys = gen_keys,
	.closed = true,
	.back = &lm_view_mode,
	.state_size = sizeof(struct lm_gen),
	.enter = gen_enter,
	.leave = gen_leave,
	.done = gen_done,
	.status = gen_status,
	.layout = mode_layout_wide,
	.body = gen_body,
};
