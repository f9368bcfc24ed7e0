/*
 * test_layers.c - a stack of layers on the workbench, driven by keys: Z
 * adds a layer and y moves to it (the formula and the bar say which); the
 * viewed layer's numbers are the core's stack forward's, and its input is
 * the residual stream x_l = x_l-1 + Y, shown as its own matrix; an edit of
 * a layer-0 weight moves layer 1's scores (and marks them) while an edit
 * of a layer-1 weight leaves layer 0 alone; undo restores a cell in the
 * layer it was made in from any layer; a session with layers saves from
 * the workbench and loads back whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "session.h"
#include "tmpdir.h"
#include "tui_check.h"

/* Two layers, seed 1's random inputs, the cursor on layer `layer`. */
static struct app *two_layers(int layer)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "rZ");
	assert_int_equal(app->cfg.layers, 2);
	assert_int_equal(app->stack.layers, 2);
	for (int l = 0; l < layer; l++)
		tui_check_keys(app, "y");
	assert_int_equal(app->layer, layer);
	return app;
}

/* n x n x h scores of layer l, copied. */
static float *scores_of(const struct app *app, int l)
{
	size_t len = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	float *s = malloc(len * sizeof *s);
	assert_non_null(s);
	memcpy(s, app->stack.layer[l].scores, len * sizeof *s);
	return s;
}

static int differing(const float *a, const float *b, size_t len)
{
	int k = 0;
	for (size_t i = 0; i < len; i++)
		k += a[i] != b[i];
	return k;
}

static void test_Z_adds_a_layer_and_y_moves_between_them(void **state)
{
	(void)state;
	struct app *app = two_layers(1);
	/* the viewed layer's activations are the stack's layer 1 */
	assert_ptr_equal(app->a.scores, app->stack.layer[1].scores);
	assert_ptr_equal(app_tensor(app, MHA_T_WQ), app->w.upper[0].wq);
	/* the stream: x_1 = x_0 + Y_0, cell by cell, and layer 1 reads it */
	size_t nd = (size_t)app->cfg.n * app->cfg.d;
	for (size_t i = 0; i < nd; i++) {
		assert_float_equal(app->stack.layer[0].stream[i],
		                   app->stack.layer[0].xin[i] + app->stack.layer[0].y[i], 0.0f);
		assert_float_equal(app->stack.layer[1].xin[i], app->stack.layer[0].stream[i], 0.0f);
	}
	/* against the core's stack forward run apart from the app */
	struct mha_stack s;
	assert_int_equal(mha_stack_alloc(&s, &app->cfg), MHA_OK);
	mha_stack_forward(&app->cfg, &app->w, &s);
	size_t hnn = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	assert_int_equal(differing(s.layer[1].scores, app->a.scores, hnn), 0);
	mha_stack_free(&s);
	/* y wraps, Y goes back */
	tui_check_keys(app, "y");
	assert_int_equal(app->layer, 0);
	tui_check_keys(app, "Y");
	assert_int_equal(app->layer, 1);
	/* z takes the layer away: the view falls back to layer 0 */
	tui_check_keys(app, "z");
	assert_int_equal(app->cfg.layers, 1);
	assert_int_equal(app->layer, 0);
	assert_ptr_equal(app->a.scores, app->stack.layer[0].scores);
	tui_check_keys(app, "zy"); /* no fewer than one, and y says there is one */
	assert_int_equal(app->cfg.layers, 1);
	assert_non_null(strstr(app->status, "one layer"));
	tui_check_keys(app, "ZZZZ");
	assert_int_equal(app->cfg.layers, 4);
	assert_true(app->status_error); /* a fifth is refused */
	tui_check_close(app);
}

static void test_the_screen_names_the_layer_and_shows_the_stream(void **state)
{
	(void)state;
	struct app *app = two_layers(1);
	app->now_ms = 1000000;
	for (int mono = 0; mono < 2; mono++) {
		const char *s = tui_check_screen(app, 24, 80, mono);
		assert_non_null(strstr(s, "layer 1: Q 6x16 = x_1 6x16 . W^Q 16x16"));
		assert_non_null(strstr(s, "x_1 6x16")); /* x_1 as a matrix */
		s = tui_check_screen(app, 60, 200, mono);
		assert_non_null(strstr(s, "layer 1/2"));
	}
	tui_check_keys(app, "7");
	const char *s = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(s, "x_2 = x_1 + Y: the residual stream, the stack's output"));
	assert_non_null(strstr(s, "x_2 6x16")); /* the stream after the layer, its own matrix */
	tui_check_keys(app, "Y");
	s = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(s, "the next layer's input"));
	assert_non_null(strstr(s, "layer 0/2"));
	tui_check_close(app);
}

static void test_an_edit_in_layer_0_moves_layer_1s_scores(void **state)
{
	(void)state;
	struct app *app = two_layers(0);
	float *s0 = scores_of(app, 0), *s1 = scores_of(app, 1);
	size_t hnn = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	tui_check_keys(app, "1c"); /* Projection, the cursor on W^Q of layer 0 */
	tui_check_keys(app, "\n2.5\n");
	assert_float_equal(app->w.wq[0], 2.5f, 0.0f);
	assert_true(differing(s0, app->stack.layer[0].scores, hnn) > 0);
	assert_true(differing(s1, app->stack.layer[1].scores, hnn) > 0);
	/* on layer 1, the cells the edit moved are marked */
	tui_check_keys(app, "y3");
	int marked = 0;
	for (int r = 0; r < app->cfg.n; r++)
		for (int c = 0; c < app->cfg.n; c++)
			marked += app_cell_changed(app, MHA_T_SCORES, 0, r, c);
	assert_true(marked > 0);
	free(s0);
	free(s1);
	tui_check_close(app);
}

static void test_an_edit_in_layer_1_leaves_layer_0_and_undo_finds_it(void **state)
{
	(void)state;
	struct app *app = two_layers(1);
	float *s0 = scores_of(app, 0), *s1 = scores_of(app, 1);
	float wq0 = app->w.wq[0], wq1 = app->w.upper[0].wq[0];
	size_t hnn = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	tui_check_keys(app, "1c\n2.5\n");
	assert_float_equal(app->w.upper[0].wq[0], 2.5f, 0.0f);
	assert_float_equal(app->w.wq[0], wq0, 0.0f);
	assert_int_equal(differing(s0, app->stack.layer[0].scores, hnn), 0);
	assert_true(differing(s1, app->stack.layer[1].scores, hnn) > 0);
	tui_check_keys(app, "Y"); /* to layer 0, then undo */
	tui_check_keys(app, "u");
	assert_float_equal(app->w.upper[0].wq[0], wq1, 0.0f);
	assert_float_equal(app->w.wq[0], wq0, 0.0f);
	assert_non_null(strstr(app->status, "of layer 1"));
	assert_int_equal(differing(s1, app->stack.layer[1].scores, hnn), 0);
	/* a nudge is an edit of the viewed layer too */
	tui_check_keys(app, "y+");
	assert_float_equal(app->w.upper[0].wq[0], wq1 + 0.1f, 1e-6f);
	assert_float_equal(app->w.wq[0], wq0, 0.0f);
	free(s0);
	free(s1);
	tui_check_close(app);
}

/* The decoder takes one layer: on a stack, o says so and the workbench
 * stays (before, the view opened with no token cached and drew token -1). */
static void test_decode_on_a_stack_is_refused_with_its_reason(void **state)
{
	(void)state;
	struct app *app = two_layers(0);
	tui_check_keys(app, "o");
	assert_false(mode_is(app, "decode"));
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "decode: "));
	(void)tui_check_screen(app, 24, 80, true);
	tui_check_close(app);
}

static void test_a_session_with_layers_saves_and_loads(void **state)
{
	(void)state;
	char path[4096], msg[MHA_MSG_MAX];
	tmpdir_path(path, sizeof path, "layers.session");
	struct app *app = two_layers(0);
	tui_check_keys(app, "Zyy"); /* three layers, on layer 2 */
	tui_check_keys(app, "7c\n-1.25\n"); /* W^O of layer 2 */
	assert_float_equal(app->w.upper[1].wo[0], -1.25f, 0.0f);
	struct mha_config c;
	struct mha_weights w;
	tui_check_save_and_load(app, path, &c, &w);
	assert_int_equal(c.layers, 3);
	assert_float_equal(w.upper[1].wo[0], -1.25f, 0.0f);
	/* a workbench opened on it computes the same last layer */
	struct app *back = calloc(1, sizeof *back);
	assert_non_null(back);
	assert_int_equal(app_init(back, tui_modes, &c, &w, msg, sizeof msg), 0);
	size_t nd = (size_t)c.n * c.d;
	assert_int_equal(differing(back->stack.layer[2].stream, app->stack.layer[2].stream, nd), 0);
	app_free(back);
	free(back);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_Z_adds_a_layer_and_y_moves_between_them),
		cmocka_unit_test(test_the_screen_names_the_layer_and_shows_the_stream),
		cmocka_unit_test(test_an_edit_in_layer_0_moves_layer_1s_scores),
		cmocka_unit_test(test_an_edit_in_layer_1_leaves_layer_0_and_undo_finds_it),
		cmocka_unit_test(test_a_session_with_layers_saves_and_loads),
		cmocka_unit_test(test_decode_on_a_stack_is_refused_with_its_reason),
	};
	return cmocka_run_group_tests_name("layers", tests, tmpdir_make, tmpdir_remove);
}
