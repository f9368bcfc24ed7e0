/*
 * draw.c - the frame of every screen: the pipeline bar on top, the status
 * line and the key hints at the bottom, and between them what the current
 * mode draws (mode.h: its body and side pane, or the help overlay over
 * them); below 80x24 only the "needs 80x24" screen. It reads the state and
 * never changes it. As it draws it records where the stage labels and key
 * hints went (hit.h), and the modes record theirs: an output, for
 * app_mouse to read.
 */
#include "draw.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "help.h"
#include "learn.h"
#include "lesson_pane.h"
#include "mode.h"
#include "theme.h"

int draw_put(int y, int x, int width, const char *s, attr_t a)
{
	return width > 0 ? theme_addstr(stdscr, y, x, width, s, a) : 0;
}

int draw_width(const char *s)
{
	char buf[512];
	return theme_cut(buf, sizeof buf, s, (int)sizeof buf, false);
}

/* Where s may end in a short form: before "  ", ", ", ": ", "; " or " ("
 * outside parentheses, so that a clause goes whole; before " (" only when
 * the parenthesis ends s or a clause ("heads off (x) give zero blocks"
 * cut there would read as a state). */
static bool clause_end(const char *s, size_t i)
{
	if (!s[i] || !s[i + 1])
		return false;
	if (s[i] == ' ' && s[i + 1] == '(') {
		const char *close = strchr(s + i, ')');
		return close && (!close[1] || clause_end(close, 1) || close[1] == ',' || close[1] == ';' ||
		                 close[1] == ':');
	}
	return (s[i] == ' ' && s[i + 1] == ' ') || ((s[i] == ',' || s[i] == ':' || s[i] == ';') && s[i + 1] == ' ');
}

int draw_short(char *out, size_t len, const char *s, int width)
{
	if (!out || len == 0)
		return 0;
	out[0] = '\0';
	if (!s || width <= 0)
		return 0;
	int w = draw_width(s);
	if (w <= width) {
		snprintf(out, len, "%s", s);
		return w;
	}
	size_t best = 0;
	int depth = 0;
	for (size_t i = 1; s[i] && i < len; i++) {
		depth += s[i] == '(' ? 0 : s[i] == ')' ? -1 : 0;
		if (depth == 0 && clause_end(s, i)) {
			snprintf(out, len, "%.*s", (int)i, s);
			if (draw_width(out) > width)
				break;
			best = i;
		}
		depth += s[i] == '(';
	}
	snprintf(out, len, "%.*s", (int)best, s);
	return best ? draw_width(out) : 0;
}

int draw_fit(int y, int x, int width, const char *s, attr_t a)
{
	char buf[512];
	return draw_short(buf, sizeof buf, s, width) > 0 ? draw_put(y, x, width, buf, a) : 0;
}

int draw_message(int y, int x, int width, const char *s, attr_t a)
{
	if (width <= 0 || !s)
		return 0;
	if (draw_width(s) <= width)
		return draw_put(y, x, width, s, a);
	const char *dots = theme_utf8() ? "\u2026" : "...";
	int room = width - draw_width(dots);
	char buf[512];
	if (draw_short(buf, sizeof buf, s, room) == 0) { /* no clause fits: the words that do */
		theme_cut(buf, sizeof buf, s, room > 0 ? room : 0, false);
		size_t n = strlen(buf);
		if (s[n] != ' ')
			while (n > 0 && buf[n - 1] != ' ')
				n--;
		buf[n] = '\0';
	}
	size_t n = strlen(buf);
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == ',' || buf[n - 1] == ':' || buf[n - 1] == ';'))
		n--;
	snprintf(buf + n, sizeof buf - n, "%s", dots);
	return draw_put(y, x, width, buf, a);
}

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
}

static void draw_hints(const struct app *app, struct rect r, struct hit_map *hits)
{
	int count, x = r.x;
	const struct action *t = actions_table(&count);
	unsigned bar = learn_lesson(app) ? ACTIONS_BAR_LESSON : ACTIONS_BAR_FREE;
	for (int i = 0; i < count; i++) {
		if (!(t[i].bar & bar))
			continue;
		char h[48];
		snprintf(h, sizeof h, "%s %s", t[i].key_label, t[i].name);
		int len = (int)strlen(h);
		if (x + len > r.x + r.w)
			break;
		draw_put(r.y, x, len, t[i].key_label, theme_attr(ROLE_HINT) | A_BOLD);
		draw_put(r.y, x + (int)strlen(t[i].key_label) + 1, len, t[i].name, theme_attr(ROLE_HINT));
		hit_add(hits, (struct rect){ r.y, x, 1, len }, HIT_ACTION, i, 0, 0, 1);
		x += len + 2;
	}
}

/* Two lines, centred; the short forms when the long ones do not fit. */
static void draw_too_small(int rows, int cols)
{
	char msg[128];
	int y = rows / 2 - 1;
	snprintf(msg, sizeof msg, "mha-tui needs a terminal of at least %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	if ((int)strlen(msg) > cols)
		snprintf(msg, sizeof msg, "needs %dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	int x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	draw_put(y, x, cols - x, msg, theme_attr(ROLE_ERROR));
	snprintf(msg, sizeof msg, "this one is %dx%d: enlarge it (%s quits)", cols, rows,
	         actions_key_name("quit"));
	if ((int)strlen(msg) > cols)
		snprintf(msg, sizeof msg, "is %dx%d; %s quits", cols, rows, actions_key_name("quit"));
	x = cols > (int)strlen(msg) ? (cols - (int)strlen(msg)) / 2 : 0;
	draw_put(y + 1, x, cols - x, msg, theme_attr(ROLE_NORMAL));
}

struct body_layout draw_screen_hits(const struct app *app, int rows, int cols, struct hit_map *hits)
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
	                      : !lesson && mode_base(app) != MODE_MENU ? LAYOUT_PANE_NONE
	                      : !app->learn.show_counts ? LAYOUT_PANE_LESSON
	                      : lesson ? LAYOUT_PANE_COUNTS : LAYOUT_PANE_NONE;
	/* narrow, in a step whose question, feedback and goal need the rows
	 * of the counts under the pane: the pane takes the whole column */
	if (pane == LAYOUT_PANE_LESSON && lesson && cols < LAYOUT_WIDE_COLS &&
	    lesson_pane_rows_wanted(app, LAYOUT_PANE_COLS) > rows - 3 - LAYOUT_PANE_COUNT_LINES - 1)
		pane = LAYOUT_PANE_LESSON_ALONE;
	struct layout l = layout_frame(rows, cols, pane);
	struct body_layout b;
	memset(&b, 0, sizeof b);
	if (l.too_small) {
		draw_too_small(rows, cols);
		return b;
	}
	/* each part from the first mode in line that draws it */
	const struct mode_ops *m[3];
	int n = mode_chain(app, m), i;
	for (i = 0; i < n - 1 && !m[i]->layout; i++)
		;
	b = m[i]->layout(app, &l, cols);
	draw_bar(app, l.bar, hits);
	if (app->help_open) {
		help_draw(app, rows, cols);
	} else {
		for (i = 0; i < n - 1 && !m[i]->body; i++)
			;
		m[i]->body(app, &b, hits);
		for (i = 0; i < n - 1 && !m[i]->pane; i++)
			;
		b.pane_scroll_max = m[i]->pane(app, b.lesson, hits);
	}
	for (i = 0; i < n; i++)
		if (m[i]->status && m[i]->status(app, l.status))
			break;
	for (i = 0; i < n && !m[i]->hints; i++)
		;
	if (i < n)
		m[i]->hints(app, l.hints, hits);
	else
		draw_hints(app, l.hints, hits);
	return b;
}
