/*
 * heatmap.c - one matrix as a grid of cells, each with a heat colour AND a
 * glyph of rising density (so it reads in monochrome too), token labels on
 * both axes, masked cells with their own mark, the cursor cell framed by
 * brackets with its shade kept; the scale (shared, per map or per row);
 * and the arithmetic of small multiples (how many maps fit, at which cell
 * width, in how many pages). The legend that says what the shades mean is
 * heatmap_legend.c (same header, heatmap.h).
 *
 * Geometry at cell width w (1..8): a cell is w - s glyphs plus s spaces,
 * s = 1 when w >= 2 (so columns stay apart and the column labels have room);
 * the row-label column is 1 char at w = 1 (letters never look like glyphs,
 * so no space is needed), else w - 1 chars + space: as wide as a column
 * label, so the two axes say the same.
 * The last cell's space is not part of the map; maps sit one column apart.
 * A row may be row_h lines tall (a large terminal): its label and values
 * on the middle line (the first of two), the shade on every line.
 *
 * It does not choose what matrix to show, which scale to use (the caller
 * passes it), or refresh.
 */
#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "fmt.h"
#include "notation.h"
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
	/* a row label as wide as a column label (cell_w - 1 from 2 up; 1 at
	 * cell_w 1), then a space: both axes then show the same text */
	return cell_w == 1 ? 1 : cell_w;
}

static struct heatmap_size size_of(int rows, int cols, int cell_w)
{
	struct heatmap_size s = { rows + 2, heatmap_label_width(cell_w) + cols * cell_w - cell_space(cell_w) };
	return s;
}

int heatmap_row_h(const struct heatmap *hm)
{
	return hm->row_h < 1 ? 1 : hm->row_h > HEATMAP_ROW_H_MAX ? HEATMAP_ROW_H_MAX : hm->row_h;
}

struct heatmap_size heatmap_measure(const struct heatmap *hm, int cell_w)
{
	return size_of(hm->rows * heatmap_row_h(hm), hm->cols, cell_w_clamp(cell_w));
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

/* The compact form of a value of at least one half in at most w chars:
 * a whole number ("45"), then k/M/G/T suffixes ("1.2k"), then the
 * exponent form ("1e15"), else nothing. */
static void value_format(char *buf, size_t len, float v, int w)
{
	char t[48];
	snprintf(t, sizeof t, "%.0f", (double)v);
	if ((int)strlen(t) <= w) {
		snprintf(buf, len, "%s", t);
		return;
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

/* The label of token i of an axis (col: the keys') in at most w columns,
 * the same form on both axes: the word from the left, as much as fits; a
 * word that occurs twice on its axis with its index after it (subscript
 * digits in UTF-8: "the\u2080", "the\u2084"; digits in ASCII: "the0"), or
 * the index's last w digits (subscript too) when not one letter of the
 * word fits beside it; without labels the index from the right (the last
 * digit tells 9, 10, 11 apart). The columns take col_labels when the keys
 * are another sequence's (cross-attention), else the rows' labels. */
static void label_text(char *buf, size_t len, const struct heatmap *hm, bool col, int i, int w)
{
	if (col && hm->col_labels)
		heatmap_token_label(buf, len, hm->col_labels, hm->cols, i, w);
	else if (hm->col_labels) /* the queries' own sequence: rows labels, no more */
		heatmap_token_label(buf, len, hm->labels, hm->rows, i, w);
	else /* one sequence labels both axes: as many as the longer one */
		heatmap_token_label(buf, len, hm->labels, hm->rows > hm->cols ? hm->rows : hm->cols, i, w);
}

void heatmap_token_label(char *buf, size_t len, const char (*labels)[MHA_LABEL_MAX], int count, int i, int w)
{
	char num[16];
	int n = snprintf(num, sizeof num, "%d", i);
	if (!labels || !labels[i][0]) {
		snprintf(buf, len, "%s", n > w ? num + n - w : num);
		return;
	}
	if (!notation_token_repeated(labels, count, i)) {
		theme_cut(buf, len, labels[i], w, false);
		return;
	}
	char word[MHA_LABEL_MAX * 2], sub[16 * 3 + 1];
	if (n + 1 > w) {
		/* no room for a letter: the index alone, its last w digits, as
		 * the subscript it is beside a word ("\u2080 c s o \u2084 m", not
		 * "0 c s o 4 m", where the digits read as numbers); ASCII has
		 * only digits */
		bool utf8 = theme_utf8();
		notation_subscript(sub, sizeof sub, i, utf8);
		snprintf(buf, len, "%s", sub + (n > w ? (size_t)(n - w) * (utf8 ? 3 : 1) : 0));
		return;
	}
	theme_cut(word, sizeof word, labels[i], w - n, false);
	snprintf(buf, len, "%s%s", word, notation_subscript(sub, sizeof sub, i, theme_utf8()));
}

static void title_draw(WINDOW *win, int y, int x, int width, const struct heatmap *hm)
{
	char t[128];
	const char *title = hm->title ? hm->title : "";
	const char *st = hm->short_title ? hm->short_title : title;
	/* the full title, else the short one ("h2 off"), else "off" first so
	 * the truncation keeps it (a cut "head 2 (off)" read "off he") */
	int tl = (int)strlen(title), sl = (int)strlen(st);
	if (!hm->off && hm->short_title && tl > width && sl > width) {
		/* the short title's words that fit ("h0 ~broad" -> "h0"), never a cut word */
		snprintf(t, sizeof t, "%s", st);
		char *blank = NULL;
		for (char *b = strchr(t, ' '); b && b - t <= width; b = strchr(b + 1, ' '))
			blank = b;
		if (blank)
			*blank = '\0';
	} else if (!hm->off)
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

static bool cell_masked(const struct heatmap *hm, int r, int c)
{
	size_t k = (size_t)r * (size_t)hm->cols + (size_t)c;
	return (hm->masked && hm->masked[k]) || (isinf(hm->m[k]) && hm->m[k] < 0);
}

void heatmap_range(const struct heatmap *hm, int r, float *lo, float *hi)
{
	*lo = hm->lo;
	*hi = hm->hi;
	if (hm->scale == HEATMAP_SCALE_FIXED || !hm->m)
		return;
	int r0 = r < 0 || hm->scale == HEATMAP_SCALE_MAP ? 0 : r;
	int r1 = r < 0 || hm->scale == HEATMAP_SCALE_MAP ? hm->rows : r + 1;
	bool any = false;
	for (int y = r0; y < r1; y++)
		for (int x = 0; x < hm->cols; x++) {
			float v = hm->m[(size_t)y * (size_t)hm->cols + (size_t)x];
			if (!isfinite(v) || cell_masked(hm, y, x))
				continue;
			if (!any || v < *lo)
				*lo = v;
			if (!any || v > *hi)
				*hi = v;
			any = true;
		}
	if (!any) {
		*lo = 0.0f;
		*hi = 1.0f;
	} else if (*lo >= 0.0f) {
		*lo = 0.0f; /* weights: 0 stays blank, the largest is the top */
	}
	/* the floor: a span narrower than min_span is not stretched over the
	 * whole ramp (0.19..0.30 would read as strong and weak) */
	if (hm->min_span > 0.0f && *hi - *lo < hm->min_span) {
		if (*lo >= 0.0f) {
			*hi = *lo + hm->min_span;
		} else {
			float mid = *lo / 2.0f + *hi / 2.0f;
			*lo = mid - hm->min_span / 2.0f;
			*hi = mid + hm->min_span / 2.0f;
		}
	}
}

const char *heatmap_scale_name(enum heatmap_scale s)
{
	switch (s) {
	case HEATMAP_SCALE_MAP: return "each head";
	case HEATMAP_SCALE_ROW: return "each row";
	default: return "all heads";
	}
}

/* The value text of a cell in w columns. In a map with negative values
 * (lo < 0) the magnitude gets w - 1 columns and the sign (or a space)
 * the one before it, always w in all, so 24 and -24 read "  24" and
 * " -24": the same digits. */
static void cell_value(char *buf, size_t len, float v, int w, bool sign_column)
{
	if (!sign_column) {
		value_format(buf, len, v, w);
		return;
	}
	char mag[48];
	value_format(mag, sizeof mag, fabsf(v), w - 1);
	if (!mag[0]) {
		buf[0] = '\0';
		return;
	}
	char sig[64];
	snprintf(sig, sizeof sig, "%s%s", v < 0 ? "-" : "", mag); /* the sign beside the digits */
	snprintf(buf, len, "%*s", w, sig);
}

/* One number format for a whole map, so that its cells read alike: every
 * value with the same decimals (".953", ".045", ".000" for 3e-20: a
 * value too small for the decimals reads as the zero it rounds to), or
 * when even none fit, the compact form (k, M, the exponent) with values
 * under one half as "0"; right-aligned in the same w columns, so every
 * cell has as many glyphs as the next (cw - w). With ASCII glyphs, which
 * read as part of a number ('-', '.'), w holds a space before it. */
struct cell_format {
	int dec; /* decimals of the fixed form; -1: the compact form */
	int w;   /* the value's columns, a space in ASCII included; 0: no values */
	int room;
	bool sign; /* the map has negatives: the compact form's sign column */
};

/* v with dec decimals, the leading zero dropped from two decimals on
 * (".42", "-.42"; "0.4", never ".4" or ".0"), no sign on a value that
 * rounds to zero; its length. */
static int fixed_text(char *buf, size_t len, float v, int dec)
{
	double x = fabs(v) < 0.5 * pow(10, -dec) ? 0.0 : v;
	snprintf(buf, len, "%.*f", dec, x);
	char *z = buf[0] == '-' ? buf + 1 : buf;
	if (dec > 1 && z[0] == '0' && z[1] == '.')
		memmove(z, z + 1, strlen(z));
	return (int)strlen(buf);
}

/* The compact form of v in room columns (may be ""), leading blanks
 * dropped; its length. */
static int compact_text(char *buf, size_t len, float v, int room, bool sign)
{
	char t[64];
	if (fabsf(v) < 0.5f)
		snprintf(t, sizeof t, "0");
	else
		cell_value(t, sizeof t, v, room, sign);
	snprintf(buf, len, "%s", t + strspn(t, " "));
	return (int)strlen(buf);
}

static bool cell_hidden(const struct heatmap *hm, int r, int c)
{
	return hm->hidden && hm->hidden[(size_t)r * (size_t)hm->cols + (size_t)c];
}

static bool cell_masked(const struct heatmap *hm, int r, int c);

/* The widest text of the map's shown values (not hidden, not masked,
 * finite) in the fixed form with dec decimals (dec >= 0), else the
 * compact form in room columns; *big: whether one is 10 or more. */
static int widest_text(const struct heatmap *hm, int dec, int room, bool sign, bool *big)
{
	int w = 0;
	char t[64];
	*big = false;
	for (int r = 0; r < hm->rows; r++)
		for (int c = 0; c < hm->cols; c++) {
			float v = hm->m[(size_t)r * (size_t)hm->cols + (size_t)c];
			if (!isfinite(v) || cell_hidden(hm, r, c) || cell_masked(hm, r, c))
				continue;
			int n = dec >= 0 ? fixed_text(t, sizeof t, v, dec) : compact_text(t, sizeof t, v, room, sign);
			w = n > w ? n : w;
			*big = *big || fabsf(v) >= 10.0f;
		}
	return w;
}

/* The map's format for cells of cw columns: the most decimals (up to 3
 * where a wide cell has room for them and a glyph, else 2), at least
 * one, that leave a glyph; else whole numbers beside a glyph when some
 * value is 10 or more (weights would all read 0 or 1); else decimals in the
 * glyph's column too (the colour still tells the level: "-.02" in 4);
 * else the compact form beside a glyph. No values below 4 columns. */
static struct cell_format map_format(const struct heatmap *hm, int cw, float lo)
{
	struct cell_format f = { -1, 0, cw - 1, lo < 0.0f };
	int sep = strlen(theme_heat_glyph(0)) == 1 ? 1 : 0, top = cw - 1 >= 6 ? 3 : 2;
	bool big = false;
	if (cw < 4)
		return f;
	for (int pass = 0; pass < 3; pass++)
		for (int dec = pass == 1 ? 0 : top; dec >= (pass == 1 ? 0 : 1); dec--) {
			int w = widest_text(hm, dec, f.room, f.sign, &big);
			w += sep && w < cw ? 1 : 0; /* the space before the number */
			if ((pass == 1 && !big) || w > (pass == 2 ? cw : cw - 1))
				continue;
			f.dec = dec;
			f.w = w;
			return f;
		}
	int w = widest_text(hm, -1, f.room, f.sign, &big);
	f.w = w > 0 && sep && w < cw ? w + 1 : w;
	return f;
}

/* Cell value v in the map's format, right-aligned in f->w columns; ""
 * when it has no number (the compact form did not fit). */
static void format_cell(char *buf, size_t len, float v, const struct cell_format *f)
{
	char t[64];
	int n = f->dec >= 0 ? fixed_text(t, sizeof t, v, f->dec) : compact_text(t, sizeof t, v, f->room, f->sign);
	if (n == 0 || f->w == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%*s", f->w, t);
}

/* One line of cell (r, c): its text line has the value (or the mark),
 * its other lines the shade alone; last: its last line. */
static void cell_draw(WINDOW *win, int y, int x, const struct heatmap *hm, int r, int c, int cell_w,
                      float lo, float hi, const struct cell_format *f, bool text_line, bool last)
{
	int cw = cell_w - cell_space(cell_w);
	float v = hm->m[(size_t)r * (size_t)hm->cols + (size_t)c];
	bool cursor = r == hm->cur_row && c == hm->cur_col;
	int level = theme_heat_level(v, lo, hi);
	/* the cursor keeps its shade: underlined (under its last line), framed
	 * by brackets beside it */
	attr_t ul = cursor && last ? A_UNDERLINE : 0;
	attr_t a = (hm->off ? theme_attr(ROLE_DIM) : theme_heat_attr(level)) | ul;
	const char *glyph = theme_heat_glyph(level);
	char text[64] = "";
	int at = 0;
	if (cell_hidden(hm, r, c)) {
		/* not yet revealed: no colour, no glyph, no value */
		for (int k = 0; k < cw; k++)
			theme_addstr(win, y, x + k, 1, k == cw - 1 && text_line ? "?" : " ", theme_attr(ROLE_DIM) | ul);
		return;
	}
	if (cell_masked(hm, r, c)) {
		/* its own mark on blanks, never a heat glyph (the lowest shade
		 * has one): masked is not "small" */
		for (int k = 0; k < cw; k++)
			theme_addstr(win, y, x + k, 1, k == cw - 1 && text_line ? theme_masked_glyph() : " ",
			             theme_attr(ROLE_DIM) | ul);
		return;
	}
	if (!text_line) {
		/* a tall row's other lines: the shade alone */
	} else if (!isfinite(v)) {
		/* never "nan" or "inf": the clamped colour, marked with '!' */
		theme_addstr(win, y, x, 1, "!", theme_attr(ROLE_ERROR) | ul);
		at = 1;
	} else {
		format_cell(text, sizeof text, v, f);
	}
	int vlen = (int)strlen(text);
	for (; at < cw - vlen; at++)
		theme_addstr(win, y, x + at, 1, glyph, a);
	if (vlen)
		theme_addstr(win, y, x + at, vlen, text, a);
}

void heatmap_draw(WINDOW *win, int y, int x, const struct heatmap *hm, int cell_w)
{
	cell_w = cell_w_clamp(cell_w);
	struct heatmap_size s = size_of(hm->rows, hm->cols, cell_w);
	int lw = heatmap_label_width(cell_w), lt = lw > 1 ? lw - 1 : 1, ct = cell_w - cell_space(cell_w);
	int tw = lt < ct ? lt : ct; /* one label width for both axes */
	char buf[64];

	title_draw(win, y, x, s.cols, hm);
	if (!hm->m || hm->rows <= 0 || hm->cols <= 0)
		return;
	attr_t normal = theme_attr(ROLE_NORMAL), sel = theme_attr(ROLE_SELECTED);
	for (int c = 0; c < hm->cols; c++) {
		label_text(buf, sizeof buf, hm, true, c, tw);
		theme_addstr(win, y + 1, x + lw + c * cell_w, ct, buf, c == hm->cur_col ? sel : normal);
	}
	float lo, hi;
	heatmap_range(hm, -1, &lo, &hi);
	int rh = heatmap_row_h(hm), mid = (rh - 1) / 2; /* the label and values' line of a row */
	struct cell_format fmt = map_format(hm, ct, lo);
	for (int r = 0; r < hm->rows; r++) {
		int ry = y + 2 + r * rh;
		label_text(buf, sizeof buf, hm, false, r, tw);
		theme_addstr(win, ry + mid, x, lt, buf, r == hm->cur_row ? sel : normal);
		if (hm->scale == HEATMAP_SCALE_ROW)
			heatmap_range(hm, r, &lo, &hi);
		for (int k = 0; k < rh; k++)
			for (int c = 0; c < hm->cols; c++) {
				int cx = x + lw + c * cell_w;
				cell_draw(win, ry + k, cx, hm, r, c, cell_w, lo, hi, &fmt, k == mid, k == rh - 1);
				if (cell_space(cell_w) && c < hm->cols - 1)
					theme_addstr(win, ry + k, cx + ct, 1, " ", normal);
			}
	}
	/* the cursor's frame, in the spaces beside it that belong to the map
	 * (the label column's, the cells'; not the gap after the last one) */
	if (cell_space(cell_w) && hm->cur_row >= 0 && hm->cur_row < hm->rows &&
	    hm->cur_col >= 0 && hm->cur_col < hm->cols) {
		int ry = y + 2 + hm->cur_row * rh, cx = x + lw + hm->cur_col * cell_w;
		for (int k = 0; k < rh; k++) {
			theme_addstr(win, ry + k, cx - 1, 1, "[", sel);
			if (hm->cur_col < hm->cols - 1)
				theme_addstr(win, ry + k, cx + ct, 1, "]", sel);
		}
	}
}
