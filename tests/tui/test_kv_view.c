/*
 * test_kv_view.c - the KV-cache view (g) on a virtual screen: FACTS.md's
 * LLaMA-2-70B figures (320 KiB a token in fp16, 1.25 GiB at 4,096 tokens,
 * 10 GiB as plain MHA) read on screen at 80x24 and 200x60, colour and
 * monochrome, every line whole; b and + / - change the type and the
 * context; g and Esc go back to the workbench; the byte formatter by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "draw.h"
#include "kv_view.h"
#include "mode.h"
#include "tui_check.h"
#include "vscreen.h"

static char screen[64 * 256];

static void render(struct app *app, int rows, int cols, bool mono)
{
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", mono), 0);
	draw_screen(app, rows, cols);
	vscreen_text(screen, sizeof screen);
	vscreen_close();
}

/* The screen line holding all of a, b and c (NULL when none). */
static const char *line_with(const char *a, const char *b, const char *c)
{
	static char line[256];
	for (const char *p = screen; *p;) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, p);
		if (strstr(line, a) && (!b || strstr(line, b)) && (!c || strstr(line, c)))
			return line;
		p += len + (p[len] == '\n');
	}
	return NULL;
}

static void test_llama_figures_read_on_screen(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "g");
	assert_int_equal(app->mode, MODE_KVCACHE);
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	for (int s = 0; s < 2; s++) {
		for (int mono = 0; mono < 2; mono++) {
			render(app, sizes[s][0], sizes[s][1], mono);
			if (!line_with("GQA (g = 8)", "320 KiB", "1.25 GiB") || !line_with("MHA (g = h)", "2.5 MiB", "10 GiB")
			    || !line_with("163840 values a token", NULL, NULL) || !line_with("= 1.25 GiB", NULL, NULL)
			    || !line_with("bytes = 2 (K and V) x g kv heads x d_k x L layers x b bytes x T tokens", NULL, NULL))
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
	assert_int_equal(kv_view_dtype(app), MHA_INT8);
	render(app, 24, 80, false);
	assert_non_null(line_with("GQA (g = 8)", "160 KiB", "640 MiB"));
	tui_check_keys(app, "bb+");
	assert_int_equal(kv_view_dtype(app), MHA_FP16);
	assert_int_equal(kv_view_context(app), 8192);
	render(app, 24, 80, false);
	assert_non_null(line_with("GQA (g = 8)", "320 KiB", "2.5 GiB"));
	tui_check_keys(app, "--");
	assert_int_equal(kv_view_context(app), 2048);
	tui_check_keys(app, "g");
	assert_int_equal(app->mode, MODE_WORKBENCH);
	tui_check_keys(app, "g\x1b");
	assert_int_equal(app->mode, MODE_WORKBENCH);
	tui_check_close(app);
}

static void test_bytes_read_as_people_write_them(void **state)
{
	(void)state;
	char b[32];
	kv_view_bytes(512, b, sizeof b);
	assert_string_equal(b, "512 B");
	kv_view_bytes(327680, b, sizeof b);
	assert_string_equal(b, "320 KiB");
	kv_view_bytes((int64_t)5 << 28, b, sizeof b);
	assert_string_equal(b, "1.25 GiB");
	kv_view_bytes((int64_t)10 << 30, b, sizeof b);
	assert_string_equal(b, "10 GiB");
	kv_view_bytes(1536, b, sizeof b);
	assert_string_equal(b, "1.5 KiB");
	kv_view_bytes((int64_t)15 << 29, b, sizeof b);
	assert_string_equal(b, "7.5 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama_figures_read_on_screen),
		cmocka_unit_test(test_keys_change_type_and_context_and_leave),
		cmocka_unit_test(test_bytes_read_as_people_write_them),
	};
	return cmocka_run_group_tests_name("kv_view", tests, NULL, NULL);
}
