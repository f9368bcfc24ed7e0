/*
 * test_lm_pty.c - `mha-tui --text "..."` on a pseudo-terminal at 80x24
 * and 200x60, with colour and with NO_COLOR: the sentence goes through the
 * shipped language model at start, the five predictions after "cat" are
 * the reference's (tests/fixtures/lm/next.txt: <doc> 0.304 first), x
 * switches the selected head off and the rows change (marked *), u brings
 * them back, Esc goes to the workbench holding the model's layer (d 64,
 * h 4), and q quits with status 0. g opens the generation page: the
 * prompt's last row and one generated step each equal the full forward,
 * the caches grow by a row; Esc goes back to the view. With NO_COLOR the
 * model comes by --model FILE ($MHA_TUI_MODEL pointing nowhere).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness.h"

enum { START_MS = 20000, STEP_MS = 10000 };

static char state_dir[64], state_env[96], model_env[4200];

static int make_state(void **state)
{
	(void)state;
	snprintf(state_dir, sizeof state_dir, "/tmp/mha-lm-pty-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", state_dir);
	const char *root = getenv("MHA_SOURCE_ROOT");
	snprintf(model_env, sizeof model_env, "MHA_TUI_MODEL=%s/assets/lm.model", root ? root : ".");
	/* not the first run (that one opens on the lesson menu) */
	return pty_state_free_workbench(state_dir);
}

static int remove_state(void **state)
{
	(void)state;
	return pty_state_remove(state_dir);
}

/* The row of the screen holding a and b, or NULL. */
static const char *row_with(struct pty *p, int rows, const char *a, const char *b)
{
	for (int r = 0; r < rows; r++) {
		const char *row = pty_row(p, r);
		if (strstr(row, a) && (!b || strstr(row, b)))
			return row;
	}
	return NULL;
}

static void wait_for(struct pty *p, const char *text, const char *what)
{
	if (pty_wait_text(p, text, STEP_MS) != 0)
		fail_msg("%s: no \"%s\" on screen:\n%s", what, text, pty_screen(p));
}

static void run_at(int rows, int cols, bool no_color)
{
	/* with NO_COLOR the model comes by --model FILE (MHA_TUI_MODEL then points nowhere) */
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", "--text",
	                       "the dog saw the cat and the dog ran", no_color ? "--model" : NULL,
	                       model_env + strlen("MHA_TUI_MODEL="), NULL };
	struct pty *p = pty_start(argv, rows, cols,
	                          (const char *const[]){ state_env, no_color ? "MHA_TUI_MODEL=/nonexistent/lm.model" : model_env,
	                                                 no_color ? "NO_COLOR=1" : "NO_COLOR", NULL });
	assert_non_null(p);
	if (pty_wait_text(p, "next token after each position", START_MS) != 0)
		fail_msg("%dx%d: the predictions are not on screen:\n%s", cols, rows, pty_screen(p));
	if (!row_with(p, rows, " 4 cat", "<doc> .304 ; .078 \" .078 <unk> .076 and .060"))
		fail_msg("%dx%d: the predictions after \"cat\" are not the reference's:\n%s", cols, rows, pty_screen(p));
	pty_char(p, 'x'); /* layer 0 head 0 off */
	wait_for(p, "* 4 cat", "x");
	assert_null(row_with(p, rows, " 4 cat", "<doc> .304"));
	pty_char(p, 'u');
	wait_for(p, "<doc> .304", "u");
	assert_null(row_with(p, rows, "* 4 cat", NULL));
	/* g: generate from the sentence, a token a step; each step equals the full forward */
	pty_char(p, 'g');
	wait_for(p, "= row 8 of the full forward over all 9 tokens", "g: the generation page");
	wait_for(p, "K, V: 9 rows x 64 x 2 = 1,152 values", "g: the caches");
	pty_char(p, 'l');
	wait_for(p, "= row 9 of the full forward over all 10 tokens", "Right: one token more");
	wait_for(p, "K, V: 10 rows x 64 x 2 = 1,280 values", "Right: the caches grow");
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	wait_for(p, "next token after each position", "Esc: back to the model's view");
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	wait_for(p, "d 64", "Esc: the workbench on the model's layer");
	pty_char(p, 'q');
	int st = pty_wait_exit(p, STEP_MS);
	if (st != 0)
		fail_msg("%dx%d: exit status %d:\n%s", cols, rows, st, pty_screen(p));
	pty_free(p);
}

static void test_the_sentence_through_the_model_at_80x24(void **state)
{
	(void)state;
	run_at(24, 80, false);
	run_at(24, 80, true);
}

static void test_the_sentence_through_the_model_at_200x60(void **state)
{
	(void)state;
	run_at(60, 200, false);
	run_at(60, 200, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_sentence_through_the_model_at_80x24, make_state, remove_state),
		cmocka_unit_test_setup_teardown(test_the_sentence_through_the_model_at_200x60, make_state, remove_state),
	};
	return cmocka_run_group_tests_name("language model on a terminal", tests, NULL, NULL);
}
