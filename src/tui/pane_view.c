/*
 * pane_view.c - the lesson pane: the lines pane.h composes (the step, or
 * the menu), placed in the pane's rectangle and styled by their kind.
 *
 * A step: its heading stays at the top and the goal's state (with the
 * tick the moment it holds) at the bottom, whatever the scroll, so the
 * exercise's state is always on screen; the text between them scrolls
 * (J / K) with a line saying how much more there is. The menu: its heading
 * and keys at the top, the overall progress at the bottom, the lessons
 * between them, scrolled to keep the selected one in view.
 *
 * It neither wraps nor composes lesson text (pane.c does), and changes no
 * state: the scroll it can take is returned for the loop to keep, and
 * where the menu's entries and the step's text went is recorded as hit
 * regions (hit.h) for the mouse.
 */
#include "pane_view.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "learn.h"
#include "pane.h"
#include "theme.h"

const char *pane_view_key(const char *action, void *ctx)
{
	(void)ctx;
	return actions_key_name(action);
}

static attr_t kind_attr(enum lesson_line_kind k)
{
	switch (k) {
	case LESSON_LINE_TITLE:
	case LESSON_LINE_QUESTION:
		return theme_attr(ROLE_TITLE);
	case LESSON_LINE_MET:
	case LESSON_LINE_MENU_DONE:
		return theme_attr(ROLE_MET);
	case LESSON_LINE_ANSWER:
	case LESSON_LINE_HINT:
	case LESSON_LINE_SOLUTION:
	case LESSON_LINE_UNMET:
		return theme_attr(ROLE_HINT);
	case LESSON_LINE_KEYS:
		return theme_attr(ROLE_DIM);
	default:
		return theme_attr(ROLE_NORMAL);
	}
}

static void put_line(int y, struct rect r, const struct lesson_line *ln, attr_t a)
{
	theme_addstr(stdscr, y, r.x, r.w, ln->text, a);
}

static int draw_step(const struct app *app, struct rect r)
{
	struct lesson_text t = { 0 };
	if (lesson_run_pane(&app->learn.run, r.w, pane_view_key, NULL, theme_utf8(), &t) != 0) {
		theme_addstr(stdscr, r.y, r.x, r.w, "out of memory for the lesson text", theme_attr(ROLE_ERROR));
		lesson_text_free(&t);
		return 0;
	}
	if (t.count <= r.h) { /* it all fits: as composed, the goal right under the text */
		for (int i = 0; i < t.count; i++)
			put_line(r.y + i, r, &t.lines[i], kind_attr(t.lines[i].kind) |
			         (t.lines[i].kind == LESSON_LINE_MET ? A_BOLD : 0));
		lesson_text_free(&t);
		return 0;
	}
	/* else the heading on top, the goal's lines at the bottom */
	int top = 0;
	while (top < t.count && top < 3 && t.lines[top].kind == LESSON_LINE_TITLE)
		top++;
	int g0 = t.count, g1 = t.count;
	for (int i = top; i < t.count; i++)
		if (t.lines[i].kind == LESSON_LINE_MET || t.lines[i].kind == LESSON_LINE_UNMET) {
			g0 = i;
			for (g1 = i; g1 < t.count && t.lines[g1].kind == t.lines[i].kind; g1++)
				;
			break;
		}
	int goal = g1 - g0;
	if (top + goal > r.h) /* a tiny pane: the goal's state first */
		top = r.h - goal > 0 ? r.h - goal : 0;
	for (int i = 0; i < top; i++)
		put_line(r.y + i, r, &t.lines[i], kind_attr(t.lines[i].kind));
	for (int i = 0; i < goal && i < r.h; i++)
		put_line(r.y + r.h - goal + i, r, &t.lines[g0 + i], kind_attr(t.lines[g0 + i].kind) | A_BOLD);

	/* the text between, scrolled; a blank line ends it above the goal */
	int mid = t.count - top - goal, rows = r.h - top - goal - (goal ? 1 : 0);
	int scroll_max = 0, first = 0;
	if (rows > 0 && mid > rows) {
		rows--; /* the last row says what is hidden */
		scroll_max = mid - rows;
		first = app->learn.scroll < scroll_max ? app->learn.scroll : scroll_max;
		char more[64];
		if (first < scroll_max)
			snprintf(more, sizeof more, "-- J: %d more line%s, K: back --", mid - rows - first,
			         mid - rows - first == 1 ? "" : "s");
		else
			snprintf(more, sizeof more, "-- end; K scrolls back --");
		theme_addstr(stdscr, r.y + top + rows, r.x, r.w, more, theme_attr(ROLE_DIM));
	}
	for (int k = 0, i = top; i < t.count && k < first + rows; i++) {
		if (i >= g0 && i < g1)
			continue;
		if (k >= first)
			put_line(r.y + top + k - first, r, &t.lines[i], kind_attr(t.lines[i].kind));
		k++;
	}
	lesson_text_free(&t);
	return scroll_max;
}

static int add_wrapped(struct lesson_text *t, const char *s, int width, enum lesson_line_kind kind)
{
	return lesson_wrap(t, s, width, kind, pane_view_key, NULL);
}

static void draw_menu(const struct app *app, struct rect r, struct hit_map *hits)
{
	const struct app_learn *l = &app->learn;
	struct lesson_text head = { 0 }, menu = { 0 }, foot = { 0 };
	if (!l->set) {
		lesson_text_add(&head, LESSON_LINE_TITLE, "Lessons", r.w);
		add_wrapped(&head, "No lessons found; the workbench works without them.", r.w, LESSON_LINE_PROSE);
		lesson_text_add(&head, LESSON_LINE_BLANK, "", r.w);
		add_wrapped(&head, l->none, r.w, LESSON_LINE_KEYS);
		for (int i = 0; i < head.count && i < r.h; i++)
			put_line(r.y + i, r, &head.lines[i], kind_attr(head.lines[i].kind));
		lesson_text_free(&head);
		return;
	}
	char keys[256];
	int li, si;
	if (l->menu)
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

	int y = r.y;
	for (int i = 0; i < head.count && y < r.y + r.h; i++, y++) {
		if (beside && i == 1) {
			theme_addstr(stdscr, r.y, r.x + tl + 2, r.w - tl - 2, head.lines[1].text, kind_attr(head.lines[1].kind));
			y--;
			continue;
		}
		put_line(y, r, &head.lines[i], kind_attr(head.lines[i].kind));
	}
	int rows = r.y + r.h - y - foot.count;
	int n = l->set->count, first = 0;
	if (rows < 1)
		rows = 1;
	if (n > rows) /* keep the selection in view */
		first = l->menu_sel - rows / 2 < 0 ? 0 : l->menu_sel - rows / 2 > n - rows ? n - rows : l->menu_sel - rows / 2;
	int list_y = y;
	for (int i = first; i < n && 1 + i < menu.count && i < first + rows && y < r.y + r.h; i++, y++) {
		const struct lesson_line *ln = &menu.lines[1 + i];
		attr_t a = l->menu && i == l->menu_sel ? theme_attr(ROLE_SELECTED) : kind_attr(ln->kind);
		put_line(y, r, ln, a);
	}
	hit_add(hits, (struct rect){ list_y, r.x, y - list_y, r.w }, HIT_MENU, 0, first, 0, r.w);
	for (int i = 0; i < foot.count && y < r.y + r.h; i++, y++)
		put_line(y, r, &foot.lines[i], kind_attr(foot.lines[i].kind));
	lesson_text_free(&head);
	lesson_text_free(&menu);
	lesson_text_free(&foot);
}

int pane_view_draw(const struct app *app, struct rect r, struct hit_map *hits)
{
	if (r.h <= 0 || r.w <= 0)
		return 0;
	if (app->learn.menu || !learn_lesson(app)) {
		draw_menu(app, r, hits);
		return 0;
	}
	hit_add(hits, r, HIT_PANE, 0, 0, 0, r.w); /* the wheel scrolls its text */
	return draw_step(app, r);
}
