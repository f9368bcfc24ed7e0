/*
 * test_gaming_lessons_16_17.c - tricks a gaming learner would try on
 * lessons 16 and 17 (circuits, induction-mechanism), each of which must
 * earn nothing without the idea:
 *
 *   - only-one by switching heads off: heads 0, 1 and 3 off make column 0
 *     of Y head 2's write, but the step asks for it with every head on
 *     (the idea: a head reaches Y only through its own rows of W^O);
 *   - only-one by zeroing W^O's column 0 (the cells the cursor lands on):
 *     Y[*,0] becomes 0, not head 2's write; head 2's rows zeroed with the
 *     others, the same;
 *   - share by the numbers on screen: Y[3,1] itself, and head 2's share
 *     with its sign kept, are both wrong (the change is minus the share);
 *   - the training screen and its circuits page, which print the
 *     ablation and patching results lesson 17 asks to predict: G waits for
 *     the answer in each question step, and the training screen opened in
 *     the step before (its circuits page left with Esc: n is not a key
 *     there) is left by n.
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
#include "train_view.h"
#include "train_view_int.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-gaming-circuits-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static bool earned(const struct app *app)
{
	return app->learn.run.met && !app->learn.run.unearned;
}

/* W^O[r, c] of the open bench (d columns). */
static float *wo(struct app *app, int r, int c)
{
	return &app->w.wo[(size_t)r * app->cfg.d + c];
}

static void test_only_one_is_not_met_by_switching_heads_off(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuits", "only-one");
	assert_false(app->learn.run.met);
	for (int i = 0; i < 4; i++)
		if (i != 2)
			app->cfg.head_off[i] = true;
	app_recompute(app);
	assert_false(app->learn.run.met);
	tui_check_close(app);
}

static void test_only_one_is_not_met_by_zeroing_the_column(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuits", "only-one");
	for (int r = 0; r < 16; r++)
		*wo(app, r, 0) = 0.0f;
	app_recompute(app);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	/* the idea: every row but head 2's, column 0 */
	app = tui_check_open_step(&set, "circuits", "only-one");
	for (int r = 0; r < 16; r++)
		if (r < 8 || r > 11)
			*wo(app, r, 0) = 0.0f;
	app_recompute(app);
	assert_true(earned(app));
	tui_check_close(app);
}

static void test_share_is_not_a_number_on_screen(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuits", "share");
	tui_check_keys(app, "a0.111\n");
	assert_false(app->learn.run.answer_right);
	assert_non_null(lesson_run_feedback(&app->learn.run));
	tui_check_keys(app, "a0.194\n");
	assert_false(app->learn.run.answer_right);
	/* the answer is what the program computes: head 2 off moves Y[3,1] by -C_2[3,1] */
	float before = app->a.y[3 * 16 + 1];
	app->cfg.head_off[2] = true;
	app_recompute(app);
	char typed[32];
	snprintf(typed, sizeof typed, "a%.3f\n", (double)(app->a.y[3 * 16 + 1] - before));
	app->cfg.head_off[2] = false;
	app_recompute(app);
	tui_check_keys(app, typed);
	assert_true(app->learn.run.answer_right);
	tui_check_close(app);
}

static void test_the_circuits_page_waits_for_the_answer(void **state)
{
	(void)state;
	const struct lesson *l = lesson_set_find(&set, "induction-mechanism");
	assert_non_null(l);
	int checked = 0;
	for (int si = 1; si < l->nsteps; si++) {
		if (!l->steps[si].question)
			continue;
		struct app *app = tui_check_open_step(&set, l->name, l->steps[si - 1].id);
		tui_check_keys(app, "Gk"); /* the circuits page, where the step before allows it */
		assert_int_equal(app->mode == &train_circuits_mode, !l->steps[si - 1].question);
		if (app->mode == &train_circuits_mode)
			tui_check_press(app, 27); /* a page of its own: only its keys; Esc to the training screen */
		tui_check_next_step(app);
		assert_int_equal(app->learn.run.step, si);
		if (app->mode == &train_circuits_mode || app->mode == &train_mode)
			fail_msg("step %s: the circuits page stays open into a question", l->steps[si].id);
		tui_check_keys(app, "Gk");
		if (app->mode == &train_circuits_mode || app->mode == &train_mode)
			fail_msg("step %s: G opens the training screen before the answer", l->steps[si].id);
		assert_int_equal(tui_check_answer_right(app), 1);
		tui_check_keys(app, "Gk");
		assert_ptr_equal(app->mode, &train_circuits_mode);
		tui_check_close(app);
		checked++;
	}
	assert_int_equal(checked, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_one_is_not_met_by_switching_heads_off),
		cmocka_unit_test(test_only_one_is_not_met_by_zeroing_the_column),
		cmocka_unit_test(test_share_is_not_a_number_on_screen),
		cmocka_unit_test(test_the_circuits_page_waits_for_the_answer),
	};
	return cmocka_run_group_tests_name("gaming lessons 16-17", tests, group_setup, group_teardown);
}
