/*
 * test_export_key.c - E in the workbench: mha-tui-export.py and .svg
 * appear beside the session file (in the current directory without one),
 * whole (the script holds every stage's numbers, the picture every head),
 * the SVG of the focused stage; the status line says where; where nothing
 * can be written it says why and leaves no file behind. The .txt holds
 * the screen as drawn, and mha-tui --export txt (export_key_headless)
 * draws the same screen with no terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "export_key.h"
#include "workbench.h"
#include "tui_check.h"
#include "vscreen.h"

static char dir[] = "/tmp/mha-export-key-XXXXXX";
static char home[4096];

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t got = fread(buf, 1, sizeof buf - 1, f);
	buf[got] = '\0';
	fclose(f);
	return buf;
}

static void test_E_writes_the_script_and_the_picture(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	app->save.session_path = NULL; /* the current directory */
	tui_check_keys(app, "3E"); /* the Scores stage */
	assert_false(app->status_error);
	assert_string_equal(app->status, "wrote " WORKBENCH_EXPORT_PY " (numpy), .svg (scores), .txt (screen)");
	const char *py = slurp(WORKBENCH_EXPORT_PY);
	assert_non_null(py);
	for (const char *want = "Q_tui\0S_tui\0P_tui\0O_tui\0Concat_tui\0Y_tui\0\"OUTPUT\": \"W^O\"\0check(tag + STAGE[\"OUTPUT\"]\0"; *want;
	     want += strlen(want) + 1)
		if (!strstr(py, want))
			fail_msg("the script lacks %s", want);
	const char *svg = slurp(WORKBENCH_EXPORT_SVG);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<?xml"));
	assert_non_null(strstr(svg, "Scores: S_i"));
	assert_non_null(strstr(svg, "</svg>"));
	for (int i = 0; i < app->cfg.h; i++) {
		char title[32];
		snprintf(title, sizeof title, ">head %d (kv", i);
		assert_non_null(strstr(svg, title));
	}
	tui_check_keys(app, "4E");
	assert_non_null(strstr(slurp(WORKBENCH_EXPORT_SVG), "Softmax: P_i"));
	/* with a session file: beside it */
	assert_int_equal(mkdir("sub", 0700), 0);
	app->save.session_path = "sub/session.txt";
	tui_check_keys(app, "E");
	assert_string_equal(app->status, "wrote sub/" WORKBENCH_EXPORT_PY " (numpy), .svg (weights), .txt (screen)");
	assert_non_null(slurp("sub/" WORKBENCH_EXPORT_PY));
	assert_non_null(slurp("sub/" WORKBENCH_EXPORT_SVG));
	remove("sub/" WORKBENCH_EXPORT_PY);
	remove("sub/" WORKBENCH_EXPORT_SVG);
	remove("sub/" WORKBENCH_EXPORT_TXT);
	assert_int_equal(rmdir("sub"), 0);
	tui_check_close(app);
}

static void test_an_unwritable_place_is_said_and_leaves_nothing(void **state)
{
	(void)state;
	char gone[] = "/tmp/mha-export-gone-XXXXXX";
	assert_non_null(mkdtemp(gone));
	assert_int_equal(chdir(gone), 0);
	assert_int_equal(rmdir(gone), 0); /* the current directory no longer exists */
	struct app *app = tui_check_open(NULL);
	app->save.session_path = NULL;
	tui_check_keys(app, "E");
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "export failed"));
	tui_check_close(app);
	assert_int_equal(chdir(dir), 0);
}

static char drawn[1 << 16];

/* The Scores stage drawn in process at 80x24, read back into drawn. */
static void draw_scores(struct app *app)
{
	assert_int_equal(vscreen_open(24, 80, NULL, true), 0);
	tui_check_keys(app, "3");
	draw_screen(app, 24, 80);
	vscreen_text(drawn, sizeof drawn);
}

static void test_E_writes_the_screen_as_drawn(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	app->save.session_path = NULL;
	draw_scores(app);
	tui_check_keys(app, "E");
	vscreen_close();
	assert_false(app->status_error);
	const char *txt = slurp(WORKBENCH_EXPORT_TXT);
	assert_non_null(txt);
	assert_string_equal(txt, drawn);
	assert_non_null(strstr(txt, " 1 Projection  2 Reshape  3 Scores  4 Softmax"));
	assert_non_null(strstr(txt, "\nS_0 6x6 = Q_0 6x4 . K_0^T 4x6 / sqrt(d_k)"));
	assert_null(strstr(txt, " \n")); /* trailing spaces cut */
	tui_check_close(app);
}

static void test_headless_txt_equals_the_screen(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	draw_scores(app);
	vscreen_close();
	tui_check_close(app);
	struct mha_weights w;
	struct mha_config c = tui_check_default_weights(&w);
	char msg[MHA_MSG_MAX];
	FILE *f = fopen("headless.txt", "w");
	assert_non_null(f);
	assert_int_equal(export_key_headless(f, &c, &w, PIPELINE_SCORES, 24, 80, msg, sizeof msg), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(slurp("headless.txt"), drawn);
	remove("headless.txt");
}

static int setup(void **state)
{
	(void)state;
	if (!getcwd(home, sizeof home) || !mkdtemp(dir) || chdir(dir) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove(WORKBENCH_EXPORT_PY);
	remove(WORKBENCH_EXPORT_SVG);
	remove(WORKBENCH_EXPORT_TXT);
	if (chdir(home) != 0)
		return -1;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_E_writes_the_script_and_the_picture),
		cmocka_unit_test(test_an_unwritable_place_is_said_and_leaves_nothing),
		cmocka_unit_test(test_E_writes_the_screen_as_drawn),
		cmocka_unit_test(test_headless_txt_equals_the_screen),
	};
	return cmocka_run_group_tests_name("export_key", tests, setup, teardown);
}
