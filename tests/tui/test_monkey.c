/*
 * test_monkey.c - random keys, clicks and resizes into the workbench, in
 * process (newterm on /dev/null): after every event the app's invariants
 * hold (configuration valid, cursor and head inside the shapes, a drawn
 * screen with no NaN and no Inf), and the sanitizer build sees every
 * memory error on the way. Seeds are fixed, so a failure reproduces: the
 * message names the seed and the event. Run longer by hand with
 * MONKEY_SEED=S MONKEY_EVENTS=N (or MONKEY_DIVIDE=K), and MONKEY_CASE=NAME for one case only
 * (the names are in the failure messages: default, n1-d1, ..., 1..13, cross, cross-stack, big).
 *
 * Each case starts from a configuration chosen to sit at an edge (one
 * token, d_model 1, d_k 1, MQA, top-k = n, the paper's base shape, 64
 * heads of d_model 1024), with or without the lessons attached, and a
 * lesson open in some.
 */
#include <curses.h>
#include <ctype.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mode.h"
#include "app.h"
#include "draw.h"
#include "learn.h"
#include "lesson.h"
#include "tui_check.h"
#include "vscreen.h"

enum { SCREEN_MAX = 512 * 1024 };

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-monkey-XXXXXX";
static char session_path[128];

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	/* xorshift64*: the same sequence everywhere */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned)((rng_state * 2685821657736338717ULL) >> 33) % n;
}

/* Sizes a terminal may take: below the minimum, at it, and very large. */
static const int sizes[][2] = {
	{ 24, 80 }, { 23, 80 }, { 24, 79 }, { 1, 1 }, { 5, 10 }, { 50, 160 }, { 100, 300 },
	{ 30, 129 }, { 30, 130 }, { 40, 100 }, { 25, 81 }, { 2, 200 }, { 200, 2 }, { 60, 131 },
};

/* Characters a learner types into a value, a factor or an answer. */
static const char typed[] = "0123456789.-+eE=abxyz \t";

static int random_key(void)
{
	static const int special[] = {
		KEY_LEFT, KEY_RIGHT, KEY_UP, KEY_DOWN, KEY_NPAGE, KEY_PPAGE, KEY_BTAB, KEY_ENTER,
		KEY_BACKSPACE, 127, 8, 27, '\t', '\r', '\n', KEY_HOME, KEY_END, KEY_F(1), KEY_DC,
		KEY_RESIZE, ERR, 0, 255, 200,
	};
	unsigned r = rnd(100);
	if (r < 55) { /* a bound key, of any mode */
		static const struct action *all[512];
		static int count;
		if (!count)
			count = tui_check_actions(all, 512);
		const struct action *a = all[rnd((unsigned)count)];
		int k = 0;
		while (k < ACTION_KEYS_MAX && a->keys[k])
			k++;
		return a->keys[rnd((unsigned)k)];
	}
	if (r < 80)
		return typed[rnd(sizeof typed - 1)];
	if (r < 95)
		return special[rnd(sizeof special / sizeof special[0])];
	return (int)rnd(128);
}

struct monkey {
	const char *name;
	struct mha_config cfg;
	bool lessons;
	const char *lesson; /* --lesson ID, or NULL */
	unsigned long long seed;
	int events;
};

static struct app *open_app(const struct monkey *m)
{
	struct app *app = calloc(1, sizeof *app);
	struct mha_weights w;
	char msg[4096];
	struct mha_config c = m->cfg;
	assert_non_null(app);
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, c.seed);
	mha_weights_default_labels(&w, &c);
	assert_int_equal(app_init(app, tui_modes, &c, &w, msg, sizeof msg), 0);
	app->save.session_path = session_path;
	app->now_ms = 1000;
	if (m->lessons) {
		learn_attach(app, &set, "", NULL);
		if (m->lesson)
			assert_int_equal(learn_open_id(app, m->lesson, msg, sizeof msg), 0);
		else
			learn_resume(app);
	}
	app_recompute(app);
	return app;
}

/* "nan" or "inf" as a word of its own on screen (lesson prose may say
 * "information"; a masked score reads "-inf" and is allowed). */
static const char *bad_word(const char *screen)
{
	for (const char *s = screen; *s; s++) {
		if (s != screen && isalpha((unsigned char)s[-1]))
			continue;
		for (int w = 0; w < 2; w++) {
			const char *word = w ? "inf" : "nan";
			if (strncasecmp(s, word, 3) != 0 || isalpha((unsigned char)s[3]))
				continue;
			if (w && s != screen && s[-1] == '-')
				continue;
			return s;
		}
	}
	return NULL;
}

static void fail_at(const struct monkey *m, int event, int key, int rows, int cols, const char *what,
                    const char *screen)
{
	print_message("monkey %s seed %llu: event %d (key %d) at %dx%d: %s\n", m->name, m->seed, event, key,
	              cols, rows, what);
	if (screen)
		printf("%s\n", screen);
	fflush(stdout);
	fail();
}

/* What must hold after every event. */
static void check_app(const struct monkey *m, const struct app *app, int event, int key, int rows, int cols)
{
	char msg[MHA_MSG_MAX];
	struct mha_config c = app->cfg;
	if (mha_config_check(&c, msg, sizeof msg) != MHA_OK)
		fail_at(m, event, key, rows, cols, msg, NULL);
	if (app->head < 0 || app->head >= app->cfg.h)
		fail_at(m, event, key, rows, cols, "head outside 0..h-1", NULL);
	if ((int)app->stage < 0 || app->stage >= PIPELINE_STAGE_COUNT)
		fail_at(m, event, key, rows, cols, "stage outside 1..7", NULL);
	struct stage_view v;
	struct cell cell;
	const struct panel *p;
	app_view(app, &v);
	const struct app_cursor *cu = &app->cur[app->stage];
	if (v.count > 0 && (cu->panel < 0 || cu->panel >= v.count))
		fail_at(m, event, key, rows, cols, "cursor panel outside the view", NULL);
	if (app_cursor_cell(app, &cell, &p, &v)) {
		if (cu->row < 0 || cu->row >= p->rows || cu->col < 0 || cu->col >= p->cols)
			fail_at(m, event, key, rows, cols, "cursor outside its panel", NULL);
	}
}

static char screen[SCREEN_MAX]; /* as drawn after the event before */

/* The loop draws a frame only for a key that says it changed what is
 * drawn (APP_REDRAW, APP_RECOMPUTE): for any other, the screen drawn now
 * must be the one drawn before it, cell for cell. */
static void same_screen(const struct monkey *m, struct app *app, int event, int key, int rows, int cols)
{
	static char now[SCREEN_MAX];
	if (!screen[0])
		return; /* nothing drawn yet */
	frame_draw(app, rows, cols, NULL);
	vscreen_text(now, sizeof now);
	if (strcmp(now, screen) != 0)
		fail_at(m, event, key, rows, cols, "the screen changed, and the key said no frame was needed", now);
}

static void draw_and_check(const struct monkey *m, struct app *app, int event, int key, int rows, int cols)
{
	struct body_layout b = frame_draw(app, rows, cols, &app->hits);
	app->heat_per_page = b.heat_per_page;
	app->learn.scroll_max = b.pane_scroll_max;
	vscreen_text(screen, sizeof screen);
	const char *bad = bad_word(screen);
	if (bad) {
		char what[64];
		snprintf(what, sizeof what, "'%.12s' on screen", bad);
		fail_at(m, event, key, rows, cols, what, screen);
	}
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void monkey_run(const struct monkey *m)
{
	bool timing = getenv("MONKEY_TIMING") != NULL;
	rng_state = m->seed * 0x9E3779B97F4A7C15ULL + 1;
	struct app *app = open_app(m);
	int rows = 24, cols = 80;
	screen[0] = '\0';
	assert_int_equal(vscreen_open(rows, cols, NULL, false), 0);
	for (int e = 0; e < m->events; e++) {
		int key = 0;
		unsigned r = rnd(100);
		unsigned f;
		long long tk = now_us();
		if (r < 4) {
			const int *s = sizes[rnd(sizeof sizes / sizeof sizes[0])];
			rows = s[0];
			cols = s[1];
			vscreen_resize(rows, cols);
			key = KEY_RESIZE;
			f = app_key(app, key);
		} else if (r < 12) {
			static const enum hit_button buttons[] = { HIT_CLICK, HIT_CLICK, HIT_WHEEL_UP, HIT_WHEEL_DOWN };
			key = KEY_MOUSE;
			f = app_mouse(app, (int)rnd((unsigned)rows + 2) - 1, (int)rnd((unsigned)cols + 2) - 1,
			              buttons[rnd(4)]);
		} else {
			key = random_key();
			f = app_key(app, key);
		}
		if (!(f & (APP_REDRAW | APP_RECOMPUTE | APP_QUIT))) /* (q: the program would end here) */
			same_screen(m, app, e, key, rows, cols); /* no frame drawn for it: nothing may have changed */
		long long t0 = now_us();
		if (f & APP_RECOMPUTE)
			app_recompute(app);
		long long t1 = now_us();
		app->now_ms += rnd(3000);
		check_app(m, app, e, key, rows, cols);
		draw_and_check(m, app, e, key, rows, cols);
		long long t2 = now_us();
		if (timing && t2 - tk > 20000)
			printf("slow: event %d key %d (%c) at %dx%d: key %lld us, recompute %lld us, draw %lld us\n",
			       e, key, key > 32 && key < 127 ? key : '?', cols, rows, t0 - tk, t1 - t0, t2 - t1);
	}
	vscreen_close();
	app_free(app);
	free(app);
}

/* ---- the cases ---- */

static struct mha_config shape(int n, int d, int h, int g, int dk, int top_k, bool causal)
{
	struct mha_config c = tui_check_config(n, d, h, g, dk);
	c.top_k = top_k;
	c.causal = causal;
	return c;
}

/* MONKEY_EVENTS=N sets every case's count; MONKEY_DIVIDE=K divides the
 * defaults (the valgrind setup uses it: each event there costs 30x). */
static int events(int n)
{
	const char *e = getenv("MONKEY_EVENTS"), *k = getenv("MONKEY_DIVIDE");
	if (e)
		return atoi(e);
	int divide = k ? atoi(k) : 1;
	return divide > 1 ? (n + divide - 1) / divide : n;
}

static void run_case(struct monkey m)
{
	const char *only = getenv("MONKEY_CASE"), *s = getenv("MONKEY_SEED");
	if (only && strcmp(only, m.name) != 0)
		return;
	if (s)
		m.seed = strtoull(s, NULL, 10);
	m.events = events(m.events);
	monkey_run(&m);
}

static void test_default_workbench_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "default", mha_config_default(), false, NULL, 1, 1500 });
}

static void test_one_token_d_model_one_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "n1-d1", shape(1, 1, 1, 1, 1, 0, false), false, NULL, 2, 1000 });
}

static void test_mqa_with_top_k_n_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "mqa-topk", shape(6, 16, 4, 1, 4, 6, true), false, NULL, 3, 1000 });
}

static void test_d_k_one_with_many_heads_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "dk1", shape(8, 16, 16, 4, 1, 2, false), false, NULL, 4, 1000 });
}

static void test_lesson_menu_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "menu", mha_config_default(), true, NULL, 5, 1500 });
}

static void test_every_lesson_survives_random_keys(void **state)
{
	(void)state;
	for (int i = 1; i <= set.count; i++) {
		char id[16];
		snprintf(id, sizeof id, "%d", i);
		run_case((struct monkey){ id, mha_config_default(), true, id, 100 + (unsigned)i, 250 });
	}
}

/* Cross-attention: 6 queries, 4 source tokens, GQA, a padded source
 * token, top-k and biases; then the same on a stack of 3 layers with
 * RoPE, and a source longer than the queries (every key axis n x M). */
static void test_cross_attention_survives_random_keys(void **state)
{
	(void)state;
	struct mha_config c = shape(6, 16, 4, 2, 4, 3, false);
	c.m = 4;
	c.pad = 1u << 3;
	c.bias = true;
	run_case((struct monkey){ "cross", c, false, NULL, 7, 1000 });
	c = shape(3, 8, 2, 2, 4, 0, false);
	c.m = 9;
	c.layers = 3;
	c.pos = MHA_POS_ROPE;
	c.window = 2;
	run_case((struct monkey){ "cross-stack", c, true, NULL, 8, 600 });
}

/* 64 heads, 64 tokens, d_model 1024: few events (each recompute is big). */
static void test_largest_shape_survives_random_keys(void **state)
{
	(void)state;
	run_case((struct monkey){ "big", shape(64, 1024, 64, 64, 16, 0, false), false, NULL, 6, 25 });
}

static int group_setup(void **state)
{
	(void)state;
	setlocale(LC_CTYPE, "C.UTF-8");
	if (tui_check_lessons_open(&set, dir) != 0)
		return -1;
	snprintf(session_path, sizeof session_path, "%s/session.txt", dir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return tui_check_lessons_close(&set, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_workbench_survives_random_keys),
		cmocka_unit_test(test_one_token_d_model_one_survives_random_keys),
		cmocka_unit_test(test_mqa_with_top_k_n_survives_random_keys),
		cmocka_unit_test(test_d_k_one_with_many_heads_survives_random_keys),
		cmocka_unit_test(test_lesson_menu_survives_random_keys),
		cmocka_unit_test(test_every_lesson_survives_random_keys),
		cmocka_unit_test(test_cross_attention_survives_random_keys),
		cmocka_unit_test(test_largest_shape_survives_random_keys),
	};
	return cmocka_run_group_tests_name("monkey, in process", tests, group_setup, group_teardown);
}
