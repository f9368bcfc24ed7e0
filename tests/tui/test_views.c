/*
 * test_views.c - the views beyond the paper on a virtual screen, at 80x24
 * and 200x60, colour and monochrome.
 * KV cache (g): the LLaMA-2-70B figures of doc/FACTS.md ("KV cache at
 * model scale": 320 KiB a token in fp16, 1.25 GiB at 4,096 tokens, 10 GiB
 * as plain MHA) read on screen, every line whole; b and + / - change the
 * type and the context; g and Esc go back; the byte formatter by hand.
 * Decode (o): the cache grows a token a step (Right), goes back (Left),
 * restarts (0), stops at n; every decoded row is shown equal to the causal
 * full pass, bit for bit; the step's FLOPs against a recompute; keys that
 * would change the workbench do nothing there; o leaves and frees the
 * decoder, and so does closing the app with the view open.
 * Masks (P): the grid names what hides each cell (c causal, w window, p
 * padding, x by hand); Space, p and ( ) change the configuration (and u
 * undoes them); a padding first token under causal has no key and says so.
 * Sentence (N): the labels typed as words set n, the labels and X (a
 * repeated word shares its row); u undoes it; a word too long is refused.
 * Biases: with them on, Projection's formula adds b^Q (b^K, b^V after v)
 * and its second line shows the vector; W^O's adds b^O.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "draw.h"
#include "fmt.h"
#include "mode.h"
#include "tui_check.h"
#include "vscreen.h"

static const char *screen;

static void render(struct app *app, int rows, int cols, bool mono)
{
	screen = tui_check_screen(app, rows, cols, mono);
}

/* The screen line holding all of a, b and c (NULL when none). */
static const char *line_with(const char *a, const char *b, const char *c)
{
	return tui_check_line_with(screen, a, b, c);
}

static void test_llama_figures_read_on_screen(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "g");
	assert_ptr_equal(app->mode, &kv_view_mode);
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	for (int s = 0; s < 2; s++) {
		for (int mono = 0; mono < 2; mono++) {
			render(app, sizes[s][0], sizes[s][1], mono);
			if (!line_with("GQA (h_kv = 8)", "320 KiB", "1.25 GiB") || !line_with("MHA (h_kv = h)", "2.5 MiB", "10 GiB")
			    || !line_with("163840 values a token", NULL, NULL) || !line_with("= 1.25 GiB", NULL, NULL)
			    || !line_with("bytes = 2 (K and V) x h_kv heads x d_k x L layers x b bytes x T tokens", NULL, NULL))
				fail_msg("at %dx%d%s the KV view lacks a figure:\n%s", sizes[s][1], sizes[s][0],
				         mono ? " (mono)" : "", screen);
		}
	}
	tui_check_close(app);
}

static void test_keys_change_type_and_context_and_leave(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "gb");
	render(app, 24, 80, false);
	assert_non_null(line_with("KV cache at T = 4096 tokens, int8 values", NULL, NULL));
	assert_non_null(line_with("GQA (h_kv = 8)", "160 KiB", "640 MiB"));
	tui_check_keys(app, "bb+");
	render(app, 24, 80, false);
	assert_non_null(line_with("KV cache at T = 8192 tokens, fp16 values", NULL, NULL));
	assert_non_null(line_with("GQA (h_kv = 8)", "320 KiB", "2.5 GiB"));
	tui_check_keys(app, "--");
	render(app, 24, 80, false);
	assert_non_null(line_with("KV cache at T = 2048 tokens, fp16 values", NULL, NULL));
	tui_check_keys(app, "g");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_keys(app, "g\x1b");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
}

/* ? over a closed view (decode) lists its keys and the few that pass
 * through it, not the workbench's, which do nothing there (issue 24: the
 * help showed the workbench's keys over a view); over an open one (KV
 * cache) the workbench's too. */
static void test_help_over_a_closed_view_lists_only_what_works_there(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "o?");
	assert_true(app->help_open);
	const char *text = tui_check_screen(app, 24, 80, true);
	assert_non_null(strstr(text, "the next token"));
	assert_non_null(strstr(text, "save the session"));
	assert_null(strstr(text, "larger / smaller d_model"));
	assert_null(strstr(text, "shape change"));
	tui_check_keys(app, "x\x1bg?");
	assert_true(app->help_open);
	text = tui_check_screen(app, 24, 80, true);
	assert_non_null(strstr(text, "larger / smaller d_model"));
	tui_check_close(app);
}

/* A view's hints are its keys: clicking "b fp32 fp16 int8" on the last
 * line is b; "Esc back" leaves. */
static void test_a_views_hint_clicked_is_its_key(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "g");
	render(app, 24, 80, false);
	const char *last = strrchr(screen, '\n');
	while (last > screen && last[-1] != '\n')
		last--;
	const char *b = strstr(last, "b fp32"), *esc = strstr(last, "Esc back");
	assert_non_null(b);
	assert_non_null(esc);
	assert_true(app_mouse(app, 23, (int)(b - last) + 2, HIT_CLICK) & APP_REDRAW);
	render(app, 24, 80, false);
	assert_non_null(line_with("KV cache at T = 4096 tokens, int8 values", NULL, NULL));
	app_mouse(app, 23, (int)(esc - last) + 1, HIT_CLICK);
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
}

static void test_bytes_read_as_people_write_them(void **state)
{
	(void)state;
	char b[32];
	fmt_bytes(b, sizeof b, 512);
	assert_string_equal(b, "512 B");
	fmt_bytes(b, sizeof b, 327680);
	assert_string_equal(b, "320 KiB");
	fmt_bytes(b, sizeof b, (int64_t)5 << 28);
	assert_string_equal(b, "1.25 GiB");
	fmt_bytes(b, sizeof b, (int64_t)10 << 30);
	assert_string_equal(b, "10 GiB");
	fmt_bytes(b, sizeof b, 1536);
	assert_string_equal(b, "1.5 KiB");
	fmt_bytes(b, sizeof b, (int64_t)15 << 29);
	assert_string_equal(b, "7.5 GiB");
}

static int cached(struct app *app)
{
	render(app, 24, 80, false);
	int len = -1, n = -1;
	const char *p = strstr(screen, "\ndecode: ");
	if (!p || sscanf(p + 1, "decode: %d of %d tokens cached", &len, &n) != 2) {
		fputs(screen, stderr);
		fail_msg("no decode status line (the screen is above)");
	}
	assert_int_equal(n, app->cfg.n);
	return len;
}

static void test_the_cache_grows_and_every_row_equals_the_full_pass(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "o");
	assert_ptr_equal(app->mode, &decode_view_mode);
	assert_int_equal(cached(app), 1);
	for (int t = 1; t < app->cfg.n; t++) {
		tui_check_keys(app, " ");
		assert_int_equal(cached(app), t + 1);
		char want[96];
		snprintf(want, sizeof want, "= row %d of the causal full pass, bit for bit", t);
		if (!strstr(screen, want) || !strstr(screen, "recomputing the") || !strstr(screen, "cache  "))
			fail_msg("step %d:\n%s", t, screen);
	}
	tui_check_keys(app, "   "); /* past n: stays at n */
	assert_int_equal(cached(app), app->cfg.n);
	tui_check_keys(app, "hh");
	assert_int_equal(cached(app), app->cfg.n - 2);
	tui_check_keys(app, "0");
	assert_int_equal(cached(app), 1);
	for (int mono = 0; mono < 2; mono++) {
		render(app, 60, 200, mono);
		assert_non_null(strstr(screen, "= row 0 of the causal full pass, bit for bit"));
	}
	tui_check_keys(app, "o");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_keys(app, "o"); /* a fresh decoder: the prompt alone again */
	assert_int_equal(cached(app), 1);
	tui_check_keys(app, "o");
	tui_check_close(app);
}

static void test_the_workbench_stays_as_it_is_while_decoding(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	struct mha_config before = app->cfg;
	tui_check_keys(app, "o x]m");
	assert_ptr_equal(app->mode, &decode_view_mode);
	assert_int_equal(app->cfg.h, before.h);
	assert_int_equal(app->cfg.causal, before.causal);
	assert_false(app->cfg.head_off[0]);
	assert_non_null(strstr(app->status, "does nothing here"));
	tui_check_close(app); /* with the view open: app_free frees the decoder */
}

static void test_the_mask_grid_says_what_hides_each_cell(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	struct mha_config c = app->cfg;
	c.causal = true;
	app_change_config(app, &c, "causal");
	tui_check_keys(app, "P");
	assert_ptr_equal(app->mode, &mask_view_mode);
	tui_check_keys(app, "p"); /* token 0 padding */
	assert_true(mha_is_pad(&app->cfg, 0));
	tui_check_keys(app, "jjl "); /* query 2 -> key 1 hidden by hand */
	assert_true((app->cfg.hide[2] >> 1) & 1u);
	tui_check_keys(app, "))");
	assert_int_equal(app->cfg.window, 2);
	for (int mono = 0; mono < 2; mono++) {
		render(app, 24, 80, mono);
		const char *want[] = { "p  c  c  c  c  c  no key: P row is 0", "p  #  c  c  c  c",
		                       "w  x  #  c  c  c", "w  w  #  #  c  c" };
		for (int k = 0; k < 4; k++)
			if (!strstr(screen, want[k]))
				fail_msg("the mask grid lacks '%s':\n%s", want[k], screen);
		for (const char *p = screen; *p; p += strcspn(p, "\n") + 1)
			if (strcspn(p, "\n") >= 80 && !strncmp(p, "mask", 4))
				fail_msg("a line is cut at 80 columns: %.*s", 80, p);
	}
	render(app, 60, 200, false);
	assert_non_null(strstr(screen, "no key: P row is 0"));
	/* the saving: n 6, causal, window 2, pad 0, hidden (2,1): rows see 0 1 1 2 2 2 = 8 */
	struct mha_counts k = mha_counts(&app->cfg);
	char want[128];
	snprintf(want, sizeof want, "a head keeps 8 of 6 x 6 pairs (8 visible); dense computes all");
	assert_int_equal(k.pairs_visible, 8);
	assert_non_null(strstr(screen, want));
	assert_non_null(strstr(screen, "top-k is off (t)"));
	tui_check_keys(app, "u"); /* the window back to 1 */
	assert_int_equal(app->cfg.window, 1);
	tui_check_keys(app, "P");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
}

static void test_a_typed_sentence_becomes_the_tokens(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	int n0 = app->cfg.n;
	char keys[512] = "N";
	for (int i = 0; i < 200; i++)
		strcat(keys, "\b"); /* clear what the prompt starts with */
	strcat(keys, "the dog saw the dog\n");
	tui_check_keys(app, keys);
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_false(app->status_error);
	assert_int_equal(app->cfg.n, 5);
	assert_string_equal(app->w.labels[1], "dog");
	const size_t row = (size_t)app->cfg.d * sizeof(float);
	assert_memory_equal(app->w.x, app->w.x + 3 * app->cfg.d, row);     /* the, the */
	assert_memory_equal(app->w.x + app->cfg.d, app->w.x + 4 * app->cfg.d, row); /* dog, dog */
	assert_memory_not_equal(app->w.x, app->w.x + app->cfg.d, row);
	assert_float_equal(app->a.y[0], app->a.y[0], 0); /* recomputed: finite */
	render(app, 24, 80, false);
	assert_non_null(strstr(screen, "dog"));
	tui_check_keys(app, "u");
	assert_int_equal(app->cfg.n, n0);
	tui_check_keys(app, "N a_word_that_is_too_long\n");
	assert_true(app->status_error);
	assert_int_equal(app->cfg.n, n0);
	/* a resize drops the message, which may be about the old size */
	app->now_ms = 1000;
	app_message(app, false, "at this width both show");
	app_key(app, KEY_RESIZE);
	assert_true(app->status_until_ms <= app->now_ms);
	/* Ctrl-U clears the prompt's line, the current sentence with it */
	tui_check_keys(app, "N\x15one two\n");
	assert_int_equal(app->cfg.n, 2);
	assert_string_equal(app->w.labels[1], "two");
	tui_check_close(app);
}

/* The words prompt (N) takes UTF-8, the bytes of a character one key
 * each as the terminal sends them, and Backspace removes a whole
 * character: before, the bytes were dropped and Backspace left one byte
 * of a character behind ("日本" became "日?": the adversary's 15). */
static void test_the_words_prompt_takes_utf8_and_backspace_removes_a_character(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	char keys[512] = "N";
	for (int i = 0; i < 200; i++)
		strcat(keys, "\b");
	strcat(keys, "the caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\b\n"); /* the café 日本語, Backspace */
	tui_check_keys(app, keys);
	assert_false(app->status_error);
	assert_int_equal(app->cfg.n, 3);
	assert_string_equal(app->w.labels[1], "caf\xc3\xa9");
	assert_string_equal(app->w.labels[2], "\xe6\x97\xa5\xe6\x9c\xac");
	tui_check_close(app);
}

static void test_biases_are_shown_where_they_act(void **state)
{
	(void)state;
	struct app *app = calloc(1, sizeof *app);
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	char msg[MHA_MSG_MAX], num[32], want[64];
	c.bias = true;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, c.seed);
	mha_weights_default_labels(&w, &c);
	mha_biases_init(&w, &c, c.seed);
	assert_int_equal(app_init(app, tui_modes, &c, &w, msg, sizeof msg), 0);
	render(app, 24, 80, false);
	assert_non_null(line_with("Q 6x16 = X 6x16 . W^Q 16x16 + b^Q", NULL, NULL));
	snprintf(want, sizeof want, "b^Q 16: %s", fmt_num(num, sizeof num, app->w.bq[0], 5));
	assert_non_null(line_with(want, NULL, NULL));
	tui_check_keys(app, "v"); /* K */
	render(app, 24, 80, true);
	assert_non_null(line_with("K 6x16 = X 6x16 . W^K 16x16 + b^K", NULL, NULL));
	snprintf(want, sizeof want, "b^K 16: %s", fmt_num(num, sizeof num, app->w.bk[0], 5));
	assert_non_null(line_with(want, NULL, NULL));
	tui_check_keys(app, "7");
	render(app, 24, 80, false);
	assert_non_null(line_with("Y 6x16 = Concat 6x16 . W^O 16x16 + b^O", NULL, NULL));
	snprintf(want, sizeof want, "b^O 16: %s", fmt_num(num, sizeof num, app->w.bo[0], 5));
	assert_non_null(line_with(want, NULL, NULL));
	tui_check_close(app);
}

/* A label of wide characters is cut on a character boundary: in the
 * 4-column row label of the matrices "日本語日本" shows as "日本", never as
 * half a character or a byte drawn as '?'. */
static void test_a_wide_label_is_cut_on_a_character_boundary(void **state)
{
	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	struct app *app = tui_check_open(NULL);
	snprintf(app->w.labels[0], sizeof app->w.labels[0], "%s", "\u65e5\u672c\u8a9e\u65e5\u672c");
	render(app, 24, 80, false);
	assert_null(strstr(screen, "\u65e5?"));
	assert_non_null(line_with("\u65e5\u672c ", NULL, NULL));
	tui_check_close(app);
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama_figures_read_on_screen),
		cmocka_unit_test(test_the_words_prompt_takes_utf8_and_backspace_removes_a_character),
		cmocka_unit_test(test_keys_change_type_and_context_and_leave),
		cmocka_unit_test(test_help_over_a_closed_view_lists_only_what_works_there),
		cmocka_unit_test(test_a_views_hint_clicked_is_its_key),
		cmocka_unit_test(test_a_wide_label_is_cut_on_a_character_boundary),
		cmocka_unit_test(test_bytes_read_as_people_write_them),
		cmocka_unit_test(test_the_cache_grows_and_every_row_equals_the_full_pass),
		cmocka_unit_test(test_the_workbench_stays_as_it_is_while_decoding),
		cmocka_unit_test(test_the_mask_grid_says_what_hides_each_cell),
		cmocka_unit_test(test_a_typed_sentence_becomes_the_tokens),
		cmocka_unit_test(test_biases_are_shown_where_they_act),
	};
	return cmocka_run_group_tests_name("views", tests, NULL, NULL);
}
