/*
 * heatmap.c - one matrix as a grid of cells, each with a heat colour AND a
 * glyph of rising density (so it reads in monochrome too), token labels on
 * both axes, the cursor cell in reverse video; a legend; and the arithmetic
 * of small multiples (how many maps fit, at which cell width, in how many
 * pages).
 *
 * Geometry at cell width w (1..6): a cell is w - s glyphs plus s spaces,
 * s = 1 when w >= 2 (so columns stay apart and the column labels have room);
 * the row-label column is 1 char at w = 1 (letters never look like glyphs,
 * so no space is needed), 1 char + space at w = 2, 3 chars + space beyond.
 * The last cell's space is not part of the map; maps sit one column apart.
 *
 * It does not choose what matrix to show, compute ranges, or refresh.
 */
#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "theme.h"

enum { MAP_GAP = 1 }; /* columns between maps side by side */

static int cell_w_clamp(int cell_w)
{
	return cell_w < HEATMAP_CELL_W_MIN ? HEATMAP_CELL_W_MIN
	     : cell_w > HEATMAP_CELL_W_MAX ? HEATMAP_CELL_W_MAX : cell_w;
}

static int cell_space(int cell_w) { return cell_w >= 2 ? 1 : 0; }
int heatmap_label_width(int cell_w)
{
	cell_w = cell_w_clamp(cell_w);
	return cell_w == 1 ? 1 : cell_w == 2 ? 2 : 4;
}

static struct heatmap_size size_of(int rows, int cols, int cell_w)
{
	struct heatmap_size s = { rows + 2, heatmap_label_width(cell_w) + cols * cell_w - cell_space(cell_w) };
	return s;
}

struct heatmap_size heatmap_measure(const struct heatmap *hm, int cell_w)
{
	return size_of(hm->rows, hm->cols, cell_w_clamp(cell_w));
}

int heatmap_fit(int rows, int cols, int height, int width, int cell_w, int *per_row)
{
	struct heatmap_size s = size_of(rows, cols, cell_w_clamp(cell_w));
	int across = s.cols > 0 && width >= s.cols ? (width + MAP_GAP) / (s.cols + MAP_GAP) : 0;
	int down = s.rows > 0 && height >= s.rows ? height / s.rows : 0;
	if (per_row)
		*per_row = across;
	return across * down;
}

int heatmap_pages(int count, int fit)
{
	if (fit <= 0)
		return 0;
	return count <= 0 ? 1 : (count + fit - 1) / fit;
}

int heatmap_pick_cell_w(int rows, int cols, int height, int width, int count)
{
	for (int w = HEATMAP_CELL_W_MAX; w > HEATMAP_CELL_W_MIN; w--)
		if (heatmap_fit(rows, cols, height, width, w, NULL) >= count)
			return w;
	return HEATMAP_CELL_W_MIN;
}

/* A value in at most w chars: fewest dropped decimals first, leading zero
 * dropped (".42", "-.4"), then k/M/G/T suffixes ("1.2k"), then the
 * exponent form ("1e15"), else nothing. */
static void value_format(char *buf, size_t len, float v, int w)
{
	char t[48];
	for (int dec = 2; dec >= 0; dec--) {
		/* no "-0.00": a value that rounds to zero has no sign */
		double x = fabs(v) < 0.5 * pow(10, -dec) ? 0.0 : v;
		snprintf(t, sizeof t, "%.*f", dec, x);
		char *z = t[0] == '-' ? t + 1 : t;
		if (z[0] == '0' && z[1] == '.')
			memmove(z, z + 1, strlen(z));
		if ((int)strlen(t) <= w) {
			snprintf(buf, len, "%s", t);
			return;
		}
	}
	static const char units[] = "kMGT";
	double scale = 1e3;
	/* a unit only for mantissas of 1 and more: -4e5 is never "-0M" */
	for (int u = 0; units[u] && fabs(v) >= scale; u++, scale *= 1e3) {
		for (int dec = 1; dec >= 0; dec--) {
			snprintf(t, sizeof t, "%.*f%c", dec, v / scale, units[u]);
			if ((int)strlen(t) <= w) {
				snprintf(buf, len, "%s", t);
				return;
			}
		}
	}
	/* beyond T (scores reach 1e33 with inputs at 1e6): the exponent form;
	 * when not even that fits, no number at all (the glyph and colour
	 * still tell the level, the status line the value) */
	fmt_num(t, sizeof t, v, w);
	const char *z = t + strspn(t, " ");
	snprintf(buf, len, "%s", strstr(z, "big") ? "" : z);
}

/* The label of token i in at most w columns: the token's text from the
 * left, or its index from the right (the last digit tells 9, 10, 11 apart). */
static void label_text(char *buf, size_t len, const struct heatmap *hm, int i, int w)
{
	if (hm->labels && hm->labels[i][0]) {
		snprintf(buf, len, "%.*s", MHA_LABEL_MAX - 1, hm->labels[i]);
		return; /* theme_addstr truncates to the display width */
	}
	char num[16];
	int n = snprintf(num, sizeof num, "%d", i);
	snprintf(buf, len, "%s", n > w ? num + n - w : num);
}

static void title_draw(WINDOW *win, int y, int x, int width, const struct heatmap *hm)
{
	char t[128];
	const char *title = hm->title ? hm->title : "";
	const char *st = hm->short_title ? hm->short_title : title;
	/* the full title, else the short one ("h2 off"), else "off" first so
	 * the truncation keeps it (a cut "head 2 (off)" read "off he") */
	int tl = (int)strlen(title), sl = (int)strlen(st);
	if (!hm->off)
		snprintf(t, sizeof t, "%s", tl <= width ? title : st);
	else if (tl + 6 <= width)
		snprintf(t, sizeof t, "%s (off)", title);
	else if (sl + 4 <= width)
		snprintf(t, sizeof t, "%s off", st);
	else
		snprintf(t, sizeof t, "off %s", st);
	attr_t a = hm->off ? theme_attr(ROLE_DIM) : hm->title_attr ? hm->title_attr : theme_attr(ROLE_TITLE);
	theme_addstr(win, y, x, width, t, a);
}

static void cell_draw(WINDOW *win, int y, int x, const struct heatmap *hm, int r, int c, int cell_w)
{
	int cw = cell_w - cell_space(cell_w);
	float v = hm->m[(size_t)r * (size_t)hm->cols + (size_t)c];
	bool cursor = r == hm->cur_row && c == hm->cur_col;
	int level = theme_heat_level(v, hm->lo, hm->hi);
	attr_t a = cursor ? theme_attr(ROLE_SELECTED) : hm->off ? theme_attr(ROLE_DIM) : theme_heat_attr(level);
	/* in reverse video a solid block reads as empty: the cursor cell takes
	 * the ASCII ramp, whose glyphs are characters, not fills */
	char ascii[2] = { theme_heat_ascii(level), '\0' };
	const char *glyph = cursor ? ascii : theme_heat_glyph(level);
	char text[64] = "";
	int at = 0;
	if (hm->hidden && hm->hidden[(size_t)r * (size_t)hm->cols + (size_t)c]) {
		/* not yet revealed: no colour, no glyph, no value */
		for (int k = 0; k < cw; k++)
			theme_addstr(win, y, x + k, 1, k == cw - 1 ? "?" : " ", cursor ? a : theme_attr(ROLE_DIM));
		if (cell_space(cell_w) && c < hm->cols - 1)
			theme_addstr(win, y, x + cw, 1, " ", theme_attr(ROLE_NORMAL));
		return;
	}
	if (!isfinite(v)) {
		/* never "nan" or "inf": the clamped colour, marked with '!' */
		theme_addstr(win, y, x, 1, "!", cursor ? a : theme_attr(ROLE_ERROR));
		at = 1;
	} else if (cw >= 4) {
		value_format(text, sizeof text, v, cw - 1);
	}
	int vlen = (int)strlen(text);
	/* an ASCII glyph ('-', '.', '+') right before a number would read as
	 * part of it (".35" as "-.35"): that pad is a space; fills cannot.
	 * The cursor cell, marked by reverse video, pads with spaces only
	 * ("- .0" still reads as a minus). */
	bool ascii_pad = vlen && strlen(glyph) == 1;
	for (; at < cw - vlen; at++)
		theme_addstr(win, y, x + at, 1,
		             ascii_pad && (cursor || at == cw - vlen - 1) ? " " : glyph, a);
	if (vlen)
		theme_addstr(win, y, x + at, vlen, text, a);
	if (cell_space(cell_w) && c < hm->cols - 1)
		theme_addstr(win, y, x + cw, 1, " ", theme_attr(ROLE_NORMAL));
}

void heatmap_draw(WINDOW *win, int y, int x, const struct heatmap *hm, int cell_w)
{
	cell_w = cell_w_clamp(cell_w);
	struct heatmap_size s = size_of(hm->rows, hm->cols, cell_w);
	int lw = heatmap_label_width(cell_w), lt = lw > 1 ? lw - 1 : 1, ct = cell_w - cell_space(cell_w);
	char buf[64];

	title_draw(win, y, x, s.cols, hm);
	if (!hm->m || hm->rows <= 0 || hm->cols <= 0)
		return;
	attr_t normal = theme_attr(ROLE_NORMAL), sel = theme_attr(ROLE_SELECTED);
	for (int c = 0; c < hm->cols; c++) {
		label_text(buf, sizeof buf, hm, c, ct);
		theme_addstr(win, y + 1, x + lw + c * cell_w, ct, buf, c == hm->cur_col ? sel : normal);
	}
	for (int r = 0; r < hm->rows; r++) {
		int ry = y + 2 + r;
		label_text(buf, sizeof buf, hm, r, lt);
		theme_addstr(win, ry, x, lt, buf, r == hm->cur_row ? sel : normal);
		for (int c = 0; c < hm->cols; c++)
			cell_draw(win, ry, x + lw + c * cell_w, hm, r, c, cell_w);
	}
}

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

void heatmap_legend_draw(WINDOW *win, int y, int x, int width, float lo, float hi)
{
	char los[32], his[32];
	bound_format(los, sizeof los, lo);
	bound_format(his, sizeof his, hi);
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
		theme_addstr(win, y, cx, nhi, his, normal);
	}
}
