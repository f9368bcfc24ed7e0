/*
 * menu.c - the lesson menu mode: its keys (Up/Down or k/j, a lesson's
 * number typed digit by digit, Enter opens, Esc or M closes; any other key
 * goes on to the action table, so q and ? work with the menu up) and its
 * drawing in the side pane. The menu's lines come from the lesson library
 * (lesson_menu); opening a lesson goes through learn.c.
 */
#include "menu.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "learn.h"
#include "lesson.h"
#include "actions.h"
#include "draw.h"
#include "lesson_pane.h"
#include "mode.h"
#include "nav.h"
#include "pane.h"
#include "prompt.h"
#include "theme.h"

unsigned menu_toggle(struct app *app)
{
	struct app_learn *l = &app->learn;
	if (!l->enabled)
		return learn_no_lesson(app);
	if (!l->set) {
		app_message(app, true, "no lessons: %s", l->none);
		return APP_REDRAW;
	}
	if (mode_base(app) == MODE_MENU) {
		mode_leave(app);
	} else {
		mode_enter(app, MODE_MENU);
		l->menu_sel = l->open ? l->lesson : lesson_next_undone(l->set, &l->progress);
	}
	l->typed[0] = '\0';
	return APP_REDRAW;
}

unsigned menu_welcome(struct app *app)
{
	struct app_learn *l = &app->learn;
	if (!l->enabled || !l->set || l->set->count == 0 || l->open || mode_base(app) == MODE_MENU)
		return 0;
	menu_toggle(app);
	const struct lesson *les = &l->set->lessons[l->menu_sel];
	app_message(app, false, "Enter: start lesson %d, %s   Esc: the free workbench", les->number, les->title);
	app->notice = true; /* until a key */
	app->status_until_ms = app->now_ms + APP_NOTICE_MS;
	return APP_REDRAW;
}

unsigned menu_move(struct app *app, int dir)
{
	struct app_learn *l = &app->learn;
	int n = l->set->count;
	l->menu_sel = ((l->menu_sel + dir) % n + n) % n;
	l->typed[0] = '\0';
	return APP_REDRAW;
}

/* Digits pick a lesson by number: "1" then "3" is lesson 13; a digit that
 * makes no lesson's number starts a new one. */
static unsigned menu_digit(struct app *app, int ch)
{
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

static unsigned menu_choose(struct app *app)
{
	struct app_learn *l = &app->learn;
	if (l->open && l->lesson == l->menu_sel) {
		/* the lesson already open: where the learner is in it */
		mode_leave(app);
		return l->active ? APP_REDRAW : learn_leave(app);
	}
	/* the menu closes when the lesson opens (learn_open); it stays up when
	 * a forward jump was only warned about (Enter again leaves) */
	return learn_open_where_left(app, l->menu_sel);
}

unsigned menu_pick(struct app *app, int i)
{
	struct app_learn *l = &app->learn;
	if (!l->set || i < 0 || i >= l->set->count)
		return 0;
	if (app->mode == MODE_MENU && l->menu_sel == i)
		return menu_choose(app);
	app->mode = MODE_MENU;
	l->menu_sel = i;
	l->typed[0] = '\0';
	return APP_REDRAW;
}

static unsigned menu_key(struct app *app, int key)
{
	switch (key) {
	case KEY_UP: case 'k': return menu_move(app, -1);
	case KEY_DOWN: case 'j': return menu_move(app, 1);
	case '\n': case '\r': case KEY_ENTER: return menu_choose(app);
	case PROMPT_ESC: case 'M': return menu_toggle(app);
	default:
		if (key >= '0' && key <= '9')
			return menu_digit(app, key);
		return MODE_PASS;
	}
}

static int add_wrapped(struct lesson_text *t, const char *s, int width, enum lesson_line_kind kind)
{
	return lesson_wrap(t, s, width, kind, lesson_pane_key, NULL);
}

static void put_line(int y, struct rect r, const struct lesson_line *ln, attr_t a)
{
	theme_addstr(stdscr, y, r.x, r.w, ln->text, a);
}

void menu_draw(const struct app *app, struct rect r, struct hit_map *hits)
{
	const struct app_learn *l = &app->learn;
	bool keys_here = mode_base(app) == MODE_MENU;
	struct lesson_text head = { 0 }, menu = { 0 }, foot = { 0 };
	if (!l->set) {
		lesson_text_add(&head, LESSON_LINE_TITLE, "Lessons", r.w);
		add_wrapped(&head, "No lessons found; the workbench works without them.", r.w, LESSON_LINE_PROSE);
		lesson_text_add(&head, LESSON_LINE_BLANK, "", r.w);
		add_wrapped(&head, l->none, r.w, LESSON_LINE_KEYS);
		for (int i = 0; i < head.count && i < r.h; i++)
			put_line(r.y + i, r, &head.lines[i], lesson_pane_attr(head.lines[i].kind));
		lesson_text_free(&head);
		return;
	}
	char keys[256];
	int li, si;
	if (keys_here)
		snprintf(keys, sizeof keys, "Enter opens, Esc back");
	else if (learn_return_place(app, &li, &si))
		snprintf(keys, sizeof keys, "{key:leave}: back to lesson %d, step %d. {key:menu}: choose another",
		         l->set->lessons[li].number, si + 1);
	else
		snprintf(keys, sizeof keys, "{key:menu}: choose a lesson");
	lesson_menu(l->set, &l->progress, r.w, theme_utf8(), &menu);
	if (menu.count > 0)
		lesson_text_add(&head, menu.lines[0].kind, menu.lines[0].text, r.w);
	add_wrapped(&head, keys, r.w, LESSON_LINE_KEYS);
	/* keys that fit beside the heading go there: a line more for the list */
	int tl = menu.count > 0 ? (int)strlen(menu.lines[0].text) : 0;
	bool beside = head.count == 2 && tl + 2 + (int)strlen(head.lines[1].text) <= r.w;
	/* after the lessons: the overall progress, and load errors if any */
	for (int i = 1 + l->set->count; i < menu.count; i++)
		if (menu.lines[i].kind != LESSON_LINE_BLANK)
			lesson_text_add(&foot, menu.lines[i].kind, menu.lines[i].text, r.w);
	if (l->none[0])
		add_wrapped(&foot, l->none, r.w, LESSON_LINE_KEYS);
	/* the workbench's short forms, explained once on the first screen:
	 * here when every lesson still fits, else in the counts' place
	 * (workbench.c) */
	struct lesson_text legend = { 0 };
	add_wrapped(&legend, menu_legend(), r.w, LESSON_LINE_KEYS);
	if (1 + l->set->count + foot.count + legend.count <= r.h)
		for (int i = 0; i < legend.count; i++)
			lesson_text_add(&foot, legend.lines[i].kind, legend.lines[i].text, r.w);
	lesson_text_free(&legend);

	int y = r.y;
	for (int i = 0; i < head.count && y < r.y + r.h; i++, y++) {
		if (beside && i == 1) {
			theme_addstr(stdscr, r.y, r.x + tl + 2, r.w - tl - 2, head.lines[1].text,
			             lesson_pane_attr(head.lines[1].kind));
			y--;
			continue;
		}
		put_line(y, r, &head.lines[i], lesson_pane_attr(head.lines[i].kind));
	}
	int rows = r.y + r.h - y - foot.count;
	int n = l->set->count, first = 0;
	if (rows < 1)
		rows = 1;
	if (n > rows) /* keep the selection in view */
		first = l->menu_sel - rows / 2 < 0 ? 0 : l->menu_sel - rows / 2 > n - rows ? n - rows : l->menu_sel - rows / 2;
	/* a list longer than its rows: the last row says how many more */
	int more = 0;
	if (n > rows && rows > 1) {
		rows--;
		first = l->menu_sel - rows / 2 < 0 ? 0 : l->menu_sel - rows / 2 > n - rows ? n - rows : l->menu_sel - rows / 2;
		more = 1;
	}
	int list_y = y;
	for (int i = first; i < n && 1 + i < menu.count && i < first + rows && y < r.y + r.h; i++, y++) {
		const struct lesson_line *ln = &menu.lines[1 + i];
		attr_t a = keys_here && i == l->menu_sel ? theme_attr(ROLE_SELECTED) : lesson_pane_attr(ln->kind);
		put_line(y, r, ln, a);
	}
	hit_add(hits, (struct rect){ list_y, r.x, y - list_y, r.w }, HIT_MENU, 0, first, 0, r.w);
	if (more && y < r.y + r.h) {
		char mark[96];
		snprintf(mark, sizeof mark, "-- %d more above, %d below (%s) --", first, n - first - rows,
		         keys_here ? "up/down" : actions_key_name("menu"));
		if (first == 0)
			snprintf(mark, sizeof mark, "-- %d more below (%s) --", n - rows, keys_here ? "down" : actions_key_name("menu"));
		else if (first + rows >= n)
			snprintf(mark, sizeof mark, "-- %d more above (%s) --", first, keys_here ? "up" : actions_key_name("menu"));
		draw_fit(y++, r.x, r.w, mark, theme_attr(ROLE_DIM));
	}
	for (int i = 0; i < foot.count && y < r.y + r.h; i++, y++)
		put_line(y, r, &foot.lines[i], lesson_pane_attr(foot.lines[i].kind));
	lesson_text_free(&head);
	lesson_text_free(&menu);
	lesson_text_free(&foot);
}

const char *menu_legend(void)
{
	return "Symbols: n tokens, d model width, h heads, h_kv KV heads, d_k width per head; "
	       "H row entropy in nats (0: one key, ln n: uniform)";
}

static int menu_pane(const struct app *app, struct rect r, struct hit_map *hits)
{
	if (r.h > 0 && r.w > 0)
		menu_draw(app, r, hits);
	return 0;
}

/* While the menu has the keys the status line says what they do there
 * (the workbench's "Enter edits" would not); a message shows first. */
static bool menu_status(const struct app *app, struct rect r)
{
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

const struct mode_ops menu_mode = {
	.name = "lesson menu",
	.key = menu_key,
	.status = menu_status,
	.pane = menu_pane,
};
