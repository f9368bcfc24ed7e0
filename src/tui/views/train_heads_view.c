/*
 * train_heads_view.c - the training screen's heads apart, two blocks
 * under the head table:
 *   - each head's own gradient: its |grad| (the norm of its W^Q, W^K, W^V
 *     columns and W^O rows of the step's gradient) as a sparkline over the
 *     steps, all heads on one scale, and how far apart each layer's heads
 *     are (0: copies, after a shared start);
 *   - layer by layer: how much of each head's attention lands how far back
 *     (0, 1, 2-3, 4-7 ... tokens) on the probe, the largest share marked,
 *     and the mean distance: early layers local, later ones far.
 * Both when they fit, else the one v puts first. The numbers come from
 * src/train (trainer_head_grad_norms, train_head_spread,
 * train_attention_distance), kept by train_view.c; this file only draws.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "theme.h"
#include "train_view_int.h"

enum { LABEL_W = 5, VALUE_W = 7, SHARE_W = 5 };

/* The first of two texts (ASCII) that fits in w columns. */
static const char *fitting(const char *wide, const char *narrow, int w)
{
	return (int)strlen(wide) <= w ? wide : narrow;
}

/* Distance bucket b's heading: its range, "16+" for the last shown. */
static void bucket_label(char out[32], int b, int buckets)
{
	int lo = b ? 1 << (b - 1) : 0, hi = b ? 2 * lo - 1 : 0;
	if (b == buckets - 1 && lo < hi)
		snprintf(out, 32, "%d+", lo);
	else if (lo < hi)
		snprintf(out, 32, "%d-%d", lo, hi);
	else
		snprintf(out, 32, "%d", lo);
}

static int grad_block(const struct train_view *v, int y, int x, int w, int bottom, bool other)
{
	const struct train_shape *s = &v->m.s;
	const struct train_snap *a = train_view_shown(v);
	int nhist = train_draw_history(v);
	char apart[64] = "", wide[160], narrow[96], tiny[96], line[32];
	for (int l = 0; l < s->layers; l++) {
		size_t len = strlen(apart);
		snprintf(apart + len, sizeof apart - len, " L%d %.2f", l, a->spread[l]);
	}
	snprintf(wide, sizeof wide, "Each head's own |grad|, a step%s  how far apart its layer's heads are (0: copies):%s%s",
	         v->shared ? " (shared start)" : "", apart, other ? "  v: layer by layer" : "");
	snprintf(narrow, sizeof narrow, "%s |grad|  heads apart (0: copies):%s", v->shared ? "shared start:" : "each head's",
	         apart);
	snprintf(tiny, sizeof tiny, "|grad|  apart:%s", apart);
	draw_put(y++, x, w, fitting(wide, fitting(narrow, tiny, w), w), theme_attr(ROLE_TITLE));
	float hi = 0;
	for (int l = 0; l < s->layers; l++)
		for (int i = 0; i < s->h; i++)
			for (int t = 0; t < nhist; t++)
				hi = v->grad[l * MHA_MAX_HEADS + i][t] > hi ? v->grad[l * MHA_MAX_HEADS + i][t] : hi;
	for (int l = 0; l < s->layers; l++)
		for (int i = 0; i < s->h && y < bottom; i++, y++) {
			int k = l * MHA_MAX_HEADS + i;
			attr_t at = a->head_off[l][i] ? theme_attr(ROLE_DIM) : theme_head_attr(i);
			snprintf(line, sizeof line, "L%dH%d", l, i);
			draw_put(y, x, LABEL_W, line, at);
			train_draw_sparkline(y, x + LABEL_W, w - LABEL_W - VALUE_W, v->grad[k], nhist, 0, hi);
			snprintf(line, sizeof line, " %.3f", a->norms[k]);
			int sw = nhist < w - LABEL_W - VALUE_W ? nhist : w - LABEL_W - VALUE_W;
			draw_put(y, x + LABEL_W + (sw > 0 ? sw : 0), VALUE_W, line, at);
		}
	return y;
}

static int depth_block(const struct train_view *v, int y, int x, int w, int bottom, bool other)
{
	const struct train_shape *s = &v->m.s;
	int buckets = train_distance_bucket(s->n - 1) + 1;
	char wide[160], line[160];
	snprintf(wide, sizeof wide, "Layer by layer: %% of attention this far back, on the probe%s",
	         other ? "  v: gradients" : "");
	draw_put(y++, x, w, fitting(wide, "layer by layer: % by distance back", w), theme_attr(ROLE_TITLE));
	if (y >= bottom)
		return y;
	int len = snprintf(line, sizeof line, "%-*s", LABEL_W - 1, "back");
	for (int b = 0; b < buckets; b++) {
		char label[32];
		bucket_label(label, b, buckets);
		len += snprintf(line + len, sizeof line - (size_t)len, "%*s", SHARE_W, label);
	}
	snprintf(line + len, sizeof line - (size_t)len, "  mean");
	draw_put(y++, x, w, line, theme_attr(ROLE_DIM));
	for (int l = 0; l < s->layers; l++)
		for (int i = 0; i < s->h && y < bottom; i++, y++) {
			const struct train_head_distance *d = &train_view_shown(v)->dist[l * MHA_MAX_HEADS + i];
			attr_t a = train_view_shown(v)->head_off[l][i] ? theme_attr(ROLE_DIM) : theme_head_attr(i);
			snprintf(line, sizeof line, "L%dH%d", l, i);
			draw_put(y, x, LABEL_W - 1, line, a);
			int peak = 0;
			for (int b = 1; b < buckets; b++)
				peak = d->share[b] > d->share[peak] ? b : peak;
			int cx = x + LABEL_W - 1;
			for (int b = 0; b < buckets; b++) {
				snprintf(line, sizeof line, "%*d", SHARE_W - 1, (int)(100 * d->share[b] + 0.5));
				draw_put(y, cx, 1, " ", a);
				draw_put(y, cx + 1, SHARE_W - 1, line, b == peak ? a | A_REVERSE : a);
				cx += SHARE_W;
			}
			snprintf(line, sizeof line, "%6.1f", d->mean);
			draw_put(y, cx, 6, line, a);
		}
	return y;
}

int train_draw_heads_apart(const struct train_view *v, int y, int x, int w, int bottom)
{
	const int heads = v->m.s.layers * v->m.s.h;
	const int grad_h = 1 + heads, depth_h = 2 + heads;
	bool both = y + 1 + grad_h + 1 + depth_h <= bottom;
	if (y + 1 + (v->depth_first ? depth_h : grad_h) <= bottom)
		y++; /* a blank line above, when there is room */
	if (y >= bottom)
		return y;
	if (both) {
		y = grad_block(v, y, x, w, bottom, false);
		return depth_block(v, y + 1, x, w, bottom, false);
	}
	return v->depth_first ? depth_block(v, y, x, w, bottom, true) : grad_block(v, y, x, w, bottom, true);
}
