/*
 * test_monkey.c - the real binary on a pseudo-terminal (libvterm) under
 * random keys from the whole key set, typed values, clicks, the wheel and
 * resizes (below 80x24 and up to 300x100), with and without a lesson open
 * and at the edges of the shapes. After every burst of keys the screen
 * must settle (no busy loop), show no "nan" and no "inf" (a masked score's
 * "-inf" aside) and no sanitizer report; every so often a probe (Esc, then
 * ? must bring up the help within 2 s) shows the program still listens.
 * At the end q quits with status 0 and the terminal is restored. At the
 * largest shape (64 tokens, d_model 1024, 64 heads) every key's frame
 * comes quickly, the autosaves that shape changes owe included.
 *
 * Seeds are fixed, so a failure reproduces: the message names the seed
 * and the key. By hand: MONKEY_SEED=S MONKEY_KEYS=N for longer runs,
 * MONKEY_CASE=NAME for one of them (workbench, menu, lesson5, n1-d1, ascii).
 * The keys avoid q (it quits; so does a click on its hint, on the last
 * row) and the control characters the line discipline turns into signals
 * (Ctrl-C, Ctrl-Z, Ctrl-\).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

enum { START_MS = 20000, EXIT_MS = 20000, PROBE_MS = 20000, BURST = 12, PROBE_EVERY = 120 };

static char state_dir[64];
static char state_env[96];
static struct pty *running; /* freed by the teardown when a test fails */

static int make_state(void **state)
{
	(void)state;
	snprintf(state_dir, sizeof state_dir, "/tmp/mha-monkey-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", state_dir);
	return 0;
}

static int remove_state(void **state)
{
	(void)state;
	if (running)
		pty_free(running);
	running = NULL;
	return pty_state_remove(state_dir);
}

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state >> 12; /* xorshift64*: the same keys everywhere */
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned)((rng_state * 2685821657736338717ULL) >> 33) % n;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every key the workbench binds but q (src/tui/views/workbench_keys.c, the views' openers), and what
 * a value is typed with. */
static const char plain[] = "?w1234567hjklcCLHvu*rR][}{><.,DdmstTxniSafMJK#+=-_"
                            "0123456789.eE-+= ab";

static const VTermKey specials[] = {
	VTERM_KEY_TAB, VTERM_KEY_ENTER, VTERM_KEY_ESCAPE, VTERM_KEY_BACKSPACE, VTERM_KEY_UP,
	VTERM_KEY_DOWN, VTERM_KEY_LEFT, VTERM_KEY_RIGHT, VTERM_KEY_PAGEUP, VTERM_KEY_PAGEDOWN,
	VTERM_KEY_HOME, VTERM_KEY_END, VTERM_KEY_DEL, VTERM_KEY_INS,
};

static const int sizes[][2] = { /* rows, cols */
	{ 24, 80 }, { 23, 80 }, { 24, 79 }, { 10, 40 }, { 50, 160 }, { 100, 300 }, { 30, 129 },
	{ 30, 130 }, { 40, 100 }, { 3, 3 }, { 60, 131 },
};

struct run {
	const char *name;
	const char *const *args; /* after the program, NULL-ended */
	unsigned long long seed;
	int keys;
	const char *env1, *env2; /* more for the environment ("NAME=VALUE"), or NULL */
};

static void show(const char *title, const char *screen)
{
	printf("%s:\n%s\n", title, screen);
	fflush(stdout);
}

/* "nan" or "inf" as a word of its own ("-inf" is a masked score). */
static const char *bad_word(const char *screen)
{
	for (const char *s = screen; *s; s++) {
		if (s != screen && isalpha((unsigned char)s[-1]))
			continue;
		if ((strncasecmp(s, "nan", 3) == 0 || strncasecmp(s, "inf", 3) == 0) && !isalpha((unsigned char)s[3]) &&
		    !(s != screen && s[-1] == '-' && tolower((unsigned char)s[0]) == 'i'))
			return s;
	}
	return NULL;
}

static void fail_at(const struct run *r, int key_no, const char *what, struct pty *p)
{
	print_message("monkey %s seed %llu, key %d: %s\n", r->name, r->seed, key_no, what);
	show("screen", pty_screen(p));
	size_t len;
	const char *out = pty_output(p, &len);
	const char *san = strstr(out, "Sanitizer");
	if (!san)
		san = strstr(out, "runtime error");
	if (san)
		printf("%.4000s\n", san);
	if (!pty_altscreen(p)) { /* it left: how */
		int st = pty_wait_exit(p, 2000);
		printf("the program left the alternate screen; wait status %#x (exit %d, signal %d)\n", (unsigned)st,
		       WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	/* the last bytes the program wrote, escapes shown */
	printf("last output:\n");
	for (size_t i = len > 400 ? len - 400 : 0; i < len; i++)
		printf(isprint((unsigned char)out[i]) ? "%c" : "\\x%02x", (unsigned char)out[i]);
	printf("\n");
	fflush(stdout);
	fail();
}

static void check_screen(const struct run *r, int key_no, struct pty *p)
{
	const char *screen = pty_screen(p), *bad = bad_word(screen);
	if (bad) {
		char what[64];
		snprintf(what, sizeof what, "'%.10s' on screen", bad);
		fail_at(r, key_no, what, p);
	}
	const char *out = pty_output(p, NULL);
	if (strstr(out, "Sanitizer") || strstr(out, "runtime error"))
		fail_at(r, key_no, "sanitizer report", p);
}

/* Still listening: Esc leaves whatever is being typed (and the help), ?
 * brings the help up within PROBE_MS, Esc closes it. At 80x24 or more,
 * where the help is drawn. */
static void probe(const struct run *r, int key_no, struct pty *p, int *rows, int *cols)
{
	if (*rows < 24 || *cols < 80) {
		*rows = 24;
		*cols = 80;
		pty_resize(p, *rows, *cols);
	}
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	/* the program read the Esc, so every key before it is acted on and
	 * drawn (it draws before it reads on); then quiet for longer than its
	 * ESCDELAY (25 ms), so the ? below cannot join the Esc as Alt-?. Output
	 * going quiet alone did not say so: a program lagging behind its keys
	 * drew the lesson menu while an answer prompt was still to open, and
	 * the Esc and ? came to that prompt together, as Alt-?, whose message
	 * the prompt covered then (seed 1, key 479, at loads of 11-16; a
	 * prompt now reads Alt-? as Esc, then ?) */
	if (pty_wait_input_read(p, PROBE_MS) != 0)
		fail_at(r, key_no, "the keys sent were not read within 20 s: hung", p);
	pty_wait_quiet(p, 60, PROBE_MS);
	/* a prompt open: until the Esc has closed it */
	long long closing = now_ms() + PROBE_MS;
	while (strstr(pty_screen(p), "Esc cancels") && now_ms() < closing)
		pty_wait_quiet(p, 10, 50);
	if (strstr(pty_screen(p), "mha-tui keys")) { /* the Esc went to the help */
		pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
		pty_wait_input_read(p, PROBE_MS);
		pty_wait_quiet(p, 60, PROBE_MS);
	}
	bool again = strstr(pty_screen(p), "Alt-? is not a key") != NULL; /* an older message: no retry */
	pty_char(p, '?');
	/* a deadline for a hang, not a speed limit: speed is the benchmark's.
	 * On a loaded machine the Esc above can still be unread when ? comes:
	 * the two read as Alt-?, which the app answers on the status line
	 * ("Alt-? is not a key here"); then the Esc is gone and ? again is the
	 * probe (a quiet 60 ms does not mean the Esc was read). */
	long long until = now_ms() + PROBE_MS;
	while (!strstr(pty_screen(p), "mha-tui keys") && now_ms() < until) {
		if (!again && strstr(pty_screen(p), "Alt-? is not a key")) {
			again = true;
			pty_char(p, '?');
		}
		pty_wait_quiet(p, 10, 50);
	}
	if (!strstr(pty_screen(p), "mha-tui keys"))
		fail_at(r, key_no, "no help within 20 s of ?: hung, or the key was lost", p);
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	pty_wait_quiet(p, 60, PROBE_MS);
}

static void one_key(struct pty *p, int *rows, int *cols)
{
	unsigned r = rnd(100);
	if (r < 3) {
		const int *s = sizes[rnd(sizeof sizes / sizeof sizes[0])];
		*rows = s[0];
		*cols = s[1];
		pty_resize(p, *rows, *cols);
	} else if (r < 8) {
		static const int buttons[] = { 1, 1, 4, 5 };
		/* not on the last row: its "q quit" hint quits, as q does */
		pty_click(p, (int)rnd((unsigned)*rows - 1), (int)rnd((unsigned)*cols), buttons[rnd(4)]);
	} else if (r < 25) {
		VTermKey k = specials[rnd(sizeof specials / sizeof specials[0])];
		pty_key(p, k, k == VTERM_KEY_TAB && rnd(3) == 0 ? VTERM_MOD_SHIFT : VTERM_MOD_NONE);
		if (k == VTERM_KEY_ESCAPE) /* alone, not the start of a sequence */
			pty_wait_quiet(p, 40, PROBE_MS);
	} else {
		pty_char(p, (uint32_t)(unsigned char)plain[rnd(sizeof plain - 1)]);
	}
}

static void monkey_run(struct run r)
{
	const char *s = getenv("MONKEY_SEED"), *k = getenv("MONKEY_KEYS"), *only = getenv("MONKEY_CASE");
	if (only && strcmp(only, r.name) != 0)
		return;
	if (s)
		r.seed = strtoull(s, NULL, 10);
	if (k)
		r.keys = atoi(k);
	rng_state = r.seed * 0x9E3779B97F4A7C15ULL + 1;
	const char *argv[16] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui" };
	for (int i = 0; r.args[i] && i < 14; i++)
		argv[i + 1] = r.args[i];
	struct pty *p = running = pty_start(argv, 24, 80, (const char *const[]){ state_env, r.env1, r.env2, NULL });
	assert_non_null(p);
	if (pty_wait_text(p, "Projection", START_MS) != 0)
		fail_at(&r, 0, "no pipeline bar at start", p);
	int rows = 24, cols = 80;
	for (int i = 0; i < r.keys; i++) {
		one_key(p, &rows, &cols);
		if ((i + 1) % BURST == 0) {
			if (pty_wait_quiet(p, 20, PROBE_MS) != 0)
				fail_at(&r, i, "still drawing 20 s after a burst of keys", p);
			check_screen(&r, i, p);
		}
		if ((i + 1) % PROBE_EVERY == 0)
			probe(&r, i, p, &rows, &cols);
	}
	probe(&r, r.keys, p, &rows, &cols);
	check_screen(&r, r.keys, p);
	pty_char(p, 'q');
	/* the program ends, or says the save failed (a state, however long it takes) */
	if (pty_wait_text(p, "press q again", EXIT_MS) == 0)
		pty_char(p, 'q'); /* the save failed (said on the status line): quit anyway */
	int st = pty_wait_exit(p, EXIT_MS);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		print_message("wait status %#x\n", (unsigned)st);
		fail_at(&r, r.keys, "q did not end the program with status 0", p);
	}
	check_screen(&r, r.keys, p);
	assert_false(pty_altscreen(p));
	assert_true(pty_cursor_visible(p));
	assert_true(pty_termios_restored(p));
	assert_int_equal(pty_mouse_mode(p), 0);
	pty_free(p);
	running = NULL;
}

static void test_workbench_survives_2000_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { "--causal", "--top-k", "3", NULL };
	monkey_run((struct run){ "workbench", args, 1, 2000 });
}

static void test_lesson_menu_and_lessons_survive_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { NULL }; /* first run: the menu */
	monkey_run((struct run){ "menu", args, 2, 800 });
}

static void test_an_open_lesson_survives_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { "--lesson", "5", NULL };
	monkey_run((struct run){ "lesson5", args, 3, 600 });
}

static void test_smallest_shapes_survive_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { "--tokens", "1", "--d-model", "1", "--heads", "1", "--top-k", "1", NULL };
	monkey_run((struct run){ "n1-d1", args, 4, 600 });
}

/* Cross-attention: a source of 3 tokens for 5 queries, GQA, a padded
 * source token, on a stack of 2 layers. */
static void test_a_source_survives_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { "--tokens", "5", "--kv-tokens", "3", "--kv-heads", "2", "--pad", "2",
	                                    "--layers", "2", NULL };
	monkey_run((struct run){ "cross", args, 6, 600 });
}

/* What a key costs the program, to the frame after it: ? follows the
 * key, and the help it brings up is drawn only once the key before it is
 * done. Counted in the program's CPU time, not the clock's: on a machine
 * busy with other work (tools/test --busy) the clock measures the
 * others; 20 s of the clock is a hang. */
static long long key_ms(struct pty *p, const char *keys)
{
	long long t0 = pty_cpu_ms(p);
	pty_type(p, keys);
	pty_char(p, '?');
	int rc = pty_wait_text(p, "mha-tui keys", 20000);
	long long dt = pty_cpu_ms(p) - t0;
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	/* until the help is gone: an Esc still unread when the next key comes
	 * reads as Alt+key (ESCDELAY), the help stays, and the next ? closes it
	 * (on a loaded machine a quiet 60 ms did not mean the Esc was read) */
	long long until = now_ms() + 20000;
	while (strstr(pty_screen(p), "mha-tui keys") && now_ms() < until)
		pty_wait_quiet(p, 10, 50);
	return rc == 0 ? dt : 99999;
}

/* The largest workbench (64 tokens, d_model 1024, 64 heads): each key
 * costs the program at most 300 ms of CPU plus three times what the first
 * nudge took (one recompute: about 20 ms here, a second under the
 * sanitizers), the shape changes and the autosaves they owe included
 * (these took 0.85 s when the autosave was written before the frame: it
 * is a child's work now). w is left out: it saves 4M values, as asked.
 * CPU time, because the clock failed this on a loaded machine (1,336 ms
 * against 1,308 allowed at a load of 20): the clock counted other
 * programs' turns. */
static void test_every_key_answers_quickly_at_the_largest_shape(void **state)
{
	(void)state;
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", "--tokens", "64",
	                       "--d-model", "1024", "--heads", "64", NULL };
	struct pty *p = running = pty_start(argv, 50, 160, (const char *const[]){ state_env, NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "Projection", START_MS), 0);
	static const char *const keys[] = {
		"+", "-", "3", "L", "4", "]", "H", "[", "}", "{", ".", ",", "D", "d", "m", "s", "t", "x",
		"1*2\n", "5", "r", "R", "u", "6", "v", "7", ">", "<", "c", "\n2\n", "w",
		"+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+", "+",
	};
	long long worst = 0, first = 0;
	const char *worst_key = "";
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		long long dt = key_ms(p, keys[i]);
		if (i == 0)
			first = dt;
		print_message("key %-4s %5lld ms\n", keys[i][0] == '\n' ? "Ret" : keys[i], dt);
		if (dt > worst && strcmp(keys[i], "w") != 0) { /* w saves 4M values: asked for */
			worst = dt;
			worst_key = keys[i];
		}
	}
	print_message("slowest: %s, %lld ms; allowed %lld ms\n", worst_key, worst, 300 + 3 * first);
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		show("at q", pty_screen(p));
	assert_true(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pty_free(p);
	running = NULL;
	assert_true(worst <= 300 + 3 * first);
}

/* No UTF-8 (the ASCII ramp and rules) and no colour. */
static void test_an_ascii_monochrome_terminal_survives_random_keys(void **state)
{
	(void)state;
	static const char *const args[] = { "--heads", "8", "--kv-heads", "2", NULL };
	monkey_run((struct run){ "ascii", args, 5, 600, "LC_ALL=C", "NO_COLOR=1" });
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_state, remove_state)
	const struct CMUnitTest tests[] = {
		T(test_workbench_survives_2000_random_keys),
		T(test_lesson_menu_and_lessons_survive_random_keys),
		T(test_an_open_lesson_survives_random_keys),
		T(test_smallest_shapes_survive_random_keys),
		T(test_a_source_survives_random_keys),
		T(test_an_ascii_monochrome_terminal_survives_random_keys),
		T(test_every_key_answers_quickly_at_the_largest_shape),
	};
#undef T
	return cmocka_run_group_tests_name("monkey on a pty", tests, NULL, NULL);
}
