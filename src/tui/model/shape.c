/*
 * shape.c - the shape tweaks of the workbench's key table (] [ } { > < . , D d Z z
 * t T m s x): each builds the next configuration from the current one and
 * hands it to app_change_config, which checks it, keeps what fits (the
 * core's mha_weights_carry rule) and explains refusals in the status line.
 * Which h goes with which d_k and g is decided here; nothing is computed.
 */
#include "shape.h"

#include <stdio.h>

#include "mode.h"

static bool tied(const struct mha_config *c)
{
	return c->h * c->dk == c->d;
}

/* g for a new h: MHA stays MHA, MQA stays MQA, GQA keeps the largest
 * divisor of h not above the old g. */
static int follow_g(const struct mha_config *c, int h)
{
	if (c->g == c->h)
		return h;
	int g = c->g < h ? c->g : h;
	while (g > 1 && h % g != 0)
		g--;
	return g;
}

unsigned shape_heads(struct app *app, int dir, int key)
{
	(void)key;
	const struct mha_config *c = &app->cfg;
	char msg[MHA_MSG_MAX], what[160];
	/* with h x d_k = d_model, step through the divisors of d_model and keep
	 * the product (the paper's Table 3 row A); otherwise keep d_k */
	for (int h = c->h + dir; h >= 1 && h <= MHA_MAX_HEADS; h += dir) {
		struct mha_config nx = *c;
		nx.h = h;
		if (tied(c)) {
			if (c->d % h != 0)
				continue;
			nx.dk = c->d / h;
		}
		nx.g = follow_g(c, h);
		if (mha_config_check(&nx, msg, sizeof msg) != MHA_OK)
			continue;
		if (tied(&nx))
			/* softmax's 5 n^2 a head does change: only the matmuls stay */
			snprintf(what, sizeof what, "heads %d, d_k %d (h x d_k = %d): parameters and matmul FLOPs stay the same",
			         nx.h, nx.dk, nx.d);
		else
			snprintf(what, sizeof what, "heads %d, d_k %d, kv heads %d", nx.h, nx.dk, nx.g);
		return app_change_config(app, &nx, what);
	}
	if (tied(c))
		app_message(app, true, "h x d_k = d_model: no %s h divides %d; change d_model (%s/%s) or d_k (%s/%s)",
		            dir > 0 ? "larger" : "smaller", c->d, mode_key_name(app, "dmodel-more"),
		            mode_key_name(app, "dmodel-less"), mode_key_name(app, "dk-more"), mode_key_name(app, "dk-less"));
	else
		app_message(app, true, "heads cannot go %s: h is 1..%d, h x d_k at most %d", dir > 0 ? "higher" : "lower",
		            MHA_MAX_HEADS, MHA_MAX_WIDTH);
	return APP_REDRAW;
}

unsigned shape_dk(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.dk += dir;
	char what[96];
	snprintf(what, sizeof what, "d_k %d%s", nx.dk, tied(&nx) ? " (h x d_k = d_model)" : "");
	return app_change_config(app, &nx, what);
}

unsigned shape_kv(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	/* the next divisor of h */
	do
		nx.g += dir;
	while (nx.g >= 1 && nx.g <= nx.h && nx.h % nx.g != 0);
	if (nx.g < 1 || nx.g > nx.h) {
		app_message(app, true, "kv heads must divide h = %d: 1 (MQA) .. %d (MHA)", nx.h, nx.h);
		return APP_REDRAW;
	}
	char what[96];
	snprintf(what, sizeof what, "kv heads %d (%s): KV cache %d values per token", nx.g,
	         nx.g == nx.h ? "MHA" : nx.g == 1 ? "MQA" : "GQA", 2 * nx.g * nx.dk);
	return app_change_config(app, &nx, what);
}

unsigned shape_tokens(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.n += dir;
	if (nx.top_k > mha_keys(&nx) && nx.n >= 1) /* the keys: X_kv's m with a source, else n */
		nx.top_k = mha_keys(&nx);
	char what[64];
	snprintf(what, sizeof what, "tokens %d", nx.n);
	return app_change_config(app, &nx, what);
}

unsigned shape_dmodel(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	char what[96];
	if (tied(&nx)) { /* keep h x d_k = d_model: d_k moves by one */
		nx.dk += dir;
		nx.d = nx.h * nx.dk;
	} else {
		nx.d += dir;
	}
	snprintf(what, sizeof what, "d_model %d, d_k %d", nx.d, nx.dk);
	return app_change_config(app, &nx, what);
}

unsigned shape_topk(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.top_k += dir;
	int keys = mha_keys(&nx); /* top-k keeps keys: the source's m with cross-attention */
	if (nx.top_k == keys + 1 || nx.top_k < 0) {
		app_message(app, true, "top-k is 0 (off) .. %s = %d", nx.m > 0 ? "M (the source's tokens)" : "n", keys);
		return APP_REDRAW;
	}
	char what[96];
	if (nx.top_k)
		snprintf(what, sizeof what, "top-k %d: each query keeps its %d largest scores", nx.top_k, nx.top_k);
	else
		snprintf(what, sizeof what, "top-k off");
	return app_change_config(app, &nx, what);
}

unsigned shape_toggle(struct app *app, int which, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	char what[96];
	if (which == 0) {
		nx.causal = !nx.causal;
		snprintf(what, sizeof what, "causal mask %s", nx.causal ? "on: query i sees keys j <= i" : "off");
	} else if (which == 1) {
		nx.scale = !nx.scale;
		snprintf(what, sizeof what, "scale %s", nx.scale ? "1/sqrt(d_k)" : "off: scores are raw dot products");
	} else {
		nx.head_off[app->head] = !nx.head_off[app->head];
		snprintf(what, sizeof what, "head %d %s", app->head,
		         nx.head_off[app->head] ? "switched off: its Concat block is zero" : "switched on");
	}
	return app_change_config(app, &nx, what);
}


/* mha_weights_carry's rule (src/core/mha.h) */
const char shape_keep_rule[] =
	"] and [ keep h x d_k = d_model when it holds. On a shape change, a matrix "
	"whose h x d_k (g x d_k for W^K, W^V) is unchanged is only regrouped into "
	"heads: every cell keeps its place. Otherwise each cell whose row, head and "
	"column within the head still exist keeps its value, yours or the seed's. "
	"New cells come from the seed; token labels stay with their rows.";

unsigned shape_layers(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	int now = nx.layers > 1 ? nx.layers : 1;
	nx.layers = now + dir;
	if (nx.layers < 1 || nx.layers > MHA_MAX_LAYERS) {
		app_message(app, true, "layers cannot go %s: 1..%d on the workbench", dir > 0 ? "higher" : "lower",
		            MHA_MAX_LAYERS);
		return APP_REDRAW;
	}
	char what[160];
	if (nx.layers > now)
		snprintf(what, sizeof what, "layers %d: layer %d reads the stream x_%d = x_%d + Y (%s/%s: next/previous layer)",
		         nx.layers, now, now, now - 1, mode_key_name(app, "layer-next"), mode_key_name(app, "layer-prev"));
	else
		snprintf(what, sizeof what, "layers %d", nx.layers);
	return app_change_config(app, &nx, what);
}
