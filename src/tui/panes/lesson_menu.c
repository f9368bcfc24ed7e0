/*
 * lesson_menu.c - the list of lessons as the side pane shows it
 * (lesson_menu.h): its heading and the keys that lead back, the lessons
 * with the selection while the menu has the keys, how many more when they
 * do not all fit, the overall progress and the legend of the workbench's
 * short forms. The lines come from the lesson library (lesson_menu); this
 * only places and styles them. The menu's keys are the menu mode's
 * (menu.c); its selection is the lessons' (learn.c).
 */
#include "lesson_menu.h"

#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "learn.h"
#include "lesson.h"
#include "lesson_pane.h"
#include "mode.h"
#include "pane.h"
#include "theme.h"

static int add_wrapped(struct lesson_text *t, const char *s, int width, enum lesson_line_kind kind,
                       const void *ctx)
{
	return lesson_wrap(t, s, width, kind, mode_lesson_key, ctx);
}

static void put_line(int y, struct rect r, const struct lesson_line *ln, attr_t a)
{
	theme_addstr(stdscr, y, r.x, r.w, ln->text, a);
}

/* The lines under the list: the overall progress, load errors if any,
 * and the workbench's short forms explained once on the first screen,
 * here when every lesson still fits (else the counts' place has them,
 * workbench.c). True when the legend is among them. */
static bool foot_build(const struct app *app, struct rect r, const struct lesson_text *menu,
                       struct lesson_text *foot)
{
	const struct app_learn *l = &app->learn;
	for (int i = 1 + l->set->count; i < menu->count; i++)
		if (menu->lines[i].kind != LESSON_LINE_BLANK)
			lesson_text_add(foot, menu->lines[i].kind, menu->lines[i].text, r.w);
	if (l->none[0])
		add_wrapped(foot, l->none, r.w, LESSON_LINE_KEYS, app);
	struct lesson_text legend = { 0 };
	add_wrapped(&legend, lesson_menu_legend(), r.w, LESSON_LINE_KEYS, app);
	bool fits = 1 + l->set->count + foot->count + legend.count <= r.h;
	if (fits)
		for (int i = 0; i < legend.count; i++)
			lesson_text_add(foot, legend.lines[i].kind, legend.lines[i].text, r.w);
	lesson_text_free(&legend);
	return fits;
}

bool lesson_menu_legend_shown(const struct app *app, struct rect r)
{
	if (!app->learn.set || r.h <= 0 || r.w <= 0)
		return false;
	struct lesson_text menu = { 0 }, foot = { 0 };
	lesson_menu(app->learn.set, &app->learn.progress, r.w, theme_utf8(), &menu);
	bool shown = foot_build(app, r, &menu, &foot);
	lesson_text_free(&menu);
	lesson_text_free(&foot);
	return shown;
}

void lesson_menu_draw(const struct app *app, struct rect r, struct hit_map *hits)
{
	const struct app_learn *l = &app->learn;
	bool keys_here = mode_is(app, "menu");
	const void *ctx = app; /* {key:ID}: the app's keys */
	struct lesson_text head = { 0 }, menu = { 0 }, foot = { 0 };
	if (!l->set) {
		lesson_text_add(&head, LESSON_LINE_TITLE, "Lessons", r.w);
		add_wrapped(&head, "No lessons found; the workbench works without them.", r.w, LESSON_LINE_PROSE, ctx);
		lesson_text_add(&head, LESSON_LINE_BLANK, "", r.w);
		add_wrapped(&head, l->none, r.w, LESSON_LINE_KEYS, ctx);
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
	add_wrapped(&head, keys, r.w, LESSON_LINE_KEYS, ctx);
	/* keys that fit beside the heading go there: a line more for the list */
	int tl = menu.count > 0 ? (int)strlen(menu.lines[0].text) : 0;
	bool beside = head.count == 2 && tl + 2 + (int)strlen(head.lines[1].text) <= r.w;
	foot_build(app, r, &menu, &foot);

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
		         keys_here ? "up/down" : mode_key_name(app, "menu"));
		if (first == 0)
			snprintf(mark, sizeof mark, "-- %d more below (%s) --", n - rows, keys_here ? "down" : mode_key_name(app, "menu"));
		else if (first + rows >= n)
			snprintf(mark, sizeof mark, "-- %d more above (%s) --", first, keys_here ? "up" : mode_key_name(app, "menu"));
		draw_fit(y++, r.x, r.w, mark, theme_attr(ROLE_DIM));
	}
	for (int i = 0; i < foot.count && y < r.y + r.h; i++, y++)
		put_line(y, r, &foot.lines[i], lesson_pane_attr(foot.lines[i].kind));
	lesson_text_free(&head);
	lesson_text_free(&menu);
	lesson_text_free(&foot);
}

const char *lesson_menu_legend(void)
{
	return "Symbols: n tokens, d model width, h heads, h_kv KV heads, d_k width per head; "
	       "H row entropy in nats (0: one key, ln n: uniform)";
}

