/*
 * layout.c - the geometry of the screen: the frame of a terminal size, the
 * split of the body between matrices, heatmaps and counts, and the packing
 * of a stage's matrices. No drawing here: drawing follows this pure,
 * tested layout.
 */
#include "layout.h"

#include <string.h>

#include "heatmap.h"

enum {
	INFO_LINES = 2,
	NUMBERS_MIN = 7,     /* rows the matrices keep below the heatmaps: title, header, 5 rows */
};

static struct rect mk(int y, int x, int h, int w)
{
	if (h < 0)
		h = 0;
	if (w < 0)
		w = 0;
	return (struct rect){ y, x, h, w };
}

struct layout layout_frame(int rows, int cols, enum layout_pane pane)
{
	struct layout l;
	memset(&l, 0, sizeof l);
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		l.too_small = true;
		return l;
	}
	l.bar = mk(0, 0, 1, cols);
	l.status = mk(rows - 2, 0, 1, cols);
	l.hints = mk(rows - 1, 0, 1, cols);
	int body_h = rows - 3;
	if (cols >= LAYOUT_WIDE_COLS) {
		l.side = mk(1, cols - LAYOUT_SIDE_COLS, body_h, LAYOUT_SIDE_COLS);
		l.body = mk(1, 0, body_h, cols - LAYOUT_SIDE_COLS - 1);
	} else if (pane != LAYOUT_PANE_NONE) {
		l.side = mk(1, cols - LAYOUT_PANE_COLS, body_h, LAYOUT_PANE_COLS);
		l.body = mk(1, 0, body_h, cols - LAYOUT_PANE_COLS - 1);
		l.side_narrow = true;
		l.side_counts_only = pane == LAYOUT_PANE_COUNTS;
		l.side_lesson_only = pane == LAYOUT_PANE_LESSON_ALONE;
	} else {
		l.body = mk(1, 0, body_h, cols);
	}
	return l;
}

/* The narrowest heatmap cell that still holds a number (".42"). */
enum { HEAT_NUMBERS_W = 5 };

static int ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

/* Rows a strip of all h heatmaps needs at this width and cell width, rows
 * row_h lines tall, with the legend line; 0 when not even one fits the
 * width. */
static int strip_rows_h(int n, int nk, int h, int width, int cell_w, int row_h, int *per_row)
{
	struct heatmap hm;
	memset(&hm, 0, sizeof hm);
	hm.rows = n;
	hm.cols = nk;
	hm.row_h = row_h;
	struct heatmap_size one = heatmap_measure(&hm, cell_w);
	if (heatmap_fit(n, nk, one.rows, width, cell_w, per_row) == 0 || *per_row <= 0)
		return 0;
	return ceil_div(h, *per_row) * one.rows + 1;
}

static int strip_rows(int n, int nk, int h, int width, int cell_w, int *per_row)
{
	return strip_rows_h(n, nk, h, width, cell_w, 1, per_row);
}

/* The heatmaps take a strip below the matrices: the widest cells (up to
 * HEATMAP_CELL_W_MAX) at which every head fits and the matrices keep all
 * the rows they want (numbers_want > 0); else every head at the widest
 * cells that leave the matrices NUMBERS_MIN rows; else one band of them,
 * paged. At the widest cells, rows up to HEATMAP_ROW_H_MAX lines tall
 * when that still leaves the matrices their rows. The strip sits at the
 * bottom of a; the caller may lift it. Returns what is left above. */
static struct rect split_heat(struct body_layout *b, struct rect a, int n, int nk, int h, int numbers_want,
                              int numbers_min)
{
	int per_row = 0;
	int least = numbers_min > NUMBERS_MIN ? numbers_min : NUMBERS_MIN;
	for (int pass = numbers_want > 0 ? 0 : 1; pass < 2; pass++)
		for (int cw = pass == 0 ? HEATMAP_CELL_W_MAX : HEATMAP_CELL_W_MAX - 1; cw >= HEATMAP_CELL_W_MIN; cw--) {
			int need = strip_rows(n, nk, h, a.w, cw, &per_row);
			int keep = pass == 0 && numbers_want + 1 > least ? numbers_want + 1 : least;
			/* a cell so wide that the maps stack one under another
			 * while a narrower one that still holds numbers
			 * (HEAT_NUMBERS_W) sets them side by side: narrower */
			int other = 0;
			if (need > 0 && h > 1 && per_row < 2 && cw > HEAT_NUMBERS_W &&
			    strip_rows(n, nk, h, a.w, HEAT_NUMBERS_W, &other) > 0 && other >= 2)
				continue;
			if (need > 0 && a.h - need >= keep) {
				/* room to spare at the widest cells: rows as many lines
				 * tall as fit (8 columns by 3 lines is near square) */
				b->heat_row_h = 1;
				for (int rh = HEATMAP_ROW_H_MAX; cw == HEATMAP_CELL_W_MAX && rh > 1; rh--) {
					int tall = strip_rows_h(n, nk, h, a.w, cw, rh, &other);
					if (tall > 0 && other == per_row && a.h - tall >= keep) {
						b->heat_row_h = rh;
						need = tall;
						break;
					}
				}
				b->heat = mk(a.y + a.h - need, a.x, need, a.w);
				b->heat_cell_w = cw;
				b->heat_per_page = h;
				b->heat_per_row = per_row;
				return mk(a.y, a.x, a.h - need - 1, a.w);
			}
		}
	/* one band, paged: cells of 2 if that fits, else 1 */
	b->heat_row_h = 1;
	int cw = 2, need = strip_rows(n, nk, 1, a.w, cw, &per_row);
	if (need == 0 || a.h - need < least) {
		cw = 1;
		need = strip_rows(n, nk, 1, a.w, cw, &per_row);
	}
	if ((need == 0 || a.h - need < least) && a.h - 2 < least)
		return a; /* not even one heatmap fits, nor the line saying so: the matrices' rows first */
	if (need == 0 || a.h - need < least) {
		/* not even one heatmap fits: one line says so */
		b->heat = mk(a.y + a.h - 1, a.x, 1, a.w);
		b->heat_cell_w = cw;
		return mk(a.y, a.x, a.h - 2, a.w);
	}
	b->heat = mk(a.y + a.h - need, a.x, need, a.w);
	b->heat_cell_w = cw;
	b->heat_per_page = per_row < h ? per_row : h;
	b->heat_per_row = per_row;
	return mk(a.y, a.x, a.h - need - 1, a.w);
}

/* The counts column's width, narrow: LAYOUT_COUNTS_COLS unless the mode
 * narrowed it. */
static int counts_cols(const struct layout *l)
{
	return l->counts_w >= LAYOUT_COUNTS_MIN_COLS && l->counts_w < LAYOUT_COUNTS_COLS ? l->counts_w
	                                                                                 : LAYOUT_COUNTS_COLS;
}

int layout_numbers_width(const struct layout *l)
{
	return l->side.w > 0 || l->counts_off ? l->body.w : l->body.w - counts_cols(l) - 1;
}

/* Lift the heat strip to just below the matrices' top rows (keep of
 * them): the blank band that was between them moves under the strip. */
static void lift_heat(const struct layout *l, struct body_layout *b, int keep)
{
	int gap = b->numbers.h - keep;
	if (keep <= 0 || gap <= 0 || b->heat.h <= 0)
		return;
	b->numbers.h = keep;
	b->heat.y -= gap;
	if (l->side.w == 0) /* narrow: the counts column follows */
		b->counts.h = keep;
}

/* Narrow, the counts column taller than the matrices: the strip went
 * under the column, leaving a blank band beside it between matrices and
 * maps (8 rows at 120x40). When every map still fits left of the column,
 * side by side as before, with cells at most one column narrower (and
 * still holding numbers), the strip moves up there, right under the
 * matrices; the room left over goes to the bottom. a: the body under the
 * info lines. */
static void beside_counts(const struct layout *l, struct body_layout *b, struct rect a, int n, int nk, int h,
                          int counts_h, int numbers_want)
{
	int nw = layout_numbers_width(l), per_row = 0;
	if (l->side.w > 0 || l->counts_off || b->heat.h <= 0 || b->heat_per_page != h || b->heat_row_h != 1 ||
	    counts_h <= numbers_want)
		return;
	for (int cw = b->heat_cell_w; cw >= b->heat_cell_w - 1 && cw >= HEAT_NUMBERS_W; cw--) {
		int need = strip_rows(n, nk, h, nw, cw, &per_row);
		if (need > 0 && per_row >= b->heat_per_row && numbers_want + 1 + need <= a.h) {
			b->numbers = mk(a.y, a.x, numbers_want, nw);
			b->heat = mk(a.y + numbers_want + 1, a.x, need, nw);
			b->heat_cell_w = cw;
			b->heat_per_row = per_row;
			b->counts = mk(a.y, a.x + a.w - counts_cols(l), counts_h < a.h ? counts_h : a.h, counts_cols(l));
			return;
		}
	}
}

struct body_layout layout_body(const struct layout *l, bool heat, int n, int h,
                               int (*counts_lines)(int width), int numbers_want)
{
	return layout_body_min(l, heat, n, n, h, counts_lines, numbers_want, 0);
}

struct body_layout layout_body_min(const struct layout *l, bool heat, int n, int nk, int h,
                                   int (*counts_lines)(int width), int numbers_want, int numbers_min)
{
	struct body_layout b;
	memset(&b, 0, sizeof b);
	if (l->too_small)
		return b;
	struct rect a = l->body;
	b.info = mk(a.y, a.x, INFO_LINES, a.w);
	a = mk(a.y + INFO_LINES, a.x, a.h - INFO_LINES, a.w);
	struct rect under_info = a;
	if (heat)
		a = split_heat(&b, a, n, nk, h, numbers_want, numbers_min);
	if (l->side_narrow) {
		/* narrow with the lesson pane: the pane atop the side column, the
		 * counts' compact form under it; or the counts alone, or the
		 * pane alone */
		int ch = l->side_counts_only ? l->side.h : l->side_lesson_only ? 0 : LAYOUT_PANE_COUNT_LINES;
		b.counts = mk(l->side.y + l->side.h - ch, l->side.x, ch, l->side.w);
		if (!l->side_counts_only)
			b.lesson = mk(l->side.y, l->side.x, l->side.h - ch - (ch > 0), l->side.w);
		b.numbers = a;
	} else if (l->side.w > 0) {
		/* wide: counts atop the side column, the lesson pane below */
		int ch = counts_lines(l->side.w);
		if (ch > l->side.h)
			ch = l->side.h;
		b.counts = mk(l->side.y, l->side.x, ch, l->side.w);
		b.lesson = mk(l->side.y + ch + 1, l->side.x, l->side.h - ch - 1, l->side.w);
		b.numbers = a;
	} else if (l->counts_off) {
		/* narrow, the counts left out: the matrices take the width */
		b.numbers = a;
	} else {
		/* narrow: counts in a column right of the matrices, as tall as they are */
		b.counts = mk(a.y, a.x + a.w - counts_cols(l), a.h, counts_cols(l));
		b.numbers = mk(a.y, a.x, a.h, layout_numbers_width(l));
	}
	if (heat && numbers_want > 0) {
		int keep = numbers_want;
		if (l->side.w == 0 && !l->counts_off) { /* narrow: the counts column keeps its full form's height if it can */
			int ch = counts_lines(counts_cols(l));
			keep = ch > keep ? ch : keep;
		}
		lift_heat(l, &b, keep);
		beside_counts(l, &b, under_info, n, nk, h, counts_lines(counts_cols(l)), numbers_want);
	}
	return b;
}

/* Widths for count panels side by side in width w: each gets what it wants
 * when all fit, else the narrow ones keep theirs and the rest share. */
static void share_widths(int w, int count, const struct rect *want, int *out)
{
	int room = w - (count - 1), left = count;
	bool fixed[LAYOUT_PANELS_MAX] = { false };
	for (bool changed = true; changed && left > 0;) {
		changed = false;
		int share = room / left;
		for (int i = 0; i < count; i++)
			if (!fixed[i] && want[i].w <= share) {
				out[i] = want[i].w;
				fixed[i] = true;
				room -= want[i].w;
				left--;
				changed = true;
			}
	}
	for (int i = 0, k = 0; i < count; i++)
		if (!fixed[i])
			out[i] = room / left + (k++ < room % left ? 1 : 0);
}

/* Shelves: panels side by side while the wanted widths fit in width w.
 * Fills each panel's shelf and each shelf's height; returns the count. */
static int shelve(int w, int count, const struct rect *want, int *shelf_of, int *shelf_h)
{
	int shelves = 0, used = 0;
	for (int i = 0; i < count; i++) {
		if (shelves == 0 || used + 1 + want[i].w > w) {
			shelf_h[shelves++] = 0;
			used = want[i].w;
		} else {
			used += 1 + want[i].w;
		}
		shelf_of[i] = shelves - 1;
		if (want[i].h > shelf_h[shelves - 1])
			shelf_h[shelves - 1] = want[i].h;
	}
	return shelves;
}

int layout_panels_height(int width, int count, const struct rect *want)
{
	int shelf_of[LAYOUT_PANELS_MAX], shelf_h[LAYOUT_PANELS_MAX];
	if (count > LAYOUT_PANELS_MAX)
		count = LAYOUT_PANELS_MAX;
	if (count <= 0)
		return 0;
	int shelves = shelve(width, count, want, shelf_of, shelf_h), total = shelves - 1;
	for (int s = 0; s < shelves; s++)
		total += shelf_h[s];
	return total;
}

int layout_panels(struct rect area, int count, const struct rect *want, int min_w, struct rect *out)
{
	return layout_panels_focus(area, count, want, min_w, min_w, -1, 0, 0, out);
}

int layout_panels_focus(struct rect area, int count, const struct rect *want, int min_w, int keep_w, int focus,
                        int focus_h, int focus_w, struct rect *out)
{
	int shelf_of[LAYOUT_PANELS_MAX], shelf_h[LAYOUT_PANELS_MAX];
	if (count > LAYOUT_PANELS_MAX)
		count = LAYOUT_PANELS_MAX;
	if (count <= 0)
		return 0;
	int shelves = shelve(area.w, count, want, shelf_of, shelf_h);
	/* one blank line between shelves when everything fits, none when short */
	int total = 0, tallest = 0;
	for (int s = 0; s < shelves; s++)
		total += shelf_h[s];
	int gap = total + shelves - 1 <= area.h ? 1 : 0;
	/* too short for shelves to show 3 rows of numbers each, but wide enough
	 * for every panel side by side at min_w: one shelf, narrower panels */
	for (int i = 0; i < count; i++)
		if (want[i].h > tallest)
			tallest = want[i].h;
	if (shelves > 1 && area.h - gap * (shelves - 1) < shelves * 5 &&
	    area.w - (count - 1) >= count * min_w) {
		int w[LAYOUT_PANELS_MAX];
		share_widths(area.w, count, want, w);
		/* the focused panel first, up to its whole width, while the
		 * others keep keep_w each (Softmax: more of P's columns, fewer
		 * of S's) */
		int wf = focus >= 0 && focus < count ? area.w - (count - 1) * (keep_w + 1) : 0;
		if (focus >= 0 && focus < count && wf > want[focus].w)
			wf = want[focus].w;
		if (focus >= 0 && focus < count && focus_w > wf) /* whole, the others after it */
			wf = focus_w < area.w ? focus_w : area.w;
		if (focus >= 0 && focus < count && wf > w[focus]) {
			struct rect rest[LAYOUT_PANELS_MAX];
			int rw[LAYOUT_PANELS_MAX], k = 0;
			for (int i = 0; i < count; i++)
				if (i != focus)
					rest[k++] = want[i];
			share_widths(area.w - wf - 1, count - 1, rest, rw);
			for (int i = 0, j = 0; i < count; i++)
				w[i] = i == focus ? wf : rw[j++];
		}
		int h = tallest < area.h ? tallest : area.h, x = area.x, placed = 0;
		for (int i = 0; i < count; i++) {
			bool out_of_room = focus_w > 0 && i != focus && w[i] < min_w; /* squeezed by the focus */
			out[i] = out_of_room ? mk(area.y, x, 0, 0) : mk(area.y, x, h, w[i]);
			x += out_of_room ? 0 : w[i] + 1;
			placed += !out_of_room;
		}
		return placed;
	}
	/* heights: water-filling, so short shelves keep all they want and tall
	 * ones share the rest */
	int give[LAYOUT_PANELS_MAX] = { 0 };
	int room = area.h - gap * (shelves - 1);
	if (focus >= 0 && focus < count) {
		/* the focused panel's shelf first, up to focus_h rows */
		int s = shelf_of[focus], g = focus_h < shelf_h[s] ? focus_h : shelf_h[s];
		give[s] = g < room ? g : room;
		room -= give[s];
	}
	for (bool more = true; more && room > 0;) {
		more = false;
		for (int s = 0; s < shelves && room > 0; s++) {
			if (give[s] < shelf_h[s]) {
				int step = give[s] == 0 ? (shelf_h[s] < 3 ? shelf_h[s] : 3) : 1;
				if (step > room)
					step = room;
				give[s] += step;
				room -= step;
				more = true;
			}
		}
	}
	for (int s = 0; s < shelves; s++) /* a title with no row under it is left out */
		if (give[s] < 3 && give[s] < shelf_h[s])
			give[s] = 0;
	int placed = 0, y = area.y;
	for (int s = 0; s < shelves; s++) {
		int x = area.x;
		for (int i = 0; i < count; i++) {
			if (shelf_of[i] != s)
				continue;
			int w = want[i].w;
			/* the last panel on a shelf may use what is left of the width */
			bool last = true;
			for (int k = i + 1; k < count; k++)
				if (shelf_of[k] == s)
					last = false;
			if (x + w > area.x + area.w || (last && w < want[i].w))
				w = area.x + area.w - x;
			out[i] = mk(y, x, give[s], w);
			if (give[s] > 0 && w > 0)
				placed++;
			x += w + 1;
		}
		y += give[s] + (give[s] > 0 ? gap : 0);
	}
	return placed;
}
