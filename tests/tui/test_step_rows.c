/*
 * test_step_rows.c - a lesson step's matrix gets its rows first: every
 * step of every shipped lesson drawn at 80x24, 120x40 and 200x60 shows
 * the matrix the step names (the cursor's panel on its stage) with at
 * least min(n, 6) of its n rows, all of them when n <= 8, and min(cols, 6)
 * of its columns, and every other matrix of the stage that the step's text
 * names (as a word) shows rows; no matrix title
 * is drawn with no row under it, or cut by its panel's width. And while a
 * step's goal is open, its question (every line, every choice), the
 * answer given and the whole feedback to each known wrong answer, and the
 * goal line stay on screen, with the pane scrolled to its end (and at
 * 80x24 to its top); the instruction (the first paragraph) too when it fits with them.
 * It does not
 * check what the rows hold (test_screens and the blind learner do).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "lesson_pane.h"
#include "pane.h"
#include "mode.h"
#include "panels.h"
#include "pipeline.h"
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

/* A window's range written as "r0-1/8" or "c4-5/8" (rows 0-1 of 8?
 * columns 4-5 of a block 4-7?): where one is on the screen, or NULL. */
static const char *terse_range(const char *text)
{
	for (const char *p = text; *p; p++) {
		if ((*p != 'r' && *p != 'c') || (p > text && p[-1] != ' '))
			continue;
		const char *q = p + 1;
		int parts = 0;
		while (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			parts++;
			if (*q != '-' && *q != '/')
				break;
			q++;
		}
		if (parts == 3 && q[-1] != '-' && strchr(p, '/') && strchr(p, '/') < q)
			return p;
	}
	return NULL;
}

/* The matrix a step puts first is one it highlights or its words name,
 * or what the stage computes (S₀ on Scores), never a matrix left under
 * the cursor by chance. */
static bool step_matrix_ok(const struct app *app, const struct stage_view *v, int f)
{
	const struct lesson_step *s = lesson_run_step(&app->learn.run);
	const struct panel *p = &v->p[f];
	if (p->t == pipeline_stage_info(app->stage)->writes || (app->stage == PIPELINE_OUTPUT && p->write) ||
	    (app->stage == PIPELINE_PROJECTION && (p->t == MHA_T_X || p->t == MHA_T_XIN)) || /* the input read there */
	    panels_step_names(app, v, f))
		return true;
	for (int i = 0; i < s->nmarks; i++)
		if (!s->marks[i].is_head && s->marks[i].ref.t == p->t)
			return true;
	return false;
}

/* Step si of lesson li at rows x cols: 0 when it passes, else 1 with why
 * on stderr. */
static int step_check(int li, int si, int rows, int cols)
{
	struct app *app = tui_check_open_at(&set, li, si);
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	struct body_layout b = draw_screen(app, rows, cols);
	static char text[64 * 1024];
	vscreen_text(text, sizeof text);
	vscreen_close();
	int bad = heat_note_cut(text, &b);
	if (terse_range(text)) {
		fprintf(stderr, "lesson %d step %s at %dx%d: a range such as %.12s, which nobody can read\n",
		        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, terse_range(text));
		bad = 1;
	}
	if (bad)
		fprintf(stderr, "lesson %d step %s at %dx%d: the heatmaps' note is cut\n", set.lessons[li].number,
		        set.lessons[li].steps[si].id, cols, rows);
	if (app->mode == &workbench_mode && !learn_stage_hidden(app, app->stage)) {
		struct stage_view v;
		struct rect got[STAGE_PANELS_MAX];
		app_view(app, &v);
		int need = 0, f = panels_focus(app, &v, &need);
		panels_place(app, &v, b.numbers, b.numbers_cell_w, got);
		if (f < 0) {
			fprintf(stderr, "lesson %d step %s: no step matrix\n", set.lessons[li].number,
			        set.lessons[li].steps[si].id);
			bad = 1;
		} else if (!step_matrix_ok(app, &v, f)) {
			/* lesson 7 step 4: its highlights on W^Q, W^K (another stage)
			 * left the cursor on Q₀ 8 rows high, S₀ one row */
			fprintf(stderr, "lesson %d step %s: the step's matrix is %s, neither a highlight nor the stage's result\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, v.p[f].title);
			bad = 1;
		} else if (got[f].h - 2 < need) {
			fprintf(stderr, "lesson %d step %s at %dx%d: %s shows %d of %d rows (wants %d)\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, v.p[f].title,
			        got[f].h > 2 ? got[f].h - 2 : 0, v.p[f].rows, need);
			bad = 1;
		} else {
			int cws[STAGE_PANELS_MAX];
			panels_cell_widths(app, &v, b.numbers.w, b.numbers_cell_w, cws);
			int shown = panels_cols_shown(&v.p[f], got[f], cws[f]), want = v.p[f].cols < 6 ? v.p[f].cols : 6;
			if (shown < want) {
				fprintf(stderr, "lesson %d step %s at %dx%d: %s shows %d of %d columns (wants %d)\n",
				        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, v.p[f].title, shown,
				        v.p[f].cols, want);
				bad = 1;
			}
		}
		for (int i = 0; i < v.count; i++)
			if (got[i].h < 3 && panels_step_names(app, &v, i)) {
				fprintf(stderr, "lesson %d step %s at %dx%d: %s is named by the step but not shown\n",
				        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, v.p[i].title);
				bad = 1;
			} else if (got[i].h > 0 && (int)strlen(v.p[i].title) > got[i].w) {
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

/* Whether the whole of line (wrapped for the pane) is on one of the pane's
 * rows of the screen text. */
static bool on_screen(const char *text, struct rect pane, const char *line)
{
	if (!line[0])
		return true;
	const char *row = text;
	for (int y = 0; row && y < pane.y + pane.h; y++) {
		const char *end = strchr(row, '\n');
		if (y >= pane.y) {
			size_t n = end ? (size_t)(end - row) : strlen(row), k = strlen(line);
			for (size_t i = 0; i + k <= n; i++)
				if (memcmp(row + i, line, k) == 0)
					return true;
		}
		row = end ? end + 1 : NULL;
	}
	return false;
}

/* Steps whose first paragraph does not stay with the question (at any size). */
static int para_left;

/* The step's screen as the learner has it: drawn once (the loop keeps the
 * scroll the pane can take), then with the pane scrolled to scroll; its
 * text into text, the pane's lines (composed for its width) into t. */
static struct body_layout step_screen(struct app *app, int rows, int cols, int scroll, char *text, size_t len,
                                      struct lesson_text *t)
{
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	struct body_layout b = draw_screen(app, rows, cols);
	app->learn.scroll_max = b.pane_scroll_max;
	app->learn.scroll = scroll;
	draw_screen(app, rows, cols);
	vscreen_text(text, len);
	vscreen_close();
	assert_int_equal(lesson_run_pane(&app->learn.run, b.lesson.w, mode_lesson_key, app, false, t), 0);
	return b;
}

/* The pane of step si of lesson li at rows x cols, scrolled to scroll,
 * after the answer (NULL: none given): while the goal is open the
 * question (every line of it and its choices), the answer given and the
 * whole feedback to it, and the goal's lines are on screen; so is the
 * instruction (the first paragraph) when it fits with them, a blank line,
 * a line of the rest and the "more" line. 0 when so, else 1. */
static int pinned_check(int li, int si, int rows, int cols, int scroll, const char *answer)
{
	struct app *app = tui_check_open_at(&set, li, si);
	if (answer) {
		char msg[LESSON_STATUS_MAX];
		if (lesson_run_answer(&app->learn.run, answer, msg, sizeof msg) < 0) {
			tui_check_close(app);
			return 0; /* a live question with no recording yet: nothing to show */
		}
		learn_evaluate(app);
		app_recompute(app);
	}
	static char text[64 * 1024];
	struct lesson_text t = { 0 };
	struct body_layout b = step_screen(app, rows, cols, scroll, text, sizeof text, &t);
	int first = -1, last = -1, question = -1, goal = -1, goal_end = -1, top = 0, bad = 0;
	while (top < t.count && top < 3 && t.lines[top].kind == LESSON_LINE_TITLE)
		top++;
	for (int i = top; i < t.count; i++) {
		enum lesson_line_kind k = t.lines[i].kind;
		if (k == LESSON_LINE_PROSE && question < 0 && (first < 0 || last == i - 1))
			last = first < 0 ? (first = i) : i;
		if (k == LESSON_LINE_QUESTION && question < 0)
			question = i;
		if (k == LESSON_LINE_UNMET && goal < 0)
			goal = i;
		if (k == LESSON_LINE_UNMET)
			goal_end = i + 1;
	}
	const char *what = answer ? "after a wrong answer" : "opened";
	if (goal >= 0 && b.lesson.h > 0 && t.count > b.lesson.h) {
		for (int i = question >= 0 ? question : goal; i < goal_end && !bad; i++) {
			enum lesson_line_kind k = t.lines[i].kind;
			if ((k == LESSON_LINE_QUESTION || k == LESSON_LINE_CHOICE || k == LESSON_LINE_ANSWER ||
			     k == LESSON_LINE_UNMET) && !on_screen(text, b.lesson, t.lines[i].text)) {
				fprintf(stderr, "lesson %d step %s at %dx%d, %s, scrolled to %s: \"%s\" is not on screen\n",
				        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, what,
				        scroll ? "the end" : "the top", t.lines[i].text);
				bad = 1;
			}
		}
		int block = goal_end - (question >= 0 ? question : goal);
		if (first >= 0 && last + 2 + block + 1 + 2 <= b.lesson.h &&
		    !(on_screen(text, b.lesson, t.lines[first].text) && on_screen(text, b.lesson, t.lines[last].text))) {
			fprintf(stderr, "lesson %d step %s at %dx%d, %s: the first paragraph fits but is not on screen\n",
			        set.lessons[li].number, set.lessons[li].steps[si].id, cols, rows, what);
			bad = 1;
		} else if (first >= 0 && last + 2 + block + 1 + 2 > b.lesson.h && !answer && scroll) {
			para_left++;
		}
	}
	lesson_text_free(&t);
	tui_check_close(app);
	return bad;
}

/* A wrong answer to step s's question: each known one (its feedback), or
 * then one that is no choice's answer, or a number far from it: the
 * k-th of them (0 <= k <= nfeedback); NULL for a live question's known
 * slips (their numbers come from the recording). */
static const char *wrong_answer(const struct lesson_step *s, int k, char *buf, size_t len)
{
	const struct lesson_question *q = s->question;
	if (!q)
		return NULL;
	if (k < q->nfeedback)
		return q->flash ? NULL : q->feedback[k].key;
	for (int i = 0; i < q->nchoices; i++)
		if (strcasecmp(q->choices[i].key, q->answer) != 0)
			return q->choices[i].key;
	snprintf(buf, len, "%g", q->value * 10 + 12345);
	return buf;
}

/* Every step with an open goal, at the three sizes: opened (scrolled to
 * the end) and after each wrong answer (scrolled to the end, and at 80x24
 * to the top). */
static void test_step_question_goal_and_feedback_stay(void **state)
{
	(void)state;
	static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
	int bad = 0, screens = 0;
	for (int z = 0; z < 3; z++)
		for (int li = 0; li < set.count; li++)
			for (int si = 0; si < set.lessons[li].nsteps; si++) {
				const struct lesson_step *s = &set.lessons[li].steps[si];
				bad += pinned_check(li, si, sizes[z][0], sizes[z][1], LEARN_SCROLL_END, NULL);
				screens++;
				char buf[64];
				for (int k = 0; s->question && k <= s->question->nfeedback; k++) {
					const char *w = wrong_answer(s, k, buf, sizeof buf);
					if (!w)
						continue;
					bad += pinned_check(li, si, sizes[z][0], sizes[z][1], LEARN_SCROLL_END, w);
					if (z == 0) /* and at the top, where the pane is shortest */
						bad += pinned_check(li, si, sizes[z][0], sizes[z][1], 0, w);
					screens += 1 + (z == 0);
				}
			}
	fprintf(stderr, "%d of %d step screens lose their question, goal or feedback; %d first paragraphs "
	        "scroll with the prose\n", bad, screens, para_left);
	assert_int_equal(bad, 0);
}

/* A step whose text points at the heatmaps shows them at 80x24: never
 * the "heatmaps need N rows" note in their place (lesson 7 step 3 did). */
static void test_steps_about_heatmaps_show_them(void **state)
{
	(void)state;
	int bad = 0, seen = 0;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++) {
			const struct lesson_step *st = &set.lessons[li].steps[si];
			if (!strstr(st->prose, "heatmap"))
				continue;
			struct app *app = tui_check_open_at(&set, li, si);
			if (app->mode != &workbench_mode || learn_stage_hidden(app, app->stage)) {
				tui_check_close(app);
				continue; /* another view, or the stage not shown yet */
			}
			app->now_ms = 1000000;
			const char *text = tui_check_screen(app, 24, 80, false);
			seen++;
			if (strstr(text, "heatmaps need")) {
				fprintf(stderr, "lesson %d step %s at 80x24: no room for the heatmaps it points at\n",
				        set.lessons[li].number, st->id);
				bad++;
			}
			tui_check_close(app);
		}
	fprintf(stderr, "%d of %d steps about the heatmaps lack them at 80x24\n", bad, seen);
	assert_true(seen > 0);
	assert_int_equal(bad, 0);
}

/* The free workbench's seven stages at 80x24, 120x40 and 200x60 (the
 * default configuration): every matrix drawn shows at least
 * min(its columns, PANELS_READABLE_COLS) of them, and every one of the
 * stage's matrices is drawn with rows (80x24 Weighted sum drew three
 * 2-column slivers beside the counts column); from 120x40 a matrix of
 * d_model 16 columns that is drawn shows all 16. */
static void test_free_workbench_matrices_readable(void **state)
{
	(void)state;
	static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
	int bad = 0, screens = 0;
	struct app *app = tui_check_open(NULL);
	for (int z = 0; z < 3; z++)
		for (int st = 0; st < PIPELINE_STAGE_COUNT; st++, screens++) {
			app->stage = (enum pipeline_stage)st;
			app_clamp(app);
			assert_int_equal(vscreen_open(sizes[z][0], sizes[z][1], "xterm-256color", false), 0);
			struct body_layout b = draw_screen(app, sizes[z][0], sizes[z][1]);
			vscreen_close();
			struct stage_view v;
			struct rect got[STAGE_PANELS_MAX];
			int cws[STAGE_PANELS_MAX], fails = 0;
			app_view(app, &v);
			panels_cell_widths(app, &v, b.numbers.w, b.numbers_cell_w, cws);
			panels_place(app, &v, b.numbers, b.numbers_cell_w, got);
			for (int i = 0; i < v.count; i++) {
				int shown = panels_cols_shown(&v.p[i], got[i], cws[i]);
				int want = v.p[i].cols < PANELS_READABLE_COLS ? v.p[i].cols : PANELS_READABLE_COLS;
				/* from 120x40, d_model 16 whole (it showed 15 of 16) */
				if (z > 0 && v.p[i].cols <= 16 && got[i].h > 2)
					want = v.p[i].cols;
				if (shown < want) {
					fprintf(stderr, "free workbench stage %d at %dx%d: %s shows %d of %d columns (%s)\n",
					        st + 1, sizes[z][1], sizes[z][0], v.p[i].title, shown, v.p[i].cols,
					        got[i].h > 2 ? "cut short" : "no rows");
					fails = 1;
				}
			}
			bad += fails;
		}
	tui_check_close(app);
	fprintf(stderr, "%d of %d free workbench stage screens have a matrix too narrow to read\n", bad, screens);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_workbench_matrices_readable),
		cmocka_unit_test(test_step_matrix_rows_first),
		cmocka_unit_test(test_step_question_goal_and_feedback_stay),
		cmocka_unit_test(test_steps_about_heatmaps_show_them),
	};
	if (tui_check_lessons_open(&set, dir) != 0)
		return 1;
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return tui_check_lessons_close(&set, dir) != 0 ? 1 : failed;
}
