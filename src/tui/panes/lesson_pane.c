/*
 * lesson_pane.c - the lesson pane: the step's lines as pane.h composes
 * them, placed in the pane's rectangle and styled by their kind.
 *
 * A step: its heading stays at the top and the goal's state (with the
 * tick the moment it holds) at the bottom, whatever the scroll, so the
 * exercise's state is always on screen; while the goal is open, what it
 * asks stays above the goal too: the question with its choices, the
 * answer given and the whole feedback to it (the status line may only
 * have room for its start). The instruction (the first paragraph) stays
 * under the heading when it fits with them; the rest of the text scrolls
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
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "lesson_menu.h"
#include "mode.h"
#include "theme.h"

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

static bool goal_line(enum lesson_line_kind k)
{
	return k == LESSON_LINE_MET || k == LESSON_LINE_UNMET;
}

/* Marks in pin[] (1) the lines [b0, g1) that stay at the bottom, at most
 * room of them when it can: the keys lines among them go first (the hint
 * bar names the key), then the blank ones (2: left out). Returns how many
 * stay. */
static int pin_block(const struct lesson_text *t, int b0, int g1, int room, char *pin)
{
	int n = 0;
	for (int i = b0; i < g1; i++, n++)
		pin[i] = 1;
	for (int pass = 0; pass < 2 && n > room; pass++)
		for (int i = b0; i < g1 && n > room; i++)
			if (t->lines[i].kind == (pass == 0 ? LESSON_LINE_KEYS : LESSON_LINE_BLANK) && pin[i] == 1) {
				pin[i] = 2;
				n--;
			}
	return n;
}

/* Where a step's lines go: the heading [0, top) on top; [b0, g1) at the
 * bottom: the goal's lines and, while the goal is open, what it asks (the
 * question with its choices, the answer given and the feedback to it). */
struct parts {
	int top, b0, g1;
	bool open;
};

static struct parts parts_of(const struct lesson_text *t, bool asked)
{
	struct parts p = { 0, t->count, t->count, false };
	while (p.top < t->count && p.top < 3 && t->lines[p.top].kind == LESSON_LINE_TITLE)
		p.top++;
	int g0 = t->count;
	for (int i = p.top; i < t->count; i++)
		if (goal_line(t->lines[i].kind)) {
			g0 = i;
			for (p.g1 = i; p.g1 < t->count && t->lines[p.g1].kind == t->lines[i].kind; p.g1++)
				;
			break;
		}
	p.open = p.g1 > g0 && t->lines[g0].kind == LESSON_LINE_UNMET;
	p.b0 = g0;
	for (int i = p.top; p.open && asked && i < g0; i++)
		if (t->lines[i].kind == LESSON_LINE_QUESTION) {
			p.b0 = i;
			break;
		}
	return p;
}

/* Where the instruction (the prose's first paragraph, the lessons'
 * convention) ends, with the blank line under it as a rule above the
 * rest: the heading's end top, the pinned block's start b0. */
static int instruction_end(const struct lesson_text *t, int top, int b0)
{
	int i1 = top;
	while (i1 < b0 && t->lines[i1].kind == LESSON_LINE_BLANK)
		i1++;
	while (i1 < b0 && t->lines[i1].kind == LESSON_LINE_PROSE)
		i1++;
	if (i1 < b0 && t->lines[i1].kind == LESSON_LINE_BLANK)
		i1++;
	return i1;
}

int lesson_pane_text(const struct app *app, int width, struct lesson_text *t)
{
	if (!learn_lesson(app))
		return 0;
	return lesson_run_pane(&app->learn.run, width, mode_lesson_key, app, theme_utf8(), t);
}

/* Is the step's question still waiting for its right answer? Once it
 * has it, the instruction for the rest of the step matters more than the
 * question, which is no longer kept in view. */
static bool asking(const struct app *app)
{
	const struct lesson_run *run = &app->learn.run;
	return learn_lesson(app) && lesson_run_step(run)->question && !(run->answered && run->answer_right);
}

int lesson_pane_rows_wanted(const struct app *app, const struct lesson_text *t)
{
	if (t->count == 0)
		return 0;
	struct parts p = parts_of(t, asking(app));
	/* the heading and the instruction under it, the pinned lines, and for
	 * the rest a blank line, a line and the "more" line */
	int want = instruction_end(t, p.top, p.b0) + p.g1 - p.b0 + 3;
	return want < t->count ? want : t->count;
}

/* Line i out of t. */
static void drop_line(struct lesson_text *t, int i)
{
	free(t->lines[i].text);
	memmove(&t->lines[i], &t->lines[i + 1], (size_t)(t->count - i - 1) * sizeof *t->lines);
	t->count--;
}

int lesson_pane_squeeze(struct lesson_text *t, int rows)
{
	/* a line of keys whole, with the lines it wrapped onto */
	for (int i = t->count - 1; i >= 0 && t->count > rows; i--)
		if (t->lines[i].kind == LESSON_LINE_KEYS)
			for (; i >= 0 && t->lines[i].kind == LESSON_LINE_KEYS; i--)
				drop_line(t, i);
	if (t->count > rows && t->count > 0 && t->lines[0].kind == LESSON_LINE_TITLE)
		drop_line(t, 0);
	for (int i = t->count - 1; i >= 0 && t->count > rows; i--)
		if (t->lines[i].kind == LESSON_LINE_BLANK)
			drop_line(t, i);
	return t->count;
}

/* The step in r from its text t (drawn as given: the caller owns it). */
static int draw_step(const struct app *app, const struct lesson_text *tt, struct rect r)
{
	const struct lesson_text t = *tt;
	char *pin = t.count <= r.h ? NULL : calloc((size_t)t.count, 1);
	if (!pin) { /* it all fits: as composed, the goal right under the text */
		for (int i = 0; i < t.count && i < r.h; i++)
			put_line(r.y + i, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind) |
			         (t.lines[i].kind == LESSON_LINE_MET ? A_BOLD : 0));
		return 0;
	}
	/* else the heading on top, and at the bottom the goal's lines and,
	 * while the goal is open, what it asks */
	struct parts p = parts_of(&t, asking(app));
	int top = p.top, b0 = p.b0, g1 = p.g1;
	bool open = p.open;
	/* the pinned lines leave a line of the rest and the "more" line */
	int pinned = pin_block(&t, b0, g1, r.h - top - 2, pin);
	if (top + pinned > r.h) /* a tiny pane: the goal and the feedback first */
		top = r.h - pinned > 0 ? r.h - pinned : 0;
	/* and the instruction (the prose's first paragraph, the lessons'
	 * convention) under the heading, when it fits with them, a blank
	 * line, a line of the rest and the "more" line */
	if (open) {
		int i1 = instruction_end(&t, top, b0);
		if (i1 + pinned + 3 <= r.h) /* a blank, a line of the rest, the "more" line */
			top = i1;
	}
	for (int i = 0; i < top; i++)
		put_line(r.y + i, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind));
	int shown = pinned < r.h - top ? pinned : r.h - top, skip = pinned - shown, y = r.y + r.h - shown;
	for (int i = b0; i < g1; i++)
		if (pin[i] == 1 && skip-- <= 0)
			put_line(y++, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind) |
			         (goal_line(t.lines[i].kind) ? A_BOLD : 0));

	/* the text between, scrolled; a blank line ends it above the pinned
	 * lines when it scrolls */
	int mid = 0;
	for (int i = top; i < t.count; i++)
		mid += pin[i] == 0;
	int rows = r.h - top - shown, scroll_max = 0, first = 0;
	if (rows > 0 && mid > rows) {
		rows -= rows >= 3 && shown > 0 ? 2 : 1; /* the blank, and the row saying what is hidden */
		scroll_max = mid - rows;
		first = app->learn.scroll < scroll_max ? app->learn.scroll : scroll_max;
		char more[64];
		if (first < scroll_max)
			snprintf(more, sizeof more, "-- %d more line%s: %s shows all --", mid - rows - first,
			         mid - rows - first == 1 ? "" : "s", mode_key_name(app, "read"));
		else
			snprintf(more, sizeof more, "-- end; %s scrolls back --", mode_key_name(app, "scroll-up"));
		theme_addstr(stdscr, r.y + top + rows, r.x, r.w, more, theme_attr(ROLE_DIM));
	}
	for (int k = 0, i = top; i < t.count && k < first + rows; i++) {
		if (pin[i])
			continue;
		if (k >= first)
			put_line(r.y + top + k - first, r, &t.lines[i], lesson_pane_attr(t.lines[i].kind));
		k++;
	}
	free(pin);
	return scroll_max;
}

int lesson_pane_draw(const struct app *app, const struct frame *f, struct rect r, struct hit_map *hits)
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
		lesson_menu_draw(app, r, hits);
		return 0;
	}
	hit_add(hits, r, HIT_PANE, 0, 0, 0, r.w); /* the wheel scrolls its text */
	if (f->pane.count > 0 && f->pane_width == r.w)
		return draw_step(app, &f->pane, r); /* as the frame measured it */
	struct lesson_text t = { 0 };
	int scroll = 0;
	if (lesson_pane_text(app, r.w, &t) != 0)
		theme_addstr(stdscr, r.y, r.x, r.w, "out of memory for the lesson text", theme_attr(ROLE_ERROR));
	else
		scroll = draw_step(app, &t, r);
	lesson_text_free(&t);
	return scroll;
}
