/*
 * test_lm_view.c - the learner's sentence through the language model (W),
 * on a virtual screen at 80x24 and 200x60, colour and monochrome.
 * - The five predictions on screen at every position are the reference's
 *   (tests/fixtures/lm/next.txt: a float64 numpy forward of the shipped
 *   model, which the dump's `next` equals to 1e-4, check_lm_dump.py), to
 *   the three decimals shown.
 * - An unknown word is shown as typed beside <unk>.
 * - Live: a head switched off in the view, a weight edited on the
 *   workbench, each changes the predictions (marked *); undo brings the
 *   model's back. Enter puts another layer on the workbench (its X is the
 *   residual stream entering it); undo returns to the layer before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lm.h"
#include "mode.h"
#include "tui_check.h"

extern const struct mode_ops lm_view_mode;

enum { TOP = 5 };
static const char *screen;

static void render(struct app *app, int rows, int cols, bool mono)
{
	screen = tui_check_screen(app, rows, cols, mono);
}

/* The screen line holding a and b (NULL when none). */
static const char *line_with(const char *a, const char *b)
{
	return tui_check_line_with(screen, a, b, NULL);
}

/* ".208" as the view writes a probability */
static void prob_text(char *out, size_t len, double p)
{
	char v[16];
	snprintf(v, sizeof v, "%.3f", p);
	snprintf(out, len, "%s", p < 1.0 && v[0] == '0' ? v + 1 : v);
}

/* Position i's expected "word p word p ..." from the reference file. */
static void expected_row(const struct lm_vocab *v, const char *fixture, const char *sentence, int i, char *out,
                         size_t len)
{
	char want[64];
	snprintf(want, sizeof want, "sentence %s\n", sentence);
	const char *at = strstr(fixture, want);
	assert_non_null(at);
	snprintf(want, sizeof want, "\nnext %d ", i);
	at = strstr(at, want);
	assert_non_null(at);
	at += strlen(want);
	size_t k = 0;
	out[0] = '\0';
	for (int j = 0; j < TOP; j++) {
		int id, used;
		double p;
		assert_int_equal(sscanf(at, "%d %lf%n", &id, &p, &used), 2);
		at += used;
		char ps[16];
		prob_text(ps, sizeof ps, p);
		k += (size_t)snprintf(out + k, len - k, "%s%s %s", j ? " " : "", v->word[id], ps);
	}
}

static void test_the_top_five_on_screen_are_the_reference(void **state)
{
	(void)state;
	const char *sentence = "the dog saw the cat and the dog ran";
	struct app *app = tui_check_open_sentence_model(sentence);
	assert_int_equal(app->cfg.n, 9);
	assert_int_equal(app->cfg.d, 64);
	char path[4200], msg[4400], *fixture;
	size_t size;
	struct lm_vocab v;
	tui_check_source_path(path, sizeof path, "assets/lm.vocab");
	assert_int_equal(lm_vocab_load(&v, path, msg, sizeof msg), 0);
	tui_check_source_path(path, sizeof path, "tests/fixtures/lm/next.txt");
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	fixture = calloc(1, size + 1);
	assert_int_equal(fread(fixture, 1, size, f), size);
	fclose(f);
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	for (int s = 0; s < 2; s++)
		for (int mono = 0; mono < 2; mono++) {
			render(app, sizes[s][0], sizes[s][1], mono);
			for (int i = 0; i < app->cfg.n; i++) {
				char row[256], pos[16];
				expected_row(&v, fixture, sentence, i, row, sizeof row);
				snprintf(pos, sizeof pos, "%2d ", i);
				const char *line = line_with(row, pos);
				if (!line || line[0] == '*')
					fail_msg("at %dx%d%s position %d does not read \"%s\":\n%s", sizes[s][1], sizes[s][0],
					         mono ? " (mono)" : "", i, row, screen);
			}
		}
	free(fixture);
	lm_vocab_free(&v);
	tui_check_close(app);
}

static void test_an_unknown_word_is_shown_as_typed(void **state)
{
	(void)state;
	struct app *app = tui_check_open_sentence_model("the zyzzyva ran");
	render(app, 24, 80, true);
	assert_non_null(line_with("tokens:", "zyzzyva=<unk>"));
	assert_string_equal(app->w.labels[1], "<unk>"); /* the model reads the unknown token */
	tui_check_close(app);
}

/* Does any prediction row differ from the model as shipped? */
static bool marked(struct app *app)
{
	render(app, 60, 200, true);
	return line_with("your edits", NULL) != NULL;
}

static void test_edits_reach_the_predictions_and_undo_brings_them_back(void **state)
{
	(void)state;
	struct app *app = tui_check_open_sentence_model("the dog saw the cat and the dog ran");
	assert_false(marked(app));
	render(app, 60, 200, true);
	assert_non_null(line_with(" 4 cat", "<doc> .304"));
	/* the selected head (layer 0 head 0) off */
	tui_check_keys(app, "x");
	assert_true(app->cfg.head_off[0]);
	assert_true(marked(app));
	assert_null(line_with(" 4 cat", "<doc> .304"));
	tui_check_keys(app, "u");
	assert_false(app->cfg.head_off[0]);
	assert_false(marked(app));
	/* a weight of W^O edited on the workbench */
	tui_check_keys(app, "\033");
	struct cell c = { MHA_T_WO, 0, 3, 5 };
	app_set_input(app, &c, 40.0f);
	app_recompute(app);
	tui_check_keys(app, "W");
	assert_ptr_equal(app->mode, &lm_view_mode);
	assert_true(marked(app));
	tui_check_keys(app, "u");
	assert_false(marked(app));
	tui_check_close(app);
}

static void test_enter_puts_another_layer_on_the_workbench(void **state)
{
	(void)state;
	struct app *app = tui_check_open_sentence_model("the dog saw the cat");
	float x0 = app->w.x[0], wq0 = app->w.wq[0];
	tui_check_keys(app, "Jll"); /* layer 1, head 2 */
	tui_check_keys(app, "\n");
	assert_ptr_equal(app->mode, mode_workbench(app));
	assert_int_equal(app->head, 2);
	assert_true(app->w.x[0] != x0 && app->w.wq[0] != wq0); /* x_1 and layer 1's W^Q */
	tui_check_keys(app, "W");
	render(app, 24, 80, true);
	assert_non_null(line_with("layer 1 on the workbench", NULL));
	tui_check_keys(app, "\033u");
	assert_true(app->w.x[0] == x0 && app->w.wq[0] == wq0);
	tui_check_keys(app, "W");
	render(app, 60, 200, true);
	assert_non_null(line_with("layer 0 on the workbench", NULL));
	assert_null(line_with("your edits", NULL));
	tui_check_close(app);
}

/* In a lesson, W leaves the lesson's bench alone and says where to go. */
static void test_a_lessons_bench_is_left_alone(void **state)
{
	(void)state;
	struct lesson_set set;
	char dir[] = "/tmp/mha-test-lm-view-XXXXXX"; /* the progress files' (mkdtemp) */
	assert_int_equal(tui_check_lessons_open(&set, dir), 0);
	struct app *app = tui_check_open_at(&set, 0, 0);
	int n = app->cfg.n, d = app->cfg.d;
	tui_check_keys(app, "W");
	assert_ptr_equal(app->mode, mode_workbench(app));
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "your own workbench"));
	assert_int_equal(app->cfg.n, n);
	assert_int_equal(app->cfg.d, d);
	tui_check_close(app);
	tui_check_lessons_close(&set, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_top_five_on_screen_are_the_reference),
		cmocka_unit_test(test_an_unknown_word_is_shown_as_typed),
		cmocka_unit_test(test_edits_reach_the_predictions_and_undo_brings_them_back),
		cmocka_unit_test(test_enter_puts_another_layer_on_the_workbench),
		cmocka_unit_test(test_a_lessons_bench_is_left_alone),
	};
	return cmocka_run_group_tests_name("language model view", tests, NULL, NULL);
}
