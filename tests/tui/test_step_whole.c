/*
 * test_step_whole.c - at 80x24 a learner reads every step without
 * scrolling: every step of every shipped lesson drawn at 80x24, with every
 * hint shown and, for a question, the longest feedback to a known wrong
 * answer, shows its heading, every line of its prose, the question with
 * each choice, the answer given with its feedback, and each hint whole in
 * the lesson pane (MHA_SHOW_SCREEN=1: the first screen that does not). It prints the count of steps that fail (the issue's
 * measure: 102 of 110 before the reading layout, 0 after). It does not check the
 * matrices beside the pane (test_step_rows does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "pane.h"
#include "mode.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-step-whole-XXXXXX";

/* Whether the whole of line is on one of the rows of r in the screen text. */
static bool in_rect(const char *text, struct rect r, const char *line)
{
	const char *row = text;
	size_t k = strlen(line);
	for (int y = 0; row && y < r.y + r.h; y++) {
		const char *end = strchr(row, '\n');
		size_t n = end ? (size_t)(end - row) : strlen(row);
		for (size_t i = 0; y >= r.y && i + k <= n; i++)
			if (memcmp(row + i, line, k) == 0)
				return true;
		row = end ? end + 1 : NULL;
	}
	return false;
}

/* The lines a learner must be able to read. */
static bool must_show(enum lesson_line_kind k)
{
	return k == LESSON_LINE_TITLE || k == LESSON_LINE_PROSE || k == LESSON_LINE_VERBATIM ||
	       k == LESSON_LINE_QUESTION || k == LESSON_LINE_CHOICE || k == LESSON_LINE_ANSWER ||
	       k == LESSON_LINE_HINT;
}

/* The known wrong answer with the longest feedback, or NULL. */
static const char *longest_wrong(const struct lesson_step *s)
{
	const struct lesson_question *q = s->question;
	const char *best = NULL;
	size_t len = 0;
	for (int k = 0; q && !q->flash && k < q->nfeedback; k++)
		if (strlen(q->feedback[k].text) > len) {
			len = strlen(q->feedback[k].text);
			best = q->feedback[k].key;
		}
	return best;
}

/* Step si of lesson li at rows x cols, every hint shown and the longest
 * feedback given: the lines it cannot show whole (the first on stderr). */
static int step_missing(int li, int si, int rows, int cols)
{
	struct app *app = tui_check_open_at(&set, li, si);
	const struct lesson_step *s = &set.lessons[li].steps[si];
	const char *wrong = longest_wrong(s);
	if (wrong) {
		char msg[LESSON_STATUS_MAX];
		lesson_run_answer(&app->learn.run, wrong, msg, sizeof msg);
		learn_evaluate(app);
		app_recompute(app);
	}
	app->learn.run.hints_shown = s->nhints;
	app->learn.reading = true; /* as a step opens, a hint shows, an answer is given */
	app->now_ms = 1000000;
	const char *text;
	struct body_layout b = tui_check_screen_layout(app, rows, cols, false, &text);
	struct lesson_text t = { 0 };
	int missing = 0;
	if (b.lesson.w <= 0 || b.lesson.h <= 0) {
		fprintf(stderr, "lesson %d step %s at %dx%d: no lesson pane\n", set.lessons[li].number, s->id, cols,
		        rows);
		missing = 1;
	} else {
		assert_int_equal(lesson_run_pane(&app->learn.run, b.lesson.w, mode_lesson_key, app, false, &t), 0);
		for (int i = 1; i < t.count; i++) /* the lesson's title, line 0, may give way */
			if (must_show(t.lines[i].kind) && t.lines[i].text[0] && !in_rect(text, b.lesson, t.lines[i].text)) {
				if (!missing && getenv("MHA_SHOW_SCREEN"))
					fprintf(stderr, "%s", text);
				if (!missing)
					fprintf(stderr, "lesson %d step %s at %dx%d (pane %dx%d, %d lines): \"%s\" not shown\n",
					        set.lessons[li].number, s->id, cols, rows, b.lesson.w, b.lesson.h, t.count,
					        t.lines[i].text);
				missing++;
			}
	}
	lesson_text_free(&t);
	tui_check_close(app);
	return missing;
}

static void test_every_step_whole_at_80x24(void **state)
{
	(void)state;
	int bad = 0, steps = 0;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++, steps++)
			bad += step_missing(li, si, 24, 80) > 0;
	fprintf(stderr, "%d of %d lesson steps are not drawn whole at 80x24 (every hint shown, the longest "
	        "feedback)\n", bad, steps);
	assert_true(steps > 100);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_step_whole_at_80x24),
	};
	if (tui_check_lessons_open(&set, dir) != 0)
		return 1;
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return tui_check_lessons_close(&set, dir) != 0 ? 1 : failed;
}
