/*
 * hints.c - key hints drawn from a key table (hints.h): each row flagged
 * for the line ("label name", or the row's own hint words), as many as
 * fit whole (its bar_keys for the label when it speaks for a pair: "[ ]
 * B_r"), each recorded as a hit region that is its key when clicked.
 * The frame's last line is drawn so, and a view's status line may carry a
 * second line of its keys. It reads tables only: a hint can never name a
 * key that does something else.
 */
#include "hints.h"

#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "theme.h"

/* One hint at x: the keys bold, the words plain; a click is key. Returns
 * the columns taken (0: it does not fit in end - x). */
static int put_hint(int y, int x, int end, const char *keys, const char *words, int key, struct hit_map *hits)
{
	char h[96];
	snprintf(h, sizeof h, "%s%s%s", keys, words[0] ? " " : "", words);
	int len = draw_width(h);
	if (x + len > end)
		return 0;
	draw_put(y, x, len, keys, theme_attr(ROLE_HINT) | A_BOLD);
	if (words[0])
		draw_put(y, x + draw_width(keys) + 1, len, words, theme_attr(ROLE_HINT));
	hit_add(hits, (struct rect){ y, x, 1, len }, HIT_KEY, key, 0, 0, 1);
	return len;
}

int hints_draw(const struct app *app, const struct action *table, unsigned bar, struct rect r, int x,
               struct hit_map *hits)
{
	int end = r.x + r.w;
	for (int i = 0, n = action_count(table); i < n; i++) {
		const struct action *row = &table[i], *a = mode_target(app, row);
		if (!(row->bar & bar) || !a || !a->keys[0])
			continue;
		const char *name = row->name ? row->name : a->name;
		const char *keys = row->bar_keys ? row->bar_keys : a->bar_keys ? a->bar_keys : a->label;
		int w = put_hint(r.y, x, end, keys, name ? name : "", a->keys[0], hits);
		if (w == 0)
			break;
		x += w + 2;
	}
	return x;
}

int hints_put(struct rect r, int x, const char *keys, const char *words, int key, struct hit_map *hits)
{
	return x + put_hint(r.y, x, r.x + r.w, keys, words, key, hits);
}
