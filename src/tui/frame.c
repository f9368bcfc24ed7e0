/*
 * frame.c - the frame of every screen (frame.h): the pipeline bar on top,
 * the status line and the key hints at the bottom, and between them what
 * the current mode draws (mode.h: its body and side pane, or the help
 * overlay over them); below 80x24 only the "needs 80x24" screen. Each
 * part comes from the first mode in line that draws it (mode_chain). The
 * hint line and a view's second line of keys come from the key tables
 * (hints.c). It reads the state and never changes it. As it draws it
 * records where the stage labels and key hints went (hit.h), and the
 * modes record theirs: an output, for app_mouse to read.
 */
#include "frame.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "help.h"
#include "hints.h"
#include "learn.h"
#include "lesson_pane.h"
#include "mode.h"
#include "theme.h"

static void draw_bar(const struct app *app, struct rect r, struct hit_map *hits)
{
	int x = r.x + 1;
	for (int s = 0; s < PIPELINE_STAGE_COUNT && x < r.x + r.w; s++) {
		char label[32];
		snprintf(label, sizeof label, "%d %s", s + 1, pipeline_stage_label((enum pipeline_stage)s));
		attr_t a = theme_attr(s == (int)app->stage ? ROLE_STAGE_CURRENT : ROLE_STAGE);
		int w = draw_put(r.y, x, r.x + r.w - x, label, a);
		hit_add(hits, (struct rect){ r.y, x, 1, w }, HIT_STAGE, s, 0, 0, 1);
		x += w + 2;
	}
	/* a stack: which layer the stages are of, at the bar's right end */
	if (app->cfg.layers > 1) {
		char layer[32];
		snprintf(layer, sizeof layer, "layer %d/%d", app->layer, app->cfg.layers);
		int lw = (int)strlen(layer), lx = r.x + r.w - lw - 1;
		if (lx >= x) /* where the stages leave room (the formula says it too) */
			draw_put(r.y, lx, r.x + r.w - lx, layer, theme_attr(ROLE_STAGE_CURRENT));
	}
}

/* Does a table have rows for a hint line of this kind? */
static bool has_bar(const struct action *t, unsigned bar)
{
	for (int i = 0, n = action_count(t); i < n; i++)
		if (t[i].bar & bar)
			return true;
	return false;
}

/* The last line: the keys of the first mode in line that flags any for
 * it (the free workbench's or a lesson's); a view adds how to leave it and
 * the help and quit keys, which work in every view. */
static void draw_hints(const struct app *app, const struct mode_ops *const *m, int n, struct rect r,
                       struct hit_map *hits)
{
	unsigned bar = learn_lesson(app) ? ACTION_BAR_LESSON : ACTION_BAR_FREE;
	int i = 0;
	while (i < n - 1 && !has_bar(m[i]->keys, bar))
		i++;
	if (m[i] == mode_workbench(app) || m[i]->prompt) {
		hints_draw(app, m[i]->keys, bar, r, r.x, hits);
		return;
	}
	/* a view: its keys, then "Esc back  ? help  q quit", or at least
	 * "Esc back  ? q" (room kept for it) */
	const struct action *help = mode_action(app, "help", NULL), *quit = mode_action(app, "quit", NULL);
	if (!help || !quit)
		return;
	char tail[64], brief[64];
	snprintf(tail, sizeof tail, "Esc back  %s %s  %s %s", help->label, help->name, quit->label, quit->name);
	snprintf(brief, sizeof brief, "Esc back  %s %s", help->label, quit->label);
	struct rect rows = r;
	rows.w -= draw_width(brief) + 2;
	int x = hints_draw(app, m[i]->keys, bar, rows, r.x, hits);
	bool whole = x + draw_width(tail) <= r.x + r.w;
	x = hints_put(r, x, "Esc", "back", 27, hits) + 2;
	x = hints_put(r, x, help->label, whole ? help->name : "", help->keys[0], hits) + (whole ? 2 : 1);
	hints_put(r, x, quit->label, whole ? quit->name : "", quit->keys[0], hits);
}

/* The status line: a prompt's line, else the first mode in line that
 * draws one (a view's state; a message goes to the workbench, which shows
 * it); a view with no line of its own shows its second line of keys while
 * no message shows. */
static void draw_status(const struct app *app, const struct frame *f, const struct mode_ops *const *m, int n,
                        struct rect r, struct hit_map *hits)
{
	bool message = app->status[0] && app->now_ms < app->status_until_ms;
	for (int i = 0; i < n; i++) {
		if (m[i]->status && m[i]->status(app, f, r))
			return;
		if (!message && !m[i]->status && has_bar(m[i]->keys, ACTION_BAR_MORE)) {
			hints_draw(app, m[i]->keys, ACTION_BAR_MORE, r, r.x, hits);
			return;
		}
	}
}

/* Two lines, centred; the short forms when the long ones do not fit. */
static void draw_too_small(int rows, int cols, const char *quit)
{
	char msg[128];
	int y = rows / 2 - 1;
	snprintf(msg, sizeof msg, "mha-tui needs a terminal of at least %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	if ((int)strlen(msg) > cols)
		snprintf(msg, sizeof msg, "needs %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	int x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	draw_put(y, x, cols - x, msg, theme_attr(ROLE_ERROR));
	snprintf(msg, sizeof msg, "this one is %dx%d: enlarge it (%s quits)", cols, rows, quit);
	if ((int)strlen(msg) > cols)
		snprintf(msg, sizeof msg, "is %dx%d; %s quits", cols, rows, quit);
	x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	draw_put(y + 1, x, cols - x, msg, theme_attr(ROLE_NORMAL));
}

/* The reading layout: while the learner reads a lesson step (a step
 * opened, a hint, an answer: app_learn.reading) whose text is more than
 * the pane that the mode's layout gave it holds, the words take the body,
 * in a column up to READ_COLS wide, so that the question, its prose, every
 * hint and the feedback show whole without scrolling; the matrices come
 * back with the first key that works on them. Then fr->pane holds the
 * text at that width and *r the column. Not while the learner chose the
 * counts in the pane's place (#). */
enum { READ_COLS = 76 };

static bool reading_layout(const struct app *app, int rows, int cols, const struct body_layout *b, struct frame *fr,
                           struct rect *r)
{
	if (!learn_lesson(app) || !app->learn.reading || app->help_open || b->lesson.h <= 0 || b->lesson.w <= 0)
		return false;
	if (fr->pane_width != b->lesson.w) {
		lesson_text_free(&fr->pane);
		fr->pane_width = b->lesson.w;
		if (lesson_pane_text(app, fr->pane_width, &fr->pane) != 0)
			return false;
	}
	if (fr->pane.count <= b->lesson.h)
		return false; /* the pane holds it all */
	int w = cols - 2 < READ_COLS ? cols - 2 : READ_COLS;
	lesson_text_free(&fr->pane);
	fr->pane_width = w;
	if (lesson_pane_text(app, w, &fr->pane) != 0)
		return false;
	lesson_pane_squeeze(&fr->pane, rows - 3);
	*r = (struct rect){ 1, (cols - w) / 2, rows - 3, w };
	return true;
}

/* Under the reading layout's text, when there is a row for it: how the
 * matrices come back. */
static void reading_note(const struct app *app, const struct frame *fr, struct rect r)
{
	if (fr->pane.count >= r.h)
		return;
	char note[96];
	snprintf(note, sizeof note, "-- reading the step: %s shows the matrices, and so does any of their keys --",
	         mode_key_name(app, "read"));
	draw_put(r.y + r.h - 1, r.x, r.w, note, theme_attr(ROLE_DIM));
}

struct body_layout frame_draw(const struct app *app, int rows, int cols, struct hit_map *hits)
{
	hit_clear(hits);
	erase();
	/* # trades the narrow side column for the counts: in a lesson the
	 * counts' full form there, in the free workbench its own layout. The
	 * free workbench shows the lesson menu only while the menu has the
	 * keys (M brings it back): the rest of the time its matrices get the
	 * room. */
	bool lesson = learn_lesson(app) != NULL;
	enum layout_pane pane = !app->learn.enabled ? LAYOUT_PANE_NONE
	                      : !lesson && !mode_is(app, "menu") ? LAYOUT_PANE_NONE
	                      : !app->learn.show_counts ? LAYOUT_PANE_LESSON
	                      : lesson ? LAYOUT_PANE_COUNTS : LAYOUT_PANE_NONE;
	/* what every part draws from, worked out once: the focused stage's
	 * view, the cell under the cursor, and (narrow, in a lesson) the
	 * step's pane text, which also decides the pane's room */
	struct frame fr;
	memset(&fr, 0, sizeof fr);
	app_view(app, &fr.view);
	fr.has_cursor = app_view_cursor(app, &fr.view, &fr.cursor, &fr.cursor_panel);
	/* narrow, in a step whose question, feedback and goal need the rows
	 * of the counts under the pane: the pane takes the whole column */
	if (pane == LAYOUT_PANE_LESSON && lesson && cols < LAYOUT_WIDE_COLS) {
		fr.pane_width = LAYOUT_PANE_COLS;
		if (lesson_pane_text(app, fr.pane_width, &fr.pane) != 0)
			lesson_text_free(&fr.pane); /* the pane says it is out of memory */
		if (lesson_pane_rows_wanted(app, &fr.pane) > rows - 3 - LAYOUT_PANE_COUNT_LINES - 1)
			pane = LAYOUT_PANE_LESSON_ALONE;
	}
	struct layout l = layout_frame(rows, cols, pane);
	struct body_layout b;
	memset(&b, 0, sizeof b);
	if (l.too_small) {
		draw_too_small(rows, cols, mode_key_name(app, "quit"));
		lesson_text_free(&fr.pane);
		return b;
	}
	/* each part from the first mode in line that draws it */
	const struct mode_ops *m[3];
	int n = mode_chain(app, m), i;
	for (i = 0; i < n - 1 && !m[i]->layout; i++)
		;
	b = m[i]->layout(app, &fr, &l, cols);
	draw_bar(app, l.bar, hits);
	struct rect read;
	if (app->help_open) {
		help_draw(app, rows, cols);
	} else if (reading_layout(app, rows, cols, &b, &fr, &read)) {
		for (i = 0; i < n - 1 && !m[i]->pane; i++)
			;
		b.lesson = read;
		b.pane_scroll_max = m[i]->pane(app, &fr, read, hits);
		reading_note(app, &fr, read);
	} else {
		for (i = 0; i < n - 1 && !m[i]->body; i++)
			;
		m[i]->body(app, &fr, &b, hits);
		for (i = 0; i < n - 1 && !m[i]->pane; i++)
			;
		b.pane_scroll_max = m[i]->pane(app, &fr, b.lesson, hits);
	}
	draw_status(app, &fr, m, n, l.status, hits);
	draw_hints(app, m, n, l.hints, hits);
	lesson_text_free(&fr.pane);
	return b;
}
