/*
 * test_layout.c - the pure geometry: the frame at 80x24 and larger, the
 * "too small" verdict, where heatmaps and counts go, and the packing of a
 * stage's matrices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "counts_panel.h"
#include "heatmap.h"
#include "layout.h"

/* The frame without a lesson pane. */
static struct layout layout_compute(int rows, int cols)
{
	return layout_frame(rows, cols, LAYOUT_PANE_NONE);
}

static void test_below_80x24_the_layout_is_too_small(void **state)
{
	(void)state;
	assert_true(layout_compute(23, 80).too_small);
	assert_true(layout_compute(24, 79).too_small);
	assert_true(layout_compute(20, 70).too_small);
	assert_false(layout_compute(24, 80).too_small);
}

static void test_80x24_has_bar_body_status_and_hints_without_side_column(void **state)
{
	(void)state;
	struct layout l = layout_compute(24, 80);
	assert_int_equal(l.bar.y, 0);
	assert_int_equal(l.status.y, 22);
	assert_int_equal(l.hints.y, 23);
	assert_int_equal(l.body.y, 1);
	assert_int_equal(l.body.h, 21);
	assert_int_equal(l.body.w, 80);
	assert_int_equal(l.side.w, 0);
}

static void test_wide_terminals_get_a_side_column_for_counts_and_lesson(void **state)
{
	(void)state;
	struct layout l = layout_compute(50, 160);
	assert_int_equal(l.side.w, LAYOUT_SIDE_COLS);
	assert_int_equal(l.body.w + 1 + l.side.w, 160);
	struct body_layout b = layout_body(&l, false, 6, 4, counts_panel_height, 0);
	assert_int_equal(b.counts.x, l.side.x);
	assert_true(b.lesson.h > 10);
	assert_int_equal(b.heat.h, 0);
}

static void test_eight_heads_of_eight_tokens_all_fit_at_80x24(void **state)
{
	(void)state;
	struct layout l = layout_compute(24, 80);
	struct body_layout b = layout_body(&l, true, 8, 8, counts_panel_height, 0);
	assert_int_equal(b.heat_per_page, 8);
	assert_true(b.heat.y + b.heat.h <= 22);
	assert_true(b.numbers.h >= 5);
	assert_true(b.counts.h > 0);
}

static void test_sixteen_heads_page_at_80x24(void **state)
{
	(void)state;
	struct layout l = layout_compute(24, 80);
	struct body_layout b = layout_body(&l, true, 8, 16, counts_panel_height, 0);
	assert_true(b.heat_per_page > 0);
	assert_true(b.heat_per_page < 16);
}

static void test_sixty_four_tokens_say_the_heatmaps_do_not_fit(void **state)
{
	(void)state;
	struct layout l = layout_compute(24, 80);
	struct body_layout b = layout_body(&l, true, 64, 8, counts_panel_height, 0);
	assert_int_equal(b.heat_per_page, 0);
	assert_int_equal(b.heat.h, 1);
}

static void test_a_large_terminal_puts_bigger_heatmaps_right_under_the_matrices(void **state)
{
	(void)state;
	struct layout l = layout_compute(50, 160);
	/* Scores of 6 tokens: three 8-row matrices on one shelf */
	struct rect want[3] = { { 0, 0, 8, 29 }, { 0, 0, 8, 29 }, { 0, 0, 8, 41 } };
	int rows = layout_panels_height(layout_numbers_width(&l), 3, want);
	assert_int_equal(rows, 8);
	struct body_layout old = layout_body(&l, true, 6, 4, counts_panel_height, 0);
	struct body_layout b = layout_body(&l, true, 6, 4, counts_panel_height, rows);
	/* the old split: the strip at the bottom, a band of blank rows above it */
	assert_int_equal(old.heat.y + old.heat.h, l.body.y + l.body.h);
	assert_true(old.heat.y - (old.numbers.y + rows) > 10);
	/* now: the widest cells that keep the maps side by side (8 would
	 * stack them one under another), every head, one blank line under
	 * the matrices */
	assert_int_equal(b.heat_cell_w, HEATMAP_CELL_W_MAX - 1);
	assert_true(b.heat_per_row >= 2);
	assert_int_equal(b.heat_per_page, 4);
	assert_int_equal(b.numbers.h, rows);
	assert_int_equal(b.heat.y, b.numbers.y + rows + 1);
	assert_true(b.heat_cell_w >= old.heat_cell_w);
	/* eight heads of eight tokens: smaller cells, so the matrices keep their two shelves */
	struct rect want8[3] = { { 0, 0, 10, 53 }, { 0, 0, 10, 53 }, { 0, 0, 10, 53 } };
	rows = layout_panels_height(layout_numbers_width(&l), 3, want8);
	assert_int_equal(rows, 21);
	b = layout_body(&l, true, 8, 8, counts_panel_height, rows);
	assert_int_equal(b.heat_per_page, 8);
	assert_true(b.numbers.h >= rows);
	assert_true(b.heat.y + b.heat.h <= l.body.y + l.body.h);
}

/* Softmax of 6 tokens and 4 heads at 200x60 left 28 blank rows under
 * one-line heatmap rows: with room to spare at the widest cells each row
 * is as many lines tall as fit, up to 3 (8 columns by 3 lines is near
 * square); at 120x40 and 80x24 there is no such room: one line. */
static void test_room_to_spare_makes_heatmap_rows_taller(void **state)
{
	(void)state;
	static const struct { int rows, cols, row_h; } sizes[] = {
		{ 60, 200, 3 }, { 54, 200, 2 }, { 40, 120, 1 }, { 24, 80, 1 } };
	/* S and P side by side: 8 rows */
	struct rect want[2] = { { 0, 0, 8, 47 }, { 0, 0, 8, 59 } };
	for (int i = 0; i < 4; i++) {
		struct layout l = layout_compute(sizes[i].rows, sizes[i].cols);
		int rows = layout_panels_height(layout_numbers_width(&l), 2, want);
		struct body_layout b = layout_body(&l, true, 6, 4, counts_panel_height, rows);
		assert_int_equal(b.heat_row_h, sizes[i].row_h);
		assert_int_equal(b.heat_per_page, 4);
		assert_true(b.numbers.h >= (rows < 7 ? rows : 7));
		assert_true(b.heat.y + b.heat.h <= l.body.y + l.body.h);
		if (sizes[i].row_h > 1) {
			/* two shelves of maps 2 + 6 row_h lines tall, and the legend */
			assert_int_equal(b.heat_cell_w, HEATMAP_CELL_W_MAX);
			assert_int_equal(b.heat.h, 2 * (2 + 6 * sizes[i].row_h) + 1);
			assert_int_equal(b.heat.y, b.numbers.y + rows + 1);
		}
	}
}

/* Softmax of 6 tokens and 4 heads at 120x40: the counts column (taller
 * than S and P) used to push the maps under it, leaving a band of 8 blank
 * rows beside it; now the maps sit right under the matrices, left of the
 * column, cells one column narrower, still side by side with numbers. */
static void test_at_120x40_the_maps_sit_under_the_matrices_beside_the_counts(void **state)
{
	(void)state;
	struct layout l = layout_compute(40, 120);
	struct rect want[2] = { { 0, 0, 8, 41 }, { 0, 0, 8, 53 } };
	int nw = layout_numbers_width(&l), rows = layout_panels_height(nw, 2, want);
	assert_int_equal(rows, 8);
	struct body_layout b = layout_body(&l, true, 6, 4, counts_panel_height, rows);
	assert_int_equal(b.numbers.h, rows);
	assert_int_equal(b.heat.y, b.numbers.y + rows + 1);
	assert_true(b.heat.w <= nw);
	assert_true(b.heat.x + b.heat.w <= b.counts.x);
	assert_int_equal(b.heat_cell_w, HEATMAP_CELL_W_MAX - 1);
	assert_int_equal(b.heat_per_row, 2);
	assert_int_equal(b.heat_per_page, 4);
	/* the counts column keeps its full form beside matrices and maps */
	assert_int_equal(b.counts.h, counts_panel_height(LAYOUT_COUNTS_COLS));
	assert_true(b.counts.y + b.counts.h <= l.body.y + l.body.h);
}

static void test_at_80x24_the_matrices_wish_changes_nothing_it_cannot_have(void **state)
{
	(void)state;
	struct layout l = layout_compute(24, 80);
	const int wants[] = { 0, 17, 30 };
	struct body_layout ref = layout_body(&l, true, 6, 4, counts_panel_height, 0);
	for (int i = 1; i < 3; i++) {
		struct body_layout b = layout_body(&l, true, 6, 4, counts_panel_height, wants[i]);
		assert_memory_equal(&b, &ref, sizeof b);
	}
	assert_int_equal(layout_numbers_width(&l), 80 - LAYOUT_COUNTS_COLS - 1);
}

static void test_panels_share_a_shelf_when_they_fit_side_by_side(void **state)
{
	(void)state;
	struct rect area = { 3, 0, 20, 59 };
	struct rect want[3] = { { 0, 0, 8, 29 }, { 0, 0, 8, 29 }, { 0, 0, 8, 41 } };
	struct rect got[3];
	assert_int_equal(layout_panels(area, 3, want, 17, got), 3);
	assert_int_equal(got[0].y, got[1].y);
	assert_int_equal(got[1].x, 30);
	assert_true(got[2].y > got[0].y);
	assert_int_equal(got[0].h, 8);
}

static void test_short_areas_put_every_panel_side_by_side(void **state)
{
	(void)state;
	struct rect area = { 3, 0, 9, 59 };
	struct rect want[3] = { { 0, 0, 8, 101 }, { 0, 0, 18, 101 }, { 0, 0, 8, 101 } };
	struct rect got[3];
	assert_int_equal(layout_panels(area, 3, want, 17, got), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(got[i].y, 3);
		assert_true(got[i].w >= 17);
	}
	assert_true(got[2].x + got[2].w <= 59);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_80x24_the_layout_is_too_small),
		cmocka_unit_test(test_80x24_has_bar_body_status_and_hints_without_side_column),
		cmocka_unit_test(test_wide_terminals_get_a_side_column_for_counts_and_lesson),
		cmocka_unit_test(test_eight_heads_of_eight_tokens_all_fit_at_80x24),
		cmocka_unit_test(test_sixteen_heads_page_at_80x24),
		cmocka_unit_test(test_sixty_four_tokens_say_the_heatmaps_do_not_fit),
		cmocka_unit_test(test_a_large_terminal_puts_bigger_heatmaps_right_under_the_matrices),
		cmocka_unit_test(test_room_to_spare_makes_heatmap_rows_taller),
		cmocka_unit_test(test_at_120x40_the_maps_sit_under_the_matrices_beside_the_counts),
		cmocka_unit_test(test_at_80x24_the_matrices_wish_changes_nothing_it_cannot_have),
		cmocka_unit_test(test_panels_share_a_shelf_when_they_fit_side_by_side),
		cmocka_unit_test(test_short_areas_put_every_panel_side_by_side),
	};
	return cmocka_run_group_tests_name("layout", tests, NULL, NULL);
}
