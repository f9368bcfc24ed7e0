/*
 * help.c - the help overlay: the keys of the view it is opened over (its
 * name, how to leave it, its own table), then (unless the view is closed:
 * then only the keys that pass through it) every row of the workbench's
 * table, grouped (the views' openers among them), in two fixed columns over the
 * body (Up/Down scroll both together, any other key closes it, q still
 * quits), and the rule for what a shape change keeps at the bottom. It is
 * a flag over the current mode (app->help_open), not a mode: closing it
 * finds the mode as it was. Its text comes from the key tables only, so
 * help and keys never disagree; one line under the title shows how a
 * cell is named (notation.h).
 */
#include "help.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "notation.h"
#include "pane.h"
#include "shape.h"
#include "theme.h"

/* Rows of the tables it lists and a heading each: no help scrolls further. */
static int help_rows(const struct app *app)
{
	const struct mode_ops *w = mode_workbench(app), *here = mode_base(app);
	int words = 0;
	for (const struct mode_word *g = here->glossary; g && g->word; g++)
		words += 3; /* a word's meaning wraps to 3 lines at the most, at 80 columns */
	return action_count(w->keys) + (here != w ? action_count(here->keys) : 0) + words + 16;
}

unsigned help_key(struct app *app, int key)
{
	if (key == KEY_MOUSE && app->mouse.button != HIT_CLICK) { /* the wheel: three lines */
		for (int i = 0; i < 3; i++)
			help_key(app, app->mouse.button == HIT_WHEEL_DOWN ? KEY_DOWN : KEY_UP);
		return APP_REDRAW;
	}
	if (key == KEY_DOWN || key == 'j' || key == KEY_NPAGE) {
		/* no further than the tables' rows (more than the help's lines):
		 * else Up would have to undo every press past the end first */
		int count = help_rows(app);
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
	if (action_has_key(mode_action(app, "quit", NULL), key)) /* q still quits from the help */
		return app_save_quit(app);
	return APP_REDRAW;
}

/* A help line: keys (or a word) and text wrapped at textw under it. 0, or -1. */
static int wrapped_lines(const char *keys, const char *help, int textw, struct lesson_text *out)
{
	struct lesson_text w = { 0 };
	int rc = lesson_wrap(&w, help, textw > 0 ? textw : 1, LESSON_LINE_PROSE, NULL, NULL);
	for (int j = 0; rc == 0 && j < w.count; j++) {
		char buf[160];
		snprintf(buf, sizeof buf, " %-11s %s", j ? "" : keys, w.lines[j].text);
		rc = lesson_text_add(out, LESSON_LINE_PROSE, buf, 0);
	}
	lesson_text_free(&w);
	return rc;
}

/* One row's lines under its keys, wrapped at textw. 0, or -1. */
static int row_lines(const struct app *app, const struct action *row, int textw, struct lesson_text *out)
{
	const struct action *a = mode_target(app, row);
	const char *keys = row->help_keys ? row->help_keys : a && a->help_keys && a->help_keys[0] ? a->help_keys
	                 : a ? a->label : NULL;
	const char *help = row->help ? row->help : a ? a->help : NULL;
	if (!keys || !keys[0] || !help)
		return 0; /* spoken for by the row above, or an action the app has not */
	return wrapped_lines(keys, help, textw, out);
}

/* Does a `use` row of the workbench's table place opener a there? */
static bool placed(const struct app *app, const struct action *a)
{
	const struct action *t = mode_workbench(app)->keys;
	for (int k = 0, n = action_count(t); k < n; k++)
		if (t[k].use && mode_target(app, &t[k]) == a)
			return true;
	return false;
}

/* The lines of mode m: its name and how to leave it ("KV cache (g or Esc:
 * back)"), its opener when the workbench's groups do not list it, its
 * keys. 0, or -1. */
static int view_lines(const struct app *app, const struct mode_ops *m, int textw, struct lesson_text *out)
{
	const struct action *t = m->keys;
	int n = action_count(t);
	if (n == 0 && !m->opener)
		return 0;
	char title[96];
	if (m->prompt)
		snprintf(title, sizeof title, "%s", m->name);
	else if (m->opener)
		snprintf(title, sizeof title, "%s (%s or Esc: back)", m->name, m->opener->label);
	else
		snprintf(title, sizeof title, "%s (Esc: back)", m->name);
	if (lesson_text_add(out, LESSON_LINE_TITLE, title, 0) != 0)
		return -1;
	if (m->opener && !placed(app, m->opener) && row_lines(app, m->opener, textw, out) != 0)
		return -1;
	for (int k = 0; k < n; k++)
		if (row_lines(app, &t[k], textw, out) != 0)
			return -1;
	return 0;
}

/* Does the workbench's table have rows of that group? */
static bool group_known(const struct app *app, const char *group)
{
	const struct action *t = mode_workbench(app)->keys;
	for (int k = 0, n = action_count(t); k < n; k++) {
		const struct action *a = mode_target(app, &t[k]);
		const char *g = t[k].group ? t[k].group : a ? a->group : NULL;
		if (g && !strcmp(g, group))
			return true;
	}
	return false;
}

/* The openers no row of the workbench's table places: those of group
 * (rest: those whose group the table has not), a line each, under a
 * "Views" heading for the rest. 0, or -1. */
static int opener_lines(const struct app *app, const char *group, bool rest, int textw, struct lesson_text *out)
{
	bool heading = !rest;
	for (int i = 1; i < APP_MODES_MAX && app->modes[i]; i++) {
		const struct action *o = app->modes[i]->opener;
		if (!o || placed(app, o))
			continue;
		const char *g = o->group ? o->group : "";
		if (rest ? group_known(app, g) : strcmp(g, group) != 0)
			continue;
		if (!heading && lesson_text_add(out, LESSON_LINE_TITLE, group, 0) != 0)
			return -1;
		heading = true;
		if (row_lines(app, o, textw, out) != 0)
			return -1;
	}
	return 0;
}

int help_lines(const struct app *app, int textw, struct lesson_text *out)
{
	const struct mode_ops *w = mode_workbench(app), *here = mode_base(app);
	if (here != w && view_lines(app, here, textw, out) != 0)
		return -1; /* the keys of the view the help was opened over, first */
	if (here != w && here->glossary) {
		/* the words on its screen, under its keys */
		if (lesson_text_add(out, LESSON_LINE_TITLE, "Words on this screen", 0) != 0)
			return -1;
		for (const struct mode_word *g = here->glossary; g->word; g++)
			if (wrapped_lines(g->word, g->meaning, textw, out) != 0)
				return -1;
	}
	if (here != w && (here->closed || here->glossary)) {
		/* a closed view lets only ? q w through (keys.c): the workbench's
		 * other keys would do nothing here, so the help does not list them;
		 * a view with words of its own lists those in their place */
		static const char *const through[] = { "help", "quit", "save" };
		if (lesson_text_add(out, LESSON_LINE_TITLE, "Everywhere", 0) != 0)
			return -1;
		for (size_t i = 0; i < sizeof through / sizeof *through; i++) {
			const struct action *a = mode_action(app, through[i], NULL);
			if (a && row_lines(app, a, textw, out) != 0)
				return -1;
		}
		if (!here->closed && wrapped_lines("", "the workbench's other keys act on it under this screen: Esc, "
		                                   "then ? lists them", textw, out) != 0)
			return -1;
		return 0;
	}
	/* the workbench's rows, by group; after a group's rows, the openers
	 * of that group that no row of the table places; those whose group
	 * the table has not, under "Views" at the end */
	const struct action *t = w->keys;
	const char *group = NULL;
	int n = action_count(t);
	for (int k = 0; k < n; k++) {
		const struct action *a = mode_target(app, &t[k]);
		const char *g = t[k].group ? t[k].group : a ? a->group : NULL;
		if (g && group && strcmp(group, g) != 0 && opener_lines(app, group, false, textw, out) != 0)
			return -1;
		if (g && (!group || strcmp(group, g) != 0)) {
			group = g;
			if (lesson_text_add(out, LESSON_LINE_TITLE, group, 0) != 0)
				return -1;
		}
		if (row_lines(app, &t[k], textw, out) != 0)
			return -1;
	}
	if (group && opener_lines(app, group, false, textw, out) != 0)
		return -1;
	return opener_lines(app, "Views", true, textw, out);
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
	if (!mode_base(app)->closed && !mode_base(app)->glossary) /* a closed view's keys change no shape */
		lesson_wrap(&rule, shape_keep_rule, width > 0 ? width : 1, LESSON_LINE_PROSE, NULL, NULL);
	int rule_lines = rule.count < 6 ? rule.count : 6;
	int avail = h - 2 - rule_lines;
	int colw = (cols - 2) / 2;
	int ncol = colw < cols - 2 ? 2 : 1;
	help_lines(app, colw - 1 - 13, &help); /* " %-11s " before the text */
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
