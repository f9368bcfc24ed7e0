/*
 * test_config.c - the core's rules and small services: every boundary of
 * mha_config_check, the value parser (mha_parse_value) and its scanning
 * half for longer lines (mha_scan_number), the carry rule for
 * reshapes (mha_weights_carry), the tensor table and the layout of the
 * activations. No forward-pass numerics here (test_properties.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "mha.h"

static struct mha_config shape(int n, int d, int h, int g, int dk, int top_k)
{
	struct mha_config c = mha_config_default();
	c.n = n; c.d = d; c.h = h; c.g = g; c.dk = dk; c.top_k = top_k;
	return c;
}

static void expect_valid(struct mha_config c)
{
	char msg[MHA_MSG_MAX] = "x";
	enum mha_status s = mha_config_check(&c, msg, sizeof msg);
	if (s != MHA_OK)
		fail_msg("n %d d %d h %d g %d dk %d top_k %d refused: %s", c.n, c.d, c.h, c.g, c.dk, c.top_k, msg);
	assert_string_equal(msg, "");
}

/* Refused with EINVAL, the message naming the field and holding the value. */
static void expect_invalid(struct mha_config c, const char *field, const char *value)
{
	char msg[MHA_MSG_MAX] = "";
	enum mha_status s = mha_config_check(&c, msg, sizeof msg);
	if (s != MHA_EINVAL)
		fail_msg("n %d d %d h %d g %d dk %d top_k %d accepted, expected a complaint about %s",
		         c.n, c.d, c.h, c.g, c.dk, c.top_k, field);
	if (!strstr(msg, field) || !strstr(msg, value))
		fail_msg("message '%s' should name %s and %s", msg, field, value);
	/* and a NULL buffer of length 0 is allowed */
	assert_int_equal(mha_config_check(&c, NULL, 0), MHA_EINVAL);
}

static void test_default_config_is_valid_and_as_documented(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	assert_int_equal(c.n, 6);
	assert_int_equal(c.d, 16);
	assert_int_equal(c.h, 4);
	assert_int_equal(c.g, 4);
	assert_int_equal(c.dk, 4);
	assert_true(c.scale);
	assert_false(c.causal);
	assert_int_equal(c.top_k, 0);
	for (int i = 0; i < MHA_MAX_HEADS; i++)
		assert_false(c.head_off[i]);
	expect_valid(c);
}

static void test_config_check_accepts_every_boundary_value(void **state)
{
	(void)state;
	expect_valid(shape(1, 1, 1, 1, 1, 0));
	expect_valid(shape(MHA_MAX_TOKENS, MHA_MAX_D_MODEL, 1, 1, MHA_MAX_DK, MHA_MAX_TOKENS));
	expect_valid(shape(1, 1, MHA_MAX_HEADS, MHA_MAX_HEADS, 64, 1));  /* 64 x 64 = 4096 */
	expect_valid(shape(1, 1, MHA_MAX_HEADS, 1, 1, 0));
	expect_valid(shape(5, 10, 8, 8, 512, 5));                        /* 8 x 512 = 4096 */
	expect_valid(shape(5, 10, 4, 4, MHA_MAX_DK, 0));                 /* 4 x 1024 = 4096 */
	expect_valid(shape(3, 10, 6, 3, 4, 3));                          /* d not h dk: fine */
	expect_valid(shape(3, 10, 6, 2, 4, 0));
}

static void test_config_check_refuses_every_field_out_of_range(void **state)
{
	(void)state;
	expect_invalid(shape(0, 16, 4, 4, 4, 0), "tokens", "0");
	expect_invalid(shape(-1, 16, 4, 4, 4, 0), "tokens", "-1");
	expect_invalid(shape(65, 16, 4, 4, 4, 0), "tokens", "65");
	expect_invalid(shape(6, 0, 4, 4, 4, 0), "d-model", "0");
	expect_invalid(shape(6, 1025, 4, 4, 4, 0), "d-model", "1025");
	expect_invalid(shape(6, 16, 0, 1, 4, 0), "heads", "0");
	expect_invalid(shape(6, 16, 65, 65, 4, 0), "heads", "65");
	expect_invalid(shape(6, 16, 4, 4, 0, 0), "d-k", "0");
	expect_invalid(shape(6, 16, 4, 4, 1025, 0), "d-k", "1025");
	expect_invalid(shape(6, 16, 4, 0, 4, 0), "kv-heads", "0");
	expect_invalid(shape(6, 16, 4, 8, 4, 0), "kv-heads", "8");
	expect_invalid(shape(6, 16, 6, 4, 4, 0), "kv-heads", "4");
	expect_invalid(shape(6, 16, 4, 3, 4, 0), "does not divide", "3");
	expect_invalid(shape(6, 16, 8, 8, 513, 0), "too wide", "4104");
	expect_invalid(shape(6, 16, 64, 64, 65, 0), "too wide", "4160");
	expect_invalid(shape(6, 16, 5, 5, 820, 0), "too wide", "4100");
	expect_invalid(shape(6, 16, 4, 4, 4, -1), "top-k", "-1");
	expect_invalid(shape(6, 16, 4, 4, 4, 7), "top-k", "7");
}

/* ---- mha_parse_value ---- */

static void expect_parsed(const char *text, float want)
{
	float got = -12345.0f;
	char msg[MHA_MSG_MAX] = "x";
	if (mha_parse_value(text, &got, msg, sizeof msg) != MHA_OK)
		fail_msg("'%s' refused: %s", text, msg);
	if (got != want)
		fail_msg("'%s' read as %.9g, want %.9g", text, (double)got, (double)want);
	assert_string_equal(msg, "");
}

static void expect_refused(const char *text)
{
	float got = -12345.0f;
	char msg[MHA_MSG_MAX] = "";
	if (mha_parse_value(text, &got, msg, sizeof msg) != MHA_ERANGE)
		fail_msg("'%.40s' accepted as %.9g", text, (double)got);
	assert_true(got == -12345.0f); /* the output is untouched */
	if (strlen(msg) < 10 || strlen(msg) >= MHA_MSG_MAX - 1)
		fail_msg("'%.40s': message '%s' is not a useful sentence", text, msg);
	/* the message quotes what was typed (its start, when long) */
	char start[8];
	snprintf(start, sizeof start, "%s", text);
	if (text[0] != ' ' && !strstr(msg, start))
		fail_msg("'%.40s': message '%s' does not quote the input", text, msg);
}

static void test_parse_value_accepts_plain_decimal_numbers(void **state)
{
	(void)state;
	expect_parsed("0.5", 0.5f);
	expect_parsed("-3", -3.0f);
	expect_parsed("1e-3", 1e-3f);
	expect_parsed(" 2 ", 2.0f);
	expect_parsed("\t2\r\n", 2.0f);
	expect_parsed("+1.25", 1.25f);
	expect_parsed(".5", 0.5f);
	expect_parsed("5.", 5.0f);
	expect_parsed("1E3", 1000.0f);
	expect_parsed("-0", -0.0f);
	expect_parsed("1e6", 1e6f);
	expect_parsed("-1000000", -1e6f);
	expect_parsed("0.333333343", 1.0f / 3.0f);   /* %.9g of a float reads back exactly */
	expect_parsed("1.17549435e-38", 1.17549435e-38f);
	expect_parsed("1e-50", 0.0f);                /* underflow: harmless 0 */
	float v;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_parse_value("1.40129846e-45", &v, msg, sizeof msg), MHA_OK);
	assert_true(v > 0.0f && v < 1e-44f);          /* the smallest denormal */
}

static void test_parse_value_refuses_everything_else(void **state)
{
	(void)state;
	static const char *bad[] = {
		"abc", "1e309", "-1e309", "nan", "NaN", "-inf", "inf", "infinity", "", "   ", "\t",
		"1.2.3", "1e7", "-1e7", "1000000.1", "1e6.5", "0x10", "0X1p3", "1,5", "1 2", "--1",
		"+-1", "e5", ".", "-", "1e", "1e+", "5%", "1f", "１", "0.5\x01",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refused(bad[i]);
	char long_text[501];
	memset(long_text, '1', 500);
	long_text[500] = '\0';
	expect_refused(long_text);
	memset(long_text, '0', 499);
	long_text[499] = '1';
	expect_refused(long_text); /* 500 characters even if the value is 1 */
}

/* The scanner the lesson lexer reads numbers with: it stops where the
 * number stops, says so, and refuses what mha_parse_value refuses for
 * being no number at all. */
static void test_scan_number_reads_a_number_and_says_where_it_ends(void **state)
{
	(void)state;
	static const struct { const char *text; double want; size_t used; } good[] = {
		{ "0.5 tol 1e-3", 0.5, 3 }, { "-3)", -3.0, 2 }, { "1e-3,", 1e-3, 4 },
		{ "2..4", 2.0, 2 },           /* "2." and no further */
		{ "1e", 1.0, 1 }, { "1e-400", 0.0, 6 }, { "+.5x", 0.5, 3 },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		const char *end = NULL;
		double v = -7.0;
		if (mha_scan_number(good[i].text, &end, &v) != MHA_OK)
			fail_msg("'%s' refused", good[i].text);
		if (v != good[i].want || (size_t)(end - good[i].text) != good[i].used)
			fail_msg("'%s' read as %.17g using %td bytes, want %.17g using %zu", good[i].text, v,
			         end - good[i].text, good[i].want, good[i].used);
	}
	static const char *none[] = { "", " 1", "nan", "inf", "x1", "e5", ".", "-", "0x" };
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		const char *end = none[i];
		double v = -7.0;
		enum mha_status s = mha_scan_number(none[i], &end, &v);
		if (!strcmp(none[i], "0x")) { /* the 0 is a number; the x is what follows */
			assert_int_equal(s, MHA_OK);
			assert_true(end == none[i] + 1 && v == 0.0);
			continue;
		}
		if (s != MHA_EINVAL || v != -7.0 || end != none[i])
			fail_msg("'%s' read as a number (%d)", none[i], (int)s);
	}
	const char *end = NULL;
	double v = 0;
	assert_int_equal(mha_scan_number("1e309", &end, &v), MHA_ERANGE);
	assert_int_equal(mha_scan_number("-1e999 ", &end, &v), MHA_ERANGE);
	char long_text[80];
	memset(long_text, '1', 79);
	long_text[79] = '\0';
	assert_int_equal(mha_scan_number(long_text, &end, &v), MHA_ERANGE);
	assert_int_equal(mha_scan_number("2e6", &end, &v), MHA_OK); /* beyond MHA_VALUE_MAX is the caller's call */
	assert_true(v == 2e6);
}

/* ---- mha_weights_carry: cells in both shapes keep their value ---- */

/* A value that says where a source cell was: tensor, row, head block, j. */
static float tag(int t, int r, int blk, int j)
{
	return (float)(t * 1000000 + r * 1000 + blk * 32 + j);
}

enum { SENTINEL = -7 };

/* Fill the source with tags, by head block for W^Q, W^K, W^V (columns)
 * and W^O (rows); X is one block of d columns. */
static void tag_fill(struct mha_weights *w, const struct mha_config *c)
{
	int hw = c->h * c->dk, gw = c->g * c->dk;
	for (int r = 0; r < c->n; r++)
		for (int j = 0; j < c->d; j++)
			w->x[r * c->d + j] = tag(0, r, 0, j);
	for (int r = 0; r < c->d; r++)
		for (int col = 0; col < hw; col++)
			w->wq[r * hw + col] = tag(1, r, col / c->dk, col % c->dk);
	for (int r = 0; r < c->d; r++)
		for (int col = 0; col < gw; col++) {
			w->wk[r * gw + col] = tag(2, r, col / c->dk, col % c->dk);
			w->wv[r * gw + col] = tag(3, r, col / c->dk, col % c->dk);
		}
	for (int row = 0; row < hw; row++)
		for (int col = 0; col < c->d; col++)
			w->wo[row * c->d + col] = tag(4, col, row / c->dk, row % c->dk);
	for (int i = 0; i < c->n; i++)
		snprintf(w->labels[i], MHA_LABEL_MAX, "src%d", i);
}

static void expect_cell(float got, bool kept, float want, const char *what, int r, int col)
{
	float w = kept ? want : (float)SENTINEL;
	if (got != w)
		fail_msg("%s[%d][%d] = %.9g, want %.9g (%s)", what, r, col, (double)got, (double)w,
		         kept ? "carried" : "new cell, dst's own value");
}

/* Which column of a (heads*dk)-wide source matrix lands in column col of
 * the destination, or -1 for a new cell: the same column when the width is
 * unchanged (only regrouped into heads), else the same column of the same
 * head. */
static int carried_from(int col, int dheads, int ddk, int sheads, int sdk)
{
	if (dheads * ddk == sheads * sdk)
		return col;
	int b = col / ddk, j = col % ddk;
	return b < sheads && j < sdk ? b * sdk + j : -1;
}

static void check_carry(const struct mha_config *sc, const struct mha_config *dc)
{
	struct mha_weights src, dst;
	assert_int_equal(mha_weights_alloc(&src, sc), MHA_OK);
	assert_int_equal(mha_weights_alloc(&dst, dc), MHA_OK);
	tag_fill(&src, sc);
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(dc, t);
		float *p = mha_tensor_data(&dst, NULL, t);
		for (int i = 0; i < s.rows * s.cols; i++)
			p[i] = SENTINEL;
	}
	for (int i = 0; i < dc->n; i++)
		snprintf(dst.labels[i], MHA_LABEL_MAX, "dst%d", i);
	mha_weights_carry(&dst, dc, &src, sc);

	int hw = dc->h * dc->dk, gw = dc->g * dc->dk;
	for (int r = 0; r < dc->n; r++)
		for (int j = 0; j < dc->d; j++)
			expect_cell(dst.x[r * dc->d + j], r < sc->n && j < sc->d, tag(0, r, 0, j), "X", r, j);
	for (int r = 0; r < dc->d; r++) {
		for (int col = 0; col < hw; col++) {
			int s = carried_from(col, dc->h, dc->dk, sc->h, sc->dk);
			expect_cell(dst.wq[r * hw + col], r < sc->d && s >= 0,
			            tag(1, r, s / sc->dk, s % sc->dk), "W^Q", r, col);
		}
		for (int col = 0; col < gw; col++) {
			int s = carried_from(col, dc->g, dc->dk, sc->g, sc->dk);
			bool kept = r < sc->d && s >= 0;
			expect_cell(dst.wk[r * gw + col], kept, tag(2, r, s / sc->dk, s % sc->dk), "W^K", r, col);
			expect_cell(dst.wv[r * gw + col], kept, tag(3, r, s / sc->dk, s % sc->dk), "W^V", r, col);
		}
	}
	for (int row = 0; row < hw; row++)
		for (int col = 0; col < dc->d; col++) {
			int s = carried_from(row, dc->h, dc->dk, sc->h, sc->dk);
			expect_cell(dst.wo[row * dc->d + col], s >= 0 && col < sc->d,
			            tag(4, col, s / sc->dk, s % sc->dk), "W^O", row, col);
		}
	for (int i = 0; i < dc->n; i++) {
		char want[MHA_LABEL_MAX];
		snprintf(want, sizeof want, i < sc->n ? "src%d" : "dst%d", i);
		assert_string_equal(dst.labels[i], want);
	}
	mha_weights_free(&src);
	mha_weights_free(&dst);
}

static void test_carry_keeps_every_cell_that_exists_in_both_shapes(void **state)
{
	(void)state;
	static const int pairs[][2][5] = { /* n, d, h, g, dk: from -> to */
		{ { 3, 4, 2, 1, 2 }, { 3, 4, 2, 1, 2 } },  /* same shape: a copy */
		{ { 3, 4, 2, 2, 2 }, { 3, 4, 3, 3, 2 } },  /* one more head */
		{ { 3, 4, 4, 2, 2 }, { 3, 4, 2, 2, 2 } },  /* fewer heads */
		{ { 3, 4, 2, 2, 2 }, { 3, 4, 2, 2, 3 } },  /* wider heads */
		{ { 3, 8, 2, 2, 4 }, { 3, 8, 4, 4, 2 } },  /* h x2, dk /2: same widths, cell for cell */
		{ { 3, 8, 4, 2, 2 }, { 3, 8, 8, 2, 1 } },  /* h x2, dk /2, g kept: W^K narrower */
		{ { 4, 6, 4, 4, 3 }, { 2, 9, 4, 1, 3 } },  /* fewer tokens, wider d, MQA */
		{ { 2, 5, 3, 1, 2 }, { 6, 3, 6, 3, 1 } },  /* everything changes */
		{ { 1, 1, 1, 1, 1 }, { 5, 7, 2, 2, 4 } },  /* from the smallest */
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		const int *a = pairs[i][0], *b = pairs[i][1];
		struct mha_config sc = shape(a[0], a[1], a[2], a[3], a[4], 0);
		struct mha_config dc = shape(b[0], b[1], b[2], b[3], b[4], 0);
		check_carry(&sc, &dc);
	}
}

/* ---- the tensor table and the storage behind it ---- */

static void test_tensor_table_describes_every_stage(void **state)
{
	(void)state;
	struct mha_config c = shape(5, 12, 4, 2, 3, 0);
	static const int want[MHA_T_COUNT][3] = {
		{ 1, 5, 12 }, { 1, 12, 12 }, { 1, 12, 6 }, { 1, 12, 6 }, { 1, 12, 12 },
		{ 1, 5, 12 }, { 1, 5, 6 }, { 1, 5, 6 }, { 4, 5, 5 }, { 4, 5, 5 }, { 4, 5, 3 },
		{ 1, 5, 12 }, { 1, 5, 12 },
		/* X_kv (no source: 0 rows), P_pos, PE, x_l, Q_rot, K_rot, x_l+1 */
		{ 1, 0, 12 }, { 1, 5, 12 }, { 1, 5, 12 }, { 1, 5, 12 }, { 1, 5, 12 }, { 1, 5, 6 },
		{ 1, 5, 12 },
	};
	for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++) {
		const struct mha_tensor_info *info = mha_tensor_info(t);
		assert_non_null(info);
		assert_true(info->name && info->name[0]);
		assert_true(info->key && info->key[0]);
		assert_true(info->formula && info->formula[0]);
		assert_int_equal(info->input, t <= MHA_T_WO || t == MHA_T_XKV || t == MHA_T_POS);
		struct mha_shape s = mha_tensor_shape(&c, t);
		if (s.count != want[t][0] || s.rows != want[t][1] || s.cols != want[t][2])
			fail_msg("%s: shape %dx%dx%d, want %dx%dx%d", info->name, s.count, s.rows, s.cols,
			         want[t][0], want[t][1], want[t][2]);
		assert_null(mha_tensor_data(NULL, NULL, t));
	}
	struct mha_shape none = mha_tensor_shape(&c, MHA_T_COUNT);
	assert_int_equal(none.count * none.rows * none.cols, 0);
}

/* Each tensor owns its cells: writing a different byte into each, in
 * order, leaves all of them intact (no overlap in the one allocation). */
static void test_tensors_do_not_overlap_in_their_allocations(void **state)
{
	(void)state;
	static const int shapes[][5] = { { 5, 12, 4, 2, 3 }, { 1, 1, 1, 1, 1 }, { 7, 3, 6, 1, 5 } };
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct mha_config c = shape(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], shapes[i][4], 0);
		struct mha_weights w;
		struct mha_acts a;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
		for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++) {
			struct mha_shape s = mha_tensor_shape(&c, t);
			memset(mha_tensor_data(&w, &a, t), (int)t + 1, (size_t)s.count * s.rows * s.cols * sizeof(float));
		}
		memset(w.labels, 0x55, (size_t)c.n * MHA_LABEL_MAX);
		memset(a.dead_row, 0x66, (size_t)c.h * c.n);
		for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++) {
			struct mha_shape s = mha_tensor_shape(&c, t);
			const unsigned char *p = (const unsigned char *)mha_tensor_data(&w, &a, t);
			for (size_t b = 0; b < (size_t)s.count * s.rows * s.cols * sizeof(float); b++)
				if (p[b] != t + 1)
					fail_msg("%s byte %zu was overwritten (config %zu)", mha_tensor_info(t)->name, b, i);
		}
		mha_acts_free(&a);
		mha_weights_free(&w);
		assert_null(a.mem);
		assert_null(w.mem);
	}
}

static void test_every_status_has_a_message(void **state)
{
	(void)state;
	const enum mha_status all[] = { MHA_OK, MHA_EINVAL, MHA_ENOMEM, MHA_ERANGE };
	for (size_t i = 0; i < 4; i++) {
		assert_true(strlen(mha_strerror(all[i])) > 1);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(mha_strerror(all[i]), mha_strerror(all[j]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_config_is_valid_and_as_documented),
		cmocka_unit_test(test_config_check_accepts_every_boundary_value),
		cmocka_unit_test(test_config_check_refuses_every_field_out_of_range),
		cmocka_unit_test(test_parse_value_accepts_plain_decimal_numbers),
		cmocka_unit_test(test_parse_value_refuses_everything_else),
		cmocka_unit_test(test_scan_number_reads_a_number_and_says_where_it_ends),
		cmocka_unit_test(test_carry_keeps_every_cell_that_exists_in_both_shapes),
		cmocka_unit_test(test_tensor_table_describes_every_stage),
		cmocka_unit_test(test_tensors_do_not_overlap_in_their_allocations),
		cmocka_unit_test(test_every_status_has_a_message),
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
