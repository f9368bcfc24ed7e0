/*
 * test_fmt.c - numbers fit their columns, keep a fixed precision per width,
 * and never print "nan".
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fmt.h"

static void test_values_use_fixed_decimals_per_width(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_num(b, sizeof b, 0.5f, 6), " 0.500");
	assert_string_equal(fmt_num(b, sizeof b, -0.125f, 6), "-0.125");
	assert_string_equal(fmt_num(b, sizeof b, -0.126f, 5), "-0.13");
	assert_string_equal(fmt_num(b, sizeof b, 1.0f, 5), " 1.00");
}

static void test_large_values_drop_decimals_then_use_an_exponent(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_num(b, sizeof b, 123.456f, 6), "123.46");
	assert_string_equal(fmt_num(b, sizeof b, 12345.0f, 6), " 12345");
	assert_string_equal(fmt_num(b, sizeof b, 1e6f, 6), "1.00e6");
	assert_string_equal(fmt_num(b, sizeof b, -1e6f, 5), " -1e6");
	assert_string_equal(fmt_num(b, sizeof b, 3e33f, 6), "3.0e33");
}

static void test_every_value_fits_its_width(void **state)
{
	(void)state;
	char b[32];
	const float vals[] = { 0.0f, -0.0f, 1e-9f, -1e-9f, 0.0004f, 999999.0f, -999999.0f, 1e15f, -3.4e38f, 7.77f };
	for (int w = 4; w <= 8; w++)
		for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
			fmt_num(b, sizeof b, vals[i], w);
			assert_int_equal((int)strlen(b), w);
		}
}

static void test_tiny_values_show_their_magnitude_and_zero_has_no_sign(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_num(b, sizeof b, -0.0f, 6), " 0.000");
	assert_string_equal(fmt_num(b, sizeof b, -0.0001f, 6), " -1e-4");
	assert_string_equal(fmt_num(b, sizeof b, 0.002f, 5), " 2e-3");
}

static void test_a_mantissa_that_rounds_to_ten_moves_to_the_next_exponent(void **state)
{
	(void)state;
	char b[32];
	/* 9.7e11 keeps its 9.7 where there is room, and is never "0.97e12" */
	assert_string_equal(fmt_num(b, sizeof b, 9.7e11f, 7), "9.70e11");
	assert_string_equal(fmt_num(b, sizeof b, 9.7e11f, 5), " 1e12");
	assert_string_equal(fmt_num(b, sizeof b, 9.97e11f, 6), "1.0e12");
	assert_string_equal(fmt_num(b, sizeof b, -9.96e-7f, 7), "-1.0e-6");
	/* the largest values a learner can cause (scores near 1e33) fit a 5-column cell */
	assert_string_equal(fmt_num(b, sizeof b, -3.2e33f, 5), "-3e33");
	assert_string_equal(fmt_num(b, sizeof b, 1e33f, 5), " 1e33");
}

static void test_nan_and_inf_never_print_nan(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_num(b, sizeof b, NAN, 6), "     ?");
	assert_string_equal(fmt_num(b, sizeof b, -INFINITY, 6), "  -inf");
	assert_null(strstr(fmt_full(b, sizeof b, NAN), "nan"));
	assert_string_equal(fmt_full(b, sizeof b, 0.1f), "0.100000001");
}

static void test_fewer_significant_digits_keep_the_exponent(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_sig(b, sizeof b, 1.70930533e-12f, 3), "1.71e-12");
	assert_string_equal(fmt_sig(b, sizeof b, -0.02408f, 3), "-0.0241");
	assert_null(strstr(fmt_sig(b, sizeof b, -NAN, 3), "nan"));
}

/* counts with thousands separators, as the generation page prints FLOPs */
static void test_grouped_counts(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_grouped(b, sizeof b, 0), "0");
	assert_string_equal(fmt_grouped(b, sizeof b, 999), "999");
	assert_string_equal(fmt_grouped(b, sizeof b, 1000), "1,000");
	assert_string_equal(fmt_grouped(b, sizeof b, 1089536), "1,089,536");
	assert_string_equal(fmt_grouped(b, sizeof b, -123456), "-123,456");
	assert_string_equal(fmt_grouped(b, 6, 1089536), "1,08"); /* cut short of the room, NUL kept */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_use_fixed_decimals_per_width),
		cmocka_unit_test(test_large_values_drop_decimals_then_use_an_exponent),
		cmocka_unit_test(test_every_value_fits_its_width),
		cmocka_unit_test(test_tiny_values_show_their_magnitude_and_zero_has_no_sign),
		cmocka_unit_test(test_a_mantissa_that_rounds_to_ten_moves_to_the_next_exponent),
		cmocka_unit_test(test_nan_and_inf_never_print_nan),
		cmocka_unit_test(test_fewer_significant_digits_keep_the_exponent),
		cmocka_unit_test(test_grouped_counts),
	};
	return cmocka_run_group_tests_name("fmt", tests, NULL, NULL);
}
