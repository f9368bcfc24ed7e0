/*
 * test_gaming_circuit_by_hand.c - the lesson "A circuit by hand" played
 * through the keys, by a learner with the idea and by one without it.
 * With the idea: the cells typed where the cursor goes (Enter, a value,
 * Enter; y to layer 1) earn each exercise. Without it, each of these
 * must earn nothing:
 *
 *   - previous: the parabola centred two tokens back (a head at a fixed
 *     distance), every cell of W^Q set to one value, W^K scaled up;
 *   - copy: W^O the identity (the previous token written on top of the
 *     token itself), W^O's whole block set to 1;
 *   - induction: layer 1 reading the key's own token (a duplicate-token
 *     head), the same on top of a W^O that writes onto the token columns
 *     (both tokens in one place), the query reading layer 0's write
 *     instead of the key (Q-composition), layer 1 wired as a head at a
 *     fixed distance back, and every cell of layer 1's W^Q and W^K set
 *     to one value.
 *
 * The blind and strategy learners (test_blind_learner.c,
 * test_strategy_learner.c) press keys at random over every exercise of
 * every lesson, this one's included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-gaming-circuit-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static bool earned(const struct app *app)
{
	return app->learn.run.met && !app->learn.run.unearned;
}

/* Put the cursor on input t (c cycles the stage's matrices, v the
 * projection shown) at row r, column col, by the keys. */
static void cursor_to(struct app *app, enum mha_tensor t, int r, int col)
{
	struct cell at;
	for (int tries = 0; tries < 16; tries++) {
		if (app_cursor_input(app, &at) && at.t == t)
			break;
		tui_check_press(app, tries % 4 == 3 ? 'v' : 'c');
	}
	assert_true(app_cursor_input(app, &at));
	assert_int_equal(at.t, t);
	for (; at.r > r; at.r--)
		tui_check_press(app, KEY_UP);
	for (; at.r < r; at.r++)
		tui_check_press(app, KEY_DOWN);
	for (; at.c > col; at.c--)
		tui_check_press(app, KEY_LEFT);
	for (; at.c < col; at.c++)
		tui_check_press(app, KEY_RIGHT);
	assert_true(app_cursor_input(app, &at));
	assert_int_equal(at.r, r);
	assert_int_equal(at.c, col);
}

/* Type v into input t's cell (r, col) of the viewed layer. */
static void type_cell(struct app *app, enum mha_tensor t, int r, int col, const char *v)
{
	char keys[32];
	cursor_to(app, t, r, col);
	snprintf(keys, sizeof keys, "\n%s\n", v);
	tui_check_keys(app, keys);
	float *m = mha_tensor_data_layer(&app->w, NULL, app->layer, t);
	assert_float_equal(m[(size_t)r * mha_tensor_shape(&app->cfg, t).cols + col], atof(v), 1e-6);
}

/* Every cell of input t of the viewed layer set to v (the scale prompt's '=') . */
static void set_all(struct app *app, enum mha_tensor t, const char *v)
{
	char keys[32];
	cursor_to(app, t, 0, 0);
	snprintf(keys, sizeof keys, "*=%s\n", v);
	tui_check_keys(app, keys);
}

/* Layer 0's previous-token head (the stage's W^Q; W^K is wired by the step). */
static void parabola(struct app *app, const char *centre)
{
	tui_check_keys(app, "1");
	type_cell(app, MHA_T_WQ, 8, 0, "20");
	type_cell(app, MHA_T_WQ, 10, 0, centre);
	type_cell(app, MHA_T_WQ, 10, 1, "-10");
}

static void test_previous_needs_the_token_before(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuit-by-hand", "previous");
	assert_false(app->learn.run.met);
	parabola(app, "-40"); /* two back */
	assert_false(app->learn.run.met);
	assert_non_null(strstr(app->learn.run.status, "on the previous token, need >= 0.8"));
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "previous");
	tui_check_keys(app, "1");
	set_all(app, MHA_T_WQ, "5");
	assert_false(app->learn.run.met);
	cursor_to(app, MHA_T_WK, 0, 0);
	tui_check_keys(app, "*40\n");
	assert_false(app->learn.run.met);
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "previous");
	parabola(app, "-20"); /* one back: the idea */
	assert_true(earned(app));
	assert_non_null(strstr(app->learn.run.status, "layer 0 head 0: 0.9"));
	tui_check_close(app);
}

static void test_copy_needs_the_empty_columns(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuit-by-hand", "copy");
	tui_check_keys(app, "7");
	for (int t = 0; t < 8; t++)
		type_cell(app, MHA_T_WO, t, t, "1"); /* the identity: onto the token itself */
	assert_false(app->learn.run.met);
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "copy");
	tui_check_keys(app, "7");
	set_all(app, MHA_T_WO, "1");
	assert_false(app->learn.run.met);
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "copy");
	tui_check_keys(app, "7");
	for (int t = 0; t < 4; t++)
		type_cell(app, MHA_T_WO, t, 4 + t, "1");
	assert_true(earned(app));
	tui_check_close(app);
}

/* Layer 1's W^Q reads columns q0.., W^K columns k0..: token t into place t. */
static void layer1(struct app *app, int q0, int k0)
{
	tui_check_keys(app, "1y");
	assert_int_equal(app->layer, 1);
	for (int t = 0; t < 4; t++) {
		type_cell(app, MHA_T_WQ, q0 + t, t, "4");
		type_cell(app, MHA_T_WK, k0 + t, t, "4");
	}
}

static void test_induction_needs_k_composition(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	assert_false(app->learn.run.met);
	assert_non_null(strstr(app->learn.run.status, "need >= 0.8; layer 1 head 0: prefix matching"));
	/* what the learner reads: the figure and the repeat length that fails, at
	 * 80x24 and 200x60, in colour and without */
	app->now_ms = 1000000;
	for (int mono = 0; mono < 2; mono++)
		for (int big = 0; big < 2; big++) {
			const char *text = tui_check_screen(app, big ? 60 : 24, big ? 200 : 80, mono);
			assert_non_null(strstr(text, "0.95"));
			assert_non_null(strstr(text, "matching 0.16"));
			assert_non_null(strstr(text, "need >= 0.5"));
		}
	layer1(app, 0, 0); /* the key's own token: a duplicate-token head */
	assert_false(app->learn.run.met);
	tui_check_close(app);

	/* layer 0 writes onto the token columns too, so the key holds both */
	app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	tui_check_keys(app, "7");
	for (int t = 0; t < 4; t++) {
		type_cell(app, MHA_T_WO, t, 4 + t, "0");
		type_cell(app, MHA_T_WO, t, t, "1");
	}
	layer1(app, 0, 0);
	assert_false(app->learn.run.met);
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	layer1(app, 4, 0); /* the query reads layer 0's write: Q-composition */
	assert_false(app->learn.run.met);
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	tui_check_keys(app, "1y");
	set_all(app, MHA_T_WQ, "4");
	set_all(app, MHA_T_WK, "4");
	assert_false(app->learn.run.met);
	tui_check_close(app);

	/* layer 1 as a head three back: right for one repeat length only */
	app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	tui_check_keys(app, "1y");
	type_cell(app, MHA_T_WQ, 8, 0, "20");
	type_cell(app, MHA_T_WQ, 10, 0, "-60");
	type_cell(app, MHA_T_WQ, 10, 1, "-10");
	type_cell(app, MHA_T_WK, 8, 0, "1");
	type_cell(app, MHA_T_WK, 9, 1, "1");
	assert_false(app->learn.run.met);
	assert_non_null(strstr(app->learn.run.status, "(weakest at period"));
	tui_check_close(app);

	app = tui_check_open_step(&set, "circuit-by-hand", "induction");
	layer1(app, 0, 4); /* the idea: the key's previous token */
	assert_true(earned(app));
	assert_non_null(strstr(app->learn.run.status, "Goal met: layer 0 head 0: 0.95 on the previous token"));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_previous_needs_the_token_before),
		cmocka_unit_test(test_copy_needs_the_empty_columns),
		cmocka_unit_test(test_induction_needs_k_composition),
	};
	return cmocka_run_group_tests_name("gaming: a circuit by hand", tests, group_setup, group_teardown);
}
