/*
 * hit.h - what a click meets. Drawing records hit regions as it draws
 * (a screen rectangle -> a stage label, a matrix's cells, a heatmap's
 * cells, the lesson menu's entries, the lesson text, a key hint); the loop
 * keeps them in the app's view state, and app_mouse (keys.h) asks them
 * what lies under the pointer. Pure: no curses, no app.
 *
 * A region is a grid: its top-left cell is (row0, col0) of the target, one
 * row per cell_h screen lines (1 but for tall heatmap rows) and cell_w
 * screen columns per column, so one region covers a whole matrix however
 * it is scrolled:
 *     row = row0 + (y - r.y) / cell_h,  col = col0 + (x - r.x) / cell_w
 */
#ifndef HIT_H
#define HIT_H

#include "layout.h"

enum { HIT_MAX = 128 }; /* 7 stages, 4 matrices, 64 heatmaps, menu, pane, hints */

enum hit_kind {
	HIT_NONE,
	HIT_STAGE,   /* id: the stage */
	HIT_CELL,    /* id: the panel of the stage view; row, col within the panel */
	HIT_HEAT,    /* id: the head; row, col: the query and key */
	HIT_MENU,    /* row: the lesson's index in the set */
	HIT_PANE,    /* the lesson's text (the wheel scrolls it) */
	HIT_KEY,     /* id: the key a key hint stands for (a click presses it) */
};

struct hit_region {
	struct rect r;       /* on screen */
	enum hit_kind kind;
	int id;
	int row0, col0;      /* the target's row and column at the top-left cell */
	int cell_w;          /* screen columns per column (< 1 counts as 1) */
	int cell_h;          /* screen lines per row (< 1 counts as 1) */
};

struct hit_map {
	int count;
	struct hit_region reg[HIT_MAX];
};

/* What lies under a screen cell: kind HIT_NONE when nothing does. */
struct hit {
	enum hit_kind kind;
	int id, row, col;
};

/* What the mouse did, as app_mouse takes it. */
enum hit_button { HIT_CLICK, HIT_WHEEL_UP, HIT_WHEEL_DOWN };

void hit_clear(struct hit_map *m);
/* Record a region (m may be NULL: drawing for a test that does not
 * click). Empty rectangles, and regions past HIT_MAX, are dropped. */
void hit_add(struct hit_map *m, struct rect r, enum hit_kind kind, int id, int row0, int col0, int cell_w);
/* The same with rows cell_h lines tall. */
void hit_add_cells(struct hit_map *m, struct rect r, enum hit_kind kind, int id, int row0, int col0, int cell_w,
                   int cell_h);
/* The region containing (y, x) drawn last (what is on top), as a target
 * cell; HIT_NONE when none does. */
struct hit hit_at(const struct hit_map *m, int y, int x);

#endif
