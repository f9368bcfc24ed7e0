/*
 * help.c - the help overlay: every row of the action table, grouped, in
 * two fixed columns over the body (Up/Down scroll both together, any other
 * key closes it, q still quits), and the rule for what a shape change keeps at the
 * bottom. It is a flag over the current mode (app->help_open), not a mode:
 * closing it finds the mode as it was. Its text comes from the action
 * table only, so help and keys never disagree; one line under the title
 * shows how a cell is named (notation.h).
 */
#include "help.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "draw.h"
#include "notation.h"
#include "pane.h"
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

/* The help's lines: a heading per group, then each action's text wrapped
 * at textw columns under its keys (at 80 columns a column holds 25); a
 * row whose help_keys is "" is spoken for by the row above. 0, or -1 when
 * out of memory. */
static int help_lines(int textw, struct lesson_text *out)
{
	int count;
	const struct action *t = actions_table(&count);
	const char *group = NULL;
	for (int k = 0; k < count; k++) {
		if (!group || strcmp(group, t[k].group) != 0) {
			group = t[k].group;
			if (lesson_text_add(out, LESSON_LINE_TITLE, group, 0) != 0)
				return -1;
		}
		if (t[k].help_keys && !t[k].help_keys[0])
			continue;
		struct lesson_text w = { 0 };
		int rc = lesson_wrap(&w, t[k].help, textw > 0 ? textw : 1, LESSON_LINE_PROSE, NULL, NULL);
		for (int j = 0; rc == 0 && j < w.count; j++) {
			char buf[160];
			snprintf(buf, sizeof buf, " %-11s %s", j ? "" : t[k].help_keys ? t[k].help_keys : t[k].key_label,
			         w.lines[j].text);
			rc = lesson_text_add(out, LESSON_LINE_PROSE, buf, 0);
		}
		lesson_text_free(&w);
		if (rc != 0)
			return -1;
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
	/* how cells are named on the status line and in the lessons, in the
	 * notation's own form for this terminal */
	char cell[NOTATION_MAX], note[160];
	notation_cell(cell, sizeof cell, &(struct cell){ MHA_T_WEIGHTS, 0, 2, 0 }, NULL, 0, theme_utf8());
	snprintf(note, sizeof note, "A cell: %s = head 0 of P, query row 2, key column 0", cell);
	draw_put(y0 + 1, 1, cols - 2, note, theme_attr(ROLE_DIM));
	/* the rule for shape changes, wrapped, at the bottom (6 lines at most) */
	struct lesson_text rule = { 0 }, help = { 0 };
	int width = cols - 4 < 159 ? cols - 4 : 159;
	lesson_wrap(&rule, actions_keep_rule, width > 0 ? width : 1, LESSON_LINE_PROSE, NULL, NULL);
	int rule_lines = rule.count < 6 ? rule.count : 6;
	int avail = h - 2 - rule_lines;
	int colw = (cols - 2) / 2;
	int ncol = colw < cols - 2 ? 2 : 1;
	help_lines(colw - 1 - 13, &help); /* " %-11s " before the text */
	/* two fixed columns: the second starts at the group heading nearest
	 * the middle, and scrolling moves both together, so a line never
	 * changes column (a heading cannot end one column with its keys atop
	 * the next) */
	int split = help.count;
	if (ncol == 2)
		for (int i = 0; i < help.count; i++)
			if (help.lines[i].kind == LESSON_LINE_TITLE && i > 0 &&
			    (split == help.count || abs(2 * i - help.count) < abs(2 * split - help.count)))
				split = i;
	int longest = split > help.count - split ? split : help.count - split;
	int start = app->help_scroll; /* until the longer column's last line is at the top */
	if (start > longest - 1)
		start = longest > 0 ? longest - 1 : 0;
	for (int c = 0; c < ncol; c++) {
		int first = c == 0 ? 0 : split, end = c == 0 ? split : help.count;
		for (int slot = 0; slot < avail && first + start + slot < end; slot++) {
			const struct lesson_line *ln = &help.lines[first + start + slot];
			draw_put(y0 + 2 + slot, 1 + c * colw, colw - 1, ln->text,
			         theme_attr(ln->kind == LESSON_LINE_TITLE ? ROLE_TITLE : ROLE_NORMAL));
		}
	}
	for (int i = 0; i < rule_lines; i++)
		draw_put(y0 + h - rule_lines + i, 2, width, rule.lines[i].text, theme_attr(ROLE_DIM));
	lesson_text_free(&rule);
	lesson_text_free(&help);
}
