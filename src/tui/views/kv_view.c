/*
 * kv_view.c - the KV-cache view mode (g): what a decoder keeps per token,
 *   bytes = 2 x g x d_k x L x b x T   (K and V, kv heads, head size,
 *           layers, bytes a value, tokens)
 * for this workbench's layer and for the presets of the core (the paper's
 * base model, a LLaMA-2-70B-shaped model), each as MHA (g = h), GQA (the
 * model's own g) and MQA (g = 1) side by side, at a context length and a
 * value type the learner picks (+ / - double or halve T, b cycles fp32,
 * fp16, int8). Every figure comes from mha_kv_cache; this file only lays
 * them out. The workbench's keys act under it (] [ < > change h and
 * h_kv: the figures follow).
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "fmt.h"
#include "mode.h"
#include "theme.h"

enum { KV_SHIFT_MIN = -12, KV_SHIFT_MAX = 7 }; /* T from 1 to 512Ki tokens */

/* The view's own state. */
struct kv_view {
	int context_shift; /* T = 4096 tokens x 2^this */
	int dtype_step;    /* the value type: fp16 + this (mod 3) */
};

extern const struct mode_ops kv_view_mode;

/* The state as it is (all zero: T 4096, fp16, until a key changes it). */
static struct kv_view kv_now(const struct app *app)
{
	const struct kv_view *v = mode_state_if(app, &kv_view_mode);
	return v ? *v : (struct kv_view){ 0 };
}

static int64_t kv_context(const struct app *app)
{
	int s = kv_now(app).context_shift;
	return s >= 0 ? (int64_t)4096 << s : (int64_t)4096 >> -s;
}

static enum mha_dtype kv_dtype(const struct app *app)
{
	return (enum mha_dtype)((MHA_FP16 + kv_now(app).dtype_step) % MHA_DTYPE_COUNT);
}

/* + doubles T, - halves it (arg +1, -1). */
static unsigned kv_context_by(struct app *app, int arg)
{
	struct kv_view *v = mode_state(app, &kv_view_mode);
	if (v && v->context_shift + arg >= KV_SHIFT_MIN && v->context_shift + arg <= KV_SHIFT_MAX)
		v->context_shift += arg;
	return APP_REDRAW;
}

static unsigned kv_dtype_next(struct app *app)
{
	struct kv_view *v = mode_state(app, &kv_view_mode);
	if (v)
		v->dtype_step = (v->dtype_step + 1) % MHA_DTYPE_COUNT;
	return APP_REDRAW;
}

static bool kv_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message: the workbench's status line shows it */
	char line[160];
	snprintf(line, sizeof line, "KV cache at T = %" PRId64 " tokens, %s values", kv_context(app),
	         mha_dtype_name(kv_dtype(app)));
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* One row: name, L, h, h_kv (g here), d_k, values a token and layer, bytes a token
 * (all layers), bytes at T (all layers). */
static void kv_row(int y, struct rect r, const char *name, int layers, int h, int g, int dk,
                   const struct app *app, attr_t a)
{
	struct mha_kv_cache k = mha_kv_cache(g, dk, layers, kv_dtype(app), kv_context(app));
	char tok[24], at[24], line[160];
	fmt_bytes(tok, sizeof tok, k.bytes_token);
	fmt_bytes(at, sizeof at, k.bytes_context);
	snprintf(line, sizeof line, "%-21s %3d %3d %4d %4d %9" PRId64 " %11s %11s", name, layers, h, g, dk,
	         k.values_token_layer, tok, at);
	draw_put(y, r.x, r.w, line, a);
}

/* A model's three rows: its own h_kv = g (when it is neither h nor 1), MHA, MQA. */
static int kv_model(int y, struct rect r, const char *name, int layers, int h, int g, int dk,
                    const struct app *app)
{
	char label[64];
	int rows = 0;
	draw_put(y + rows++, r.x, r.w, name, theme_attr(ROLE_TITLE));
	snprintf(label, sizeof label, "  MHA (h_kv = h)");
	kv_row(y + rows++, r, label, layers, h, h, dk, app, theme_attr(g == h ? ROLE_SELECTED : ROLE_NORMAL));
	if (g != h && g != 1) {
		snprintf(label, sizeof label, "  GQA (h_kv = %d)", g);
		kv_row(y + rows++, r, label, layers, h, g, dk, app, theme_attr(ROLE_SELECTED));
	}
	snprintf(label, sizeof label, "  MQA (h_kv = 1)");
	kv_row(y + rows++, r, label, layers, h, 1, dk, app, theme_attr(g == 1 ? ROLE_SELECTED : ROLE_NORMAL));
	return rows;
}

static void kv_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct rect r = b->info;
	const struct mha_config *c = &app->cfg;
	char line[200], tok[24], at[24];
	int y = r.y, bottom = r.y + r.h;
	draw_put(y++, r.x, r.w, "The KV cache: what a decoder keeps for every token it has seen",
	         theme_attr(ROLE_TITLE));
	draw_put(y++, r.x, r.w, "bytes = 2 (K and V) x h_kv heads x d_k x L layers x b bytes x T tokens",
	         theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, "T = %" PRId64 " tokens, b = %d (%s); highlighted: each model's own h_kv",
	         kv_context(app), mha_dtype_bytes(kv_dtype(app)), mha_dtype_name(kv_dtype(app)));
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	if (c->m > 0) /* cross-attention's K and V are the source's: cached once, whatever the decoder writes */
		snprintf(line, sizeof line, "this workbench's source: K, V of X_kv's %d tokens, cached once (T = %d here)",
		         c->m, c->m);
	else
		line[0] = '\0';
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	snprintf(line, sizeof line, "%-21s %3s %3s %4s %4s %9s %11s %11s", "", "L", "h", "h_kv", "d_k",
	         "val/tok/L", "bytes/tok", "at T");
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM) | A_BOLD);
	if (y + 4 <= bottom)
		y += kv_model(y, r, c->layers > 1 ? "this workbench" : "this workbench (one layer)",
		              c->layers > 1 ? c->layers : 1, c->h, c->g, c->dk, app);
	for (const struct mha_model *m = mha_models; m->name && y + 4 <= bottom; m++)
		y += kv_model(y, r, m->name, m->layers, m->h, m->g, m->dk, app);
	/* the worked figure for the largest preset: the formula with its numbers */
	const struct mha_model *big = &mha_models[1];
	struct mha_kv_cache k = mha_kv_cache(big->g, big->dk, big->layers, kv_dtype(app),
	                                     kv_context(app));
	fmt_bytes(tok, sizeof tok, k.bytes_token);
	fmt_bytes(at, sizeof at, k.bytes_context);
	snprintf(line, sizeof line, "%s, GQA: 2 x %d x %d x %d = %" PRId64 " values a token",
	         big->name, big->g, big->dk, big->layers, k.values_token);
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, "  = %s a token in %s; x %" PRId64 " tokens = %s", tok,
	         mha_dtype_name(kv_dtype(app)), kv_context(app), at);
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	snprintf(line, sizeof line, "GQA keeps h/h_kv = %d times fewer K and V values than MHA, MQA h = %d times.",
	         big->h / big->g, big->h);
	if (y + 1 < bottom)
		draw_put(++y, r.x, r.w, line, theme_attr(ROLE_DIM));
}

static const struct action kv_opener = {
	.keys = { 'g' }, .label = "g", .name = "KV cache", .help = "KV cache at model scale", .group = "General",
	.shows = MODE_SHOWS_ALL, .id = "kv-cache",
};

static const struct action kv_keys[] = {
	{ .keys = { '+', '=' }, .label = "+", .bar_keys = "+ -", .name = "T x2 / 2", .help = "double / halve T",
	  .help_keys = "+ -", .bar = ACTION_BAR_BOTH, .call_arg = kv_context_by, .arg = 1, .id = "kv-longer" },
	{ .keys = { '-', '_' }, .label = "-", .name = "T / 2", .help = "halve T", .help_keys = "",
	  .call_arg = kv_context_by, .arg = -1, .id = "kv-shorter" },
	{ .keys = { 'b' }, .label = "b", .name = "fp32 fp16 int8", .help = "the value type: fp32, fp16, int8",
	  .bar = ACTION_BAR_BOTH, .call = kv_dtype_next, .id = "kv-dtype" },
	{ .keys = { 0 } },
};

const struct mode_ops kv_view_mode = {
	.name = "KV cache",
	.opener = &kv_opener,
	.keys = kv_keys,
	.state_size = sizeof(struct kv_view),
	.status = kv_status,
	.layout = mode_layout_wide,
	.body = kv_body,
};
