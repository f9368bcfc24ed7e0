/*
 * test_heatmap.c - heatmaps drawn on a virtual terminal (newterm on
 * /dev/null) and read back cell by cell: token labels on both axes at every
 * cell width, the cursor cell, values in wide cells, glyph and colour per
 * cell, NaN / Inf marked and never printed, off heads, the legend, nothing
 * outside the measured rectangle, and the small-multiples arithmetic
 * (eight 6x6 heads at 80 columns x 14 rows, paging).
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "heatmap.h"
#include "theme.h"
#include "vscreen.h"

static void screen_open(const char *loc, bool no_color)
{
	assert_non_null(setlocale(LC_CTYPE, loc));
	assert_int_equal(vscreen_open(24, 80, "xterm-256color", no_color), 0);
}

static void screen_close(void)
{
	vscreen_close();
}

/* Screen line y from column x, n columns, as text. */
static const char *line_at(int y, int x, int n)
{
	static char buf[8 * 80 + 1];
	buf[0] = '\0';
	mvwinnstr(stdscr, y, x, buf, n < (int)sizeof buf - 1 ? n : (int)sizeof buf - 1);
	return buf;
}

/* The character and attributes of one cell. */
static wchar_t cell_at(int y, int x, attr_t *a, short *pair)
{
	cchar_t cc[2];
	wchar_t wc[CCHARW_MAX + 1] = { 0 };
	memset(cc, 0, sizeof cc);
	*a = 0;
	*pair = 0;
	/* a cell past the screen's edge reads as nothing (no cell is read
	 * there, so nothing uninitialised is compared) */
	if (mvwin_wchnstr(stdscr, y, x, cc, 1) == ERR)
		return 0;
	getcchar(&cc[0], wc, a, pair, NULL);
	return wc[0];
}

/* n screen columns from (y, x), one character each: ASCII as it is,
 * anything else (a block glyph) as '~'. */
static void columns_at(char *out, int y, int x, int n)
{
	for (int i = 0; i < n; i++) {
		attr_t a;
		short p;
		wchar_t c = cell_at(y, x + i, &a, &p);
		out[i] = c > 0 && c < 128 ? (char)c : '~';
	}
	out[n] = '\0';
}

static const char labels[6][MHA_LABEL_MAX] = { "the", "cat", "sat", "on", "a", "mat" };

/* 6x6: row r, column c holds (r * 6 + c) / 35, so 0 at the top left and
 * 1 at the bottom right. */
static float ramp[36];

static struct heatmap map_6x6(void)
{
	for (int i = 0; i < 36; i++)
		ramp[i] = (float)i / 35.0f;
	struct heatmap hm = { ramp, 6, 6, 0.0f, 1.0f, labels, "head 1 -> kv 0", -1, -1, false, 0 };
	return hm;
}

static void fill(wchar_t ch)
{
	cchar_t cc;
	wchar_t s[2] = { ch, 0 };
	setcchar(&cc, s, A_NORMAL, 0, NULL);
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++)
			mvwadd_wch(stdscr, y, x, &cc);
}

/* Every cell outside (y, x, h, w) still holds the '~' fill. */
static void check_outside_untouched(int y0, int x0, int h, int w)
{
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++) {
			if (y >= y0 && y < y0 + h && x >= x0 && x < x0 + w)
				continue;
			attr_t a;
			short p;
			if (cell_at(y, x, &a, &p) != L'~')
				fail_msg("drawn outside the rectangle at line %d column %d", y, x);
		}
}

static void test_token_labels_appear_on_both_axes(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	heatmap_draw(stdscr, 2, 3, &hm, 4);
	assert_string_equal(line_at(2, 3, 14), "head 1 -> kv 0");
	assert_string_equal(line_at(3, 3, 27), "    the cat sat on  a   mat");
	for (int r = 0; r < 6; r++)
		assert_memory_equal(line_at(4 + r, 3, 3), labels[r], strlen(labels[r]));
	screen_close();
}

/* Cross-attention's shape: 2 queries of one sentence over the 6 keys of
 * another: each axis takes its own sequence's labels. */
static void test_queries_and_keys_of_two_sequences_label_their_own_axes(void **state)
{
	(void)state;
	static const char queries[2][MHA_LABEL_MAX] = { "le", "chat" };
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	hm.rows = 2;
	hm.labels = queries;
	hm.col_labels = labels;
	heatmap_draw(stdscr, 2, 3, &hm, 4);
	assert_string_equal(line_at(3, 3, 27), "    the cat sat on  a   mat");
	assert_memory_equal(line_at(4, 3, 2), "le", 2);
	assert_memory_equal(line_at(5, 3, 3), "cha", 3);
	screen_close();
}

static void test_narrow_cells_label_each_axis_with_one_letter(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	for (int w = 1; w <= 2; w++) {
		erase();
		heatmap_draw(stdscr, 0, 0, &hm, w);
		const char *want = w == 1 ? " tcsoam" : "  t c s o a m";
		assert_string_equal(line_at(1, 0, (int)strlen(want)), want);
		for (int r = 0; r < 6; r++)
			assert_int_equal(line_at(2 + r, 0, 1)[0], labels[r][0]);
	}
	screen_close();
}

static void test_without_labels_the_axes_show_token_indices(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	float m[12 * 12] = { 0 };
	struct heatmap hm = { m, 12, 12, 0.0f, 1.0f, NULL, "h", -1, -1, false, 0 };
	heatmap_draw(stdscr, 0, 0, &hm, 4);
	assert_string_equal(line_at(1, 4, 12), "0   1   2   ");
	assert_string_equal(line_at(13, 0, 3), "11 ");
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	/* one column each: the last digit, so 9, 10, 11 read 9, 0, 1 */
	assert_string_equal(line_at(1, 1, 12), "012345678901");
	screen_close();
}

static void test_the_cursor_cell_keeps_its_shade_between_brackets(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	attr_t a, a0;
	short p, p0;
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	wchar_t plain = cell_at(4, 8, &a0, &p0); /* cell (2, 3) at line 2 + 2, column 2 + 3 * 2 */
	hm.cur_row = 2;
	hm.cur_col = 3;
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	/* the same glyph in the same colour, underlined, not reversed */
	assert_true(cell_at(4, 8, &a, &p) == plain);
	assert_int_equal(p, p0);
	assert_true(a & A_UNDERLINE);
	assert_false(a & A_REVERSE);
	/* framed by brackets in the spaces beside it */
	assert_string_equal(line_at(4, 7, 5), "[\xe2\x96\x92]");
	cell_at(4, 7, &a, &p);
	assert_true(a & A_REVERSE);
	cell_at(4, 6, &a, &p);
	assert_false(a & (A_REVERSE | A_UNDERLINE));
	cell_at(5, 8, &a, &p);
	assert_false(a & (A_REVERSE | A_UNDERLINE));
	cell_at(4, 0, &a, &p); /* row label "sat" */
	assert_true(a & A_REVERSE);
	cell_at(1, 8, &a, &p); /* column label "on" */
	assert_true(a & A_REVERSE);
	cell_at(1, 6, &a, &p);
	assert_false(a & A_REVERSE);
	/* in the first column the bracket takes the label column's space;
	 * in the last there is no space after it that belongs to the map */
	hm.cur_col = 0;
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 4);
	assert_int_equal(line_at(4, 3, 1)[0], '[');
	assert_int_equal(line_at(4, 7, 1)[0], ']');
	hm.cur_col = 5;
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 4);
	assert_int_equal(line_at(4, 23, 1)[0], '[');
	assert_int_equal(line_at(4, 27, 1)[0], ' ');
	screen_close();
}

static void test_cells_from_width_5_show_their_value(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	float m[4] = { 0.42f, 1.0f, 0.004f, 0.125f };
	struct heatmap hm = { m, 2, 2, 0.0f, 1.0f, NULL, "w", -1, -1, false, 0 };
	heatmap_draw(stdscr, 0, 0, &hm, 5);
	/* label column 5, then cells of 5: glyph, value in 3, space; "1.00"
	 * does not fit beside a glyph, so the whole map has one decimal */
	assert_string_equal(line_at(2, 6, 3), "0.4");
	assert_string_equal(line_at(2, 11, 3), "1.0");
	assert_string_equal(line_at(3, 6, 3), "0.0"); /* 0.004: the zero it rounds to, never "4e-3" */
	assert_string_equal(line_at(3, 11, 3), "0.1");
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 6);
	/* label column 6, cells of 6: a glyph, the value right-aligned in 4, space */
	assert_string_equal(line_at(2, 7, 4), " .42");
	assert_string_equal(line_at(2, 13, 4), "1.00");
	assert_string_equal(line_at(3, 7, 4), " .00");
	assert_string_equal(line_at(3, 13, 4), " .12");
	screen_close();
}

/* In a map with negative values every value has a sign column: +x and -x
 * take the same room, the same glyphs, and a minus that rounding to zero
 * does not lose ("-0.0236" once drew as ".0", then "-.0"). */
static void test_positive_and_negative_values_are_drawn_alike(void **state)
{
	(void)state;
	const char *locs[] = { "C.UTF-8", "C" };
	for (int l = 0; l < 2; l++) {
		screen_open(locs[l], false);
		float m[4] = { 0.0236f, -0.0236f, 0.42f, -0.42f };
		struct heatmap hm = { m, 2, 2, -1.0f, 1.0f, NULL, "w", -1, -1, false, 0 };
		hm.scale = HEATMAP_SCALE_MAP; /* symmetric data: -0.42..0.42 */
		for (int w = 5; w <= 8; w++) {
			erase();
			heatmap_draw(stdscr, 0, 0, &hm, w);
			int lw = heatmap_label_width(w);
			for (int r = 0; r < 2; r++) {
				char pos[32], neg[32];
				columns_at(pos, 2 + r, lw, w - 1);
				columns_at(neg, 2 + r, lw + w, w - 1);
				/* the negative's value from its minus (the last one: an
				 * ASCII glyph may be a '-'), and as many columns of the
				 * positive's: a space for the minus, then the same text */
				const char *e = strrchr(neg, '-');
				assert_non_null(e);
				assert_non_null(strpbrk(e, "0123456789"));
				size_t k = strlen(e);
				assert_true(strlen(pos) >= k);
				const char *d = pos + strlen(pos) - k;
				assert_int_equal(d[0], ' ');
				assert_string_equal(d + 1, e + 1);
			}
		}
		erase();
		heatmap_draw(stdscr, 0, 0, &hm, 5);
		/* at width 5 a glyph leaves 3 columns: "-.0" would read as zero,
		 * so the value takes the glyph's column, the same for both signs */
		assert_string_equal(line_at(2, 5, 4), " .02");
		assert_string_equal(line_at(2, 10, 4), "-.02");
		/* the minus stays beside the digits: " -24", never "- 24" */
		m[0] = 24.0f;
		m[1] = -24.0f;
		erase();
		heatmap_draw(stdscr, 0, 0, &hm, 6);
		assert_string_equal(line_at(2, 8, 3), " 24");
		assert_string_equal(line_at(2, 14, 3), "-24");
		screen_close();
	}
}

/* Softmax weights as a peaked row gives them (1, 1e-4, 4e-11, 3e-20)
 * beside a masked key: at every cell width that shows values and in both
 * glyph sets, every value has the same decimals, none in the exponent
 * form (a tiny one reads as the zero it rounds to), every cell as many
 * glyphs as the next (UTF-8), the lowest shade a glyph and not a blank,
 * and the masked cell blank but for its mark. (It drew "3e-20" beside
 * blanks, ".0" beside ".00", and a glyph count that followed each
 * number's width.) */
static void test_a_map_has_one_number_format_and_as_many_glyphs_in_every_cell(void **state)
{
	(void)state;
	const char *locs[] = { "C.UTF-8", "C" };
	float m[9] = { 1.0f, 1e-4f, 4e-11f, 0.953f, 0.047f, 3e-20f, 0.0f, 0.5f, 0.25f };
	unsigned char masked[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	for (int l = 0; l < 2; l++) {
		screen_open(locs[l], false);
		struct heatmap hm = { m, 3, 3, 0.0f, 1.0f, NULL, "p", -1, -1, false, 0 };
		hm.masked = masked;
		for (int w = 5; w <= HEATMAP_CELL_W_MAX; w++) {
			erase();
			heatmap_draw(stdscr, 0, 0, &hm, w);
			int lw = heatmap_label_width(w), glyphs = -1, decimals = -1;
			for (int i = 0; i < 9; i++) {
				char cell[16];
				columns_at(cell, 2 + i / 3, lw + (i % 3) * w, w - 1);
				if (masked[i]) {
					for (int k = 0; k < w - 2; k++)
						assert_int_equal(cell[k], ' ');
					continue;
				}
				/* the value: after the glyphs (block glyphs read as '~';
				 * ASCII ones end at the space before the value, and a
				 * cell that starts with a space or digit has none) */
				size_t g = l == 0 ? strspn(cell, "~") : strcspn(cell, " ");
				if (l == 1 && (strpbrk(cell, "0123456789") < cell + g || g == strlen(cell)))
					g = 0;
				const char *v = cell + g;
				if (glyphs < 0)
					glyphs = (int)g;
				if ((int)g != glyphs)
					fail_msg("width %d: cell %d \"%s\" has %d glyphs, cell 0 %d", w, i, cell, (int)g, glyphs);
				if (glyphs > 0)
					assert_true(cell[0] != ' '); /* the lowest shade too */
				assert_null(strchr(v, 'e'));
				const char *dot = strchr(v, '.');
				int d = dot ? (int)strspn(dot + 1, "0123456789") : 0;
				if (decimals < 0)
					decimals = d;
				if (d != decimals)
					fail_msg("width %d: cell %d \"%s\" has %d decimals, cell 0 %d", w, i, cell, d, decimals);
				if (m[i] < 1e-3f)
					assert_null(strpbrk(v, "123456789")); /* a readable zero */
			}
			assert_true(decimals >= 1);
			assert_true(glyphs > 0 || (l == 1 && w == 5)); /* ASCII's 5: "1.00" leaves none */
		}
		screen_close();
	}
}

static void test_a_cell_value_never_gets_a_stray_leading_glyph(void **state)
{
	(void)state;
	/* every cell in ASCII: '-' or '.' right before ".35" would read as "-.35" */
	const char *locs[] = { "C.UTF-8", "C" };
	for (int l = 0; l < 2; l++) {
		screen_open(locs[l], false);
		float m[4] = { 0.35f, 0.024f, 0.5f, 0.35f };
		struct heatmap hm = { m, 2, 2, 0.0f, 1.0f, NULL, "w", 0, 0, false, 0 };
		heatmap_draw(stdscr, 0, 0, &hm, 5);
		/* label column 5, cells of 5: pad, value in 3, space */
		if (l == 1) {
			assert_string_equal(line_at(2, 4, 5), "[ .35");
			assert_string_equal(line_at(3, 10, 4), " .35");
		}
		/* a signed map's sign column is a space or a minus, never a glyph */
		m[1] = -0.24f;
		hm.lo = -1.0f;
		hm.cur_col = 1;
		erase();
		heatmap_draw(stdscr, 0, 0, &hm, 6);
		assert_string_equal(line_at(2, 13, 4), "-.24");
		if (l == 1)
			assert_int_equal(line_at(2, 12, 1)[0], ' ');
		screen_close();
	}
}

static void test_huge_cell_values_take_the_exponent_form_or_only_the_glyph(void **state)
{
	(void)state;
	screen_open("C", false);
	/* scores as inputs at 1e6 make them */
	float m[4] = { -4e5f, 1e15f, -8e24f, 2.5e18f };
	struct heatmap hm = { m, 2, 2, -8e24f, 2.5e18f, NULL, "w", -1, -1, false, 0 };
	heatmap_draw(stdscr, 0, 0, &hm, 6);
	/* cells of 6 (label column 6): one glyph, the value right-aligned in
	 * 4 with its sign column (the map has negatives), a space */
	assert_string_equal(line_at(2, 7, 4), "-4e5");   /* never "-0M" */
	/* 1e15 and 2.5e18 need 4 beside their sign: no number, the glyph fills
	 * the cell (never "1000T" or "####"); so does -8e24 */
	char g = theme_heat_ascii(0), t = theme_heat_ascii(theme_heat_levels() - 1);
	char want[5] = { g, g, g, g, 0 }, top[5] = { t, t, t, t, 0 };
	assert_string_equal(line_at(3, 7, 4), want);
	assert_string_equal(line_at(3, 13, 4), top);
	hm.lo = 0.0f; /* without negatives the sign column is not needed */
	m[0] = 4e5f;
	m[2] = 8e24f;
	hm.hi = 8e24f;
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 6);
	assert_string_equal(line_at(2, 13, 4), "1e15");
	assert_string_equal(line_at(3, 13, 4), "2e18");
	for (int y = 0; y < 4; y++)
		assert_null(strpbrk(line_at(y, 0, 16), "#MGT"));
	screen_close();
}

static void test_nan_and_inf_are_marked_and_never_printed(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	float m[4] = { NAN, INFINITY, -INFINITY, 0.5f };
	struct heatmap hm = { m, 2, 2, 0.0f, 1.0f, NULL, "bad", 1, 1, false, 0 };
	for (int w = 1; w <= 6; w++) {
		erase();
		heatmap_draw(stdscr, 0, 0, &hm, w);
		for (int y = 0; y < 4; y++) {
			const char *s = line_at(y, 0, 80);
			assert_null(strstr(s, "nan"));
			assert_null(strstr(s, "inf"));
			assert_null(strstr(s, "NAN"));
			assert_null(strstr(s, "INF"));
		}
		int x0 = heatmap_label_width(w), cw = w == 1 ? 1 : w - 1;
		assert_int_equal(line_at(2, x0, 1)[0], '!');
		assert_int_equal(line_at(2, x0 + w, 1)[0], '!');
		/* -inf is a masked score: the masked mark in its last column */
		assert_string_equal(line_at(3, x0 + cw - 1, 2), "\xc3\x97");
		attr_t a;
		short p;
		cell_at(2, x0, &a, &p);
		assert_int_equal(p, PAIR_NUMBER(theme_attr(ROLE_ERROR)));
	}
	screen_close();
}

static void test_low_and_high_cells_differ_in_glyph_and_colour(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	int top = theme_heat_levels() - 1;
	attr_t a;
	short p;
	wchar_t lo = cell_at(2, 2, &a, &p);
	assert_int_equal(lo, 0x00b7); /* the lowest shade is a dot, never blank */
	assert_int_equal(p, PAIR_NUMBER(theme_heat_attr(0)));
	wchar_t hi = cell_at(7, 2 + 5 * 2, &a, &p);
	assert_int_equal(hi, 0x2588);
	assert_int_equal(p, PAIR_NUMBER(theme_heat_attr(top)));
	/* a middle cell: a lighter shade */
	wchar_t mid = cell_at(4, 2 + 3 * 2, &a, &p);
	assert_true(mid == 0x2591 || mid == 0x2592 || mid == 0x2593);
	screen_close();
}

static void test_monochrome_ascii_cells_still_read_low_to_high(void **state)
{
	(void)state;
	screen_open("C", true);
	struct heatmap hm = map_6x6();
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	attr_t a;
	short p;
	assert_int_equal(cell_at(2, 2, &a, &p), L'.');
	assert_true(a & A_DIM);
	assert_int_equal(cell_at(7, 12, &a, &p), L'@');
	assert_true(a & A_BOLD);
	assert_int_equal(p, 0);
	/* along the last row the glyphs never get lighter */
	const char *order = ".,:-=+*#%@";
	int prev = 0;
	for (int c = 0; c < 6; c++) {
		int g = (int)(strchr(order, (int)cell_at(7, 2 + 2 * c, &a, &p)) - order);
		assert_true(g >= prev);
		prev = g;
	}
	screen_close();
}

static void test_an_off_head_is_dim_and_its_title_says_off(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	hm.off = true;
	hm.title = "head 2";
	heatmap_draw(stdscr, 0, 0, &hm, 3);
	assert_string_equal(line_at(0, 0, 12), "head 2 (off)");
	attr_t a;
	short p;
	cell_at(7, 4 + 5 * 3, &a, &p);
	assert_int_equal(p, PAIR_NUMBER(theme_attr(ROLE_DIM)));
	/* narrow: "off" comes first so truncation keeps it */
	erase();
	hm.title = "head 2 -> kv 1";
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	assert_string_equal(line_at(0, 0, 7), "off hea");
	/* with a short title: "h2 off" where "head 2 (off)" would be cut to "off he" */
	erase();
	hm.title = "head 2";
	hm.short_title = "h2";
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	assert_string_equal(line_at(0, 0, 7), "h2 off ");
	erase();
	hm.title = "head 2 kv 1";
	hm.short_title = "h2>kv1";
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	assert_string_equal(line_at(0, 0, 7), "off h2>");
	/* on: the short title alone */
	erase();
	hm.off = false;
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	assert_string_equal(line_at(0, 0, 7), "h2>kv1 ");
	/* a short title too long too: its words that fit, never a cut one */
	erase();
	hm.title = "head 2 ~broad";
	hm.short_title = "h2 ~broad";
	heatmap_draw(stdscr, 0, 0, &hm, 1);
	assert_string_equal(line_at(0, 0, 7), "h2     ");
	screen_close();
}

static void test_nothing_is_drawn_outside_the_measured_rectangle(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	hm.cur_row = 5;
	hm.cur_col = 5;
	hm.title = "a title much longer than any heatmap of six columns";
	for (int w = 0; w <= 7; w++) /* 0 and 7 are clamped to 1 and 6 */
		for (int rh = 1; rh <= 2; rh++) { /* rows one line tall, and two */
			hm.row_h = rh;
			fill(L'~');
			struct heatmap_size s = heatmap_measure(&hm, w);
			assert_int_equal(s.rows, 2 + 6 * rh);
			heatmap_draw(stdscr, 3, 5, &hm, w);
			check_outside_untouched(3, 5, s.rows, s.cols);
			/* and the rectangle is not larger than what is drawn */
			assert_int_not_equal(line_at(3 + s.rows - 1, 5 + s.cols - 1, 1)[0], '~');
			assert_int_not_equal(line_at(3, 5 + s.cols - 1, 1)[0], '~');
		}
	screen_close();
}

/* Rows two or three lines tall: the label and the value on the middle
 * line (the first of two), the shade alone (same glyph, same colour) on
 * the others; the cursor framed on every line of its cell. */
static void test_a_tall_row_has_its_value_on_its_middle_line_and_its_shade_on_all(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	for (int rh = 2; rh <= HEATMAP_ROW_H_MAX; rh++) {
		erase();
		struct heatmap hm = map_6x6();
		hm.row_h = rh;
		hm.cur_row = 5;
		hm.cur_col = 2;
		heatmap_draw(stdscr, 0, 0, &hm, 8);
		int lw = heatmap_label_width(8);
		/* row 5 is lines 2 + 5 rh ..; its text line y; its last cell is 1.0 */
		int top = 2 + 5 * rh, y = top + (rh - 1) / 2;
		assert_memory_equal(line_at(y, 0, 3), labels[5], strlen(labels[5]));
		assert_non_null(strstr(line_at(y, lw + 5 * 8, 40), "1.000"));
		for (int k = top; k < top + rh; k++) {
			if (k == y)
				continue;
			assert_string_equal(line_at(k, 0, lw), "        ");
			for (int c = 0; c < 6; c++) {
				for (int i = 0; i < 7; i++) { /* no digit of the value on the other lines */
					attr_t a;
					short p;
					wchar_t g = cell_at(k, lw + c * 8 + i, &a, &p);
					assert_true(g != L'.' && !(g >= L'0' && g <= L'9'));
				}
				/* the same glyph and colour as the text line's first column */
				attr_t a1, a2;
				short p1, p2;
				wchar_t g1 = cell_at(y, lw + c * 8, &a1, &p1), g2 = cell_at(k, lw + c * 8, &a2, &p2);
				assert_true(g1 == g2);
				assert_int_equal(p1, p2);
				assert_int_equal(a1 & (A_REVERSE | A_BOLD), a2 & (A_REVERSE | A_BOLD));
			}
		}
		/* the cursor cell (5, 2): brackets on every line of it */
		for (int k = top; k < top + rh; k++) {
			assert_string_equal(line_at(k, lw + 2 * 8 - 1, 1), "[");
			assert_string_equal(line_at(k, lw + 3 * 8 - 1, 1), "]");
		}
	}
	screen_close();
}

static void test_a_map_past_the_right_edge_is_clipped_not_wrapped(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap hm = map_6x6();
	fill(L'~');
	heatmap_draw(stdscr, 16, 70, &hm, 4);
	check_outside_untouched(16, 70, 8, 10);
	screen_close();
}

static void test_eight_6x6_heads_fit_at_80_columns_by_14_rows(void **state)
{
	(void)state;
	int per_row = 0;
	assert_true(heatmap_fit(6, 6, 14, 80, 1, &per_row) >= 8);
	assert_true(per_row >= 8);
	int w = heatmap_pick_cell_w(6, 6, 14, 80, 8);
	assert_true(heatmap_fit(6, 6, 14, 80, w, NULL) >= 8);
	/* and h <= 8 with n <= 8 */
	w = heatmap_pick_cell_w(8, 8, 14, 80, 8);
	assert_true(heatmap_fit(8, 8, 14, 80, w, NULL) >= 8);
	/* exact fits: 8 maps of 9 columns and 7 gaps are 79 columns; one 6x6
	 * map at cell width 1 is 8 x 7 */
	assert_int_equal(heatmap_fit(8, 8, 10, 79, 1, &per_row), 8);
	assert_int_equal(per_row, 8);
	assert_int_equal(heatmap_fit(8, 8, 10, 78, 1, NULL), 7);
	assert_int_equal(heatmap_fit(6, 6, 8, 7, 1, NULL), 1);
	assert_int_equal(heatmap_fit(6, 6, 16, 7, 1, NULL), 2);
	/* with more room the cells get wider */
	assert_true(heatmap_pick_cell_w(6, 6, 16, 80, 8) >= 2);
	assert_true(heatmap_pick_cell_w(6, 6, 40, 200, 8) >= 5);
	/* one head alone takes the widest cells */
	assert_int_equal(heatmap_pick_cell_w(6, 6, 14, 80, 1), HEATMAP_CELL_W_MAX);
}

static void test_eight_heads_drawn_side_by_side_keep_their_titles(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	resize_term(14, 80);
	struct heatmap hm = map_6x6();
	int per_row, w = heatmap_pick_cell_w(6, 6, 14, 80, 8);
	heatmap_fit(6, 6, 14, 80, w, &per_row);
	struct heatmap_size s = heatmap_measure(&hm, w);
	char titles[8][16];
	for (int i = 0; i < 8; i++) {
		snprintf(titles[i], sizeof titles[i], "h%d", i);
		hm.title = titles[i];
		heatmap_draw(stdscr, i / per_row * s.rows, i % per_row * (s.cols + 1), &hm, w);
	}
	for (int i = 0; i < 8; i++)
		assert_string_equal(line_at(i / per_row * s.rows, i % per_row * (s.cols + 1), 2), titles[i]);
	screen_close();
}

static void test_paging_shows_every_head_once(void **state)
{
	(void)state;
	assert_int_equal(heatmap_pages(8, 8), 1);
	assert_int_equal(heatmap_pages(9, 8), 2);
	assert_int_equal(heatmap_pages(16, 10), 2);
	assert_int_equal(heatmap_pages(64, 10), 7);
	assert_int_equal(heatmap_pages(1, 10), 1);
	assert_int_equal(heatmap_pages(8, 0), 0);
	/* 64 heads of 6x6 at 80x14: pages of fit maps, the last one partial */
	int fit = heatmap_fit(6, 6, 14, 80, 1, NULL), shown = 0;
	int pages = heatmap_pages(64, fit);
	for (int p = 0; p < pages; p++) {
		int first = p * fit, last = first + fit < 64 ? first + fit : 64;
		assert_true(last > first);
		shown += last - first;
	}
	assert_int_equal(shown, 64);
	/* too small for even one map */
	assert_int_equal(heatmap_fit(6, 6, 7, 80, 1, NULL), 0);
	assert_int_equal(heatmap_fit(6, 6, 14, 6, 1, NULL), 0);
}

static void test_the_legend_shows_the_range_and_the_ramp_within_its_width(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	fill(L'~');
	heatmap_legend_draw(stdscr, 5, 10, 30, 0.0f, 1.0f);
	check_outside_untouched(5, 10, 1, 30);
	const char *s = line_at(5, 10, 30 * 4);
	assert_memory_equal(s, "0 ", 2);
	assert_non_null(strstr(s, "\u2588 1"));
	fill(L'~');
	heatmap_legend_draw(stdscr, 5, 10, 8, -2.5f, 1234.0f);
	check_outside_untouched(5, 10, 1, 8);
	fill(L'~');
	heatmap_legend_draw(stdscr, 5, 10, 40, -2.5f, NAN);
	check_outside_untouched(5, 10, 1, 40);
	assert_null(strstr(line_at(5, 10, 40 * 4), "nan"));
	screen_close();
}

static void test_the_legend_never_cuts_its_values_and_writes_huge_ones_as_exponents(void **state)
{
	(void)state;
	screen_open("C", false); /* ASCII ramp: one byte a cell */
	const float pairs[][2] = { { -1.0f, 1.06f }, { -0.997f, 12.3f }, { -1e15f, 1e33f }, { 2.5e-7f, 123456.0f } };
	for (int i = 0; i < 4; i++) {
		float lo = pairs[i][0], hi = pairs[i][1];
		int natural = heatmap_legend_width(lo, hi);
		char want_lo[32], want_hi[32];
		/* the legend at its widest: the two ends tell us the bounds as drawn */
		fill(L'~');
		heatmap_legend_draw(stdscr, 5, 0, natural, lo, hi);
		snprintf(want_lo, sizeof want_lo, "%s", line_at(5, 0, natural));
		*strchr(want_lo, ' ') = '\0';
		snprintf(want_hi, sizeof want_hi, "%s", strrchr(line_at(5, 0, natural), ' ') + 1);
		assert_true(strlen(want_lo) <= 7 && strlen(want_hi) <= 7);
		assert_null(strpbrk(want_hi, "#kMGT")); /* no "######", no "1000000000T" */
		/* every narrower width down to two ramp cells keeps both whole */
		for (int w = natural; w >= (int)(strlen(want_lo) + strlen(want_hi)) + 4; w--) {
			fill(L'~');
			heatmap_legend_draw(stdscr, 5, 0, w, lo, hi);
			check_outside_untouched(5, 0, 1, w);
			const char *s = line_at(5, 0, w);
			if (strncmp(s, want_lo, strlen(want_lo)) != 0 ||
			    strcmp(s + w - strlen(want_hi), want_hi) != 0 || s[w - strlen(want_hi) - 1] != ' ')
				fail_msg("width %d cut a value: \"%s\" (want %s .. %s)", w, s, want_lo, want_hi);
			/* the ramp still runs from the lowest glyph to the highest */
			assert_int_equal(s[strlen(want_lo) + 1], theme_heat_ascii(0));
			assert_int_equal(s[w - strlen(want_hi) - 2], theme_heat_ascii(theme_heat_levels() - 1));
		}
	}
	fill(L'~');
	heatmap_legend_draw(stdscr, 5, 0, 40, -1e15f, 1e33f);
	assert_non_null(strstr(line_at(5, 0, 40), "-1.0e15 "));
	assert_non_null(strstr(line_at(5, 0, 40), " 1.00e33"));
	screen_close();
}

/* Every cell of the map at (y, x) (its glyph, colour and attributes) into
 * out, in order. */
static int grab(int y, int x, int rows, int cols, int cell_w, wchar_t *ch, attr_t *at, short *pr)
{
	int k = 0, lw = heatmap_label_width(cell_w);
	for (int r = 0; r < rows + 2; r++)
		for (int c = 0; c < lw + cols * cell_w; c++, k++)
			ch[k] = cell_at(y + r, x + c, &at[k], &pr[k]);
	return k;
}

/* Four heads side by side, each on its own scale: an edit confined to head
 * 1 (one score made large, as lesson 3 asks) changes head 1's drawing and
 * leaves every drawn cell of heads 0, 2 and 3 as it was. With one range
 * shared by all heads the same edit restyles them: the reason for the
 * per-head scale. */
static void test_an_edit_to_one_head_leaves_the_other_heads_drawing_unchanged(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	static float m[4][36];
	for (int h = 0; h < 4; h++)
		for (int i = 0; i < 36; i++)
			m[h][i] = (float)((i * (h + 3)) % 11) / 5.0f - 1.0f;
	enum { W = 3, MAPW = 4 + 6 * W + 1 };
	static wchar_t before[4][8 * MAPW], after[4][8 * MAPW];
	static attr_t abefore[4][8 * MAPW], aafter[4][8 * MAPW];
	static short pbefore[4][8 * MAPW], pafter[4][8 * MAPW];
	for (int scale = HEATMAP_SCALE_FIXED; scale <= HEATMAP_SCALE_MAP; scale++) {
		for (int pass = 0; pass < 2; pass++) {
			m[1][7] = pass ? 40.0f : m[1][8];
			erase();
			for (int h = 0; h < 4; h++) {
				struct heatmap hm = { m[h], 6, 6, -1.0f, pass ? 40.0f : 1.0f, labels, "head", -1, -1, false, 0 };
				hm.scale = (enum heatmap_scale)scale; /* FIXED: the range of all four */
				heatmap_draw(stdscr, 0, h * MAPW, &hm, W);
				grab(0, h * MAPW, 6, 6, W, pass ? after[h] : before[h], pass ? aafter[h] : abefore[h],
				     pass ? pafter[h] : pbefore[h]);
			}
		}
		int n = 8 * (MAPW - 1);
		for (int h = 0; h < 4; h++) {
			bool same = !memcmp(before[h], after[h], n * sizeof(wchar_t)) &&
			            !memcmp(abefore[h], aafter[h], n * sizeof(attr_t)) &&
			            !memcmp(pbefore[h], pafter[h], n * sizeof(short));
			if (scale == HEATMAP_SCALE_MAP)
				assert_true(h == 1 ? !same : same);
			else if (h != 1)
				assert_false(same); /* shared: the others were restyled */
		}
	}
	screen_close();
}

/* Per row, each query's favourite key is the top level even when the
 * row's weights are small; per map, the same small row stays low. */
static void test_the_row_scale_shows_each_querys_favourite_key_at_the_top(void **state)
{
	(void)state;
	screen_open("C", false);
	float m[4] = { 0.9f, 0.1f, 0.3f, 0.2f }; /* row 1 is flat-ish: its max is 0.3 */
	struct heatmap hm = { m, 2, 2, 0.0f, 1.0f, NULL, "p", -1, -1, false, 0 };
	hm.scale = HEATMAP_SCALE_ROW;
	float lo, hi;
	heatmap_range(&hm, 1, &lo, &hi);
	assert_float_equal(lo, 0.0f, 0.0f);
	assert_float_equal(hi, 0.3f, 0.0f);
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	char top = theme_heat_ascii(theme_heat_levels() - 1);
	assert_int_equal(line_at(3, 2, 1)[0], top);
	assert_int_equal(line_at(2, 2, 1)[0], top);
	hm.scale = HEATMAP_SCALE_MAP;
	erase();
	heatmap_draw(stdscr, 0, 0, &hm, 2);
	assert_int_not_equal(line_at(3, 2, 1)[0], top);
	assert_int_equal(line_at(2, 2, 1)[0], top);
	screen_close();
}

/* A near-uniform map (weights 0.19..0.30) is not stretched over the whole
 * ramp: on 0..1 (the weights' default) and on its own scale with a floor
 * of 0.5 no cell goes above 3/10 (0..1) or 6/10 (the floor) of the ramp; an edit to row 2 that stays under
 * the floor leaves rows 0, 1 and 3 drawn as they were. Scores get the same
 * floor about their middle. */
static void test_a_near_uniform_map_stays_pale_and_a_row_edit_leaves_the_other_rows(void **state)
{
	(void)state;
	screen_open("C", false);
	float m[16] = { 0.22f, 0.21f, 0.29f, 0.28f, 0.23f, 0.22f, 0.30f, 0.25f,
	                0.29f, 0.30f, 0.21f, 0.19f, 0.22f, 0.22f, 0.27f, 0.29f };
	struct heatmap hm = { m, 4, 4, 0.0f, 1.0f, NULL, "p", -1, -1, false, 0 };
	float lo, hi;
	for (int scale = HEATMAP_SCALE_FIXED; scale <= HEATMAP_SCALE_ROW; scale++) {
		hm.scale = (enum heatmap_scale)scale;
		hm.min_span = 0.5f;
		m[8] = 0.29f;
		for (int r = 0; r < 4; r++) {
			heatmap_range(&hm, r, &lo, &hi);
			assert_float_equal(lo, 0.0f, 0.0f);
			assert_true(hi >= 0.5f);
			for (int c = 0; c < 4; c++)
				assert_true(theme_heat_level(m[r * 4 + c], lo, hi) <=
				            (scale == HEATMAP_SCALE_FIXED ? theme_heat_levels() * 3 / 10 : theme_heat_levels() * 6 / 10));
		}
		char before[4][32], after[4][32];
		for (int pass = 0; pass < 2; pass++) {
			m[8] = pass ? 0.45f : 0.29f; /* row 2's first weight, still under the floor */
			erase();
			heatmap_draw(stdscr, 0, 0, &hm, 3);
			for (int r = 0; r < 4; r++)
				snprintf(pass ? after[r] : before[r], 32, "%s", line_at(2 + r, 0, 14));
		}
		for (int r = 0; r < 4; r++)
			if (r == 2)
				assert_string_not_equal(before[r], after[r]);
			else
				assert_string_equal(before[r], after[r]);
	}
	/* without the floor the same map's 0.30 is the top shade */
	hm.scale = HEATMAP_SCALE_MAP;
	hm.min_span = 0.0f;
	heatmap_range(&hm, -1, &lo, &hi);
	assert_float_equal(hi, 0.45f, 0.0f);
	/* scores -0.3..0.5 widen to 2 about their middle: -0.9..1.1 */
	float s[4] = { -0.3f, 0.5f, 0.1f, 0.0f };
	struct heatmap hs = { s, 2, 2, 0.0f, 1.0f, NULL, "s", -1, -1, false, 0 };
	hs.scale = HEATMAP_SCALE_MAP;
	hs.min_span = 2.0f;
	heatmap_range(&hs, -1, &lo, &hi);
	assert_float_equal(lo, -0.9f, 1e-6f);
	assert_float_equal(hi, 1.1f, 1e-6f);
	/* a wide range is left as it is */
	s[1] = 5.0f;
	heatmap_range(&hs, -1, &lo, &hi);
	assert_float_equal(lo, -0.3f, 0.0f);
	assert_float_equal(hi, 5.0f, 0.0f);
	screen_close();
}

/* A masked cell has its own mark, unlike a weight of 0 (blank) or a small
 * one, and is left out of the range. */
static void test_masked_cells_have_their_own_mark_and_leave_the_range(void **state)
{
	(void)state;
	const char *locs[] = { "C.UTF-8", "C" };
	const char *mark[] = { "\xc3\x97", "x" };
	for (int l = 0; l < 2; l++) {
		screen_open(locs[l], false);
		float m[4] = { 1.0f, 0.0f, 0.5f, 0.5f };
		unsigned char masked[4] = { 0, 1, 0, 0 };
		struct heatmap hm = { m, 2, 2, 0.0f, 1.0f, NULL, "p", -1, -1, false, 0 };
		hm.masked = masked;
		for (int w = 1; w <= 6; w++) {
			erase();
			heatmap_draw(stdscr, 0, 0, &hm, w);
			int x0 = heatmap_label_width(w), cw = w == 1 ? 1 : w - 1;
			assert_string_equal(line_at(2, x0 + w + cw - 1, (int)strlen(mark[l])), mark[l]);
			attr_t a;
			short p;
			cell_at(2, x0 + w + cw - 1, &a, &p);
			assert_int_equal(p, PAIR_NUMBER(theme_attr(ROLE_DIM)));
		}
		/* a masked -40 score does not stretch the range of the others */
		float s[4] = { 2.0f, -40.0f, -1.0f, 1.0f };
		struct heatmap hs = { s, 2, 2, 0.0f, 1.0f, NULL, "s", -1, -1, false, 0 };
		hs.masked = masked;
		hs.scale = HEATMAP_SCALE_MAP;
		float lo, hi;
		heatmap_range(&hs, -1, &lo, &hi);
		assert_float_equal(lo, -1.0f, 0.0f);
		assert_float_equal(hi, 2.0f, 0.0f);
		screen_close();
	}
}

/* The first n characters of the multibyte string s, as wide ones. */
static void wide_prefix(wchar_t *out, const char *s, int n)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	mbsrtowcs(out, &s, (size_t)n, &st);
}

static const char sentence[6][MHA_LABEL_MAX] = { "the", "cat", "sat", "on", "the", "mat" };

/* "the cat sat on the mat": the two "the"s read apart, and row and column
 * headers say the same, in UTF-8 and in ASCII, at every cell width. */
static void test_repeated_words_are_told_apart_the_same_on_both_axes(void **state)
{
	(void)state;
	float m[36] = { 0 };
	const char *locs[] = { "C.UTF-8", "C" };
	/* at cell width 4 (3 columns of label): the word cut to make room */
	const char *want4[2][6] = { { "th\xe2\x82\x80", "cat", "sat", "on", "th\xe2\x82\x84", "mat" },
	                            { "th0", "cat", "sat", "on", "th4", "mat" } };
	for (int l = 0; l < 2; l++) {
		screen_open(locs[l], false);
		struct heatmap hm = { m, 6, 6, 0.0f, 1.0f, sentence, "h", -1, -1, false, 0 };
		for (int w = 1; w <= 6; w++) {
			erase();
			heatmap_draw(stdscr, 0, 0, &hm, w);
			int lw = heatmap_label_width(w);
			for (int i = 0; i < 6; i++) {
				char row[32], col[32];
				/* the row label up to its space, the column label up to the next cell */
				snprintf(row, sizeof row, "%s", line_at(2 + i, 0, 16));
				snprintf(col, sizeof col, "%s", line_at(1, lw + i * w, 16));
				int rl = lw > 1 ? lw - 1 : 1, cl = w > 1 ? w - 1 : 1, tl = rl < cl ? rl : cl;
				/* the same text, compared over tl display columns */
				wchar_t wr[8] = { 0 }, wc[8] = { 0 };
				wide_prefix(wr, row, tl);
				wide_prefix(wc, col, tl);
				if (wmemcmp(wr, wc, (size_t)tl) != 0)
					fail_msg("%s width %d token %d: row '%s' column '%s'", locs[l], w, i, row, col);
			}
			/* the two "the"s differ */
			char a[32], b[32];
			snprintf(a, sizeof a, "%s", line_at(2, 0, 8));
			snprintf(b, sizeof b, "%s", line_at(6, 0, 8));
			assert_string_not_equal(a, b);
			if (w == 4)
				for (int i = 0; i < 6; i++)
					assert_memory_equal(line_at(2 + i, 0, 8), want4[l][i], strlen(want4[l][i]));
			/* one column of label: a repeated word is its index, as the
			 * subscript it is in "the\u2084" (in UTF-8), so that it does
			 * not read as a number among the other words' letters */
			if (w == 2) {
				const char *want = l == 0 ? "\xe2\x82\x84 " : "4 ";
				assert_memory_equal(line_at(6, 0, 8), want, strlen(want));
				assert_memory_equal(line_at(5, 0, 8), "o ", 2);
			}
		}
		screen_close();
	}
}

/* The legend says which scale shades the maps, what the masked mark means,
 * and which axis is which, when they fit; each part whole or not at all. */
static void test_the_key_names_the_scale_the_mask_and_the_axes(void **state)
{
	(void)state;
	screen_open("C.UTF-8", false);
	struct heatmap_key k = { 0.0f, 1.0f, HEATMAP_SCALE_ROW, true, true };
	int n = heatmap_key_draw(stdscr, 0, 0, 80, &k);
	const char *s = line_at(0, 0, 200);
	assert_non_null(strstr(s, "low "));
	assert_non_null(strstr(s, " high, each row"));
	assert_non_null(strstr(s, "\xc3\x97 masked"));
	assert_non_null(strstr(s, "rows: queries, columns: keys"));
	assert_true(n <= 80);
	/* narrower: the long axes note gives way to the short one, then goes;
	 * the masked mark's meaning stays */
	static const struct { int width; const char *axes; } narrow[] = {
		{ 64, "rows=queries cols=keys" }, { 30, NULL } };
	for (int i = 0; i < 2; i++) {
		erase();
		n = heatmap_key_draw(stdscr, 0, 0, narrow[i].width, &k);
		s = line_at(0, 0, 200);
		assert_true(n <= narrow[i].width);
		if (narrow[i].axes)
			assert_non_null(strstr(s, narrow[i].axes));
		else
			assert_null(strstr(s, "rows"));
		assert_non_null(strstr(s, "masked"));
	}
	/* a fixed scale shows its numbers and says it is shared */
	struct heatmap_key f = { -2.5f, 3.25f, HEATMAP_SCALE_FIXED, false, false };
	erase();
	heatmap_key_draw(stdscr, 0, 0, 80, &f);
	s = line_at(0, 0, 200);
	assert_true(!strncmp(s, "-2.5 ", 5));
	assert_non_null(strstr(s, " 3.25, all heads"));
	assert_null(strstr(s, "masked"));
	assert_string_equal(heatmap_scale_name(HEATMAP_SCALE_MAP), "each head");
	/* at its least width the key still says what the mark means */
	erase();
	n = heatmap_key_draw(stdscr, 0, 0, heatmap_key_min_width(&k), &k);
	assert_true(n <= heatmap_key_min_width(&k));
	assert_non_null(strstr(line_at(0, 0, 200), "\xc3\x97 masked"));
	screen_close();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_labels_appear_on_both_axes),
		cmocka_unit_test(test_narrow_cells_label_each_axis_with_one_letter),
		cmocka_unit_test(test_queries_and_keys_of_two_sequences_label_their_own_axes),
		cmocka_unit_test(test_without_labels_the_axes_show_token_indices),
		cmocka_unit_test(test_the_cursor_cell_keeps_its_shade_between_brackets),
		cmocka_unit_test(test_cells_from_width_5_show_their_value),
		cmocka_unit_test(test_positive_and_negative_values_are_drawn_alike),
		cmocka_unit_test(test_an_edit_to_one_head_leaves_the_other_heads_drawing_unchanged),
		cmocka_unit_test(test_the_row_scale_shows_each_querys_favourite_key_at_the_top),
		cmocka_unit_test(test_a_near_uniform_map_stays_pale_and_a_row_edit_leaves_the_other_rows),
		cmocka_unit_test(test_masked_cells_have_their_own_mark_and_leave_the_range),
		cmocka_unit_test(test_repeated_words_are_told_apart_the_same_on_both_axes),
		cmocka_unit_test(test_a_tall_row_has_its_value_on_its_middle_line_and_its_shade_on_all),
		cmocka_unit_test(test_the_key_names_the_scale_the_mask_and_the_axes),
		cmocka_unit_test(test_a_cell_value_never_gets_a_stray_leading_glyph),
		cmocka_unit_test(test_a_map_has_one_number_format_and_as_many_glyphs_in_every_cell),
		cmocka_unit_test(test_huge_cell_values_take_the_exponent_form_or_only_the_glyph),
		cmocka_unit_test(test_nan_and_inf_are_marked_and_never_printed),
		cmocka_unit_test(test_low_and_high_cells_differ_in_glyph_and_colour),
		cmocka_unit_test(test_monochrome_ascii_cells_still_read_low_to_high),
		cmocka_unit_test(test_an_off_head_is_dim_and_its_title_says_off),
		cmocka_unit_test(test_nothing_is_drawn_outside_the_measured_rectangle),
		cmocka_unit_test(test_a_map_past_the_right_edge_is_clipped_not_wrapped),
		cmocka_unit_test(test_eight_6x6_heads_fit_at_80_columns_by_14_rows),
		cmocka_unit_test(test_eight_heads_drawn_side_by_side_keep_their_titles),
		cmocka_unit_test(test_paging_shows_every_head_once),
		cmocka_unit_test(test_the_legend_shows_the_range_and_the_ramp_within_its_width),
		cmocka_unit_test(test_the_legend_never_cuts_its_values_and_writes_huge_ones_as_exponents),
	};
	return cmocka_run_group_tests_name("heatmap", tests, NULL, NULL);
}
