/*
 * test_cross.c - cross-attention on the workbench, driven by keys: X
 * types a source sentence (X_kv, M tokens), an empty one turns it off
 * again; every stage labels the queries' axis with X's words and the
 * keys' axis with X_kv's (S and P n x M, K and V M rows), says whose
 * tokens are which, and shows the core's numbers; the mask view pads a
 * source token (column of P zero in every row); decode attends each query
 * over the M source keys and equals the full pass; FlashAttention says in
 * one line why it does not open; undo and a saved session keep X_kv.
 */
#include <curses.h>
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

/* The default workbench (seed 1's random inputs, GQA: 4 query heads on 2
 * kv heads) with the sentence "the black cat sleeps now" (n 5) and the
 * source "le chat noir" (M 3), both typed. */
static struct app *open_cross(void)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "r<"); /* seed 1; fewer kv heads */
	tui_check_keys(app, "N");
	tui_check_press(app, 'U' - '@'); /* C-u: the line emptied */
	tui_check_keys(app, "the black cat sleeps now\n");
	tui_check_keys(app, "Xle chat noir\n");
	assert_int_equal(app->cfg.n, 5);
	assert_int_equal(app->cfg.m, 3);
	assert_int_equal(app->cfg.g, 2);
	assert_string_equal(app->w.kv_labels[2], "noir");
	assert_string_equal(app->w.labels[1], "black");
	return app;
}

/* The value after "NAME = " on the screen's status line. */
static double status_value(const char *screen, const char *name)
{
	const char *p = strstr(screen, name);
	assert_non_null(p);
	return strtod(p + strlen(name), NULL);
}

static void test_the_source_prompt_sets_m_and_its_words_and_off_again(void **state)
{
	(void)state;
	struct app *app = open_cross();
	/* X_kv's rows are the words' (the core's table), K and V from them */
	struct mha_weights w;
	struct mha_config c = app->cfg;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	memcpy(w.kv_labels, app->w.kv_labels, (size_t)c.m * MHA_LABEL_MAX);
	mha_embed_kv_words(&w, &c, c.seed);
	for (size_t i = 0; i < (size_t)c.m * c.d; i++)
		assert_float_equal(app->w.x_kv[i], w.x_kv[i], 0.0f);
	mha_weights_free(&w);
	/* the prompt starts with the source's words; an empty line: no source */
	tui_check_keys(app, "X");
	tui_check_press(app, 'U' - '@');
	tui_check_keys(app, "\n");
	assert_int_equal(app->cfg.m, 0);
	assert_int_equal(mha_keys(&app->cfg), 5);
	/* undo brings the source back, words and rows */
	tui_check_keys(app, "u");
	assert_int_equal(app->cfg.m, 3);
	assert_string_equal(app->w.kv_labels[0], "le");
	tui_check_close(app);
}

static void test_every_stage_labels_both_axes_and_shows_the_cores_numbers(void **state)
{
	(void)state;
	struct app *app = open_cross();
	const struct mha_config *c = &app->cfg;
	/* the workbench's pass is the core's, S and P n x M a head */
	struct mha_stack s;
	assert_int_equal(mha_stack_alloc(&s, c), MHA_OK);
	mha_stack_forward(c, &app->w, &s);
	size_t hnm = (size_t)c->h * c->n * c->m;
	for (size_t i = 0; i < hnm; i++) {
		assert_float_equal(s.layer[0].scores[i], app->a.scores[i], 0.0f);
		assert_float_equal(s.layer[0].weights[i], app->a.weights[i], 0.0f);
	}
	/* Scores: the formula n x M, the note whose tokens, the columns the source's */
	tui_check_keys(app, "3");
	const char *scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "S_0 5x3 = Q_0 5x4 . K_0^T 4x3 / sqrt(d_k)"));
	assert_non_null(strstr(scr, "queries from X (5 tokens), keys and values from X_kv (3 tokens)"));
	assert_non_null(strstr(scr, "n 5 tokens, m 3 source tokens"));
	assert_non_null(strstr(scr, "rows: queries from X, columns: keys from X_kv"));
	/* the S panel: a header of X_kv's words, rows of X's */
	assert_non_null(tui_check_line_with(scr, "le", "chat", "noir"));
	assert_non_null(tui_check_line_with(scr, "sleeps", NULL, NULL));
	/* four heatmaps of 5 rows by 3 columns: each head's title once, and
	 * no column past the source's third */
	for (int i = 0; i < 4; i++) {
		char t[32];
		snprintf(t, sizeof t, "head %d kv %d", i, i / 2);
		assert_non_null(strstr(scr, t));
	}
	assert_null(strstr(scr, "sleeps  now"));
	int noir = 0; /* S's header, K's last row, and each heatmap's last column */
	for (const char *p = strstr(scr, "noir"); p; p = strstr(p + 1, "noir"))
		noir++;
	assert_int_equal(noir, 2 + 4);
	/* the cursor in S: the status line names the query and the source key,
	 * and reads the core's value */
	tui_check_keys(app, "cclll"); /* S_0, its last column: 2 */
	app->now_ms += 1000000; /* the message "cursor in S_0" has gone */
	scr = tui_check_screen(app, 60, 200, true);
	double v = status_value(scr, "S_0[0 the, 2 noir] = ");
	assert_true(fabs(v - s.layer[0].scores[2]) <= 1e-6 * fmax(1.0, fabs(v)));
	/* Softmax: P n x M, each row sums to 1 over the M keys */
	tui_check_keys(app, "4");
	scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "P_0 5x3 = softmax(S_0) by rows"));
	/* Weighted sum: O n x d_k from P n x M and V M x d_k */
	tui_check_keys(app, "5");
	scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "O_0 5x4 = P_0 5x3 . V_0 3x4"));
	/* Projection and Reshape of K: X_kv's rows */
	tui_check_keys(app, "1v");
	scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "K 3x8 = X_kv 3x16 . W^K 16x8"));
	assert_non_null(tui_check_line_with(scr, "noir", NULL, NULL));
	tui_check_keys(app, "2");
	scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "K_0 = X_kv . W^K_0"));
	assert_non_null(strstr(scr, "K[*,0..3] = X_kv . W^K[*,0..3]  max |diff| "));
	/* 80x24: the axes still said, the note cut to its head */
	tui_check_keys(app, "3");
	scr = tui_check_screen(app, 24, 80, true);
	assert_non_null(strstr(scr, "S_0 5x3"));
	assert_non_null(tui_check_line_with(scr, "rows", "X queries", "X_kv keys")); /* the legend's short form */
	mha_stack_free(&s);
	tui_check_close(app);
}

static void test_padding_a_source_token_zeroes_its_column_of_P(void **state)
{
	(void)state;
	struct app *app = open_cross();
	const struct mha_config *c = &app->cfg;
	tui_check_keys(app, "P");
	const char *scr = tui_check_screen(app, 40, 120, true);
	assert_non_null(strstr(scr, "Masks: which keys of X_kv (across) each query of X (down) sees"));
	tui_check_keys(app, "llp"); /* the cursor on key 2, noir: padding */
	assert_int_equal(c->pad, 1u << 2);
	for (int i = 0; i < c->h; i++)
		for (int r = 0; r < c->n; r++) {
			const float *row = app->a.weights + ((size_t)i * c->n + r) * c->m;
			assert_float_equal(row[2], 0.0f, 0.0f);
			assert_float_equal(row[0] + row[1], 1.0f, 1e-5f);
		}
	scr = tui_check_screen(app, 40, 120, true);
	assert_non_null(strstr(scr, "noir (X_kv) is padding: no query of X sees it"));
	/* no query row is padding: every one of X's five still has keys */
	assert_null(strstr(scr, "output ignored"));
	/* top-k counts keys: up to the source's M = 3, not n = 5 */
	tui_check_press(app, 27);
	tui_check_keys(app, "tttt");
	assert_int_equal(c->top_k, 3);
	assert_non_null(strstr(app->status, "M (the source's tokens) = 3"));
	tui_check_close(app);
}

static void test_decode_attends_over_the_source_and_flash_says_why_not(void **state)
{
	(void)state;
	struct app *app = open_cross();
	tui_check_keys(app, "o");
	const char *scr = tui_check_screen(app, 40, 120, true);
	assert_non_null(strstr(scr, "keys and values from X_kv (3 tokens), cached once"));
	assert_non_null(strstr(scr, "source le chat noir"));
	assert_non_null(strstr(scr, "= row 0 of the full pass, bit for bit (P and Y)"));
	tui_check_press(app, KEY_RIGHT);
	tui_check_press(app, KEY_RIGHT);
	scr = tui_check_screen(app, 40, 120, true);
	assert_non_null(strstr(scr, "step t = 2 (cat): its row of P over X_kv's keys 0..2"));
	assert_non_null(strstr(scr, "= row 2 of the full pass, bit for bit (P and Y)"));
	tui_check_press(app, 27); /* Esc */
	tui_check_keys(app, "3F");
	assert_true(app->mode == mode_workbench(app));
	scr = tui_check_screen(app, 24, 80, true);
	assert_non_null(strstr(scr, "FlashAttention tiles n x n self-attention: X with no words drops the source"));
	tui_check_close(app);
}

static void test_a_saved_session_keeps_the_source(void **state)
{
	(void)state;
	char path[4096];
	tmpdir_path(path, sizeof path, "cross.session");
	struct app *app = open_cross();
	tui_check_keys(app, "1v"); /* K: the cursor in X_kv */
	tui_check_keys(app, "\n-0.75\n");
	assert_float_equal(app->w.x_kv[0], -0.75f, 0.0f);
	struct mha_config c;
	struct mha_weights w;
	tui_check_save_and_load(app, path, &c, &w);
	assert_int_equal(c.m, 3);
	assert_string_equal(w.kv_labels[1], "chat");
	assert_float_equal(w.x_kv[0], -0.75f, 0.0f);
	mha_weights_free(&w);
	/* undo takes the edit back and keeps the source */
	tui_check_keys(app, "u");
	assert_true(app->w.x_kv[0] != -0.75f);
	assert_int_equal(app->cfg.m, 3);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_source_prompt_sets_m_and_its_words_and_off_again),
		cmocka_unit_test(test_every_stage_labels_both_axes_and_shows_the_cores_numbers),
		cmocka_unit_test(test_padding_a_source_token_zeroes_its_column_of_P),
		cmocka_unit_test(test_decode_attends_over_the_source_and_flash_says_why_not),
		cmocka_unit_test(test_a_saved_session_keeps_the_source),
	};
	return cmocka_run_group_tests_name("cross", tests, tmpdir_make, tmpdir_remove);
}
