/*
 * test_fits_box.c - every text element fits its box: a stage title, the
 * formula and shape lines, the status line, the key hints, the goal and
 * lesson lines, the counts panel, the heatmaps' titles and legends are
 * drawn whole, in a short form, or not at all - never cut mid-word or
 * mid-number. It watches the one clipped-text primitive (theme_addstr,
 * through theme_watch_cuts) while it draws every stage of the free
 * workbench (with the lesson menu beside it, with the counts in its
 * place, with no side pane; the cursor on each of the stage's matrices)
 * and every step of every shipped lesson (and each after every known wrong
 * answer: the status line's verdict, the pane's feedback), at 80x24,
 * 120x40 and 200x60.
 * It does not judge whether the text is right (test_screens does).
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
#include "mode.h"
#include "theme.h"
#include "tui_check.h"
#include "vscreen.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-fits-box-XXXXXX";

static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };

/* The cuts seen while one screen is drawn, and what screen it is. */
static int cuts;
static char where[160];

static void on_cut(int y, int x, int width, const char *s)
{
	if (cuts++ < 3)
		fprintf(stderr, "%s: row %d col %d, %d columns: \"%s\"\n", where, y, x, width, s);
}

/* Draws app at every size; returns the cuts. */
static int draw_all_sizes(const struct app *app, const char *what)
{
	int bad = 0;
	for (int z = 0; z < 3; z++) {
		snprintf(where, sizeof where, "%s at %dx%d", what, sizes[z][1], sizes[z][0]);
		assert_int_equal(vscreen_open(sizes[z][0], sizes[z][1], "xterm-256color", false), 0);
		cuts = 0;
		theme_watch_cuts(on_cut);
		draw_screen(app, sizes[z][0], sizes[z][1]);
		theme_watch_cuts(NULL);
		vscreen_close();
		bad += cuts > 0;
	}
	return bad;
}

/* Every stage and every matrix of it as the cursor's, in app. */
static int stages_check(struct app *app, const char *what)
{
	int bad = 0;
	app->now_ms = 1000000;
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
		app->stage = (enum pipeline_stage)s;
		struct stage_view v;
		app_view(app, &v);
		for (int p = 0; p < v.count; p++) {
			app->cur[s] = (struct app_cursor){ p, 0, 0 };
			app_clamp(app);
			char name[96];
			snprintf(name, sizeof name, "%s, stage %d, matrix %d", what, s + 1, p);
			bad += draw_all_sizes(app, name);
		}
	}
	return bad;
}

static void test_free_workbench_stages_fit(void **state)
{
	(void)state;
	int bad = 0;
	struct app *app = tui_check_open(NULL);
	bad += stages_check(app, "no lessons");
	tui_check_close(app);

	app = tui_check_open(&set);
	bad += stages_check(app, "menu beside");
	learn_menu_welcome(app); /* the first screen: the menu has the keys */
	app->now_ms = 0;
	bad += draw_all_sizes(app, "first screen");
	tui_check_keys(app, "\033#");
	bad += stages_check(app, "counts beside");
	tui_check_close(app);
	fprintf(stderr, "%d free workbench screens cut a text\n", bad);
	assert_int_equal(bad, 0);
}

static void test_lesson_steps_fit(void **state)
{
	(void)state;
	int bad = 0, steps = 0;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++, steps++) {
			struct app *app = tui_check_open_at(&set, li, si);
			app->now_ms = 1000000;
			char name[96];
			snprintf(name, sizeof name, "lesson %d step %s", set.lessons[li].number, set.lessons[li].steps[si].id);
			bad += draw_all_sizes(app, name);
			tui_check_close(app);
		}
	fprintf(stderr, "%d of %d lesson step screens cut a text\n", bad, 3 * steps);
	assert_int_equal(bad, 0);
}

/* Every known wrong answer (its feedback) given by keys: the status line's
 * verdict and the pane's feedback fit (the status line in its short form,
 * the pane wrapped in full). */
static void test_wrong_answers_fit(void **state)
{
	(void)state;
	int bad = 0, screens = 0;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++) {
			const struct lesson_question *q = set.lessons[li].steps[si].question;
			for (int k = 0; q && !q->flash && k < q->nfeedback; k++) {
				struct app *app = tui_check_open_at(&set, li, si);
				char keys[80];
				bool choice = q->nchoices > 0;
				char head[16];
				if (q->model) { /* a slip of a model question: the head of another kind */
					lesson_model_head_name(&app->learn.run.model,
					                       lesson_model_best(&app->learn.run.model,
					                                         (enum lesson_model_kind)q->feedback[k].slip),
					                       head, sizeof head);
					snprintf(keys, sizeof keys, "a%s\n", head);
				} else if (q->feedback[k].cell) /* a slip of a cell question: that cell's live value */
					snprintf(keys, sizeof keys, "a%.6f\n", app->learn.run.cell_slip[k]);
				else
					snprintf(keys, sizeof keys, "a%s%s", q->feedback[k].key, choice ? "" : "\n");
				app->now_ms = 0;
				tui_check_keys(app, keys);
				assert_true(app->learn.run.answered);
				char name[96];
				snprintf(name, sizeof name, "lesson %d step %s, answer %s", set.lessons[li].number,
				         set.lessons[li].steps[si].id, q->feedback[k].key);
				bad += draw_all_sizes(app, name);
				screens += 3;
				tui_check_close(app);
			}
		}
	fprintf(stderr, "%d of %d screens after a wrong answer cut a text\n", bad, screens);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_workbench_stages_fit),
		cmocka_unit_test(test_lesson_steps_fit),
		cmocka_unit_test(test_wrong_answers_fit),
	};
	if (tui_check_lessons_open(&set, dir) != 0)
		return 1;
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return tui_check_lessons_close(&set, dir) != 0 ? 1 : failed;
}
