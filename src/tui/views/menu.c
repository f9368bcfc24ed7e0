/*
 * menu.c - the lesson menu mode: M opens it in the side pane; Up/Down (or
 * k/j) move the selection, a lesson's number typed digit by digit selects
 * it, Enter opens it, Esc or M closes; any other key goes on to the
 * workbench's table, so q and ? work with the menu up. The list itself is
 * drawn by lesson_menu.c, the selection and the opening are the lessons'
 * (learn.c): this file is the menu's keys and status line.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "learn.h"
#include "lesson.h"
#include "lesson_menu.h"
#include "mode.h"
#include "nav.h"
#include "theme.h"

static bool menu_enter(struct app *app)
{
	struct app_learn *l = &app->learn;
	if (!l->enabled) {
		learn_no_lesson(app);
		return false;
	}
	if (!l->set) {
		app_message(app, true, "no lessons: %s", l->none);
		return false;
	}
	l->menu_sel = l->open ? l->lesson : lesson_next_undone(l->set, &l->progress);
	l->typed[0] = '\0';
	return true;
}

static void menu_leave(struct app *app)
{
	app->learn.typed[0] = '\0';
}

/* Digits pick a lesson by number: "1" then "3" is lesson 13; a digit that
 * makes no lesson's number starts a new one. */
static unsigned menu_digit(struct app *app, int arg, int ch)
{
	(void)arg;
	struct app_learn *l = &app->learn;
	char t[LEARN_TYPED_MAX];
	for (int pass = 0; pass < 2; pass++) {
		snprintf(t, sizeof t, "%.*s%c", LEARN_TYPED_MAX - 2, pass == 0 ? l->typed : "", ch);
		for (int i = 0; i < l->set->count; i++) {
			char num[16];
			snprintf(num, sizeof num, "%d", l->set->lessons[i].number);
			if (strcmp(num, t) == 0) {
				l->menu_sel = i;
				snprintf(l->typed, sizeof l->typed, "%s", t);
				return APP_REDRAW;
			}
		}
	}
	l->typed[0] = '\0';
	app_message(app, false, "no lesson %c", ch);
	return APP_REDRAW;
}

static int menu_pane(const struct app *app, const struct frame *f, struct rect r, struct hit_map *hits)
{
	(void)f;
	if (r.h > 0 && r.w > 0)
		lesson_menu_draw(app, r, hits);
	return 0;
}

/* While the menu has the keys the status line says which lesson Enter
 * opens (the workbench's "Enter edits" would not); a message shows first. */
static bool menu_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	const struct app_learn *l = &app->learn;
	if (!l->set || (app->status[0] && app->now_ms < app->status_until_ms))
		return false;
	const struct lesson *les = &l->set->lessons[l->menu_sel];
	char line[320];
	snprintf(line, sizeof line, "Enter: open lesson %d, %s  Esc: the free workbench  up/down: another lesson",
	         les->number, les->title);
	draw_fit(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

static const struct action menu_opener = {
	.keys = { 'M' }, .label = "M", .name = "menu", .help = "lesson menu: Up/Down or a number, Enter",
	.group = "Lesson", .id = "menu",
};

static const struct action menu_keys[] = {
	{ .keys = { KEY_UP, 'k' }, .label = "Up k", .bar_keys = "Up/Down", .name = "lesson",
	  .help = "the lesson above / below", .help_keys = "Up Down k j", .bar = ACTION_BAR_BOTH,
	  .call_arg = learn_menu_move, .arg = -1, .id = "menu-up" },
	{ .keys = { KEY_DOWN, 'j' }, .label = "Down j", .name = "down", .help = "the lesson below", .help_keys = "",
	  .call_arg = learn_menu_move, .arg = 1, .id = "menu-down" },
	{ .keys = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }, .label = "0-9", .name = "number",
	  .help = "the lesson of that number (two digits for 10 on)", .bar = ACTION_BAR_BOTH, .fn = menu_digit,
	  .id = "menu-number" },
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "open", .help = "open the selected lesson",
	  .bar = ACTION_BAR_BOTH, .call = learn_menu_choose, .id = "menu-open" },
	{ .keys = { 0 } },
};

const struct mode_ops menu_mode = {
	.name = "lesson menu",
	.opener = &menu_opener,
	.keys = menu_keys,
	.enter = menu_enter,
	.leave = menu_leave,
	.status = menu_status,
	.pane = menu_pane,
};
