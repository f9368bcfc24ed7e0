/*
 * order.c - where order comes from, as keys of the workbench: the
 * positional encoding cycled (none, sinusoidal, learned, RoPE), every
 * position shifted by one (pos_offset), and the tokens shuffled. The
 * shift and the shuffle each say, on the status line, what they did to
 * the numbers: the core's stack forward is run on the changed inputs
 * beside the current ones and the two compared (the largest change of a
 * score after a shift; of Y's rows, matched to the rows they came from,
 * after a shuffle). Nothing of attention is computed here; the change
 * itself goes through app_change_config / app_replace (one undo level).
 */
#include "order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"

unsigned order_encoding_next(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	static const enum mha_pos next[] = {
		[MHA_POS_NONE] = MHA_POS_SINUSOIDAL, [MHA_POS_SINUSOIDAL] = MHA_POS_LEARNED,
		[MHA_POS_LEARNED] = MHA_POS_ROPE, [MHA_POS_ROPE] = MHA_POS_NONE,
	};
	struct mha_config nx = app->cfg;
	nx.pos = next[app->cfg.pos];
	if (nx.pos == MHA_POS_ROPE && nx.dk % 2 != 0)
		nx.pos = MHA_POS_NONE; /* RoPE turns pairs: an odd d_k has none to turn */
	if (nx.pos != MHA_POS_SINUSOIDAL && nx.pos != MHA_POS_ROPE)
		nx.pos_offset = 0; /* nothing to shift */
	char what[160];
	static const char *const where[] = {
		[MHA_POS_NONE] = "no order at all: attention sees a bag of tokens",
		[MHA_POS_SINUSOIDAL] = "PE added to X before layer 0",
		[MHA_POS_LEARNED] = "a learned P_pos added to X (editable)",
		[MHA_POS_ROPE] = "q and k turned by position in every layer",
	};
	snprintf(what, sizeof what, "positions %s: %s (%s on %s shows it)", mha_pos_name(nx.pos), where[nx.pos],
	         mode_key_name(app, "qkv"), pipeline_stage_label(PIPELINE_PROJECTION));
	return app_change_config(app, &nx, what);
}

/* The stack of cfg, w, freshly computed; 0, or -1 (memory: *s untouched). */
static int stack_of(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s)
{
	if (mha_stack_alloc(s, c) != MHA_OK)
		return -1;
	mha_stack_forward(c, w, s);
	return 0;
}

unsigned order_shift(struct app *app, int arg, int key)
{
	(void)key;
	const struct mha_config *c = &app->cfg;
	if (c->pos != MHA_POS_SINUSOIDAL && c->pos != MHA_POS_ROPE) {
		app_message(app, true, "positions %s have nothing to shift: %s for sinusoidal or RoPE",
		            mha_pos_name(c->pos), mode_key_name(app, "positions"));
		return APP_REDRAW;
	}
	struct mha_config nx = *c;
	nx.pos_offset = c->pos_offset + arg;
	if (nx.pos_offset < 0 || nx.pos_offset > MHA_MAX_POS_OFFSET) {
		app_message(app, true, "not changed: the offset is 0..%d", MHA_MAX_POS_OFFSET);
		return APP_REDRAW;
	}
	struct mha_stack s;
	if (stack_of(&nx, &app->w, &s) != 0) {
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	/* the largest change of any score of any layer, against its size */
	double worst = 0.0, big = 0.0;
	size_t len = (size_t)c->h * c->n * mha_keys(c);
	for (int l = 0; l < s.layers; l++)
		for (size_t k = 0; k < len; k++) {
			double now = app->stack.layer[l].scores[k], then = s.layer[l].scores[k];
			worst = fmax(worst, fabs(now - then));
			big = fmax(big, fabs(now));
		}
	mha_stack_free(&s);
	char what[200];
	if (c->pos == MHA_POS_ROPE)
		snprintf(what, sizeof what, "positions +%d (offset %d): scores moved %.1e at most: RoPE reads only "
		         "i - j (scores up to %.3g)", arg, nx.pos_offset, worst, big);
	else
		snprintf(what, sizeof what, "positions +%d (offset %d): scores moved %.3g at most: sinusoidal PE is "
		         "absolute (scores up to %.3g)", arg, nx.pos_offset, worst, big);
	return app_change_config(app, &nx, what);
}

/* A shuffle of 0..n-1 into perm (perm[r]: the old row now at r) that
 * moves at least one token, drawn from the inputs themselves, so that
 * each press shuffles anew and a test can redo it. */
static void draw_perm(const struct app *app, int *perm)
{
	int n = app->cfg.n;
	uint64_t h = 1469598103934665603ull; /* FNV-1a over X's bits */
	for (size_t k = 0; k < (size_t)n * app->cfg.d; k++) {
		uint32_t bits;
		memcpy(&bits, &app->w.x[k], sizeof bits);
		h = (h ^ bits) * 1099511628211ull;
	}
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		int j = (int)((h >> 33) % (uint64_t)(i + 1));
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	if (perm[0] == 0 && n > 1) { /* the first token always moves */
		perm[0] = perm[1];
		perm[1] = 0;
	}
}

unsigned order_shuffle(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	const struct mha_config *c = &app->cfg;
	int n = c->n, d = c->d, perm[MHA_MAX_TOKENS];
	if (n < 2) {
		app_message(app, true, "one token: nothing to shuffle (%s adds one)", mode_key_name(app, "tokens-more"));
		return APP_REDRAW;
	}
	draw_perm(app, perm);
	struct mha_weights nw;
	if (app_copy_weights(app, &nw) != 0) {
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	/* X's rows and their words go together: row r is the old row perm[r] */
	for (int r = 0; r < n; r++) {
		memcpy(nw.x + (size_t)r * d, app->w.x + (size_t)perm[r] * d, (size_t)d * sizeof *nw.x);
		memcpy(nw.labels[r], app->w.labels[perm[r]], MHA_LABEL_MAX);
	}
	struct mha_stack s;
	if (stack_of(c, &nw, &s) != 0) {
		mha_weights_free(&nw);
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	/* the stack's output, row r against the old row perm[r] */
	const float *now = app->stack.layer[app->stack.layers - 1].stream;
	const float *then = s.layer[s.layers - 1].stream;
	double worst = 0.0;
	for (int r = 0; r < n; r++)
		for (int k = 0; k < d; k++)
			worst = fmax(worst, fabs((double)then[(size_t)r * d + k] - now[(size_t)perm[r] * d + k]));
	mha_stack_free(&s);
	char order[3 * MHA_MAX_TOKENS + 8] = "";
	for (int r = 0, at = 0; r < n && r < 12; r++)
		at += snprintf(order + at, sizeof order - (size_t)at, "%s%d", r ? " " : "", perm[r]);
	const char *why = c->causal ? "the causal mask is an order of its own"
	                : c->pos == MHA_POS_NONE ? "no positions: attention is blind to order"
	                                         : "the positions tell the tokens apart";
	struct mha_config same = *c;
	unsigned f = app_replace(app, &same, &nw);
	app_message(app, false, "shuffled: output rows off their token's old row by %.3g at most (%s); "
	            "rows now %s%s", worst, why, order, n > 12 ? " ..." : "");
	return f;
}
