/*
 * help.c - the help overlay: every row of the action table, grouped, in
 * two columns over the body (Up/Down scroll it, any other key closes it,
 * q still quits), and the rule for what a shape change keeps at the
 * bottom. It is a flag over the current mode (app->help_open), not a mode:
 * closing it finds the mode as it was. Its text comes from the action
 * table only, so help and keys never disagree.
 */
#include "help.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "draw.h"
#include "theme.h"

unsigned help_toggle(struct app *app)
{
	app->help_open = !app->help_open;
	app->help_scroll = 0;
	return APP_REDRAW;
}

unsigned help_key(struct app *app, int key)
{
	if (key == KEY_MOUSE && app->mouse.button != HIT_CLICK) { /* the wheel: three lines */
		for (int i = 0; i < 3; i++)
			help_key(app, app->mouse.button == HIT_WHEEL_DOWN ? KEY_DOWN : KEY_UP);
		return APP_REDRAW;
	}
	if (key == KEY_DOWN || key == 'j' || key == KEY_NPAGE) {
		/* no further than the table's length (more than the help's lines):
		 * else Up would have to undo every press past the end first */
		int count;
		actions_table(&count);
		app->help_scroll += key == KEY_NPAGE ? 10 : 1;
		if (app->help_scroll > count)
			app->help_scroll = count;
		return APP_REDRAW;
	}
	if (key == KEY_UP || key == 'k' || key == KEY_PPAGE) {
		app->help_scroll -= key == KEY_PPAGE ? 10 : 1;
		if (app->help_scroll < 0)
			app->help_scroll = 0;
		return APP_REDRAW;
	}
	app->help_open = false;
	const struct action *a = actions_lookup(key);
	if (a && a->id && strcmp(a->id, "quit") == 0) /* q still quits from the help */
		return actions_quit(app);
	return APP_REDRAW;
}

/* Piece j of s word-wrapped at width columns: its start in *at and its
 * length, or -1 when s has no piece j (a word longer than width is cut). */
static int wrap_piece(const char *s, int width, int j, const char **at)
{
	if (width < 1)
		width = 1;
	for (int k = 0; *s; k++) {
		int n = (int)strlen(s);
		int take = n <= width ? n : width;
		if (take < n)
			while (take > 0 && s[take] != ' ')
				take--;
		if (take == 0)
			take = n < width ? n : width;
		if (k == j) {
			*at = s;
			return take;
		}
		s += take;
		while (*s == ' ')
			s++;
	}
	return -1;
}

/* Help lines: section headers and one line per action, its text wrapped at
 * textw columns under itself (at 80 columns a column holds 25). */
static int help_line(int i, int textw, char *buf, size_t len, attr_t *a)
{
	int count;
	const struct action *t = actions_table(&count);
	int line = 0;
	const char *group = NULL;
	for (int k = 0; k < count; k++) {
		if (!group || strcmp(group, t[k].group) != 0) {
			group = t[k].group;
			if (line++ == i) {
				snprintf(buf, len, "%s", group);
				*a = theme_attr(ROLE_TITLE);
				return 1;
			}
		}
		if (t[k].help_keys && !t[k].help_keys[0])
			continue; /* shown on the line of the row above */
		const char *at;
		int n;
		for (int j = 0; (n = wrap_piece(t[k].help, textw, j, &at)) >= 0; j++)
			if (line++ == i) {
				snprintf(buf, len, " %-11s %.*s", j ? "" : t[k].help_keys ? t[k].help_keys : t[k].key_label, n,
				         at);
				*a = theme_attr(ROLE_NORMAL);
				return 1;
			}
	}
	return 0;
}

void help_draw(const struct app *app, int rows, int cols)
{
	int y0 = 1, h = rows - 3;
	for (int y = y0; y < y0 + h; y++) {
		move(y, 0);
		clrtoeol();
	}
	draw_put(y0, 1, cols - 2, "mha-tui keys   (Up/Down scroll, any other key closes)", theme_attr(ROLE_TITLE) | A_BOLD);
	/* the rule for shape changes, wrapped, at the bottom */
	const char *rule = actions_keep_rule;
	char lines[6][160];
	int rule_lines = 0, width = cols - 4 < (int)sizeof lines[0] - 1 ? cols - 4 : (int)sizeof lines[0] - 1;
	const char *at;
	for (int n; rule_lines < 6 && (n = wrap_piece(rule, width, rule_lines, &at)) >= 0; rule_lines++)
		snprintf(lines[rule_lines], sizeof lines[0], "%.*s", n, at);
	int avail = h - 2 - rule_lines;
	int colw = (cols - 2) / 2;
	int ncol = colw < cols - 2 ? 2 : 1;
	int textw = colw - 1 - 13; /* " %-11s " before the text */
	char buf[160];
	attr_t a;
	int total = 0;
	while (help_line(total, textw, buf, sizeof buf, &a))
		total++;
	int start = app->help_scroll;
	if (start > total - 1)
		start = total > 0 ? total - 1 : 0;
	for (int i = start, slot = 0; i < total && slot < ncol * avail; i++, slot++) {
		help_line(i, textw, buf, sizeof buf, &a);
		draw_put(y0 + 2 + slot % avail, 1 + (slot / avail) * colw, colw - 1, buf, a);
	}
	for (int i = 0; i < rule_lines; i++)
		draw_put(y0 + h - rule_lines + i, 2, width, lines[i], theme_attr(ROLE_DIM));
}

