/*
 * test_positions.c - where order comes from, on the workbench: O cycles
 * the encoding; v on Projection shows where order enters (X + PE = x_0,
 * P_pos editable; RoPE's Q and K beside their rotated forms, which the
 * Scores stage then reads); @ shifts every position and says how far the
 * scores moved (RoPE: float rounding; sinusoidal: really); ~ shuffles the
 * tokens and says how far each output row is from its token's old row
 * (no positions: 0, only the rows moved; with positions: far). Each
 * property is checked on the app's own numbers too, and sessions keep the
 * encoding, its offset and P_pos.
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
#include "session.h"
#include "tmpdir.h"
#include "tui_check.h"

/* The default workbench, random inputs (seed 1), the encoding cycled to p. */
static struct app *with_pos(enum mha_pos p)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "r");
	while (app->cfg.pos != p)
		tui_check_keys(app, "O");
	assert_false(app->status_error);
	return app;
}

/* The largest |a - b| over len floats. */
static double max_diff(const float *a, const float *b, size_t len)
{
	double worst = 0.0;
	for (size_t i = 0; i < len; i++)
		worst = fmax(worst, fabs((double)a[i] - b[i]));
	return worst;
}

/* The number the status line gives after "moved" or "by". */
static double said(const struct app *app, const char *after)
{
	const char *p = strstr(app->status, after);
	assert_non_null(p);
	return strtod(p + strlen(after), NULL);
}

static float *copy_of(const float *src, size_t len)
{
	float *d = malloc(len * sizeof *d);
	assert_non_null(d);
	memcpy(d, src, len * sizeof *d);
	return d;
}

static void test_rope_shift_leaves_every_score_and_says_so(void **state)
{
	(void)state;
	struct app *app = with_pos(MHA_POS_ROPE);
	size_t len = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	float *before = copy_of(app->a.scores, len), *qrot = copy_of(app->a.q_rot, (size_t)app->cfg.n * app->cfg.h * app->cfg.dk);
	tui_check_keys(app, "@@@");
	assert_int_equal(app->cfg.pos_offset, 3);
	assert_true(said(app, "moved ") < 1e-5);
	assert_non_null(strstr(app->status, "RoPE reads only i - j"));
	assert_true(max_diff(before, app->a.scores, len) < 1e-5);
	/* while the rotated q moved: the positions did change */
	assert_true(max_diff(qrot, app->a.q_rot, (size_t)app->cfg.n * app->cfg.h * app->cfg.dk) > 1e-2);
	/* the screens: where order enters (v v v on Projection), and Scores reads the rotated forms */
	tui_check_keys(app, "1vvv");
	app->now_ms = 1000000;
	for (int mono = 0; mono < 2; mono++) {
		const char *s = tui_check_screen(app, 24, 80, mono);
		assert_non_null(strstr(s, "RoPE: Q_rot_0 = Q_0 with pair (2k, 2k+1) of row p turned"));
		assert_non_null(strstr(s, "K_rot_0 6x4"));
		s = tui_check_screen(app, 60, 200, mono);
		assert_non_null(strstr(s, "p = row + 3"));
	}
	tui_check_keys(app, "3");
	assert_non_null(strstr(tui_check_screen(app, 24, 80, true), "S_0 6x6 = Q_rot_0 6x4 . K_rot_0^T 4x6"));
	free(before);
	free(qrot);
	tui_check_close(app);
}

static void test_sinusoidal_shift_moves_the_scores(void **state)
{
	(void)state;
	struct app *app = with_pos(MHA_POS_SINUSOIDAL);
	size_t len = (size_t)app->cfg.h * app->cfg.n * app->cfg.n;
	float *before = copy_of(app->a.scores, len);
	tui_check_keys(app, "@");
	double moved = said(app, "moved ");
	assert_true(moved > 1e-3);
	assert_float_equal(moved, max_diff(before, app->a.scores, len), 1e-3 * moved + 1e-6);
	tui_check_keys(app, "u"); /* undo takes the offset back */
	assert_int_equal(app->cfg.pos_offset, 0);
	assert_true(max_diff(before, app->a.scores, len) == 0.0);
	tui_check_keys(app, "1vvv");
	app->now_ms = 1000000;
	const char *s = tui_check_screen(app, 24, 80, true);
	assert_non_null(strstr(s, "x_0 = X + PE: PE[p,2i] = sin(p / 10000^(2i/d))"));
	assert_non_null(strstr(s, "PE 6x16"));
	free(before);
	tui_check_close(app);
}

/* ~ on p: the largest distance of an output row from its token's old row,
 * measured here from the app's numbers (each X row found among the old). */
static double shuffle_distance(enum mha_pos p, int layers, struct app **out)
{
	struct app *app = with_pos(p);
	for (int l = 1; l < layers; l++)
		tui_check_keys(app, "Z");
	int n = app->cfg.n, d = app->cfg.d;
	const float *y0 = app->stack.layer[layers - 1].stream;
	float *x = copy_of(app->w.x, (size_t)n * d), *y = copy_of(y0, (size_t)n * d);
	tui_check_keys(app, "~");
	double worst = 0.0;
	int moved = 0;
	for (int r = 0; r < n; r++) {
		int from = -1;
		for (int k = 0; k < n && from < 0; k++)
			if (!memcmp(app->w.x + (size_t)r * d, x + (size_t)k * d, (size_t)d * sizeof *x))
				from = k;
		assert_true(from >= 0);
		moved += from != r;
		worst = fmax(worst, max_diff(app->stack.layer[layers - 1].stream + (size_t)r * d, y + (size_t)from * d,
		                             (size_t)d));
	}
	assert_true(moved > 0);
	free(x);
	free(y);
	*out = app;
	return worst;
}

static void test_shuffle_without_positions_only_moves_rows(void **state)
{
	(void)state;
	struct app *app;
	double d = shuffle_distance(MHA_POS_NONE, 1, &app);
	assert_true(d < 1e-5);
	assert_non_null(strstr(app->status, "blind to order"));
	assert_true(said(app, "old row by ") < 1e-5);
	tui_check_close(app);
	d = shuffle_distance(MHA_POS_NONE, 2, &app); /* the whole stack too */
	assert_true(d < 1e-5);
	tui_check_close(app);
	d = shuffle_distance(MHA_POS_SINUSOIDAL, 1, &app);
	assert_true(d > 1e-2);
	assert_float_equal(said(app, "old row by "), d, 1e-2 * d);
	assert_non_null(strstr(app->status, "positions tell the tokens apart"));
	tui_check_keys(app, "u"); /* one undo level: the old order back */
	tui_check_close(app);
}

static void test_learned_positions_are_edited_like_a_weight_and_kept(void **state)
{
	(void)state;
	char path[4096], msg[MHA_MSG_MAX];
	tmpdir_path(path, sizeof path, "pos.session");
	struct app *app = with_pos(MHA_POS_LEARNED);
	tui_check_keys(app, "1vvv"); /* X, P_pos, x_0 */
	app->now_ms = 1000000;
	assert_non_null(strstr(tui_check_screen(app, 24, 80, true), "x_0 6x16 = X 6x16 + P_pos 6x16"));
	float x0 = app->a.xin[0];
	tui_check_keys(app, "c\n1.5\n"); /* P_pos[0,0] */
	assert_float_equal(app->w.pos[0], 1.5f, 0.0f);
	assert_float_equal(app->a.xin[0], app->w.x[0] + 1.5f, 0.0f);
	assert_true(app->a.xin[0] != x0);
	struct mha_config c;
	struct mha_weights w;
	tui_check_save_and_load(app, path, &c, &w);
	assert_int_equal(c.pos, MHA_POS_LEARNED);
	assert_float_equal(w.pos[0], 1.5f, 0.0f);
	mha_weights_free(&w);
	/* RoPE with an offset and two layers round-trips too */
	tui_check_keys(app, "OZ@@");
	assert_int_equal(app->cfg.pos, MHA_POS_ROPE);
	tui_check_keys(app, "w");
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.pos, MHA_POS_ROPE);
	assert_int_equal(c.pos_offset, 2);
	assert_int_equal(c.layers, 2);
	mha_weights_free(&w);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rope_shift_leaves_every_score_and_says_so),
		cmocka_unit_test(test_sinusoidal_shift_moves_the_scores),
		cmocka_unit_test(test_shuffle_without_positions_only_moves_rows),
		cmocka_unit_test(test_learned_positions_are_edited_like_a_weight_and_kept),
	};
	return cmocka_run_group_tests_name("positions", tests, tmpdir_make, tmpdir_remove);
}
