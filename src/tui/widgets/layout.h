/*
 * layout.h - where everything goes on a terminal of a given size. Pure
 * functions of the size (and of the shapes to show), unit-tested; drawing
 * only follows what they say.
 */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stdbool.h>

#include "wrap.h"

enum {
	LAYOUT_MIN_ROWS = 24,
	LAYOUT_MIN_COLS = 80,
	LAYOUT_WIDE_COLS = 130,  /* from here on a side column holds counts and the lesson pane */
	LAYOUT_SIDE_COLS = 50,   /* room for the counts panel's two-column form */
	LAYOUT_COUNTS_COLS = 20, /* the counts column on narrow terminals */
	LAYOUT_COUNTS_MIN_COLS = 18, /* ... narrowed to (brief labels) so that a matrix shows whole */
	LAYOUT_PANE_COLS = LESSON_PANE_MIN_COLS, /* the lesson pane's column on narrow terminals
	                          * (the lessons' verbatim blocks are written for it) */
	LAYOUT_PANE_COUNT_LINES = 4, /* under it, the counts' compact form: totals, KV/token, ratio */
	LAYOUT_PANELS_MAX = 8,
};

struct rect {
	int y, x, h, w;
};

/* The frame: pipeline bar, body, side column (wide terminals; and narrow
 * ones with the lesson pane; w = 0 otherwise), status line, key hints.
 * too_small: below 80x24, draw only the "needs 80x24" screen. */
struct layout {
	bool too_small;
	struct rect bar, body, side, status, hints;
	bool side_narrow;      /* the narrow side column: the lesson pane over the compact counts */
	bool side_counts_only; /* ... or the counts alone (the learner's choice, #) */
	bool side_lesson_only; /* ... or the lesson pane alone (its question needs the rows) */
	bool counts_off;       /* narrow with no side column: the counts column left out, its
	                        * width given to the matrices (the mode's choice, where the
	                        * stage's matrices would be slivers beside it) */
	int counts_w;          /* narrow: the counts column's width, LAYOUT_COUNTS_MIN_COLS up
	                        * to LAYOUT_COUNTS_COLS (0: the latter) */
};

/* What the side column holds below LAYOUT_WIDE_COLS (wide terminals
 * always hold the counts and, below them, the lesson pane). */
enum layout_pane {
	LAYOUT_PANE_NONE,   /* no lesson pane: the counts column beside the matrices */
	LAYOUT_PANE_LESSON, /* the lesson pane, LAYOUT_PANE_COLS wide, over the compact counts */
	LAYOUT_PANE_COUNTS, /* that column with the counts alone */
	LAYOUT_PANE_LESSON_ALONE, /* that column with the lesson pane alone: the step's
	                           * question, feedback and goal need the counts' rows */
};

struct layout layout_frame(int rows, int cols, enum layout_pane pane);

/* The body of one stage: two lines of formula and note; the heatmaps with
 * their legend in a strip across the bottom (h = 0 when the stage has
 * none); the matrices above them; the counts panel right of the matrices
 * (narrow) or atop the side column (wide), and the lesson pane below it
 * (h = 0 when narrow). */
struct body_layout {
	struct rect info, numbers, heat, counts, lesson;
	int heat_cell_w;     /* cell width for heatmap_draw */
	int heat_row_h;      /* lines per heatmap row (heatmap.row_h): more when there is room */
	int heat_per_page;   /* heatmaps shown at once (0: not even one fits) */
	int heat_per_row;
	int pane_scroll_max;  /* set by the drawing: how far the lesson pane scrolls */
	int numbers_cell_w;   /* the matrices' cell width, separator included (the mode's layout sets it) */
	int body_h;           /* the body's height (the frame's body.h) */
};

/* The width of the matrices' area (the body, less the counts column when
 * narrow and not counts_off): known before the body is split. */
int layout_numbers_width(const struct layout *l);

/* heat: the stage shows heatmaps of h matrices n x n. counts_lines(width)
 * is the counts panel's wish (counts_panel_height). numbers_want: the rows
 * the matrices would use (layout_panels_height), or 0 when unknown. When
 * known, the heatmaps take the widest cells (up to HEATMAP_CELL_W_MAX) that
 * still leave the matrices those rows, and the strip sits right under them
 * (narrow: under the counts column's full height, if that is taller), so
 * a large terminal has no blank band between matrices and heatmaps. With
 * room to spare at the widest cells, each heatmap row is two or three
 * lines tall (a cell nearer square than 8 columns by one line). */
struct body_layout layout_body(const struct layout *l, bool heat, int n, int h,
                               int (*counts_lines)(int width), int numbers_want);
/* As layout_body for maps of n rows (queries) by nk columns (keys: n, or
 * a source's m tokens), and the heatmaps shrink to a band, then to a
 * one-line note, before the matrices get fewer than numbers_min rows (a
 * lesson step's matrix: its rows first). */
struct body_layout layout_body_min(const struct layout *l, bool heat, int n, int nk, int h,
                                   int (*counts_lines)(int width), int numbers_want, int numbers_min);

/* Place count panels wanting want[i] (h, w) in area, in reading order:
 * side by side while they fit the width, else on the next shelf; shelves
 * share the height, none taller than it wants, at least 3 rows each while
 * there is room. When the area is too short for that to leave each shelf
 * 5 rows and wide enough for all panels at min_w columns, they all go side
 * by side instead. Panels that get no room have h = 0. Returns the number
 * placed with h > 0. */
int layout_panels(struct rect area, int count, const struct rect *want, int min_w, struct rect *out);
/* As layout_panels, and panel focus (>= 0) gets up to focus_h rows (title
 * and header included) before the other shelves share the rest; side by
 * side it widens past its share while the others keep keep_w (>= min_w)
 * each; and when focus_w > 0, its whole focus_w columns (up to the
 * area's), the others sharing what is left (left out below min_w). */
int layout_panels_focus(struct rect area, int count, const struct rect *want, int min_w, int keep_w, int focus,
                        int focus_h, int focus_w, struct rect *out);
/* Rows the panels take when shelved in width columns with room to spare:
 * the shelves' heights and one blank line between shelves. */
int layout_panels_height(int width, int count, const struct rect *want);

#endif
