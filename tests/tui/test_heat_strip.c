/*
 * test_heat_strip.c - the heatmap strip as the workbench draws it: an edit
 * confined to one head (a cell of its W^Q block) changes that head's map
 * and leaves every drawn cell of the other heads' maps (glyph, colour,
 * attributes) as it was, on Scores and on Softmax, at the default scale
 * (scores: each head; weights: 0..1); the e key cycles the scale and the
 * legend names it; masked
 * cells show their mark; the readout names the maps' own matrix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>

#include "app.h"
#include "draw.h"
#include "heatmap.h"
#include "hit.h"
#include "learn.h"
#include "lesson.h"
#include "train.h"
#include "tui_check.h"
#include "vscreen.h"

enum { SCR_ROWS = 50, SCR_COLS = 160, MAX_CELLS = 64 * 64 * 8 };

struct grab {
	int n, w; /* cells grabbed, cells a line (title, labels, then rh a map row) */
	int rh;   /* lines a map row (2 on a large screen) */
	wchar_t ch[MAX_CELLS];
	attr_t at[MAX_CELLS];
	short pair[MAX_CELLS];
};

static char text[SCR_ROWS * (SCR_COLS + 1) + 1];

/* Draw the whole screen; every drawn cell of head h's map (title and
 * labels too) into g[h]. */
static void draw_heads(struct app *app, struct grab *g, int heads)
{
	assert_int_equal(vscreen_open(SCR_ROWS, SCR_COLS, "xterm-256color", false), 0);
	app->now_ms = 1000000;
	struct body_layout b = frame_draw(app, SCR_ROWS, SCR_COLS, &app->hits);
	app->heat_per_page = b.heat_per_page;
	vscreen_text(text, sizeof text);
	for (int h = 0; h < heads; h++) {
		const struct hit_region *r = NULL;
		for (int i = 0; i < app->hits.count; i++)
			if (app->hits.reg[i].kind == HIT_HEAT && app->hits.reg[i].id == h)
				r = &app->hits.reg[i];
		assert_non_null(r);
		g[h].n = 0;
		/* the cells, their row labels, and the two lines above (title, column labels) */
		int lw = heatmap_label_width(r->cell_w);
		g[h].w = lw + r->r.w;
		g[h].rh = r->cell_h;
		for (int y = r->r.y - 2; y < r->r.y + r->r.h; y++)
			for (int x = r->r.x - lw; x < r->r.x + r->r.w && g[h].n < MAX_CELLS; x++, g[h].n++) {
				cchar_t cc;
				wchar_t wc[CCHARW_MAX + 1] = { 0 };
				mvwin_wchnstr(stdscr, y, x, &cc, 1);
				getcchar(&cc, wc, &g[h].at[g[h].n], &g[h].pair[g[h].n], NULL);
				g[h].ch[g[h].n] = wc[0];
			}
	}
	vscreen_close();
}

static bool same(const struct grab *a, const struct grab *b)
{
	return a->n == b->n && !memcmp(a->ch, b->ch, sizeof a->ch[0] * (size_t)a->n) &&
	       !memcmp(a->at, b->at, sizeof a->at[0] * (size_t)a->n) &&
	       !memcmp(a->pair, b->pair, sizeof a->pair[0] * (size_t)a->n);
}

static struct grab before[4], after[4];

static void check_edit_stays_in_its_head(const char *stage_key)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "r"); /* seed 1: plain random inputs, no head titled by its wiring */
	tui_check_keys(app, stage_key);
	draw_heads(app, before, 4);
	/* W^Q[3,5]: column 5 is in head 1's block (columns 4..7) */
	app->w.wq[3 * app->cfg.h * app->cfg.dk + 5] += 2.5f;
	app_recompute(app);
	draw_heads(app, after, 4);
	for (int h = 0; h < 4; h++)
		if (h == 1)
			assert_false(same(&before[h], &after[h]));
		else if (!same(&before[h], &after[h]))
			fail_msg("stage %s: an edit to head 1 changed how head %d is drawn", stage_key, h);
	tui_check_close(app);
}

static void test_an_edit_to_one_head_leaves_the_other_heads_maps_unchanged(void **state)
{
	(void)state;
	check_edit_stays_in_its_head("3");
	check_edit_stays_in_its_head("4");
}

/* Press e (when press), draw, and find want on the screen. */
static void scale_expect(struct app *app, bool press, const char *want)
{
	if (press)
		tui_check_keys(app, "e");
	draw_heads(app, before, 4);
	if (!strstr(text, want))
		fail_msg("no '%s' on the screen after %s", want, press ? "e" : "opening");
}

/* The shared scale shows why the default is per head: the same edit then
 * restyles the other heads on Scores. */
static void test_the_shared_scale_is_a_choice_and_the_legend_says_which(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "3");
	scale_expect(app, false, "each head");
	assert_non_null(strstr(text, "rows: queries, columns: keys"));
	scale_expect(app, true, "each row");
	scale_expect(app, true, "all heads");
	app->w.wq[3 * app->cfg.h * app->cfg.dk + 5] += 25.0f;
	app_recompute(app);
	draw_heads(app, after, 4);
	assert_false(same(&before[0], &after[0]) && same(&before[2], &after[2]) && same(&before[3], &after[3]));
	scale_expect(app, true, "each head");
	tui_check_close(app);
}

/* With the causal mask, masked cells show the mark and the legend says
 * what it is; on Softmax the readout is P's value, not S's. */
static void test_masked_cells_are_marked_and_the_readout_is_the_maps_matrix(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "m4");
	draw_heads(app, before, 4);
	assert_non_null(strstr(text, "x masked"));
	/* head 0's first row: key 0, then five masked keys */
	int marks = 0;
	for (int i = 0; i < before[0].n; i++)
		marks += before[0].ch[i] == L'x';
	assert_int_equal(marks, 15); /* the upper triangle of a 6x6 map */
	/* in the cell notation; the status line below gives the words, each
	 * after its index ("the" is tokens 0 and 4) */
	assert_non_null(strstr(text, "P_0[0,0]=1"));
	assert_non_null(strstr(text, "[0 the, 0 the] = "));
	tui_check_close(app);
}

/* On Softmax the default is 0..1 for every head (the legend writes the
 * bounds and that it is shared), and e cycles to each head and each row
 * and back: weights are bounded, so the honest default needs no range. */
static void test_weights_default_to_0_to_1_and_e_cycles_the_scales(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "4");
	scale_expect(app, false, " 1, all heads");
	scale_expect(app, true, "high, each head");
	assert_non_null(strstr(text, "at least 0.5"));
	scale_expect(app, true, "high, each row");
	scale_expect(app, true, " 1, all heads");
	tui_check_close(app);
}

/* Lesson 1 step 4: editing W^Q[2,1] (X is the identity, so only query 2
 * moves) re-shades row 2 of P's map and leaves rows 0, 1 and 3 drawn as
 * they were (under a per-head min..max scale they were re-shaded too). */
static void test_an_edit_to_one_row_leaves_the_other_rows_of_p_unchanged(void **state)
{
	(void)state;
	static struct lesson_set set;
	char dir[] = "/tmp/mha-test-heatrow-XXXXXX";
	assert_int_equal(tui_check_lessons_open(&set, dir), 0);
	const struct lesson *l = lesson_set_find(&set, "one-head");
	assert_non_null(l);
	struct app *app = tui_check_open(&set);
	learn_open(app, (int)(l - set.lessons), lesson_step_index(l, "steer"));
	app_recompute(app);
	tui_check_keys(app, "ad4"); /* the cell said: P shows */
	draw_heads(app, before, 1);
	app->w.wq[2 * app->cfg.h * app->cfg.dk + 1] = 3.0f;
	app_recompute(app);
	draw_heads(app, after, 1);
	int w = before[0].w, rh = before[0].rh;
	assert_int_equal(w, after[0].w);
	for (int r = 0; r < app->cfg.n; r++) {
		size_t at = (size_t)(2 + r * rh) * (size_t)w, k = (size_t)w * (size_t)rh;
		bool row_same = !memcmp(before[0].ch + at, after[0].ch + at, k * sizeof(wchar_t)) &&
		                !memcmp(before[0].at + at, after[0].at + at, k * sizeof(attr_t)) &&
		                !memcmp(before[0].pair + at, after[0].pair + at, k * sizeof(short));
		if (r == 2)
			assert_false(row_same);
		else if (!row_same)
			fail_msg("an edit to query 2 re-shaded row %d of P's map", r);
	}
	tui_check_close(app);
	assert_int_equal(tui_check_lessons_close(&set, dir), 0);
}

/* Titles say what the maps show, measured on the sentence as it is: the
 * wired default keeps "previous token" and "same word" on its own
 * sentence, where its maps show them; typed "the dog saw the cat and the
 * dog ran" (issue 22: head 0 then spread 0.29 over the three "the"s, head
 * 1 put 1.00 of dog's weight on "saw"), no head keeps a wired name its
 * map does not show, and each says what train_head_measure finds. */
static void test_titles_are_measured_on_the_sentence_as_it_is(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "4"); /* Softmax: the maps of P */
	const char *scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "head 0 previous token"));
	assert_non_null(strstr(scr, "head 1 same word"));
	char keys[512] = "N";
	for (int i = 0; i < 200; i++)
		strcat(keys, "\b");
	strcat(keys, "the dog saw the cat and the dog ran\n");
	tui_check_keys(app, keys);
	assert_int_equal(app->cfg.n, 9);
	scr = tui_check_screen(app, 60, 200, true);
	int roles = 0;
	for (int i = 0; i < app->cfg.h; i++) {
		struct train_head_measure m;
		int kind = train_head_measure(&app->cfg, (const char (*)[MHA_LABEL_MAX])app->w.labels, app->a.weights, i, &m);
		char want[64];
		roles += mha_wired_role(&app->w, &app->cfg, i) >= 0; /* W^Q, W^K as wired: the sentence changed */
		snprintf(want, sizeof want, "head %d ~%s", i, train_head_kind_name(kind, false));
		if (!strstr(scr, want))
			fail_msg("head %d should read \"%s\" (previous %.2f, same word %.2f):\n%s", i, want,
			         m.score[TRAIN_HEAD_PREVIOUS], m.score[TRAIN_HEAD_SAME], scr);
	}
	/* heads 0 and 1 still wired (their titles said so before measuring) */
	assert_int_equal(mha_wired_role(&app->w, &app->cfg, 0), 0);
	assert_int_equal(mha_wired_role(&app->w, &app->cfg, 1), 1);
	assert_true(roles >= 2);
	assert_null(strstr(scr, "previous token"));
	assert_null(strstr(scr, "same word "));
	tui_check_keys(app, "u"); /* the wired sentence again: the wired names again */
	scr = tui_check_screen(app, 60, 200, true);
	assert_non_null(strstr(scr, "head 0 previous token"));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_edit_to_one_head_leaves_the_other_heads_maps_unchanged),
		cmocka_unit_test(test_the_shared_scale_is_a_choice_and_the_legend_says_which),
		cmocka_unit_test(test_masked_cells_are_marked_and_the_readout_is_the_maps_matrix),
		cmocka_unit_test(test_weights_default_to_0_to_1_and_e_cycles_the_scales),
		cmocka_unit_test(test_an_edit_to_one_row_leaves_the_other_rows_of_p_unchanged),
		cmocka_unit_test(test_titles_are_measured_on_the_sentence_as_it_is),
	};
	return cmocka_run_group_tests_name("heat_strip", tests, NULL, NULL);
}
