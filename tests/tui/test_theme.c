/*
 * test_theme.c - the theme on virtual terminals (newterm on /dev/null, no
 * real terminal): colour depth by terminal type and --no-color, a heat
 * ramp that is monotonic, clamped and distinct at every depth, glyphs that
 * still read without colour, ASCII glyphs when the locale is not UTF-8,
 * head colours, and clipped text that never wraps.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "theme.h"
#include "vscreen.h"

/* A 24x80 virtual screen of terminal type term in locale loc. */
static void screen_open(const char *term, const char *loc, bool no_color)
{
	assert_non_null(setlocale(LC_CTYPE, loc));
	assert_int_equal(vscreen_open(24, 80, term, no_color), 0);
}

static void screen_close(void)
{
	vscreen_close();
}

static short pair_fg(attr_t a)
{
	short fg = -2, bg = -2;
	pair_content((short)PAIR_NUMBER(a), &fg, &bg);
	return fg;
}

/* Monotonic over a sweep from below lo to above hi, 0 at and below lo,
 * the top level at and above hi. */
static void check_ramp(float lo, float hi)
{
	int levels = theme_heat_levels(), prev = 0;
	assert_true(levels >= 2 && levels <= THEME_HEAT_MAX);
	for (int i = -20; i <= 120; i++) {
		float v = lo + (hi - lo) * (float)i / 100.0f;
		int l = theme_heat_level(v, lo, hi);
		assert_true(l >= prev);
		assert_true(l >= 0 && l < levels);
		prev = l;
	}
	assert_int_equal(theme_heat_level(lo, lo, hi), 0);
	assert_int_equal(theme_heat_level(lo - 1e30f, lo, hi), 0);
	assert_int_equal(theme_heat_level(hi, lo, hi), levels - 1);
	assert_int_equal(theme_heat_level(hi + 1e30f, lo, hi), levels - 1);
}

static void test_heat_levels_rise_with_the_value_and_clamp_at_every_depth(void **state)
{
	(void)state;
	const char *terms[] = { "xterm-256color", "xterm", "xterm-256color" };
	for (int i = 0; i < 3; i++) {
		screen_open(terms[i], "C.UTF-8", i == 2);
		check_ramp(0.0f, 1.0f);
		check_ramp(-7.5f, 3.25f);
		check_ramp(-3e38f, 3e38f); /* hi - lo overflows float */
		screen_close();
	}
}

static void test_heat_level_is_0_for_an_empty_range_or_nan_and_top_for_inf(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	int top = theme_heat_levels() - 1;
	assert_int_equal(theme_heat_level(0.5f, 0.5f, 0.5f), 0);
	assert_int_equal(theme_heat_level(0.5f, 1.0f, 0.0f), 0);
	assert_int_equal(theme_heat_level(NAN, 0.0f, 1.0f), 0);
	assert_int_equal(theme_heat_level(0.5f, NAN, 1.0f), 0);
	assert_int_equal(theme_heat_level(0.5f, 0.0f, INFINITY), 0);
	assert_int_equal(theme_heat_level(INFINITY, 0.0f, 1.0f), top);
	assert_int_equal(theme_heat_level(-INFINITY, 0.0f, 1.0f), 0);
	/* out-of-range levels are clamped by the other functions too */
	assert_int_equal(theme_heat_attr(-3), theme_heat_attr(0));
	assert_int_equal(theme_heat_attr(99), theme_heat_attr(top));
	assert_string_equal(theme_heat_glyph(99), theme_heat_glyph(top));
	screen_close();
}

static void test_256_colours_give_at_least_8_distinct_heat_colours(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	assert_int_equal(theme_depth(), THEME_256);
	int levels = theme_heat_levels();
	assert_true(levels >= 8);
	for (int a = 0; a < levels; a++) {
		assert_true(PAIR_NUMBER(theme_heat_attr(a)) > 0);
		for (int b = 0; b < a; b++)
			assert_int_not_equal(pair_fg(theme_heat_attr(a)), pair_fg(theme_heat_attr(b)));
	}
	screen_close();
}

static void test_8_colours_give_fewer_levels_each_its_own_colour(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	int levels_256 = theme_heat_levels();
	screen_close();
	screen_open("xterm", "C.UTF-8", false);
	assert_int_equal(theme_depth(), THEME_8);
	int levels = theme_heat_levels();
	assert_true(levels >= 4 && levels < levels_256);
	for (int a = 0; a < levels; a++) {
		assert_true(pair_fg(theme_heat_attr(a)) < 8);
		for (int b = 0; b < a; b++)
			assert_int_not_equal(pair_fg(theme_heat_attr(a)), pair_fg(theme_heat_attr(b)));
	}
	/* glyph density still rises level by level */
	assert_string_not_equal(theme_heat_glyph(1), theme_heat_glyph(levels - 1));
	screen_close();
}

/* CIELAB of xterm-256 cube colour i (16..231), D65, by the sRGB formulas. */
static void xterm_lab(int i, double lab[3])
{
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	int k = i - 16, rgb8[3] = { level[k / 36], level[k / 6 % 6], level[k % 6] };
	double lin[3];
	for (int c = 0; c < 3; c++) {
		double u = rgb8[c] / 255.0;
		lin[c] = u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4);
	}
	double xyz[3] = {
		(0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047,
		0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2],
		(0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883,
	};
	double f[3];
	for (int c = 0; c < 3; c++)
		f[c] = xyz[c] > 0.008856 ? cbrt(xyz[c]) : 7.787 * xyz[c] + 16.0 / 116.0;
	lab[0] = 116.0 * f[1] - 16.0;
	lab[1] = 500.0 * (f[0] - f[1]);
	lab[2] = 200.0 * (f[1] - f[2]);
}

/* The low end used to be four dark blues no one could tell apart: each
 * step of the 256-colour ramp is now a visible one (CIE76 distance >= 20,
 * about four times a just-noticeable difference), the lowest level stands
 * off a black background (L* >= 25), and lightness never falls by more
 * than a little (so the ramp reads low to high in greyscale too). */
static void test_256_colour_heat_steps_are_distinguishable_from_the_low_end(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	int levels = theme_heat_levels();
	double prev[3] = { 0, 0, 0 };
	for (int l = 0; l < levels; l++) {
		short c = theme_heat_colour(l);
		assert_true(c >= 16 && c <= 231); /* the cube, not the user-set 0..15 */
		assert_int_equal(pair_fg(theme_heat_attr(l)), c);
		double lab[3];
		xterm_lab(c, lab);
		if (l == 0) {
			assert_true(lab[0] >= 25.0);
		} else {
			double de = sqrt(pow(lab[0] - prev[0], 2) + pow(lab[1] - prev[1], 2) + pow(lab[2] - prev[2], 2));
			if (de < 20.0 || lab[0] < prev[0] - 3.0)
				fail_msg("heat levels %d -> %d: colour %d -> %d, dE %.1f, L* %.1f -> %.1f",
				         l - 1, l, theme_heat_colour(l - 1), c, de, prev[0], lab[0]);
		}
		memcpy(prev, lab, sizeof prev);
	}
	screen_close();
}

/* At every depth and in both glyph sets, at least five levels, each a
 * different (glyph, colour, attributes) triple from every other, and the
 * masked mark unlike all of them. */
static void test_every_depth_draws_five_or_more_levels_that_differ_from_each_other(void **state)
{
	(void)state;
	const char *terms[] = { "xterm-256color", "xterm", "xterm-256color", "vt100" };
	const bool no_color[] = { false, false, true, false };
	const char *locales[] = { "C.UTF-8", "C" };
	for (int t = 0; t < 4; t++) {
		for (int lc = 0; lc < 2; lc++) {
			screen_open(terms[t], locales[lc], no_color[t]);
			int levels = theme_heat_levels();
			assert_true(levels >= 5);
			for (int a = 0; a < levels; a++) {
				assert_string_not_equal(theme_heat_glyph(a), theme_masked_glyph());
				for (int b = 0; b < a; b++) {
					bool same_glyph = !strcmp(theme_heat_glyph(a), theme_heat_glyph(b));
					bool same_look = theme_heat_attr(a) == theme_heat_attr(b);
					if (same_glyph && same_look)
						fail_msg("%s %s: levels %d and %d look the same ('%s')", terms[t],
						         locales[lc], b, a, theme_heat_glyph(a));
				}
			}
			screen_close();
		}
	}
}

static void check_mono(void)
{
	assert_int_equal(theme_depth(), THEME_MONO);
	int top = theme_heat_levels() - 1;
	for (int l = 0; l <= top; l++)
		assert_int_equal(theme_heat_attr(l) & A_COLOR, 0);
	for (int r = 0; r < ROLE_COUNT; r++)
		assert_int_equal(theme_attr((enum theme_role)r) & A_COLOR, 0);
	/* low and high read apart by glyph and by brightness */
	assert_string_not_equal(theme_heat_glyph(0), theme_heat_glyph(top));
	assert_string_not_equal(theme_heat_glyph(1), theme_heat_glyph(top));
	assert_true(theme_heat_attr(top) & A_BOLD);
	assert_true(theme_heat_attr(0) & A_DIM);
	assert_true(theme_attr(ROLE_SELECTED) & A_REVERSE);
}

static void test_no_color_gives_a_monochrome_ramp_that_still_reads(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", true);
	check_mono();
	screen_close();
	screen_open("xterm-256color", "C", true);
	check_mono();
	screen_close();
}

static void test_a_terminal_without_colours_falls_back_to_monochrome(void **state)
{
	(void)state;
	screen_open("vt100", "C.UTF-8", false);
	check_mono();
	screen_close();
}

static void test_c_locale_draws_ascii_glyphs_one_per_level(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C", false);
	assert_false(theme_utf8());
	int levels = theme_heat_levels();
	char line[128] = "";
	for (int l = 0; l < levels; l++) {
		const char *g = theme_heat_glyph(l);
		assert_int_equal(strlen(g), 1);
		assert_true(g[0] >= ' ' && g[0] <= '~');
		assert_int_equal(g[0], theme_heat_ascii(l));
		for (int m = 0; m < l; m++)
			assert_string_not_equal(g, theme_heat_glyph(m));
		theme_addstr(stdscr, 0, l, 1, g, theme_heat_attr(l));
		strcat(line, g);
	}
	/* what was drawn reads back as the same ASCII, nothing vanished */
	char got[128] = "";
	mvwinnstr(stdscr, 0, 0, got, levels);
	assert_string_equal(got, line);
	screen_close();
}

static void test_utf8_locale_draws_block_glyphs(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	assert_true(theme_utf8());
	int top = theme_heat_levels() - 1;
	assert_string_equal(theme_heat_glyph(0), "\u00b7"); /* the lowest shade is there, never blank */
	assert_string_equal(theme_heat_glyph(top), "\u2588");
	theme_addstr(stdscr, 1, 0, 1, theme_heat_glyph(top), theme_heat_attr(top));
	cchar_t cell[2];
	mvwin_wchnstr(stdscr, 1, 0, cell, 1);
	wchar_t wc[CCHARW_MAX + 1];
	attr_t a;
	short pair;
	getcchar(&cell[0], wc, &a, &pair, NULL);
	assert_int_equal(wc[0], 0x2588);
	assert_int_equal(pair, PAIR_NUMBER(theme_heat_attr(top)));
	screen_close();
}

static void test_eight_heads_get_eight_colours_and_mono_alternates_bold_underline(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	for (int a = 0; a < 8; a++) {
		assert_int_equal(theme_head_attr(a), theme_attr((enum theme_role)(ROLE_HEAD_0 + a)));
		assert_int_equal(theme_head_attr(a + 8), theme_head_attr(a));
		for (int b = 0; b < a; b++)
			assert_int_not_equal(pair_fg(theme_head_attr(a)), pair_fg(theme_head_attr(b)));
	}
	screen_close();
	screen_open("xterm", "C.UTF-8", false);
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < a; b++)
			assert_int_not_equal(theme_head_attr(a), theme_head_attr(b));
	screen_close();
	screen_open("xterm-256color", "C.UTF-8", true);
	for (int a = 0; a < 8; a++)
		assert_int_equal(theme_head_attr(a), a % 2 ? A_UNDERLINE : A_BOLD);
	screen_close();
}

static void test_addstr_clips_at_the_width_and_the_right_edge_without_wrapping(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	char got[128];
	assert_int_equal(theme_addstr(stdscr, 2, 10, 3, "abcdef", A_NORMAL), 3);
	mvwinnstr(stdscr, 2, 8, got, 8);
	assert_string_equal(got, "  abc   ");
	assert_int_equal(theme_addstr(stdscr, 3, 76, 20, "0123456789", A_NORMAL), 4);
	mvwinnstr(stdscr, 4, 0, got, 10);
	assert_string_equal(got, "          ");
	/* off the window: nothing */
	assert_int_equal(theme_addstr(stdscr, 24, 0, 5, "x", A_NORMAL), 0);
	assert_int_equal(theme_addstr(stdscr, -1, 0, 5, "x", A_NORMAL), 0);
	/* a multibyte label keeps whole characters: "é" is one column */
	assert_int_equal(theme_addstr(stdscr, 5, 0, 3, "caf\u00e9s", A_NORMAL), 3);
	mvwinnstr(stdscr, 5, 0, got, 4);
	assert_string_equal(got, "caf ");
	assert_int_equal(theme_addstr(stdscr, 6, 0, 4, "caf\u00e9s", A_NORMAL), 4);
	mvwinnstr(stdscr, 6, 0, got, 6); /* n counts bytes: é is 2 */
	assert_string_equal(got, "caf\u00e9 ");
	screen_close();
}

static void test_c_locale_shows_bytes_it_cannot_decode_as_question_marks(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C", false);
	char got[16];
	assert_int_equal(theme_addstr(stdscr, 0, 0, 10, "caf\u00e9", A_NORMAL), 5);
	mvwinnstr(stdscr, 0, 0, got, 6);
	assert_string_equal(got, "caf?? ");
	screen_close();
}

static void test_cut_keeps_whole_wide_characters_within_the_columns(void **state)
{
	(void)state;
	screen_open("xterm-256color", "C.UTF-8", false);
	char out[64];
	/* each CJK character takes 2 columns: 4 columns hold two whole ones */
	assert_int_equal(theme_cut(out, sizeof out, "\u65e5\u672c\u8a9e\u65e5\u672c", 4, false), 4);
	assert_string_equal(out, "\u65e5\u672c");
	/* 5 columns: the third does not fit whole and is left out, not halved */
	assert_int_equal(theme_cut(out, sizeof out, "\u65e5\u672c\u8a9e", 5, false), 4);
	assert_string_equal(out, "\u65e5\u672c");
	/* right-aligned header: padded on the left to the columns */
	assert_int_equal(theme_cut(out, sizeof out, "\u65e5\u672c\u8a9e", 5, true), 5);
	assert_string_equal(out, " \u65e5\u672c");
	assert_int_equal(theme_cut(out, sizeof out, "caf\u00e9s", 4, true), 4);
	assert_string_equal(out, "caf\u00e9");
	/* an invalid byte counts as the one '?' drawn for it */
	assert_int_equal(theme_cut(out, sizeof out, "a\xff" "bc", 2, false), 2);
	assert_string_equal(out, "a\xff");
	/* drawn, the cut label shows the two characters, no '?' */
	theme_cut(out, sizeof out, "\u65e5\u672c\u8a9e\u65e5\u672c", 4, true);
	assert_int_equal(theme_addstr(stdscr, 0, 0, 4, out, A_NORMAL), 4);
	wchar_t got[8];
	mvwinnwstr(stdscr, 0, 0, got, 2);
	assert_true(got[0] == 0x65e5 && got[1] == 0x672c);
	screen_close();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heat_levels_rise_with_the_value_and_clamp_at_every_depth),
		cmocka_unit_test(test_heat_level_is_0_for_an_empty_range_or_nan_and_top_for_inf),
		cmocka_unit_test(test_256_colours_give_at_least_8_distinct_heat_colours),
		cmocka_unit_test(test_8_colours_give_fewer_levels_each_its_own_colour),
		cmocka_unit_test(test_no_color_gives_a_monochrome_ramp_that_still_reads),
		cmocka_unit_test(test_a_terminal_without_colours_falls_back_to_monochrome),
		cmocka_unit_test(test_c_locale_draws_ascii_glyphs_one_per_level),
		cmocka_unit_test(test_cut_keeps_whole_wide_characters_within_the_columns),
		cmocka_unit_test(test_utf8_locale_draws_block_glyphs),
		cmocka_unit_test(test_eight_heads_get_eight_colours_and_mono_alternates_bold_underline),
		cmocka_unit_test(test_addstr_clips_at_the_width_and_the_right_edge_without_wrapping),
		cmocka_unit_test(test_c_locale_shows_bytes_it_cannot_decode_as_question_marks),
		cmocka_unit_test(test_256_colour_heat_steps_are_distinguishable_from_the_low_end),
		cmocka_unit_test(test_every_depth_draws_five_or_more_levels_that_differ_from_each_other),
	};
	return cmocka_run_group_tests_name("theme", tests, NULL, NULL);
}
