/*
 * lesson_pane.c - the lesson pane: the step's lines as pane.h composes
 * them, placed in the pane's rectangle and styled by their kind.
 *
 * A step: its heading stays at the top and the goal's state (with the
 * tick the moment it holds) at the bottom, whatever the scroll, so the
 * exercise's state is always on screen; while the goal is open, the
 * question stays above the goal and the instruction (the first
 * paragraph) under the heading, room allowing, so what to do is always
 * on screen too; the text between them scrolls
 * (J / K) with a line saying how much more there is. With no lesson open
 * the pane holds the menu (menu.c draws it).
 *
 * It neither wraps nor composes lesson text (pane.c does), and changes no
 * state: the scroll it can take is returned for the loop to keep, and
 * where the step's text went is recorded as a hit region (hit.h) for the
 * mouse wheel.
 */
#include "lesson_pane.h"

#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "learn.h"
#include "menu.h"
#include "theme.h"

const char *lesson_pane_key(const char *action, void *ctx)
{
	(void)ctx;
	return actions_key_name(action);
}

attr_t lesson_pane_attr(enum lesson_line_kind k)
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
	if (lesson_run_pane(&app->learn.run, r.w, lesson_pane_key, NULL, theme_utf8(), &t) != 0) {
		theme_addstr(stdscr, r.y, r.x, r.w, "out of memory for the lesson text", theme_attr(ROLE_ERROR));
		lesson_text_free(&t);
		return 0;
	}
	if (t.count <= r.h) { /* it all fits: as composed, the goal right under the text */
		for (int i = 0; i < t.count; i++)
			put_line(r.y + i, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind) |
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
	/* while the goal is open what it asks stays in view, each part when
	 * that leaves a line of the rest to scroll and the line saying there
	 * is more: the instruction (the prose's first paragraph, the lessons'
	 * convention) under the heading, then the question (with its choices)
	 * above the goal at the bottom */
	bool open = g1 > g0 && t.lines[g0].kind == LESSON_LINE_UNMET;
	if (open) {
		int i1 = top;
		while (i1 < g0 && t.lines[i1].kind == LESSON_LINE_BLANK)
			i1++;
		while (i1 < g0 && t.lines[i1].kind == LESSON_LINE_PROSE)
			i1++;
		if (i1 < g0 && t.lines[i1].kind == LESSON_LINE_BLANK)
			i1++; /* and the blank line under it, as a rule above the rest */
		if (i1 + g1 - g0 + 1 + 2 <= r.h)
			top = i1;
	}
	for (int i = top; open && i < g0; i++)
		if (t.lines[i].kind == LESSON_LINE_QUESTION) {
			if (top + g1 - i + 1 + 2 <= r.h)
				g0 = i;
			break;
		}
	int goal = g1 - g0;
	if (top + goal > r.h) /* a tiny pane: the goal's state first */
		top = r.h - goal > 0 ? r.h - goal : 0;
	for (int i = 0; i < top; i++)
		put_line(r.y + i, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind));
	for (int i = 0; i < goal && i < r.h; i++)
		put_line(r.y + r.h - goal + i, r, &t.lines[g0 + i], lesson_pane_attr(t.lines[g0 + i].kind) |
		         (t.lines[g0 + i].kind == LESSON_LINE_MET || t.lines[g0 + i].kind == LESSON_LINE_UNMET ? A_BOLD : 0));

	/* the text between, scrolled; a blank line ends it above the goal */
	int mid = t.count - top - goal, rows = r.h - top - goal - (goal ? 1 : 0);
	int scroll_max = 0, first = 0;
	if (rows > 0 && mid > rows) {
		rows--; /* the last row says what is hidden */
		scroll_max = mid - rows;
		first = app->learn.scroll < scroll_max ? app->learn.scroll : scroll_max;
		char more[64];
		if (first < scroll_max)
			snprintf(more, sizeof more, "-- %s: %d more line%s, %s: back --", actions_key_name("scroll-down"),
			         mid - rows - first,
			         mid - rows - first == 1 ? "" : "s", actions_key_name("scroll-up"));
		else
			snprintf(more, sizeof more, "-- end; %s scrolls back --", actions_key_name("scroll-up"));
		theme_addstr(stdscr, r.y + top + rows, r.x, r.w, more, theme_attr(ROLE_DIM));
	}
	for (int k = 0, i = top; i < t.count && k < first + rows; i++) {
		if (i >= g0 && i < g1)
			continue;
		if (k >= first)
			put_line(r.y + top + k - first, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind));
		k++;
	}
	lesson_text_free(&t);
	return scroll_max;
}

int lesson_pane_draw(const struct app *app, struct rect r, struct hit_map *hits)
{
	if (r.h <= 0)
		return 0;
	if (!app->learn.enabled) {
		if (r.w <= 0)
			return 0;
		theme_addstr(stdscr, r.y, r.x, r.w, "Lesson", theme_attr(ROLE_TITLE));
		theme_addstr(stdscr, r.y + 1, r.x, r.w, "none open: mha-tui --lesson ID", theme_attr(ROLE_DIM));
		return 0;
	}
	if (r.w <= 0)
		return 0;
	if (!learn_lesson(app)) {
		menu_draw(app, r, hits);
		return 0;
	}
	hit_add(hits, r, HIT_PANE, 0, 0, 0, r.w); /* the wheel scrolls its text */
	return draw_step(app, r);
}
