/*
 * hit.c - hit regions: recorded while drawing, looked up on a click. A
 * region maps a rectangle of the screen to the cells of what was drawn
 * there (hit.h has the formula); the last region recorded wins, as the
 * last thing drawn is the one seen. It neither draws nor decides what a
 * click does (app_mouse in keys.c does).
 */
#include "hit.h"

#include <stddef.h>

void hit_clear(struct hit_map *m)
{
	if (m)
		m->count = 0;
}

void hit_add(struct hit_map *m, struct rect r, enum hit_kind kind, int id, int row0, int col0, int cell_w)
{
	hit_add_cells(m, r, kind, id, row0, col0, cell_w, 1);
}

void hit_add_cells(struct hit_map *m, struct rect r, enum hit_kind kind, int id, int row0, int col0, int cell_w,
                   int cell_h)
{
	if (!m || r.h <= 0 || r.w <= 0 || m->count >= HIT_MAX)
		return;
	m->reg[m->count++] = (struct hit_region){ r, kind, id, row0, col0, cell_w < 1 ? 1 : cell_w,
	                                          cell_h < 1 ? 1 : cell_h };
}

static bool inside(const struct rect *r, int y, int x)
{
	return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

struct hit hit_at(const struct hit_map *m, int y, int x)
{
	for (int i = m ? m->count - 1 : -1; i >= 0; i--) {
		const struct hit_region *g = &m->reg[i];
		if (!inside(&g->r, y, x))
			continue;
		return (struct hit){ g->kind, g->id, g->row0 + (y - g->r.y) / g->cell_h, g->col0 + (x - g->r.x) / g->cell_w };
	}
	return (struct hit){ HIT_NONE, 0, 0, 0 };
}
