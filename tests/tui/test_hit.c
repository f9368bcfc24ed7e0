/*
 * test_hit.c - the mouse: hit regions as a grid (row0 + dy, col0 + dx /
 * cell_w; the last drawn on top; none outside), and the regions a real
 * drawing records (a virtual screen at 80x24 and 160x50), clicked through
 * app_mouse as a person would: a stage label, a matrix cell (also of a
 * scrolled matrix), a heatmap cell, a lesson in the menu (twice opens it),
 * a key hint; the wheel over the lesson text, the menu, the help and the
 * matrices; and clicks that must do nothing (a blank, while typing, on the
 * "needs 80x24" screen).
 */
#include <curses.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mode.h"
#include "app.h"
#include "draw.h"
#include "hit.h"
#include "learn.h"
#include "lesson.h"
#include "tui_check.h"
#include "vscreen.h"

enum { SCREEN_MAX = 64 * 1024 };

static const char *screen;

/* ---- the grid ---- */

static void test_a_region_maps_screen_cells_to_its_grid(void **state)
{
	(void)state;
	struct hit_map m;
	hit_clear(&m);
	/* a 3 x 4 matrix scrolled to row 2, column 5, cells 6 wide */
	hit_add(&m, (struct rect){ 10, 20, 3, 24 }, HIT_CELL, 1, 2, 5, 6);
	struct hit h = hit_at(&m, 10, 20);
	assert_int_equal(h.kind, HIT_CELL);
	assert_int_equal(h.id, 1);
	assert_int_equal(h.row, 2);
	assert_int_equal(h.col, 5);
	h = hit_at(&m, 12, 43); /* last line, last column: the space after the last cell */
	assert_int_equal(h.row, 4);
	assert_int_equal(h.col, 8);
	h = hit_at(&m, 11, 31); /* 11 columns in: the second cell */
	assert_int_equal(h.col, 6);
	assert_int_equal(hit_at(&m, 9, 20).kind, HIT_NONE);
	assert_int_equal(hit_at(&m, 13, 20).kind, HIT_NONE);
	assert_int_equal(hit_at(&m, 10, 19).kind, HIT_NONE);
	assert_int_equal(hit_at(&m, 10, 44).kind, HIT_NONE);
	assert_int_equal(hit_at(NULL, 10, 20).kind, HIT_NONE);
}

/* Heatmap rows two lines tall: both lines of a row meet that row. */
static void test_a_region_of_tall_rows_maps_both_lines_to_the_row(void **state)
{
	(void)state;
	struct hit_map m;
	hit_clear(&m);
	hit_add_cells(&m, (struct rect){ 10, 20, 12, 48 }, HIT_HEAT, 3, 0, 0, 8, 2);
	for (int y = 10; y < 22; y++) {
		struct hit h = hit_at(&m, y, 20 + 8 * 4 + 7);
		assert_int_equal(h.kind, HIT_HEAT);
		assert_int_equal(h.row, (y - 10) / 2);
		assert_int_equal(h.col, 4);
	}
}

static void test_the_region_drawn_last_is_on_top(void **state)
{
	(void)state;
	struct hit_map m;
	hit_clear(&m);
	hit_add(&m, (struct rect){ 0, 0, 10, 10 }, HIT_PANE, 0, 0, 0, 10);
	hit_add(&m, (struct rect){ 2, 2, 1, 3 }, HIT_STAGE, 4, 0, 0, 1);
	assert_int_equal(hit_at(&m, 2, 3).kind, HIT_STAGE);
	assert_int_equal(hit_at(&m, 2, 3).id, 4);
	assert_int_equal(hit_at(&m, 3, 3).kind, HIT_PANE);
	hit_clear(&m);
	assert_int_equal(hit_at(&m, 2, 3).kind, HIT_NONE);
}

static void test_empty_regions_and_regions_past_the_limit_are_dropped(void **state)
{
	(void)state;
	struct hit_map m;
	hit_clear(&m);
	hit_add(&m, (struct rect){ 0, 0, 0, 5 }, HIT_STAGE, 0, 0, 0, 1);
	hit_add(&m, (struct rect){ 0, 0, 5, 0 }, HIT_STAGE, 0, 0, 0, 1);
	assert_int_equal(m.count, 0);
	for (int i = 0; i < HIT_MAX + 5; i++)
		hit_add(&m, (struct rect){ i, 0, 1, 1 }, HIT_MENU, 0, i, 0, 0); /* cell_w 0 counts as 1 */
	assert_int_equal(m.count, HIT_MAX);
	assert_int_equal(hit_at(&m, HIT_MAX - 1, 0).row, HIT_MAX - 1);
	assert_int_equal(hit_at(&m, HIT_MAX, 0).kind, HIT_NONE);
	hit_add(NULL, (struct rect){ 0, 0, 1, 1 }, HIT_MENU, 0, 0, 0, 1); /* no map: nothing */
}

/* ---- on a drawn screen ---- */

/* Draw as the loop does (the regions into app->hits, the pane's scroll
 * kept), and keep the screen's text. */
static void draw(struct app *app, int rows, int cols)
{
	app->now_ms = 1000000; /* messages have expired: the status line names the cursor's cell */
	screen = tui_check_screen(app, rows, cols, false);
}

/* Row and column of text on the screen last drawn (ASCII: the C locale). */
static bool find(const char *text, int *y, int *x)
{
	const char *at = strstr(screen, text);
	*y = *x = -1;
	if (!at)
		return false;
	*y = 0;
	const char *line = screen;
	for (const char *s = screen; s < at; s++)
		if (*s == '\n') {
			(*y)++;
			line = s + 1;
		}
	*x = (int)(at - line);
	return true;
}

static const char *screen_line(int y)
{
	static char line[1024];
	const char *s = screen;
	for (int i = 0; i < y && s; i++)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	size_t n = s ? strcspn(s, "\n") : 0;
	snprintf(line, sizeof line, "%.*s", (int)n, s ? s : "");
	return line;
}

/* The region of kind and id as last drawn (the test's way to find a
 * heatmap or the menu's list). */
static const struct hit_region *region(const struct app *app, enum hit_kind kind, int id)
{
	for (int i = 0; i < app->hits.count; i++)
		if (app->hits.reg[i].kind == kind && (kind == HIT_MENU || app->hits.reg[i].id == id))
			return &app->hits.reg[i];
	fail_msg("no region of kind %d, id %d", kind, id);
	return NULL;
}

static void test_a_click_on_a_stage_label_jumps_to_that_stage(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw(app, 24, 80);
	int y, x;
	assert_true(find("4 Softmax", &y, &x));
	assert_int_equal(app_mouse(app, y, x + 3, HIT_CLICK) & APP_REDRAW, APP_REDRAW);
	assert_int_equal(app->stage, PIPELINE_SOFTMAX);
	draw(app, 24, 80);
	assert_true(find("7 W^O", &y, &x));
	app_mouse(app, y, x, HIT_CLICK); /* its first column */
	assert_int_equal(app->stage, PIPELINE_OUTPUT);
	app_mouse(app, y, x - 1, HIT_CLICK); /* the blank before it: nothing */
	assert_int_equal(app->stage, PIPELINE_OUTPUT);
	tui_check_close(app);
}

static void test_a_click_on_a_matrix_cell_puts_the_cursor_there(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw(app, 24, 80);
	int y, x;
	assert_true(find("W^Q 16x16 r", &y, &x)); /* Projection: X, W^Q, Q (not the formula's) */
	/* W^Q's row 2, column 2: title, header, then rows; labels 5 wide, cells 6 */
	app_mouse(app, y + 2 + 2, x + 5 + 2 * 6 + 1, HIT_CLICK);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].panel, 1);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].row, 2);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].col, 2);
	draw(app, 24, 80);
	assert_non_null(strstr(screen_line(22), "W^Q[2,2] = "));
	/* X scrolled right (cursor on its last column): the first column shown
	 * is then column 16 - shown, and a click there means that column */
	assert_true(find("X 6x16 r", &y, &x));
	app_mouse(app, y + 2, x + 5, HIT_CLICK);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].panel, 0);
	tui_check_keys(app, "llllllllllllllll");
	assert_int_equal(app->cur[PIPELINE_PROJECTION].col, 15);
	draw(app, 24, 80);
	const struct hit_region *g = region(app, HIT_CELL, 0);
	assert_true(g->col0 > 0);
	app_mouse(app, g->r.y + 1, g->r.x, HIT_CLICK);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].row, 1);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].col, g->col0);
	char want[64];
	snprintf(want, sizeof want, "X[1 %s, %d] = ", app->w.labels[1], g->col0);
	draw(app, 24, 80);
	assert_non_null(strstr(screen_line(22), want));
	tui_check_close(app);
}

static void test_a_click_on_a_heatmap_cell_selects_that_head_and_cell(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "4");
	draw(app, 24, 80);
	int y, x;
	assert_true(find("h1 word", &y, &x)); /* the title of head 1 (wired to the same word) */
	const struct hit_region *g = region(app, HIT_HEAT, 1);
	assert_int_equal(g->r.y, y + 2); /* the cells start under the title and the key labels */
	app_mouse(app, g->r.y + 2, g->r.x + 3 * g->cell_w, HIT_CLICK);
	assert_int_equal(app->head, 1);
	struct stage_view v;
	struct cell c;
	assert_true(app_cursor_cell(app, &c, NULL, &v));
	assert_int_equal(c.t, MHA_T_WEIGHTS);
	assert_int_equal(c.m, 1);
	assert_int_equal(c.r, 2);
	assert_int_equal(c.c, 3);
	/* on Concat no matrix shows the weights: the head, and the value said
	 * (at 120x40: at 80x24 its heatmaps give way to its matrices) */
	tui_check_keys(app, "6");
	draw(app, 40, 120);
	g = region(app, HIT_HEAT, 0);
	app_mouse(app, g->r.y, g->r.x, HIT_CLICK);
	assert_int_equal(app->head, 0);
	assert_int_equal(app->stage, PIPELINE_CONCAT);
	assert_non_null(strstr(app->status, "P_0["));
	tui_check_close(app);
}

/* 160x50: cells 7 wide, the counts and the lesson note in a side column,
 * every heatmap at its widest cells. */
/* At 200x60 the heatmaps' rows are several lines tall: a click on any
 * line of a row meets that row. */
static void test_a_click_on_any_line_of_a_tall_heatmap_row_meets_that_row(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "4");
	draw(app, 60, 200);
	const struct hit_region *g = region(app, HIT_HEAT, 2);
	assert_non_null(g);
	int rh = g->cell_h;
	assert_true(rh > 1);
	for (int k = 0; k < rh; k++) {
		app_mouse(app, g->r.y + 4 * rh + k, g->r.x + g->cell_w, HIT_CLICK);
		assert_int_equal(app->head, 2);
		struct stage_view v;
		struct cell c;
		assert_true(app_cursor_cell(app, &c, NULL, &v));
		assert_int_equal(c.m, 2);
		assert_int_equal(c.r, 4);
		assert_int_equal(c.c, 1);
		draw(app, 60, 200);
		g = region(app, HIT_HEAT, 2);
	}
	tui_check_close(app);
}

static void test_clicks_on_a_wide_terminal_meet_the_same_cells(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "3");
	draw(app, 50, 160);
	int y, x;
	assert_true(find("K_0 6x4", &y, &x)); /* Scores: Q_0, K_0, S_0 */
	const struct hit_region *g = region(app, HIT_CELL, 1);
	assert_int_equal(g->r.y, y + 2);
	assert_int_equal(g->r.x, x + 5);
	app_mouse(app, y + 2 + 4, x + 5 + g->cell_w + 2, HIT_CLICK);
	assert_int_equal(app->cur[PIPELINE_SCORES].panel, 1);
	assert_int_equal(app->cur[PIPELINE_SCORES].row, 4);
	assert_int_equal(app->cur[PIPELINE_SCORES].col, 1);
	g = region(app, HIT_HEAT, 3);
	app_mouse(app, g->r.y + 5, g->r.x + 1, HIT_CLICK);
	assert_int_equal(app->head, 3);
	assert_int_equal(app->cur[PIPELINE_SCORES].panel, 2);
	assert_int_equal(app->cur[PIPELINE_SCORES].row, 5);
	assert_int_equal(app->cur[PIPELINE_SCORES].col, 0);
	draw(app, 50, 160);
	assert_non_null(strstr(screen_line(48), "S_3["));
	tui_check_close(app);
}

static void test_clicks_that_meet_nothing_change_nothing(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "3");
	draw(app, 24, 80);
	struct app_cursor before = app->cur[PIPELINE_SCORES];
	int y, x;
	assert_true(find("S_0 6x6", &y, &x));
	assert_int_equal(app_mouse(app, y, x, HIT_CLICK), 0);  /* a title */
	assert_int_equal(app_mouse(app, 1, 79, HIT_CLICK), 0); /* the formula line's end */
	assert_int_equal(app_mouse(app, 22, 70, HIT_CLICK), 0); /* the status line */
	assert_int_equal(app_mouse(app, -1, -1, HIT_CLICK), 0);
	assert_int_equal(app->stage, PIPELINE_SCORES);
	assert_memory_equal(&before, &app->cur[PIPELINE_SCORES], sizeof before);
	/* the "needs 80x24" screen records nothing */
	draw(app, 20, 70);
	assert_int_equal(app->hits.count, 0);
	assert_int_equal(app_mouse(app, 0, 10, HIT_CLICK), 0);
	assert_int_equal(app->stage, PIPELINE_SCORES);
	tui_check_close(app);
}

static void test_a_click_while_typing_a_value_is_ignored(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw(app, 24, 80);
	tui_check_keys(app, "\n0.5");
	int y, x;
	assert_true(find("4 Softmax", &y, &x));
	assert_int_equal(app_mouse(app, y, x, HIT_CLICK), 0);
	assert_int_equal(app_mouse(app, 23, 0, HIT_CLICK), 0); /* the "? help" hint */
	assert_int_equal(app_mouse(app, 10, 10, HIT_WHEEL_DOWN), 0);
	assert_ptr_equal(app->mode, &value_prompt_mode);
	draw(app, 24, 80);
	assert_non_null(strstr(screen, "= 0.5_   (Enter sets, Esc cancels)")); /* what was typed, kept */
	assert_int_equal(app->stage, PIPELINE_PROJECTION);
	tui_check_close(app);
}

static void test_a_key_hint_clicked_is_its_key_and_the_help_scrolls_by_wheel(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw(app, 24, 80);
	int y, x;
	assert_true(find("? help", &y, &x));
	assert_int_equal(y, 23);
	app_mouse(app, y, x + 3, HIT_CLICK);
	assert_true(app->help_open);
	draw(app, 24, 80);
	assert_non_null(strstr(screen, "Tab S-Tab   next / previous stage"));
	app_mouse(app, 10, 10, HIT_WHEEL_DOWN);
	assert_int_equal(app->help_scroll, 3);
	app_mouse(app, 10, 10, HIT_WHEEL_UP);
	app_mouse(app, 10, 10, HIT_WHEEL_UP);
	assert_int_equal(app->help_scroll, 0);
	app_mouse(app, 10, 10, HIT_CLICK); /* closes it, as any key does */
	assert_false(app->help_open);
	tui_check_close(app);
}

static void test_the_wheel_over_the_matrices_moves_the_cursor_a_row(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw(app, 24, 80);
	app_mouse(app, 8, 30, HIT_WHEEL_DOWN);
	app_mouse(app, 8, 30, HIT_WHEEL_DOWN);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].row, 2);
	app_mouse(app, 8, 30, HIT_WHEEL_UP);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].row, 1);
	tui_check_close(app);
}

/* ---- lessons ---- */

static struct lesson_set set;

static int lessons_load(void **state)
{
	(void)state;
	char found[4096], msg[4096];
	struct lesson_errors errs = { 0 };
	int rc = lesson_find_dir(NULL, found, sizeof found, msg, sizeof msg) == 0 &&
	         lesson_set_load(&set, found, &errs) == 0 && set.count >= 3 ? 0 : -1;
	lesson_errors_free(&errs);
	return rc;
}

static int lessons_free(void **state)
{
	(void)state;
	lesson_set_free(&set);
	return 0;
}

static void test_a_click_selects_a_lesson_and_a_second_opens_it(void **state)
{
	(void)state;
	struct app *app = tui_check_open(&set);
	tui_check_keys(app, "M"); /* the free workbench shows the menu while it has the keys */
	draw(app, 24, 80);
	assert_ptr_equal(app->mode, &menu_mode);
	assert_int_not_equal(app->learn.menu_sel, 2);
	const struct hit_region *g = region(app, HIT_MENU, 0);
	int pick = 2 - g->row0; /* the third lesson's line */
	assert_true(pick >= 0 && pick < g->r.h);
	assert_non_null(strstr(screen_line(g->r.y + pick), set.lessons[2].title));
	app_mouse(app, g->r.y + pick, g->r.x + 3, HIT_CLICK);
	assert_ptr_equal(app->mode, &menu_mode);
	assert_int_equal(app->learn.menu_sel, 2);
	assert_null(learn_lesson(app));
	draw(app, 24, 80);
	g = region(app, HIT_MENU, 0);
	app_mouse(app, g->r.y + 2 - g->row0, g->r.x, HIT_CLICK);
	assert_non_null(learn_lesson(app));
	assert_int_equal(app->learn.lesson, 2);
	assert_ptr_not_equal(app->mode, &menu_mode);
	tui_check_close(app);
}

static void test_the_wheel_scrolls_the_lesson_text_and_the_menu(void **state)
{
	(void)state;
	struct app *app = tui_check_open(&set);
	/* the longest first step of a lesson: its text scrolls at 80x24 */
	int best = 0;
	for (int i = 0; i < set.count; i++) {
		tui_check_keys(app, "M");
		app->learn.menu_sel = i;
		tui_check_keys(app, "\n");
		draw(app, 24, 80);
		if (app->learn.scroll_max > 0) {
			best = 1;
			break;
		}
	}
	assert_true(best); /* some lesson's step is longer than the narrow pane */
	const struct hit_region *g = region(app, HIT_PANE, 0);
	struct app_cursor before = app->cur[app->stage];
	app_mouse(app, g->r.y + 3, g->r.x + 2, HIT_WHEEL_DOWN);
	assert_int_equal(app->learn.scroll, app->learn.scroll_max < 3 ? app->learn.scroll_max : 3);
	assert_memory_equal(&before, &app->cur[app->stage], sizeof before);
	app_mouse(app, g->r.y + 3, g->r.x + 2, HIT_WHEEL_UP);
	assert_int_equal(app->learn.scroll, 0);
	/* the menu up: the wheel moves its selection */
	tui_check_keys(app, "M");
	draw(app, 24, 80);
	int sel = app->learn.menu_sel;
	g = region(app, HIT_MENU, 0);
	app_mouse(app, g->r.y, g->r.x, HIT_WHEEL_DOWN);
	assert_int_equal(app->learn.menu_sel, (sel + 1) % set.count);
	tui_check_close(app);
}

int main(void)
{
	setlocale(LC_CTYPE, "C");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_region_maps_screen_cells_to_its_grid),
		cmocka_unit_test(test_a_region_of_tall_rows_maps_both_lines_to_the_row),
		cmocka_unit_test(test_the_region_drawn_last_is_on_top),
		cmocka_unit_test(test_empty_regions_and_regions_past_the_limit_are_dropped),
		cmocka_unit_test(test_a_click_on_a_stage_label_jumps_to_that_stage),
		cmocka_unit_test(test_a_click_on_a_matrix_cell_puts_the_cursor_there),
		cmocka_unit_test(test_a_click_on_a_heatmap_cell_selects_that_head_and_cell),
		cmocka_unit_test(test_a_click_on_any_line_of_a_tall_heatmap_row_meets_that_row),
		cmocka_unit_test(test_clicks_on_a_wide_terminal_meet_the_same_cells),
		cmocka_unit_test(test_clicks_that_meet_nothing_change_nothing),
		cmocka_unit_test(test_a_click_while_typing_a_value_is_ignored),
		cmocka_unit_test(test_a_key_hint_clicked_is_its_key_and_the_help_scrolls_by_wheel),
		cmocka_unit_test(test_the_wheel_over_the_matrices_moves_the_cursor_a_row),
		cmocka_unit_test_setup_teardown(test_a_click_selects_a_lesson_and_a_second_opens_it,
		                                lessons_load, lessons_free),
		cmocka_unit_test_setup_teardown(test_the_wheel_scrolls_the_lesson_text_and_the_menu,
		                                lessons_load, lessons_free),
	};
	return cmocka_run_group_tests_name("hit regions and the mouse", tests, NULL, NULL);
}
