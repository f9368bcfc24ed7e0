/*
 * test_counts_panel.c - the counts panel on a virtual terminal (newterm on
 * /dev/null), read back as text: the paper's base model reads 1,048,576
 * parameters, and so does every h with h*d_k = d_model; the matmul FLOPs do
 * not move with h either, and the ratio says 1.00x (of what) and why; narrow panels
 * switch to k/M/G; the panel uses exactly the lines it says it needs and
 * nothing outside its rectangle; a short panel keeps the totals, KV/token
 * and the ratio.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counts_panel.h"
#include "theme.h"
#include "vscreen.h"
#include "tui_check.h"

/* One 40x120 screen for the whole group: the panel draws, the tests read. */
static int screen_setup(void **state)
{
	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		return -1;
	return vscreen_open(40, 120, "xterm-256color", false);
}

static int screen_teardown(void **state)
{
	(void)state;
	vscreen_close();
	return 0;
}

/* The text of lines y .. y+n-1 from column x, width w, joined by '\n'. */
static const char *panel_text(int y, int x, int n, int w)
{
	static char all[40 * 128];
	all[0] = '\0';
	for (int i = 0; i < n; i++) {
		char line[128] = "";
		mvwinnstr(stdscr, y + i, x, line, w < 127 ? w : 127);
		strcat(all, line);
		strcat(all, "\n");
	}
	return all;
}

/* Draw c at (1, 2) in width w, return the panel's text. */
static const char *draw(const struct mha_config *c, int w)
{
	erase();
	counts_panel_draw(stdscr, 1, 2, counts_panel_height(w), w, c);
	return panel_text(1, 2, counts_panel_height(w), w);
}

/* The line of text that starts with label (after spaces), from the wide
 * layout's FLOPs column or the narrow one. */
static void row_of(const char *text, const char *label, char *out, size_t len)
{
	const char *p = strstr(text, label);
	assert_non_null(p);
	const char *end = strchr(p, '\n');
	snprintf(out, len, "%.*s", (int)(end - p), p);
}

static void test_the_base_model_has_1048576_attention_parameters(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 512, 8, 8, 64);
	for (int w = 24; w <= 80; w += 28) {
		const char *s = draw(&c, w);
		assert_non_null(strstr(s, "1,048,576"));
		assert_non_null(strstr(s, "262,144"));
	}
}

static void test_h_4_and_16_with_h_dk_equal_d_model_keep_params_and_matmul_flops(void **state)
{
	(void)state;
	struct mha_config c8 = tui_check_config(6, 512, 8, 8, 64);
	char want_proj[64], want_out[64], want_scores[64];
	const char *s = draw(&c8, 60);
	row_of(s, "Projection", want_proj, sizeof want_proj);
	row_of(s, "Scores", want_scores, sizeof want_scores);
	row_of(s, "Weighted", want_out, sizeof want_out);
	const int hs[] = { 1, 4, 16 };
	for (int i = 0; i < 3; i++) {
		struct mha_config c = tui_check_config(6, 512, hs[i], hs[i], 512 / hs[i]);
		char got[64];
		s = draw(&c, 60);
		assert_non_null(strstr(s, "total      1,048,576"));
		row_of(s, "Projection", got, sizeof got);
		assert_string_equal(got, want_proj);
		row_of(s, "Scores", got, sizeof got);
		assert_string_equal(got, want_scores);
		row_of(s, "Weighted", got, sizeof got);
		assert_string_equal(got, want_out);
		assert_non_null(strstr(s, "FLOPs: 1.00x one head of width d_model (h*d_k = d_model)"));
	}
}

static void test_every_figure_comes_from_mha_counts(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(64, 1024, 16, 4, 64);
	struct mha_counts k = mha_counts(&c);
	const char *s = draw(&c, 80);
	/* 16*64 = 1024: W^Q 1,048,576; GQA g = 4: W^K 262,144; KV 2*4*64 = 512 */
	assert_int_equal(k.params_wk, 262144);
	assert_non_null(strstr(s, "\nW^K          262,144  Scores"));
	assert_non_null(strstr(s, "\nKV values/token  512  total"));
	char want[32];
	snprintf(want, sizeof want, "%d,%03d,%03d", (int)(k.flops_total / 1000000),
	         (int)(k.flops_total / 1000 % 1000), (int)(k.flops_total % 1000));
	assert_non_null(strstr(s, want));
}

static void test_the_ratio_says_why_when_h_dk_differs_from_d_model(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 16, 4, 4, 8);
	const char *s = draw(&c, 60);
	assert_non_null(strstr(s, "FLOPs 2.02x a d_model-wide head (h*d_k 32 > d_model 16)"));
	assert_null(strstr(s, "1.00x"));
	c.dk = 2;
	s = draw(&c, 60);
	assert_non_null(strstr(s, "(h*d_k 8 < d_model 16)"));
	/* wide enough: the long explanation */
	c = tui_check_config(6, 512, 8, 8, 64);
	s = draw(&c, 90);
	assert_non_null(strstr(s, "(h*d_k = d_model, so params and matmul FLOPs ignore h)"));
	/* with GQA, K and V follow g: the panel does not claim h is free */
	c.g = 2;
	s = draw(&c, 90);
	assert_null(strstr(s, "ignore h"));
	assert_non_null(strstr(s, "2 kv heads"));
}

static void test_a_narrow_panel_uses_k_m_g_suffixes_and_brief_labels(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(64, 1024, 16, 16, 64);
	const char *s = draw(&c, 12);
	assert_non_null(strstr(s, "total  4.19M\n"));
	assert_non_null(strstr(s, "W^Q    1.05M\n"));
	assert_non_null(strstr(s, "QKV     403M\n"));
	assert_non_null(strstr(s, "Scores 8.39M\n"));
	/* at 16 columns the exact figures fit */
	s = draw(&c, 16);
	assert_non_null(strstr(s, "total  4,194,304\n"));
	assert_non_null(strstr(s, "QKV  402,653,184\n"));
	/* the ratio on a line of its own, and what "1 head" is under it */
	assert_non_null(strstr(s, "\n1.00x 1 head    \nhead d_k=d_model\n"));
	s = draw(&c, 24);
	assert_non_null(strstr(s, "\nFLOPs 1.00x 1 head      \n1 head: d_k=d_model     \n")); /* the unit first */
	s = draw(&c, 31); /* from 31 the comparison named in full, the reason under it */
	assert_non_null(strstr(s, "\nFLOPs 1.00x a d_model-wide head\nh*d_k = d_model "));
	s = draw(&c, 38);
	assert_non_null(strstr(s, "\nFLOPs: 1.00x one head of width d_model\nh*d_k = d_model "));
}

static void test_the_panel_fills_exactly_the_lines_it_asks_for(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 512, 8, 8, 64);
	const int widths[] = { 12, 20, 30, 48, 49, 60, 80, 110 };
	for (int i = 0; i < 8; i++) {
		int w = widths[i], h = counts_panel_height(w);
		assert_true(h >= 8 && h < 38);
		erase();
		counts_panel_draw(stdscr, 1, 2, h, w, &c);
		char first[8] = "", last[8] = "", after[8] = "";
		mvwinnstr(stdscr, 1, 2, first, 1);
		mvwinnstr(stdscr, h, 2, last, 1);
		mvwinnstr(stdscr, h + 1, 2, after, 1);
		assert_string_not_equal(first, " ");
		assert_string_not_equal(last, " ");
		assert_string_equal(after, " ");
	}
}

/* Draw c at (1, 2) in height h and width w, return the panel's text. */
static const char *draw_short(const struct mha_config *c, int h, int w)
{
	erase();
	counts_panel_draw(stdscr, 1, 2, h, w, c);
	/* without the padding mvwinnstr reads after each line */
	static char out[40 * 128];
	const char *in = panel_text(1, 2, h, w);
	size_t o = 0;
	for (; *in; in++) {
		if (*in == '\n')
			while (o > 0 && out[o - 1] == ' ')
				o--;
		out[o++] = *in;
	}
	out[o] = '\0';
	return out;
}

static void test_a_short_panel_keeps_the_totals_kv_per_token_and_the_ratio(void **state)
{
	(void)state;
	/* the base model: 1,048,576 parameters; KV 2*8*64 = 1,024 per token */
	struct mha_config c = tui_check_config(6, 512, 8, 8, 64);
	struct mha_counts k = mha_counts(&c);
	char flops[32];
	snprintf(flops, sizeof flops, "%d,%03d,%03d", (int)(k.flops_total / 1000000),
	         (int)(k.flops_total / 1000 % 1000), (int)(k.flops_total % 1000));
	const int widths[] = { 20, 24, 30 };
	for (int i = 0; i < 3; i++)
		for (int h = 4; h < counts_panel_height(widths[i]); h++) {
			const char *s = draw_short(&c, h, widths[i]);
			if (!strstr(s, "Parameters") || !strstr(s, "1,048,576") || !strstr(s, "FLOPs") ||
			    !strstr(s, flops) || !strstr(s, "KV") || !strstr(s, "1,024") ||
			    !strstr(s, "1.00x"))
				fail_msg("width %d height %d lost an essential:\n%s", widths[i], h, s);
		}
	/* 4 lines: exactly the essentials, totals first */
	const char *s = draw_short(&c, 4, 20);
	assert_string_equal(s, "Parameters 1,048,576\nFLOPs     12,658,080\nKV/token       1,024\nFLOPs 1.00x 1 head\n");
	assert_int_equal(k.flops_total, 12658080);
}

static void test_a_short_panel_adds_the_breakdowns_indented_as_lines_allow(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 16, 4, 4, 4);
	/* 8 lines (80x24 from Scores on): the reason and the biggest FLOP
	 * parts too, the rest as one */
	const char *s = draw_short(&c, 8, 20);
	assert_string_equal(s, "Parameters     1,024\n"
	                       "FLOPs         15,312\n"
	                       " Projection    9,216\n"
	                       " Scores        1,152\n"
	                       " other         4,944\n"
	                       "KV values/token   32\n"
	                       "FLOPs 1.04x 1 head\n"
	                       "1 head: d_k=d_model\n");
	/* every line used, at every short height (the compact form has 14),
	 * but one where a breakdown would need two (a part and "other") */
	for (int h = 1; h <= 14 && h < counts_panel_height(20); h++) {
		draw_short(&c, h, 20);
		char last[4] = "", before[4] = "", after[4] = "";
		mvwinnstr(stdscr, h, 2, last, 1);
		mvwinnstr(stdscr, h - 1, 2, before, 1);
		mvwinnstr(stdscr, h + 1, 2, after, 1);
		assert_true(strcmp(last, " ") != 0 || (h > 1 && strcmp(before, " ") != 0));
		assert_string_equal(after, " ");
	}
	/* one line short of the full form: every matrix's parameters, indented */
	s = draw_short(&c, counts_panel_height(20) - 2, 20);
	assert_non_null(strstr(s, "\n W^Q             256\n W^K             256\n"));
	assert_non_null(strstr(s, "\n Softmax         720\n"));
}

/* The figure on the line of text that holds label (its last number). */
static long long figure_of(const char *line)
{
	long long v = 0;
	bool in = false;
	for (const char *p = line; *p && *p != '\n'; p++)
		if (*p >= '0' && *p <= '9') {
			v = in ? v * 10 + (*p - '0') : *p - '0';
			in = true;
		} else if (*p != ',') {
			in = false;
		}
	return v;
}

/* The indented lines under a total add up to it, at every short height:
 * a breakdown cut short names the rest ("other"), never leaves 768 listed
 * under 1,024 (W^O dropped with 2 heads). */
static void test_a_short_panels_breakdown_adds_up_to_its_total(void **state)
{
	(void)state;
	const struct mha_config cs[] = { tui_check_config(6, 16, 2, 2, 8), tui_check_config(6, 16, 4, 4, 4),
	                                 tui_check_config(6, 512, 8, 8, 64) };
	for (int ci = 0; ci < 3; ci++)
		for (int h = 1; h < counts_panel_height(20); h++) {
			const char *s = draw_short(&cs[ci], h, 20);
			long long total = -1, sum = 0;
			int parts = 0;
			for (const char *l = s; *l; l = strchr(l, '\n') + 1) {
				if (l[0] == ' ') {
					sum += figure_of(l);
					parts++;
					continue;
				}
				if (total >= 0 && parts > 0 && sum != total)
					fail_msg("config %d height %d: parts add to %lld under %lld:\n%s", ci, h, sum, total, s);
				total = (!strncmp(l, "Parameters", 10) || !strncmp(l, "FLOPs ", 6)) &&
				        strncmp(l, "FLOPs 1", 7) ? figure_of(l) : -1;
				sum = 0;
				parts = 0;
			}
			if (total >= 0 && parts > 0 && sum != total)
				fail_msg("config %d height %d: parts add to %lld under %lld:\n%s", ci, h, sum, total, s);
		}
}

static void test_nothing_is_drawn_outside_the_rectangle(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(64, 1024, 64, 2, 64);
	const int widths[] = { 1, 5, 12, 20, 49, 60, 100 };
	for (int i = 0; i < 7; i++)
		for (int h = 0; h <= 18; h += 3) {
			int w = widths[i];
			for (int y = 0; y < 40; y++)
				mvhline(y, 0, '~', 120);
			counts_panel_draw(stdscr, 5, 7, h, w, &c);
			for (int y = 0; y < 40; y++) {
				char line[128] = "";
				mvwinnstr(stdscr, y, 0, line, 120);
				for (int x = 0; x < 120; x++) {
					bool inside = y >= 5 && y < 5 + h && x >= 7 && x < 7 + w;
					if (!inside && line[x] != '~')
						fail_msg("width %d height %d: drawn at line %d column %d", w, h, y, x);
				}
			}
		}
}

/* Causal over 6 tokens keeps 21 of 36 pairs, top-k 2 then 11; h 4,
 * d_k 4: masked QK^T 2*4*4*(36-21) = 480, zero-weight PV 2*4*4*(36-11) =
 * 800, top-k's saving 4*16*(21-11) = 640 over 21 pairs = 30.5 a pair. */
static void test_with_masks_and_top_k_room_below_says_what_a_sparse_kernel_skips(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 16, 4, 4, 4);
	c.causal = true;
	c.top_k = 2;
	const char *narrow = draw_short(&c, counts_panel_height(20) + 3, 20);
	assert_non_null(strstr(narrow, "Sparse could skip\n"));
	assert_non_null(strstr(narrow, "masked QK^T      480\n"));
	assert_non_null(strstr(narrow, "zero-weight PV   800\n"));
	const char *wide = draw_short(&c, counts_panel_height(110) + 1, 110);
	assert_non_null(strstr(wide, "a sparse kernel could skip: QK^T 480, PV 800 FLOPs "
	                              "(top-k wins if its selector < 30.5 a pair)"));
	/* without masks or top-k: nothing, even with room */
	struct mha_config dense = tui_check_config(6, 16, 4, 4, 4);
	assert_null(strstr(draw_short(&dense, counts_panel_height(20) + 3, 20), "Sparse"));
	assert_null(strstr(draw_short(&dense, counts_panel_height(110) + 1, 110), "sparse"));
}

/* Cross-attention, counted by hand: n 5 queries, M 7 source tokens, d 16,
 * h 4 query heads sharing g 2 kv heads of d_k 4. K and V project the M
 * source rows: 2 M d (2 g d_k) = 2*7*16*16 = 3,584, Q 2 n d h d_k =
 * 2,560, so Projection 6,144; scores and P V 2 h n M d_k = 1,120 each;
 * softmax 5 h n M = 700; W^O 2 n (h d_k) d = 2,560; total 11,644. The one
 * full head (h = g = 1, d_k = d) over the same n x M: 4nd^2 + 4Md^2 +
 * 4nMd + 5nM = 5,120 + 7,168 + 2,240 + 175 = 14,703: 0.79x. */
static void test_cross_attention_counts_match_a_hand_computation(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(5, 16, 4, 2, 4);
	c.m = 7;
	const char *s = draw(&c, 60);
	assert_non_null(strstr(s, "W^Q              256  Projection            6,144"));
	assert_non_null(strstr(s, "W^K              128  Scores                1,120"));
	assert_non_null(strstr(s, "W^V              128  Softmax                 700"));
	assert_non_null(strstr(s, "W^O              256  Weighted sum          1,120"));
	assert_non_null(strstr(s, "total            768  W^O                   2,560"));
	assert_non_null(strstr(s, "KV values/token   16  total                11,644"));
	assert_non_null(strstr(s, "FLOPs: 0.79x one head of width d_model"));
	/* the same shape as self-attention (M = n = 5) counts n x n */
	c.m = 0;
	s = draw(&c, 60);
	assert_non_null(strstr(s, "Projection            5,120"));
	assert_non_null(strstr(s, "Scores                  800"));
}

/* A stack counts each layer's rows once and the L layers' totals beside
 * them: n 6, d 16, h 4, d_k 4, 3 layers. One layer: 1,024 parameters;
 * FLOPs 2 n d (h + 2g) d_k = 9,216 + scores 1,152 + softmax 720 + P V
 * 1,152 + W^O 3,072 = 15,312. Three: 3,072 parameters, 3 x 15,312 + the
 * residual adds x_l+1 = x_l + Y, n d = 96 a layer: 46,224 FLOPs. With a
 * source of M 3 and 2 layers: K, V 2*3*16*32 = 3,072 + Q 3,072 = 6,144;
 * scores and P V 2*4*6*3*4 = 576 each; softmax 360; W^O 3,072: 10,728 a
 * layer, 2 x 10,728 + 2 x 96 = 21,648 for the two. */
static void test_a_stack_counts_every_layer_by_hand(void **state)
{
	(void)state;
	struct mha_config c = tui_check_config(6, 16, 4, 4, 4);
	c.layers = 3;
	const char *s = draw(&c, 60);
	assert_non_null(strstr(s, "Params, each layer"));
	assert_non_null(strstr(s, "FLOPs, each layer"));
	assert_non_null(strstr(s, "total          1,024  W^O                   3,072"));
	assert_non_null(strstr(s, "KV/token/layer    32  total                15,312"));
	assert_non_null(strstr(s, "3 layers: 3,072 params, 46,224 FLOPs"));
	/* narrow: the totals in rows of their own */
	s = draw(&c, 24);
	assert_non_null(strstr(s, "3 layers params    3,072"));
	assert_non_null(strstr(s, "3 layers FLOPs    46,224"));
	c.layers = 2;
	c.m = 3;
	s = draw(&c, 60);
	assert_non_null(strstr(s, "Projection            6,144"));
	assert_non_null(strstr(s, "Softmax                 360"));
	assert_non_null(strstr(s, "total                10,728"));
	assert_non_null(strstr(s, "2 layers: 2,048 params, 21,648 FLOPs"));
	/* short of the full form: the compact one keeps both totals */
	erase();
	counts_panel_draw(stdscr, 1, 2, 6, 30, &c);
	s = panel_text(1, 2, 6, 30);
	assert_non_null(strstr(s, "2 layers params"));
	assert_non_null(strstr(s, "2 layers FLOPs"));
	assert_non_null(strstr(s, "21,648"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_base_model_has_1048576_attention_parameters),
		cmocka_unit_test(test_h_4_and_16_with_h_dk_equal_d_model_keep_params_and_matmul_flops),
		cmocka_unit_test(test_every_figure_comes_from_mha_counts),
		cmocka_unit_test(test_the_ratio_says_why_when_h_dk_differs_from_d_model),
		cmocka_unit_test(test_a_narrow_panel_uses_k_m_g_suffixes_and_brief_labels),
		cmocka_unit_test(test_the_panel_fills_exactly_the_lines_it_asks_for),
		cmocka_unit_test(test_a_short_panel_keeps_the_totals_kv_per_token_and_the_ratio),
		cmocka_unit_test(test_a_short_panel_adds_the_breakdowns_indented_as_lines_allow),
		cmocka_unit_test(test_a_short_panels_breakdown_adds_up_to_its_total),
		cmocka_unit_test(test_nothing_is_drawn_outside_the_rectangle),
		cmocka_unit_test(test_with_masks_and_top_k_room_below_says_what_a_sparse_kernel_skips),
		cmocka_unit_test(test_cross_attention_counts_match_a_hand_computation),
		cmocka_unit_test(test_a_stack_counts_every_layer_by_hand),
	};
	return cmocka_run_group_tests_name("counts_panel", tests, screen_setup, screen_teardown);
}
