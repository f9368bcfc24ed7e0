/*
 * heatmap_legend.c - the heatmaps' legend (heatmap.h): the colour ramp
 * between its two bounds, and the key line that adds the scale's name,
 * the masked mark and the axes, each part kept only when it fits whole.
 * The bounds are never cut; the ramp shrinks first. It does not choose
 * the range (heatmap_range does) and draws no map.
 */
#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "theme.h"

/* A legend bound: 3 significant digits ("1.06", "-0.997"), the compact
 * exponent form ("1.2e15", not "1.2e+15") when that is wider than 7 or
 * needs an exponent anyway, "!" for a
 * non-finite one. Never cut: the legend shrinks its ramp instead. */
static void bound_format(char *buf, size_t len, float v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "!");
	} else if (snprintf(buf, len, "%.3g", (double)v) > 7 || strchr(buf, 'e')) {
		char t[32];
		fmt_num(t, sizeof t, v, 7);
		snprintf(buf, len, "%s", t + strspn(t, " "));
	}
}

int heatmap_legend_width(float lo, float hi)
{
	char los[32], his[32];
	bound_format(los, sizeof los, lo);
	bound_format(his, sizeof his, hi);
	return (int)(strlen(los) + strlen(his)) + 2 + 2 * theme_heat_levels();
}

/* "los <ramp> his" within width (see heatmap_legend_draw); returns the
 * columns drawn. */
static int ramp_draw(WINDOW *win, int y, int x, int width, const char *los, const char *his)
{
	int levels = theme_heat_levels();
	int nlo = (int)strlen(los), nhi = (int)strlen(his);
	/* the values come first: the ramp takes what is left, two cells a
	 * level, else one, else a sample of the levels (never fewer than the
	 * lowest and the highest); below that, the ramp alone */
	int slots = width - nlo - nhi - 2;
	bool values = slots >= 2;
	if (!values)
		slots = width;
	if (slots > 2 * levels)
		slots = 2 * levels;
	int cx = x;
	attr_t normal = theme_attr(ROLE_NORMAL);
	if (values) {
		cx += theme_addstr(win, y, cx, nlo, los, normal);
		cx += theme_addstr(win, y, cx, 1, " ", normal);
	}
	for (int k = 0; k < slots && cx < x + width; k++) {
		/* slot k of slots shows level k * levels / slots, the last the top */
		int l = slots >= levels ? k * levels / slots : slots > 1 ? k * (levels - 1) / (slots - 1) : levels - 1;
		cx += theme_addstr(win, y, cx, 1, theme_heat_glyph(l), theme_heat_attr(l));
	}
	if (values) {
		cx += theme_addstr(win, y, cx, 1, " ", normal);
		cx += theme_addstr(win, y, cx, nhi, his, normal);
	}
	return cx - x;
}

void heatmap_legend_draw(WINDOW *win, int y, int x, int width, float lo, float hi)
{
	char los[32], his[32];
	bound_format(los, sizeof los, lo);
	bound_format(his, sizeof his, hi);
	ramp_draw(win, y, x, width, los, his);
}

/* The bounds the key writes: the numbers at a fixed scale, else "low",
 * "high" (each head or row has its own). */
static void key_bounds(const struct heatmap_key *k, char *los, char *his, size_t len)
{
	snprintf(los, len, "low");
	snprintf(his, len, "high");
	if (k->scale == HEATMAP_SCALE_FIXED) {
		bound_format(los, len, k->lo);
		bound_format(his, len, k->hi);
	}
}

int heatmap_key_min_width(const struct heatmap_key *k)
{
	char los[32], his[32];
	key_bounds(k, los, his, sizeof los);
	return (int)(strlen(los) + strlen(his)) + 2 + theme_heat_levels() +
	       (k->masked ? 3 + (int)strlen(" masked") : 0);
}

int heatmap_key_draw(WINDOW *win, int y, int x, int width, const struct heatmap_key *k)
{
	char los[32], his[32], name[32], masked[32];
	key_bounds(k, los, his, sizeof los);
	snprintf(name, sizeof name, ", %s", heatmap_scale_name(k->scale));
	snprintf(masked, sizeof masked, "  %s masked", theme_masked_glyph());
	static const char *const self[] = { "  rows: queries, columns: keys", "  rows=queries cols=keys" };
	/* cross-attention: the two axes are two sequences, said by name */
	static const char *const cross[] = { "  rows: queries from X, columns: keys from X_kv",
	                                     "  rows=X queries cols=X_kv keys", "  rows=X cols=X_kv" };
	const char *const *axes = k->cross ? cross : self;
	int forms = k->cross ? 3 : 2;
	int levels = theme_heat_levels();
	/* the parts in order of need, each kept only when it fits whole beside
	 * the values and a ramp of one cell a level */
	int core = (int)(strlen(los) + strlen(his)) + 2 + levels, used = core;
	int nname = (int)strlen(name), nmask = k->masked ? 3 + (int)strlen(" masked") : 0;
	bool show_mask = k->masked && used + nmask <= width;
	used += show_mask ? nmask : 0;
	bool show_name = used + nname <= width;
	used += show_name ? nname : 0;
	int ax = -1;
	for (int i = 0; i < forms && k->axes && ax < 0; i++)
		if (used + (int)strlen(axes[i]) <= width)
			ax = i;
	used += ax >= 0 ? (int)strlen(axes[ax]) : 0;
	/* the ramp grows into what is left, up to two cells a level */
	int ramp_w = width - (used - core), ramp_max = core + levels;
	if (ramp_w > ramp_max)
		ramp_w = ramp_max;
	if (ramp_w < 1)
		return 0;
	int cx = x + ramp_draw(win, y, x, ramp_w, los, his);
	attr_t normal = theme_attr(ROLE_NORMAL), dim = theme_attr(ROLE_DIM);
	if (show_name)
		cx += theme_addstr(win, y, cx, nname, name, normal);
	if (show_mask)
		cx += theme_addstr(win, y, cx, nmask, masked, dim);
	if (ax >= 0)
		cx += theme_addstr(win, y, cx, (int)strlen(axes[ax]), axes[ax], dim);
	return cx - x;
}
