/*
 * test_train_view.c - the training screen (src/tui/views/train_view.c) without
 * a terminal: G opens it on the induction model, '.' trains one step,
 * Space runs (the loop's idle call trains a slice), the screen at 80x24
 * and 200x60 shows the task, the step, the sparklines, every head's scores
 * and, when they fit, the probe's heatmaps; i shows each head's importance,
 * h and x select a head and switch it off in the model; 'o' puts the shown layer into
 * the workbench (u takes it back); c changes the task; Esc goes back; the
 * model stays while the app lives. The heads apart: each head's gradient
 * (its sparkline and |grad| the same as the table's), layer by layer how
 * far back heads look (v swaps the two at 80x24, both show at 200x60),
 * and s, the shared start: heads 0.00 apart, every head the same |grad|;
 * e, each head alone in its layer against all of them.
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
#include "train_view.h"
#include "draw.h"
#include "mode.h"
#include "train_view.h"
#include "train_view_int.h"
#include "tui_check.h"
#include "vscreen.h"

static const char *screen;

static const char *draw_at(struct app *app, int rows, int cols)
{
	app->now_ms = 1000000; /* messages have expired */
	return screen = tui_check_screen(app, rows, cols, false);
}

static void expect_text(const char *s, const char *what)
{
	if (!strstr(screen, s))
		fail_msg("the training screen lacks %s ('%s'):\n%s", what, s, screen);
}

static void test_training_screen_trains_shows_and_hands_over_a_layer(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G");
	assert_ptr_equal(app->mode, &train_mode);
	draw_at(app, 24, 80);
	expect_text("Training: induction", "the task");
	expect_text("step 0 paused", "the step");
	expect_text("L1H1", "the last head's row");
	tui_check_keys(app, ".");
	draw_at(app, 60, 200);
	expect_text("step 1 paused", "one step");
	expect_text("L1H0 on the probe: ", "a heatmap of the shown layer, labelled by its pattern");
	/* Space: the loop's idle call trains a slice; Space again pauses */
	tui_check_keys(app, " ");
	assert_true(mode_idle(app));
	tui_check_keys(app, " ");
	assert_false(mode_idle(app));
	draw_at(app, 24, 80);
	expect_text("paused", "the pause");
	assert_null(strstr(screen, "step 1 paused")); /* the slice trained more steps */
	/* i: each head's importance; h x: the selected head off in the model */
	tui_check_keys(app, "i");
	draw_at(app, 24, 80);
	expect_text(" imp", "the importance column");
	tui_check_keys(app, "hx");
	app->now_ms = 0;
	assert_non_null(strstr(app->status, "L0H1 off: held-out accuracy"));
	draw_at(app, 24, 80);
	expect_text(">L0H1", "the selected head");
	expect_text("held-out: loss", "the held-out line");
	tui_check_keys(app, "x"); /* back on */
	/* o: layer 1 on the probe into the workbench, 32 tokens, causal */
	int n_before = app->cfg.n;
	assert_int_not_equal(n_before, 32);
	tui_check_keys(app, "o");
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_int_equal(app->cfg.n, 32);
	assert_int_equal(app->cfg.d, 32);
	assert_true(app->cfg.causal);
	tui_check_keys(app, "u");
	assert_int_equal(app->cfg.n, n_before); /* u: the workbench as it was */
	/* back in: the same model; c: the next task (induction wraps to previous) */
	tui_check_keys(app, "G");
	draw_at(app, 24, 80);
	expect_text("Training: induction", "the same task");
	tui_check_keys(app, "c");
	draw_at(app, 24, 80);
	expect_text("Training: previous", "the next task");
	expect_text("step 0 paused", "a fresh model");
	tui_check_keys(app, "\x1b");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
}

/* The numbers after "label" on the line that starts with it. */
static const char *line_after(const char *label)
{
	static char out[256];
	const char *p = strstr(screen, label);
	if (!p)
		fail_msg("no line '%s' on:\n%s", label, screen);
	size_t n = strcspn(p, "\n");
	snprintf(out, sizeof out, "%.*s", (int)n, p);
	return out;
}

static void test_each_head_its_gradient_and_layer_by_layer(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G..");
	draw_at(app, 24, 80);
	expect_text("|grad|", "the gradient block");
	expect_text("heads apart (0: copies): L0 1.4", "heads apart after a random start");
	/* each head's row ends with the table's |grad| */
	for (int i = 0; i < 4; i++) {
		char label[8], value[16];
		snprintf(label, sizeof label, "L%dH%d ", i / 2, i % 2);
		const struct train_view *v = train_view_now(app);
		snprintf(value, sizeof value, "%.3f", v->now.norms[(i / 2) * MHA_MAX_HEADS + i % 2]);
		const char *row = line_after(label);
		assert_non_null(strstr(row, value));
	}
	assert_null(strstr(screen, "back    0    1")); /* not both at 80x24 */
	tui_check_keys(app, "e"); /* each head alone in its layer, and all */
	draw_at(app, 24, 80);
	expect_text("each head alone (held-out acc): L0 ", "each head alone, said in words");
	expect_text(" all ", "the layer's heads together");
	tui_check_keys(app, "v");
	draw_at(app, 24, 80);
	expect_text("ayer by layer: % ", "layer by layer after v");
	expect_text("back    0    1  2-3  4-7 8-15  16+  mean", "the distance buckets of n = 32");
	draw_at(app, 60, 200);
	expect_text("|grad|  heads apart (0: copies): L0 1.4", "both blocks at 200x60");
	expect_text("Layer by layer: % of attention this far back, on the probe", "both blocks at 200x60");
	expect_text("L1H1 on the probe:", "the heatmaps beside the numbers");
	/* s: a shared start, every head the same gradient */
	tui_check_keys(app, "vs.");
	app->now_ms = 0;
	assert_non_null(strstr(app->status, "shared start"));
	draw_at(app, 24, 80);
	expect_text("(0: copies): L0 0.00 L1 0.00", "copies are 0.00 apart");
	const struct train_view *v = train_view_now(app);
	for (int l = 0; l < 2; l++)
		assert_true(fabs(v->now.norms[l * MHA_MAX_HEADS] - v->now.norms[l * MHA_MAX_HEADS + 1]) <=
		            1e-4 * v->now.norms[l * MHA_MAX_HEADS]);
	tui_check_keys(app, "s");
	draw_at(app, 24, 80);
	expect_text("(0: copies): L0 1.4", "a random start again");
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_training_screen_trains_shows_and_hands_over_a_layer),
		cmocka_unit_test(test_each_head_its_gradient_and_layer_by_layer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
