/*
 * test_cross_pty.c - cross-attention on the real workbench (pty +
 * libvterm), at 80x24 and 200x60, in colour and with NO_COLOR: started
 * with --text and --kv-text, Scores shows S n x M with the source's words
 * across and the queries' down, and says whose tokens are which; X types a
 * new source of two words (S becomes n x 2); q saves a session that loads
 * back with the source. Each waits for the text it needs, never for a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "mha.h"
#include "session.h"

enum { WAIT_MS = 10000 };

static void wait_for(struct pty *p, const char *text)
{
	if (pty_wait_text(p, text, WAIT_MS) != 0) {
		printf("waited for \"%s\"; screen:\n%s\n", text, pty_screen(p));
		fflush(stdout);
		fail();
	}
}

static void run_at(int rows, int cols, bool mono)
{
	char dir[64], env[96], path[160], msg[MHA_MSG_MAX];
	snprintf(dir, sizeof dir, "/tmp/mha-pty-cross-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(env, sizeof env, "XDG_STATE_HOME=%s", dir);
	assert_int_equal(pty_state_free_workbench(dir), 0);
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", "--text", "the black cat sleeps now",
	                       "--kv-text", "le chat noir", NULL };
	struct pty *p = pty_start(argv, rows, cols,
	                          (const char *const[]){ env, mono ? "NO_COLOR=1" : "TERM=xterm-256color", NULL });
	assert_non_null(p);
	/* the sentence stays on the workbench (a source: not the language model) */
	wait_for(p, "Q 5x16 = X 5x16");
	wait_for(p, "K and V from X_kv (3 tokens)");
	pty_type(p, "3");
	wait_for(p, "5x3 = Q");
	wait_for(p, "queries from X (5 tokens), keys and values from X_kv");
	wait_for(p, "noir"); /* the keys' axis: the source's words (columns of S, rows of K) */
	wait_for(p, "slee"); /* the rows: the queries' words (cut to 4 at 80 columns) */
	wait_for(p, "X_kv"); /* the legend names the two axes */
	pty_type(p, "X");
	wait_for(p, "source: le chat noir_");
	pty_send(p, "\x15", 1, WAIT_MS); /* C-u */
	pty_type(p, "the cat\r");
	wait_for(p, "5x2 = Q");
	pty_type(p, "q");
	assert_int_equal(pty_wait_exit(p, WAIT_MS), 0);
	pty_free(p);
	snprintf(path, sizeof path, "%s/mha-tui/session.txt", dir);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.m, 2);
	assert_int_equal(c.n, 5);
	assert_string_equal(w.kv_labels[1], "cat");
	mha_weights_free(&w);
	assert_int_equal(pty_state_remove(dir), 0);
}

static void test_80x24(void **state)
{
	(void)state;
	run_at(24, 80, false);
}

static void test_80x24_no_color(void **state)
{
	(void)state;
	run_at(24, 80, true);
}

static void test_200x60(void **state)
{
	(void)state;
	run_at(60, 200, false);
}

static void test_200x60_no_color(void **state)
{
	(void)state;
	run_at(60, 200, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_80x24),
		cmocka_unit_test(test_80x24_no_color),
		cmocka_unit_test(test_200x60),
		cmocka_unit_test(test_200x60_no_color),
	};
	return cmocka_run_group_tests_name("cross_pty", tests, NULL, NULL);
}
