/*
 * test_ablate_page.c - the training screen's ablation page (key a,
 * src/tui/views/train_ablate.c) without a terminal: at 80x24 it shows the table's
 * header, a row per h and the paper's BLEU beside h 1, 4, 8, 16, 32 (from
 * train_paper_row_a); the loop's idle call trains a slice and the progress
 * moves; Esc goes back to the training screen. With the argument "full"
 * (suite perf: seconds of training) it runs to the end and every row
 * equals the headless `--ablate multi` row.
 */
#include <curses.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "command.h"
#include "draw.h"
#include "mode.h"
#include "train_view.h"
#include "tui_check.h"
#include "vscreen.h"

static const char *screen;
static bool full;

static void draw_at(struct app *app, int rows, int cols)
{
	app->now_ms = 1000000;
	screen = tui_check_screen(app, rows, cols, false);
}

static void expect_text(const char *s, const char *what)
{
	if (!strstr(screen, s))
		fail_msg("the ablation page lacks %s ('%s'):\n%s", what, s, screen);
}

static void test_the_page_shows_the_table_beside_the_paper(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "Ga");
	draw_at(app, 24, 80);
	expect_text("Your own Table 3 row (A): 'multi', d_model 32", "the title");
	expect_text("run 1/30: h 1 seed 1, step 0/150", "the progress");
	expect_text("  h  d_k accuracy      loss       ok   | BLEU", "the header");
	expect_text("  1   32 running", "the first row");
	expect_text("| 24.9", "the paper's h 1");
	expect_text(" 32    1 -                             | 25.4", "the paper's h 32 beside ours");
	expect_text("d_model 512", "the paper's model");
	assert_true(mode_idle(app)); /* a slice of training */
	draw_at(app, 24, 80);
	assert_null(strstr(screen, "step 0/150"));
	if (full) {
		while (mode_idle(app))
			;
		draw_at(app, 60, 200);
		expect_text("done: 30 runs, 5 seeds x 150 steps", "the end");
		FILE *out = tmpfile(), *err = tmpfile();
		struct train_request rq = { .task = "multi", .seed = 1 };
		assert_int_equal(ablate_command(&rq, out, err), 0);
		rewind(out);
		char line[512];
		int rows = 0;
		while (fgets(line, sizeof line, out)) {
			int h, dk, solved, n;
			double am, as, lm, ls;
			if (sscanf(line, " %d %d %lf +- %lf %lf +- %lf %d/%d", &h, &dk, &am, &as, &lm, &ls, &solved, &n) != 8)
				continue;
			char want[128];
			snprintf(want, sizeof want, "%3d %4d %.3f+-%.3f  %.2f+-%.2f %2d/%-2d", h, dk, am, as, lm, ls, solved, n);
			expect_text(want, "the headless row");
			rows++;
		}
		assert_int_equal(rows, 6);
		fclose(out);
		fclose(err);
	}
	tui_check_keys(app, "\x1b");
	assert_ptr_equal(app->mode, &train_mode);
	draw_at(app, 24, 80);
	expect_text("Training: induction", "the training screen again");
	tui_check_close(app);
}

int main(int argc, char **argv)
{
	full = argc > 1 && !strcmp(argv[1], "full");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_page_shows_the_table_beside_the_paper),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
