/*
 * test_gaming_lessons_cross.c - tricks a gaming learner would try on the
 * lesson cross-attention (encoder-decoder attention), each of which must
 * earn nothing without the idea:
 *
 *   - weight by the numbers on screen: the score 1.22 itself, the share of
 *     4 keys (as many as the queries: the rows taken for the keys), and an
 *     even share of 5 are all wrong; the answer is the core's P₀[2,1];
 *   - pad without predicting: the mask view waits for the answer, and
 *     "now" padded with the question unanswered meets nothing;
 *   - pad by other means, the question answered: a window of 1 (column 4
 *     goes, and so do the other keys), top-k 4 (it drops the tied "now"),
 *     a key pushed down through W^K, the source turned off (no column 4):
 *     none is padding; the mask view's p on "now" is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-gaming-cross-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static bool earned(const struct app *app)
{
	return app->learn.run.met && !app->learn.run.unearned;
}

static void test_the_weight_is_not_a_number_on_screen(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "cross-attention", "weight");
	assert_int_equal(app->cfg.n, 4);
	assert_int_equal(app->cfg.m, 5);
	tui_check_keys(app, "a1.22\n"); /* the score */
	assert_false(app->learn.run.answer_right);
	tui_check_keys(app, "a0.53\n"); /* the row shared among n = 4 keys */
	assert_false(app->learn.run.answer_right);
	assert_non_null(lesson_run_feedback(&app->learn.run));
	tui_check_close(app);
	/* the answer is the core's weight: P₀[2,1] over the 5 source keys */
	app = tui_check_open_step(&set, "cross-attention", "weight");
	char typed[32];
	snprintf(typed, sizeof typed, "a%.2f\n", (double)app->a.weights[2 * 5 + 1]);
	assert_string_equal(typed, "a0.46\n");
	tui_check_keys(app, typed);
	assert_true(app->learn.run.answer_right);
	assert_true(earned(app));
	tui_check_close(app);
}

/* The pad step with the question answered right. */
static struct app *pad_step(bool answered)
{
	struct app *app = tui_check_open_step(&set, "cross-attention", "pad");
	if (answered)
		assert_int_equal(tui_check_answer_right(app), 1);
	assert_false(app->learn.run.met);
	return app;
}

static void test_padding_without_the_prediction_earns_nothing(void **state)
{
	(void)state;
	struct app *app = pad_step(false);
	tui_check_keys(app, "P"); /* the mask view waits for the answer (it shows P) */
	assert_ptr_equal(app->mode, mode_workbench(app));
	app->cfg.pad = 1u << 4; /* "now" padded all the same */
	app_recompute(app);
	assert_false(app->learn.run.met);
	tui_check_close(app);
}

static void test_padding_by_other_means_is_not_met(void **state)
{
	(void)state;
	/* a window of 1: "now" goes, but so do every query's other keys */
	struct app *app = pad_step(true);
	app->cfg.window = 1;
	app_recompute(app);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	/* top-k 4: the tied keys past the first four go, "now" among them */
	app = pad_step(true);
	app->cfg.top_k = 4;
	app_recompute(app);
	for (int r = 0; r < 4; r++)
		assert_float_equal(app->a.weights[r * 5 + 4], 0.0f, 0.0f);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	/* "now"'s key pushed far down through W^K: its scores move */
	app = pad_step(true);
	for (int c = 0; c < 4; c++)
		app->w.wk[4 * 6 + c] = -1000.0f;
	app_recompute(app);
	assert_float_equal(app->a.weights[4], 0.0f, 0.0f);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	/* no source at all: self-attention has no column 4 */
	app = pad_step(true);
	tui_check_keys(app, "X");
	tui_check_press(app, 'U' - '@');
	tui_check_keys(app, "\n");
	assert_int_equal(app->cfg.m, 0);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	/* the idea: "now" is padding, the mask view's p on its column */
	app = pad_step(true);
	tui_check_keys(app, "Pllllp");
	tui_check_press(app, 27);
	assert_true(earned(app));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_weight_is_not_a_number_on_screen),
		cmocka_unit_test(test_padding_without_the_prediction_earns_nothing),
		cmocka_unit_test(test_padding_by_other_means_is_not_met),
	};
	return cmocka_run_group_tests_name("gaming lesson cross-attention", tests, group_setup, group_teardown);
}
