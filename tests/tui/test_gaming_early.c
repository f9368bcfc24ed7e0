/*
 * test_gaming_early.c - the tricks a gaming learner (one who plays to
 * pass, not to learn) used on lessons 1 to 4, replayed in process: each
 * used to earn its step without the idea, and must no longer. Earned means
 * the goal met and the step not only "shown" (run.unearned false).
 *
 *   - steer (L1), one-cell (L2): make the edit first (found by pressing
 *     keys while watching the readout), then answer: the readout is hidden
 *     until the cell is named, and the edit alone meets nothing;
 *   - role-v (L2): reach Y[2,1] through W^O instead of W^V;
 *   - only-head-1 (L3): follow the keys the old prose dictated;
 *   - where-head-2 (L3), variance (L4): powers of two within three tries;
 *   - fold-into-wq (L4): switch the scale off and fold 1/16 in, unasked;
 *   - read the hidden scores off the FlashAttention view (F).
 * Deliberately not here: always-the-same-letter and greedy climbing over
 * every lesson (the strategy learner's test does those generically).
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
static char dir[] = "/tmp/mha-test-gaming-early-XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	return tui_check_lessons_open(&set, dir);
}

static int group_teardown(void **state)
{
	(void)state;
	return tui_check_lessons_close(&set, dir);
}

/* The step `id` of lesson `name`, opened afresh (progress in memory). */
static struct app *open_step(const char *name, const char *id)
{
	const struct lesson *l = lesson_set_find(&set, name);
	assert_non_null(l);
	int si = lesson_step_index(l, id);
	assert_true(si >= 0);
	struct app *app = tui_check_open(&set);
	if (learn_open(app, (int)(l - set.lessons), si) & APP_RECOMPUTE)
		app_recompute(app);
	return app;
}

static bool earned(const struct app *app)
{
	return app->learn.run.met && !app->learn.run.unearned;
}

/* Lesson 1 steer: W^Q[2,1] = 3 (the cell hill-climbing finds) meets
 * nothing before the cell is named, S and P stay hidden meanwhile, and a
 * wrong letter first leaves the step only shown. */
static void test_steer_an_edit_before_the_cell_is_named_earns_nothing(void **state)
{
	(void)state;
	struct app *app = open_step("one-head", "steer");
	assert_true(learn_stage_hidden(app, PIPELINE_SCORES));
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "F"); /* the FlashAttention view would draw S */
	assert_int_not_equal(app->mode, MODE_FLASH);
	assert_non_null(strstr(app->status, "not until"));
	app->w.wq[2 * 4 + 1] = 3.0f;
	app_recompute(app);
	assert_false(app->learn.run.met);
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "ab"); /* a wrong cell */
	assert_non_null(lesson_run_feedback(&app->learn.run));
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "ad");
	assert_true(app->learn.run.met);
	assert_false(earned(app));
	tui_check_keys(app, "F"); /* answered: S may show */
	assert_int_equal(app->mode, MODE_FLASH);
	tui_check_close(app);
}

/* Lesson 2 one-cell: Q is hidden until the cell is named, so there is no
 * readout to climb; the right edit alone earns nothing. */
static void test_one_cell_has_no_readout_to_climb(void **state)
{
	(void)state;
	struct app *app = open_step("projections", "one-cell");
	assert_true(learn_hidden(app, MHA_T_Q, 0, 1, 2));
	assert_true(learn_stage_hidden(app, PIPELINE_RESHAPE));
	app->w.wq[3 * 6 + 2] = 0.5f;
	app_recompute(app);
	assert_false(app->learn.run.met);
	assert_true(learn_hidden(app, MHA_T_Q, 0, 1, 2));
	tui_check_keys(app, "ad");
	assert_true(earned(app));
	assert_false(learn_hidden(app, MHA_T_Q, 0, 1, 2));
	tui_check_close(app);
}

/* Lesson 2 role-v: the right matrix named, Y[2,1] brought to -0.93
 * through W^O (issue 11: "met by W^O *= 2") meets nothing; through W^V it
 * does. */
static void test_role_v_is_not_met_through_w_o(void **state)
{
	(void)state;
	struct app *app = open_step("projections", "role-v");
	tui_check_keys(app, "aa");
	assert_true(app->learn.run.answer_right);
	float *wo = app->w.wo;
	const int d = 6;
	wo[1 * d + 1] = -2.0f; /* W^O *= -2 on the cell that makes Y[2,1] */
	app_recompute(app);
	assert_false(app->learn.run.met);
	wo[1 * d + 1] = 1.0f;
	float o20 = app->a.concat[2 * d + 0], o21 = app->a.concat[2 * d + 1];
	wo[0 * d + 1] = (-0.93f - o21) / o20; /* Y[2,1] = O[2,1] + O[2,0] W^O[0,1] */
	app_recompute(app);
	assert_float_equal(app->a.y[2 * d + 1], -0.93f, 0.001f);
	assert_false(app->learn.run.met);
	wo[0 * d + 1] = 0.0f;
	for (int i = 0; i < d * d; i++)
		app->w.wv[i] *= -2.0f;
	app_recompute(app);
	assert_true(earned(app));
	tui_check_close(app);
}

/* Lesson 3 only-head-1: the keys the old prose dictated (*, Tab, 10) and
 * the old right letter a: not earned. */
static void test_only_head_1_dictated_keys_and_letter_a_earn_nothing(void **state)
{
	(void)state;
	struct app *app = open_step("reshape", "only-head-1");
	assert_true(learn_stage_hidden(app, PIPELINE_SCORES));
	tui_check_keys(app, "1*\t10\n");
	assert_false(app->learn.run.met);
	tui_check_keys(app, "aa");
	assert_false(app->learn.run.answer_right);
	assert_false(earned(app));
	tui_check_close(app);
}

/* Three tries of powers of two (and the numbers in view) find neither
 * where-head-2 nor variance; the known slips get their reason. */
static void test_powers_of_two_find_no_number(void **state)
{
	(void)state;
	static const struct {
		const char *lesson, *step, *tries;
	} cases[] = {
		{ "reshape", "where-head-2", "a4\na8\na16\n" },
		{ "reshape", "where-head-2", "a8\na12\na16\n" },
		{ "scores-scale", "variance", "a64\na128\na256\n" },
		{ "scores-scale", "variance", "a16\na32\na2304\n" },
		{ "scores-scale", "fold-into-wq", "a16\na0.5\na0.25\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct app *app = open_step(cases[i].lesson, cases[i].step);
		tui_check_keys(app, cases[i].tries);
		if (app->learn.run.met)
			fail_msg("%s/%s passed with %s", cases[i].lesson, cases[i].step, cases[i].tries);
		assert_true(app->learn.run.unearned); /* three tries used */
		tui_check_close(app);
	}
	struct app *app = open_step("scores-scale", "variance");
	tui_check_keys(app, "a13.9\n");
	const char *why = lesson_run_feedback(&app->learn.run);
	assert_non_null(why);
	assert_non_null(strstr(why, "standard deviation"));
	tui_check_close(app);
}

/* Lesson 4 fold-into-wq: scale off and W^Q folded, unasked, meets
 * nothing and S stays hidden; said first, it is earned. */
static void test_fold_asks_the_factor_first(void **state)
{
	(void)state;
	struct app *app = open_step("scores-scale", "fold-into-wq");
	assert_true(learn_stage_hidden(app, PIPELINE_SCORES));
	tui_check_keys(app, "s");
	for (int i = 0; i < 256 * 256; i++)
		app->w.wq[i] *= 0.0625f;
	app_recompute(app);
	assert_false(app->learn.run.met);
	assert_true(learn_stage_hidden(app, PIPELINE_SCORES));
	tui_check_keys(app, "a0.0625\n");
	assert_true(earned(app));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steer_an_edit_before_the_cell_is_named_earns_nothing),
		cmocka_unit_test(test_one_cell_has_no_readout_to_climb),
		cmocka_unit_test(test_role_v_is_not_met_through_w_o),
		cmocka_unit_test(test_only_head_1_dictated_keys_and_letter_a_earn_nothing),
		cmocka_unit_test(test_powers_of_two_find_no_number),
		cmocka_unit_test(test_fold_asks_the_factor_first),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
