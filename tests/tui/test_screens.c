/*
 * test_screens.c - every stage drawn on a virtual screen (newterm on
 * /dev/null) at 80x24 and 160x50 from the default workbench and scripted
 * keys, read back as text and compared with tests/screens/NAME.txt.
 * MHA_UPDATE_SCREENS=1 rewrites the goldens instead (then review the diff).
 * The locale is C, so the heatmaps use the ASCII ramp and the text is
 * byte-stable; numbers have a fixed precision per width.
 */
#include <curses.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mode.h"
#include "app.h"
#include "draw.h"
#include "help.h"
#include "learn.h"
#include "progress.h"
#include "lesson.h"
#include "shape.h"
#include "theme.h"
#include "tui_check.h"
#include "vscreen.h"

enum { SCREEN_MAX = 64 * 1024 };

static struct app *open_app(const struct mha_config *c)
{
	struct app *app = calloc(1, sizeof *app);
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_weights_alloc(&w, c), MHA_OK);
	struct mha_config cc = *c;
	mha_weights_init(&w, &cc, cc.seed);
	mha_weights_default_labels(&w, &cc);
	assert_int_equal(app_init(app, tui_modes, &cc, &w, msg, sizeof msg), 0);
	app->forward = mha_stack_forward_naive; /* the same digits on every backend */
	app_recompute(app);
	return app;
}

/* Draw app at rows x cols and compare with the golden NAME. */
static void expect_screen(struct app *app, int rows, int cols, const char *name)
{
	static char got[SCREEN_MAX], want[SCREEN_MAX];
	char path[4096];
	const char *root = getenv("MHA_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/screens/%s.txt", root ? root : ".", name);
	app->now_ms = 1000000; /* messages and change marks of the keys have expired */
	snprintf(got, sizeof got, "%s", tui_check_screen(app, rows, cols, false));
	size_t n = strlen(got);
	if (getenv("MHA_UPDATE_SCREENS")) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fwrite(got, 1, n, f);
		fclose(f);
		return;
	}
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing golden (run with MHA_UPDATE_SCREENS=1)\n%s", path, got);
	size_t m = fread(want, 1, sizeof want - 1, f);
	fclose(f);
	want[m] = '\0';
	if (strcmp(got, want) != 0) {
		/* the first line that differs, both ways */
		const char *g = got, *w = want;
		int line = 1;
		while (*g && *g == *w) {
			if (*g == '\n')
				line++;
			g++;
			w++;
		}
		fail_msg("%s: line %d differs\n--- got:\n%s", path, line, got);
	}
}

static void stage_screens(int rows, int cols)
{
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
		char k[2] = { (char)('1' + s), 0 }, name[64];
		tui_check_keys(app, k);
		snprintf(name, sizeof name, "stage%d_%dx%d", s + 1, cols, rows);
		expect_screen(app, rows, cols, name);
	}
	app_free(app);
	free(app);
}

static void test_every_stage_at_80x24(void **state)
{
	(void)state;
	stage_screens(24, 80);
}

static void test_every_stage_at_160x50(void **state)
{
	(void)state;
	stage_screens(50, 160);
}

/* A large terminal: the default workbench's Softmax at 200x60, its
 * heatmaps' cells grown (three decimals in them) and set side by side. */
static void test_softmax_at_200x60(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "4");
	expect_screen(app, 60, 200, "stage4_200x60");
	app_free(app);
	free(app);
}

static void test_eight_heads_of_eight_tokens_show_every_heatmap_at_80x24(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 8;
	c.h = c.g = 8;
	c.dk = 2;
	struct app *app = open_app(&c);
	tui_check_keys(app, "4");
	expect_screen(app, 24, 80, "heads8_tokens8_80x24");
	app_free(app);
	free(app);
}

static void test_the_causal_mask_on_scores_and_softmax(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "m3");
	expect_screen(app, 24, 80, "causal_scores_80x24");
	tui_check_keys(app, "4jjl");
	expect_screen(app, 24, 80, "causal_softmax_80x24");
	app_free(app);
	free(app);
}

/* Every input at +-1e6 (the largest a learner can type): Q reaches 1e13,
 * the scores 1e25. Every stage at both sizes keeps each number within its
 * column in exponent form, shows no nan / inf / "big", and the status line
 * gives the cursor cell's full value. */
static void test_extreme_inputs_format_within_their_columns(void **state)
{
	(void)state;
	static char text[SCREEN_MAX];
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	const enum mha_tensor inputs[] = { MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO };
	for (int t = 0; t < 5; t++) {
		struct mha_shape sh = mha_tensor_shape(&app->cfg, inputs[t]);
		float *m = mha_tensor_data(&app->w, NULL, inputs[t]);
		for (int i = 0; i < sh.rows * sh.cols; i++)
			m[i] = (i % 3 == 1 ? -1 : 1) * MHA_VALUE_MAX;
	}
	app_recompute(app);
	tui_check_keys(app, "3");
	expect_screen(app, 24, 80, "extreme_scores_80x24");
	for (int size = 0; size < 2; size++)
		for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
			int rows = size ? 50 : 24, cols = size ? 160 : 80;
			char k[2] = { (char)('1' + s), 0 };
			tui_check_keys(app, k);
			for (int panel = 0; panel < 3; panel++) {
				app->now_ms += APP_STATUS_MS; /* the key's message has gone */
				snprintf(text, sizeof text, "%s", tui_check_screen(app, rows, cols, false));
				if (strstr(text, "nan") || strstr(text, "inf") || strstr(text, "big") || strstr(text, "e+0"))
				{
					fprintf(stderr, "%s", text);
					fail_msg("stage %d at %dx%d: nan, inf, big or e+0 on screen", s + 1, cols, rows);
				}
				/* the status line: the full value, 9 significant digits */
				const char *status = text;
				for (int y = 0; y < rows - 2; y++)
					status = strchr(status, '\n') + 1;
				if (!strstr(status, " = "))
					fail_msg("stage %d at %dx%d: no value in the status line:\n%s", s + 1, cols, rows, status);
				tui_check_keys(app, "c");
			}
		}
	app_free(app);
	free(app);
}

static void test_the_trace_and_the_edit_prompt(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "7cclljj"); /* the cursor on Y[sat,2] */
	expect_screen(app, 50, 160, "trace_output_160x50");
	tui_check_keys(app, "1\n-0.5");
	expect_screen(app, 24, 80, "edit_prompt_80x24");
	app_free(app);
	free(app);
}

static void test_help_overlay_and_small_terminal(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "?");
	expect_screen(app, 24, 80, "help_80x24");
	tui_check_keys(app, "?");
	expect_screen(app, 20, 70, "too_small_70x20");
	app_free(app);
	free(app);
}

/* At 300 columns the help's rule for shape changes reads whole: its
 * lines were cut at 159 characters, so "keeps its value, yours or the
 * seed's" lost its middle. */
static void test_the_help_at_300_columns_shows_the_whole_shape_rule(void **state)
{
	(void)state;
	static char got[SCREEN_MAX * 2];
	char joined[1024] = "";
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "?");
	snprintf(got, sizeof got, "%s", tui_check_screen(app, 100, 300, false));
	/* the rule's lines, from its first words on, joined with one space */
	const char *at = strstr(got, "] and [ keep");
	assert_non_null(at);
	for (const char *line = at; *line && strlen(joined) < sizeof joined - 200;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		while (len > 0 && *line == ' ') {
			line++;
			len--;
		}
		if (len == 0 || strstr(line, "help  q quit") == line)
			break;
		snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%.*s", joined[0] ? " " : "",
		         (int)len, line);
		line = end ? end + 1 : line + len;
	}
	/* the status line follows it */
	if (strncmp(joined, shape_keep_rule, strlen(shape_keep_rule)) != 0)
		print_message("got:  %s\nwant: %s\n", joined, shape_keep_rule);
	assert_int_equal(strncmp(joined, shape_keep_rule, strlen(shape_keep_rule)), 0);
	app_free(app);
	free(app);
}

/* At 80x24 every action's help reads whole: a text longer than its
 * column wraps under itself ("apply the solution (u und" was cut). The
 * help scrolled by one line at a time puts each of its lines first in the
 * left column (screen row 3); the pieces are joined back and compared. */
/* One help entry read from the screen ends: is it a whole help text? */
static void help_entry_end(const struct app *app, char *text, int *entries, int *matched)
{
	if (!text[0])
		return;
	(*entries)++;
	/* the help's lines at a width that wraps nothing: each entry whole */
	struct lesson_text all = { 0 };
	assert_int_equal(help_lines(app, 400, &all), 0);
	for (int k = 0; k < all.count; k++)
		if (all.lines[k].kind != LESSON_LINE_TITLE && strcmp(all.lines[k].text + 13, text) == 0) {
			(*matched)++;
			break;
		}
	lesson_text_free(&all);
	if (*matched != *entries)
		print_message("cut or unknown help text: \"%s\"\n", text);
	text[0] = '\0';
}

/* Scrolled line by line, each of the help's two columns passes every one
 * of its lines through its top row: read so, every entry is a whole help
 * text, and a line never moves from one column to the other (the second
 * column starts with a group heading at every scroll position until it
 * ends). */
static void test_every_help_text_reads_whole_at_80_columns(void **state)
{
	(void)state;
	static char got[SCREEN_MAX];
	char prev[2][128] = { "", "" }, text[2][256] = { "", "" }, first_right[128] = "";
	int count, matched = 0, entries = 0;
	bool done[2] = { false, false };
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	count = 1000; /* scroll positions: until both columns are done */
	tui_check_keys(app, "?");
	for (int s = 0; s <= count + 1 && !(done[0] && done[1]); s++) {
		snprintf(got, sizeof got, "%s", tui_check_screen(app, 24, 80, false));
		const char *row = got;
		for (int y = 0; y < 3; y++)
			row = strchr(row, '\n') + 1;
		for (int col = 0; col < 2; col++) {
			char line[128];
			const char *nl = strchr(row, '\n');
			int rowlen = nl ? (int)(nl - row) : (int)strlen(row);
			int from = col == 0 ? 1 : 40; /* the columns: 1 to 38, 40 to 78 */
			snprintf(line, sizeof line, "%.*s", rowlen > from ? (rowlen - from < 38 ? rowlen - from : 38) : 0,
			         rowlen > from ? row + from : "");
			if (s == 0 && col == 1)
				snprintf(first_right, sizeof first_right, "%s", line);
			if (done[col] || strcmp(line, prev[col]) == 0) {
				done[col] = true; /* past the end: the last line stays first */
				continue;
			}
			snprintf(prev[col], sizeof prev[col], "%s", line);
			/* " key         text", "             more text", or a group */
			size_t len = strlen(line);
			while (len > 0 && line[len - 1] == ' ')
				line[--len] = '\0';
			bool entry = line[0] == ' ' && line[1] != ' ', more = line[0] == ' ' && line[1] == ' ';
			if (entry || !more)
				help_entry_end(app, text[col], &entries, &matched);
			if ((entry || more) && len > 13)
				snprintf(text[col] + strlen(text[col]), sizeof text[col] - strlen(text[col]), "%s%s",
				         text[col][0] ? " " : "", line + 13);
		}
		app_key(app, KEY_DOWN);
	}
	for (int col = 0; col < 2; col++)
		help_entry_end(app, text[col], &entries, &matched);
	assert_true(first_right[0] != ' ' && first_right[0] != '\0'); /* the right column opens with a heading */
	assert_true(entries > 30);
	assert_int_equal(matched, entries);
	app_free(app);
	free(app);
}

static void test_no_color_still_draws_every_stage(void **state)
{
	(void)state;
	static char text[SCREEN_MAX];
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
		char k[2] = { (char)('1' + s), 0 };
		tui_check_keys(app, k);
		snprintf(text, sizeof text, "%s", tui_check_screen(app, 24, 80, true));
		assert_non_null(strstr(text, "1 Projection  2 Reshape"));
		/* the counts, except where at 80x24 they give their column to
		 * the stage's three matrices (Scores, Softmax, Weighted sum) */
		bool three = s == PIPELINE_SCORES || s == PIPELINE_SOFTMAX || s == PIPELINE_WEIGHTED_SUM;
		assert_true(three == !strstr(text, "Parameters"));
		assert_null(strstr(text, "nan"));
	}
	app_free(app);
	free(app);
}

/* Screen line (0-based) whose text starts with prefix, or -1. */
static int find_line(const char *prefix)
{
	char line[512];
	for (int y = 0; y < LINES; y++) {
		mvwinnstr(stdscr, y, 0, line, (int)strlen(prefix));
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			return y;
	}
	return -1;
}

static attr_t attr_at(int y, int x)
{
	return (attr_t)(mvwinch(stdscr, y, x) & (A_ATTRIBUTES | A_COLOR));
}

static void test_the_cells_an_output_reads_are_highlighted(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	tui_check_keys(app, "7cc"); /* the cursor on Y[the,0] */
	assert_int_equal(vscreen_open(50, 160, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	frame_draw(app, 50, 160, NULL);
	int title = find_line("Concat 6x16");
	assert_true(title >= 0);
	/* Concat row "the" (its whole row) is traced, row "cat" is not */
	attr_t trace = theme_attr(ROLE_TRACE);
	assert_int_equal(attr_at(title + 2, 8), trace);
	assert_int_equal(attr_at(title + 2, 5 + 7 * 10 + 3), trace);
	assert_true(attr_at(title + 3, 8) != trace);
	vscreen_close();
	app_free(app);
	free(app);
}

static void test_cells_changed_by_an_edit_are_marked_for_a_moment(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.seed = 1; /* random inputs: every Q cell reads the whole row of X */
	struct app *app = open_app(&c);
	app->now_ms = 5000;
	tui_check_keys(app, "\n3\n"); /* X[the,0] = 3 */
	assert_int_equal(vscreen_open(50, 160, "xterm-256color", false), 0);
	tui_check_keys(app, "2"); /* Reshape: Q and its head block */
	frame_draw(app, 50, 160, NULL);
	int q = find_line("Q 6x16    "); /* the panel title (all 16 columns shown), not the formula */
	assert_true(q >= 0);
	attr_t changed = theme_attr(ROLE_CHANGED);
	assert_int_equal(attr_at(q + 2, 15), changed); /* Q[the,1] changed (the cursor is on [the,0]) */
	assert_true(attr_at(q + 3, 15) != changed);    /* Q[cat,1] did not */
	app->now_ms = 5000 + APP_CHANGED_MS;          /* the moment has passed */
	frame_draw(app, 50, 160, NULL);
	assert_true(attr_at(q + 2, 15) != changed);
	vscreen_close();
	app_free(app);
	free(app);
}

/* The legend's high end as drawn: the word after the ramp's top glyphs. */
static void legend_hi(const char *screen, char *out, size_t len)
{
	const char *p = strstr(screen, "%@"); /* the ramp's top: two cells a level, or one */
	assert_non_null(p);
	p += 2 + (p[2] == '@');
	assert_int_equal(*p++, ' ');
	size_t n = strcspn(p, " \n,");
	snprintf(out, len, "%.*s", (int)n, p);
}

static void test_the_legend_keeps_its_end_value_beside_a_long_cursor_value(void **state)
{
	(void)state;
	static char text[SCREEN_MAX];
	struct mha_config c = mha_config_default();
	c.h = 8;
	c.g = 8;
	c.dk = 2;
	c.n = 9; /* at 80x30: 7 maps of 8 a page, so the page hint joins the line too (at
	          * 80x24 the heatmaps give way to S_0's rows) */
	struct app *app = open_app(&c);
	for (int i = 0; i < c.n; i++)
		snprintf(app->w.labels[i], MHA_LABEL_MAX, "longtoken%05d", i % 10);
	tui_check_keys(app, "3cc"); /* the cursor on S_0: its value joins the legend line */
	app->heat_scale = 2; /* one scale for all heads: the legend's ends are numbers */
	char wide[32], narrow[32];
	snprintf(text, sizeof text, "%s", tui_check_screen(app, 50, 160, false));
	legend_hi(text, wide, sizeof wide);
	snprintf(text, sizeof text, "%s", tui_check_screen(app, 30, 80, false));
	legend_hi(text, narrow, sizeof narrow);
	assert_string_equal(narrow, wide);
	assert_true(strlen(wide) >= 3);
	app_free(app);
	free(app);
}

/* The default workbench with the shipped lessons attached (no progress
 * file: memory only). */
static struct app *open_with_lessons(struct lesson_set *set)
{
	char found[4096], msg[4096];
	struct lesson_errors errs = { 0 };
	assert_int_equal(lesson_find_dir(NULL, found, sizeof found, msg, sizeof msg), 0);
	assert_int_equal(lesson_set_load(set, found, &errs), 0);
	struct mha_config c = mha_config_default();
	struct app *app = open_app(&c);
	learn_attach(app, set, "", NULL);
	return app;
}

/* The shipped lessons on the workbench: the menu, a step with its goal
 * unmet and then met, and a question hiding its stage. No progress file
 * (memory only), so the screens do not depend on earlier runs. */
static void test_the_lesson_menu_and_a_lesson_step(void **state)
{
	(void)state;
	struct lesson_set set;
	struct app *app = open_with_lessons(&set);
	expect_screen(app, 24, 80, "lesson_menu_80x24");
	tui_check_keys(app, "M");
	expect_screen(app, 50, 160, "lesson_menu_160x50");
	tui_check_keys(app, "1\nnn");
	expect_screen(app, 24, 80, "lesson1_predict_80x24");
	tui_check_keys(app, "nn"); /* n twice: the question waits */
	expect_screen(app, 24, 80, "lesson1_steer_80x24");
	expect_screen(app, 50, 160, "lesson1_steer_160x50");
	expect_screen(app, 60, 200, "lesson1_steer_200x60");
	tui_check_keys(app, "ad1l\n3\n4");
	expect_screen(app, 24, 80, "lesson1_steer_met_80x24");
	tui_check_keys(app, "#");
	expect_screen(app, 24, 80, "lesson1_counts_80x24");
	app_free(app);
	free(app);
	lesson_set_free(&set);
}

/* The first run: the lesson menu has the keys, lesson 1 selected, and the
 * status line says Enter starts it and Esc leads to the free workbench,
 * whose hint line names M. */
static void test_the_first_run_opens_on_the_lesson_menu(void **state)
{
	(void)state;
	struct lesson_set set;
	struct app *app = open_with_lessons(&set);
	app->now_ms = 1000000; /* as the screens are drawn: the welcome is still on the status line */
	learn_menu_welcome(app);
	assert_ptr_equal(app->mode, &menu_mode);
	assert_int_equal(app->learn.menu_sel, 0);
	expect_screen(app, 24, 80, "first_run_80x24");
	tui_check_keys(app, "\033");
	assert_ptr_equal(app->mode, &workbench_mode);
	app_free(app);
	free(app);
	lesson_set_free(&set);
}

/* The FlashAttention view: a tile step at 80x24 and 160x50 (causal, B_r 2,
 * B_c 3), the same screen after stepping on and back, the last step of a
 * query tile saying the difference from P V, and a refusal from another
 * stage. */
static void test_flash_attention_steps_tile_by_tile(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.causal = true;
	struct app *app = open_app(&c);
	tui_check_keys(app, "2F");
	assert_ptr_equal(app->mode, &workbench_mode); /* Reshape: not a tiled stage */
	tui_check_keys(app, "3F}ll");
	assert_ptr_equal(app->mode, &flash_mode);
	expect_screen(app, 24, 80, "flash_step3_80x24");
	expect_screen(app, 50, 160, "flash_step3_160x50");
	tui_check_keys(app, "llhh");
	expect_screen(app, 24, 80, "flash_step3_80x24");
	tui_check_keys(app, "G");
	expect_screen(app, 24, 80, "flash_last_80x24");
	tui_check_keys(app, "\033");
	assert_ptr_equal(app->mode, &workbench_mode);
	app_free(app);
	free(app);
}

/* Lesson 11 on the FlashAttention view: the predict state (the next tile
 * underlined, its numbers "?") at 80x24 and 160x50, and the tile revealed
 * by Right once the prediction is right. */
static void test_flash_attention_predict_state_in_a_lesson(void **state)
{
	(void)state;
	struct lesson_set set;
	struct app *app = open_with_lessons(&set);
	const struct lesson *l = lesson_set_find(&set, "flash-attention");
	assert_non_null(l);
	/* rescale and no-growth answered: else the view hides their tiles too */
	assert_int_equal(progress_mark_done(&app->learn.progress, "flash-attention/rescale"), 0);
	assert_int_equal(progress_mark_done(&app->learn.progress, "flash-attention/no-growth"), 0);
	learn_open(app, (int)(l - set.lessons), lesson_step_index(l, "growth"));
	app_recompute(app);
	assert_ptr_equal(app->mode, &flash_mode);
	expect_screen(app, 24, 80, "flash_predict_80x24");
	expect_screen(app, 50, 160, "flash_predict_160x50");
	tui_check_keys(app, "a1.2034\n");
	tui_check_keys(app, "l");
	expect_screen(app, 24, 80, "flash_revealed_80x24");
	expect_screen(app, 50, 160, "flash_revealed_160x50");
	app_free(app);
	free(app);
	lesson_set_free(&set);
}

int main(void)
{
	setlocale(LC_CTYPE, "C");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_stage_at_80x24),
		cmocka_unit_test(test_every_stage_at_160x50),
		cmocka_unit_test(test_softmax_at_200x60),
		cmocka_unit_test(test_eight_heads_of_eight_tokens_show_every_heatmap_at_80x24),
		cmocka_unit_test(test_the_causal_mask_on_scores_and_softmax),
		cmocka_unit_test(test_the_trace_and_the_edit_prompt),
		cmocka_unit_test(test_extreme_inputs_format_within_their_columns),
		cmocka_unit_test(test_the_legend_keeps_its_end_value_beside_a_long_cursor_value),
		cmocka_unit_test(test_help_overlay_and_small_terminal),
		cmocka_unit_test(test_the_help_at_300_columns_shows_the_whole_shape_rule),
		cmocka_unit_test(test_every_help_text_reads_whole_at_80_columns),
		cmocka_unit_test(test_no_color_still_draws_every_stage),
		cmocka_unit_test(test_the_cells_an_output_reads_are_highlighted),
		cmocka_unit_test(test_cells_changed_by_an_edit_are_marked_for_a_moment),
		cmocka_unit_test(test_the_lesson_menu_and_a_lesson_step),
		cmocka_unit_test(test_the_first_run_opens_on_the_lesson_menu),
		cmocka_unit_test(test_flash_attention_steps_tile_by_tile),
		cmocka_unit_test(test_flash_attention_predict_state_in_a_lesson),
	};
	return cmocka_run_group_tests_name("screens", tests, NULL, NULL);
}
