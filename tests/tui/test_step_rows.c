/*
 * test_step_rows.c - a lesson step's matrix gets its rows first: every
 * step of every shipped lesson drawn at 80x24, 120x40 and 200x60 shows
 * the matrix the step names (the cursor's panel on its stage) with at
 * least min(n, 6) of its n rows, all of them when n <= 8; no matrix title
 * is drawn with no row under it, or cut by its panel's width. And while a
 * step's goal is open its instruction (the first paragraph) and the goal
 * line (or the question's first line and the goal) stay on screen with the
 * pane scrolled to its end. It does not
 * check what the rows hold (test_screens and the blind learner do).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "lesson_pane.h"
#include "pane.h"
#include "mode.h"
#include "panels.h"
#include "tui_check.h"
#include "vscreen.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-step-rows-XXXXXX";

/* The heatmaps' one-line note (no heatmap fits) in one of its forms,
 * whole: it ends in ")" or "terminal" within its box, or is left out. */
static int heat_note_cut(const char *text, const struct body_layout *b)
{
	if (b->heat.h != 1 || b->heat_per_page > 0)
		return 0;
	const char *line = text;
	for (int y = 0; y < b->heat.y && line; y++) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line)
		return 1;
	char box[512];
	snprintf(box, sizeof box, "%.*s", b->heat.w < (int)sizeof box - 1 ? b->heat.w : (int)sizeof box - 1, line);
	char *nl = strchr(box, '\n');
	if (nl)
		*nl = '\0';
	size_t n = strlen(box);
	while (n > 0 && box[n - 1] == ' ')
		box[--n] = '\0';
	bool whole = n == 0 || box[n - 1] == ')' || (n >= 8 && strcmp(box + n - 8, "terminal") == 0);
	return whole ? 0 : 1;
}

/* Step si of lesson li at rows x cols: 0 when it passes, else 1 with why
 * on stderr. */
static int step_check(int li, int si, int rows, int cols)
{
	struct app *app = tui_check_open(&set);
	if (learn_open(app, li, si) & APP_RECOMPUTE)
		app_recompute(app);
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	struct body_layout b = draw_screen(app, rows, cols);
	static char text[64 * 1024];
	vscreen_text(text, sizeof text);
	vscreen_close();
	int bad = heat_note_cut(text, &b);
	if (bad)
		fprintf(stderr, "lesson %d step %s at %dx%d: the heatmaps' note is cut\n", set.lessons[li].number,
		        set.lessons[li].steps[si].id, cols, rows);
	if (app->mode == MODE_WORKBENCH && !learn_stage_hidden(app, app->stage)) {
		struct stage_view v;
		struct rect got[STAGE_PANELS_MAX];
		app_view(app, &v);
		int need = 0, f = panels_focus(app, &v, &need);
		panels_place(app, &v, b.numbers, b.numbers_cell_w, got);
		if (f < 0) {
			fprintf(stderr, "lesson %d step %s: no step matrix\n", set.lessons[li].number,
			        set.lessons[li].steps[si].id);
			bad = 1;
		} else if (got[f].h - 2 < need) {
			fprintf(stderr, "lesson %d step %s at %dx%d: %s shows %d of %d rows (wants %d)\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, v.p[f].title,
			        got[f].h > 2 ? got[f].h - 2 : 0, v.p[f].rows, need);
			bad = 1;
		}
		for (int i = 0; i < v.count; i++)
			if (got[i].h > 0 && (int)strlen(v.p[i].title) > got[i].w) {
				fprintf(stderr, "lesson %d step %s at %dx%d: title %s cut to %d columns\n", set.lessons[li].number,
				        set.lessons[li].steps[si].id, cols, rows, v.p[i].title, got[i].w);
				bad = 1;
			} else if (got[i].h > 0 && got[i].h < 3) {
				fprintf(stderr, "lesson %d step %s at %dx%d: title %s with no row\n", set.lessons[li].number,
				        set.lessons[li].steps[si].id, cols, rows, v.p[i].title);
				bad = 1;
			}
	}
	tui_check_close(app);
	return bad;
}

/* At 80x24, 120x40 and 200x60. */
static void test_step_matrix_rows_first(void **state)
{
	(void)state;
	static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
	int bad = 0, steps = 0;
	for (int z = 0; z < 3; z++)
		for (int li = 0; li < set.count; li++)
			for (int si = 0; si < set.lessons[li].nsteps; si++, steps++)
				bad += step_check(li, si, sizes[z][0], sizes[z][1]);
	fprintf(stderr, "%d of %d step screens fail (80x24, 120x40, 200x60)\n", bad, steps);
	assert_true(set.count >= 14);
	assert_int_equal(bad, 0);
}

/* Whether the whole of line (wrapped for the pane) is on one screen row. */
static bool on_screen(const char *text, const char *line)
{
	return line[0] && strstr(text, line) != NULL;
}

/* Steps whose first paragraph is too long to stay (at 80x24), and the
 * question too (when there is one): the lesson text's to shorten. */
static int too_long;

/* Step si of lesson li at rows x cols, its pane scrolled to the end: the
 * instruction's first and last lines and the goal's first line are there
 * when the goal is open, as long as they fit with a line to scroll (else
 * the question, if the step has one). 0 when so (or no open goal), else 1. */
static int instruction_check(int li, int si, int rows, int cols)
{
	struct app *app = tui_check_open(&set);
	if (learn_open(app, li, si) & APP_RECOMPUTE)
		app_recompute(app);
	int bad = 0;
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	struct body_layout b = draw_screen(app, rows, cols);
	app->learn.scroll_max = b.pane_scroll_max;
	app->learn.scroll = LEARN_SCROLL_END;
	draw_screen(app, rows, cols);
	static char text[64 * 1024];
	vscreen_text(text, sizeof text);
	vscreen_close();
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_run_pane(&app->learn.run, b.lesson.w, lesson_pane_key, NULL, false, &t), 0);
	/* the instruction: the first paragraph after the heading */
	int first = -1, last = -1, question = -1, goal = -1, top = 0;
	while (top < t.count && top < 3 && t.lines[top].kind == LESSON_LINE_TITLE)
		top++;
	for (int i = top; i < t.count; i++) {
		enum lesson_line_kind k = t.lines[i].kind;
		if (k == LESSON_LINE_PROSE && (first < 0 || last == i - 1))
			last = first < 0 ? (first = i) : i;
		if (k == LESSON_LINE_QUESTION && question < 0)
			question = i;
		if (k == LESSON_LINE_UNMET && goal < 0)
			goal = i;
	}
	int goal_h = 0;
	while (goal >= 0 && goal + goal_h < t.count && t.lines[goal + goal_h].kind == LESSON_LINE_UNMET)
		goal_h++;
	/* what fits pinned: the paragraph (and the blank under it) above the
	 * goal, a line of the rest and the "more" line */
	bool fits = first >= 0 && last + 2 + goal_h + 1 + 2 <= b.lesson.h;
	if (goal >= 0 && first >= 0 && b.lesson.h > 0 && t.count > b.lesson.h) {
		bool shown = on_screen(text, t.lines[goal].text) &&
		             (fits ? on_screen(text, t.lines[first].text) && on_screen(text, t.lines[last].text)
		                   : question < 0 || on_screen(text, t.lines[question].text));
		if (!fits)
			too_long++;
		if (!shown) {
			fprintf(stderr, "lesson %d step %s at %dx%d: instruction or goal scrolled away\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows);
			bad = 1;
		}
		if (!fits)
			fprintf(stderr, "lesson %d step %s at %dx%d: the first paragraph is too long to stay (%s)\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows,
			        question >= 0 ? "its question does" : "nothing else to keep");
	}
	lesson_text_free(&t);
	tui_check_close(app);
	return bad;
}

/* Every step with an open goal, at the three sizes. */
static void test_step_instruction_stays(void **state)
{
	(void)state;
	static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
	int bad = 0;
	for (int z = 0; z < 3; z++)
		for (int li = 0; li < set.count; li++)
			for (int si = 0; si < set.lessons[li].nsteps; si++)
				bad += instruction_check(li, si, sizes[z][0], sizes[z][1]);
	fprintf(stderr, "%d step screens lose their instruction; %d first paragraphs too long to keep\n", bad,
	        too_long);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_matrix_rows_first),
		cmocka_unit_test(test_step_instruction_stays),
	};
	if (tui_check_lessons_open(&set, dir) != 0)
		return 1;
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return tui_check_lessons_close(&set, dir) != 0 ? 1 : failed;
}
