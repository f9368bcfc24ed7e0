/*
 * test_gaming_lessons_18_20.c - tricks a gaming learner would try on the
 * lessons of positions, encodings and the residual stream (slugs
 * positions, encodings, residual), each of which must earn nothing
 * without the idea:
 *
 *   - a cell question answered from the screen: X[3,1] alone for x₀[3,1]
 *     (PE forgotten), Q[1,0] for Q_rot[1,0] (the turn forgotten), layer
 *     0's Y[2,0] for x₁[2,0] (x₀ forgotten); and the answer is the live
 *     cell, not a number to learn by heart: change X and the old right
 *     number is wrong;
 *   - the cells those questions ask are hidden where the screen shows
 *     them, x₁ on both layers' screens;
 *   - the shift key pressed until the tick: the goal's other conditions
 *     hold, but a wrong prediction leaves the step "shown", never done;
 *   - the stream steps: an edit of another row of X, or of layer 1
 *     instead of layer 0 (and the other way round), does not meet them.
 */
#include <math.h>
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
static char dir[] = "/tmp/mha-test-gaming-positions-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static bool earned(const struct app *app)
{
	return app->learn.run.met && !app->learn.run.unearned;
}

/* Type a number as the answer: "a", the number, Enter. */
static void answer_number(struct app *app, double v)
{
	char typed[48];
	snprintf(typed, sizeof typed, "a%.4f\n", v);
	tui_check_keys(app, typed);
}

static void test_the_sinusoid_question_follows_x(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "positions", "sinus");
	int d = app->cfg.d;
	assert_true(learn_hidden(app, MHA_T_PE, 0, 3, 1));
	assert_true(learn_hidden(app, MHA_T_XIN, 0, 3, 1));
	answer_number(app, app->w.x[3 * d + 1]); /* X alone */
	assert_false(app->learn.run.answer_right);
	assert_non_null(strstr(lesson_run_feedback(&app->learn.run), "X alone"));
	/* the number that was right is right no longer once X changes */
	app->w.x[3 * d + 1] = 1.0f;
	app_recompute(app);
	answer_number(app, cos(3.0));
	assert_false(app->learn.run.answer_right);
	answer_number(app, 1.0 + sin(3.0)); /* the sine where the cosine goes: the third try */
	assert_false(app->learn.run.answer_right);
	answer_number(app, 1.0 + cos(3.0));
	assert_true(app->learn.run.answer_right);
	assert_false(earned(app)); /* right, after three wrong: shown, not done */
	tui_check_close(app);
	app = tui_check_open_step(&set, "positions", "sinus");
	answer_number(app, cos(3.0)); /* the idea: X[3,1] + cos 3 */
	assert_true(app->learn.run.answer_right);
	assert_true(earned(app));
	assert_false(learn_hidden(app, MHA_T_PE, 0, 3, 1));
	tui_check_close(app);
}

static void test_the_turn_is_not_q_copied(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "encodings", "turn");
	assert_true(learn_hidden(app, MHA_T_QROT, 0, 1, 0));
	assert_true(learn_hidden(app, MHA_T_KROT, 0, 1, 0));
	int w = app->cfg.h * app->cfg.dk;
	double a = app->a.q[w + 0], b = app->a.q[w + 1];
	answer_number(app, a); /* q before the turn */
	assert_false(app->learn.run.answer_right);
	assert_non_null(strstr(lesson_run_feedback(&app->learn.run), "before the turn"));
	answer_number(app, a * cos(1.0) + b * sin(1.0)); /* the turn the wrong way */
	assert_false(app->learn.run.answer_right);
	answer_number(app, a * cos(1.0) - b * sin(1.0));
	assert_true(app->learn.run.answer_right);
	tui_check_close(app);
}

static void test_pressing_shift_earns_no_prediction(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "encodings", "shift-rope");
	tui_check_keys(app, "@@@");
	assert_int_equal(app->cfg.pos_offset, 3);
	assert_int_equal(app->learn.run.conds_met, 2); /* offset and unchanged S: only the answer waits */
	tui_check_keys(app, "ab");
	assert_false(app->learn.run.answer_right);
	tui_check_keys(app, "aa");
	assert_true(app->learn.run.met);
	assert_false(earned(app));
	tui_check_close(app);
	/* with the prediction first, the same keys earn it */
	app = tui_check_open_step(&set, "encodings", "shift-rope");
	tui_check_keys(app, "aa@@@");
	assert_true(earned(app));
	tui_check_close(app);
	/* under sines the same shift moves the score: unchanged S would fail */
	app = tui_check_open_step(&set, "encodings", "shift-sine");
	float before = app->a.scores[2 * app->cfg.n + 1];
	tui_check_keys(app, "ab@@@");
	assert_true(earned(app));
	assert_true(fabsf(app->a.scores[2 * app->cfg.n + 1] - before) > 1e-3f);
	tui_check_close(app);
}

static void test_the_stream_is_hidden_on_both_layers(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "residual", "add");
	assert_int_equal(app->layer, 0);
	assert_true(learn_hidden(app, MHA_T_STREAM, 0, 2, 0));
	assert_false(learn_hidden(app, MHA_T_Y, 0, 2, 0));
	app_layer_set(app, 1);
	assert_true(learn_hidden(app, MHA_T_XIN, 0, 2, 0));
	assert_false(learn_hidden(app, MHA_T_STREAM, 0, 2, 0)); /* x₂ is not asked */
	app_layer_set(app, 0);
	int d = app->cfg.d;
	answer_number(app, app->stack.layer[0].y[2 * d]); /* Y alone */
	assert_false(app->learn.run.answer_right);
	assert_non_null(strstr(lesson_run_feedback(&app->learn.run), "write alone"));
	answer_number(app, app->w.x[2 * d]); /* x₀ alone */
	assert_false(app->learn.run.answer_right);
	answer_number(app, app->w.x[2 * d] + app->stack.layer[0].y[2 * d]);
	assert_true(app->learn.run.answer_right);
	tui_check_close(app);
}

static void test_reach_needs_row_2_of_x(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "residual", "reach");
	int d = app->cfg.d;
	tui_check_keys(app, "ab");
	assert_true(app->learn.run.answer_right);
	app->w.x[0] += 2.0f; /* another token's row: reaches layer 1's S₀[0..1,0..1] */
	app_recompute(app);
	assert_false(app->learn.run.met);
	app->w.x[0] -= 2.0f;
	app->w.upper[0].wq[0] += 2.0f; /* layer 1's own W: not the stream */
	app_recompute(app);
	assert_false(app->learn.run.met);
	app->w.upper[0].wq[0] -= 2.0f;
	app->w.x[2 * d] = 3.0f; /* the idea */
	app_recompute(app);
	assert_true(earned(app));
	tui_check_close(app);
}

static void test_back_needs_layer_1(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "residual", "back");
	assert_int_equal(app->layer, 1); /* @focus layer 1 Projection */
	tui_check_keys(app, "aa");
	app->w.wq[0] += 1.0f; /* layer 0's W^Q: layer 0's Y and x₁ move */
	app_recompute(app);
	assert_false(app->learn.run.met);
	app->w.wq[0] -= 1.0f;
	app->w.upper[0].wq[0] += 1.0f;
	app_recompute(app);
	assert_true(earned(app));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_sinusoid_question_follows_x),
		cmocka_unit_test(test_the_turn_is_not_q_copied),
		cmocka_unit_test(test_pressing_shift_earns_no_prediction),
		cmocka_unit_test(test_the_stream_is_hidden_on_both_layers),
		cmocka_unit_test(test_reach_needs_row_2_of_x),
		cmocka_unit_test(test_back_needs_layer_1),
	};
	return cmocka_run_group_tests_name("gaming lessons positions, encodings, residual", tests, group_setup,
	                                   group_teardown);
}
