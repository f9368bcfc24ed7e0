/*
 * test_workbench.c - the interactive workbench on a real terminal (pty +
 * libvterm): every way out (q, each signal that asks to stop, each crash
 * signal, a file size limit) leaves the alternate screen, shows the
 * cursor, turns keypad and mouse modes off and restores the line
 * discipline (flow control is off while it runs); the quitting ones save
 * the session with the edit made, the crashes leave it in the autosave; a storm of resizes ends
 * in the same frame a fresh start at that size draws; 10,000 pasted keys
 * are all applied; the mouse is on while it runs and off after every way
 * out; a click on a stage label shows that stage, a click on a matrix cell
 * puts the cursor there, the wheel moves it, a click on a blank does
 * nothing. Each test gets its own state directory, so the learner's real
 * session is never touched.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "mha.h"
#include "session.h"

enum { START_MS = 10000, EXIT_MS = 10000 };

static char state_dir[64];
static char state_env[96];   /* XDG_STATE_HOME=<state_dir> */
static char session_path[128];

static int make_state(void **state)
{
	(void)state;
	snprintf(state_dir, sizeof state_dir, "/tmp/mha-pty-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", state_dir);
	snprintf(session_path, sizeof session_path, "%s/mha-tui/session.txt", state_dir);
	/* not the first run (that one opens on the lesson menu) */
	return pty_state_free_workbench(state_dir);
}

static int remove_state(void **state)
{
	(void)state;
	return pty_state_remove(state_dir);
}

/* print_message cuts at 1 KB: screens go out whole. */
static void show(const char *title, const char *screen)
{
	printf("%s:\n%s\n", title, screen);
	fflush(stdout);
}

/* The workbench with flags (NULL-ended, up to 6) at rows x cols, drawn. */
static const char *term_env; /* "TERM=..." for the next start, or NULL: xterm-256color */

static struct pty *start_with(int rows, int cols, const char *const flags[])
{
	const char *argv[8] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui" };
	for (int i = 0; flags && flags[i] && i < 6; i++)
		argv[i + 1] = flags[i];
	struct pty *p = pty_start(argv, rows, cols, (const char *const[]){ state_env, term_env, NULL });
	assert_non_null(p);
	if (pty_wait_text(p, "Projection", START_MS) != 0)
		show("no pipeline bar; screen", pty_screen(p));
	assert_true(strstr(pty_screen(p), "Projection") != NULL);
	assert_true(pty_altscreen(p));
	bool no_mouse = false;
	for (int i = 0; flags && flags[i]; i++)
		no_mouse |= strcmp(flags[i], "--no-mouse") == 0;
	assert_int_equal(pty_mouse_mode(p) != 0, !no_mouse); /* clicks and the wheel are reported */
	assert_false(pty_flow_control(p));          /* Ctrl-S cannot freeze the screen */
	assert_true(pty_keypad(p));
	return p;
}

/* The workbench at rows x cols, drawn: the pipeline bar is on screen. */
static struct pty *start_workbench(int rows, int cols)
{
	return start_with(rows, cols, NULL);
}

/* After the program is gone: the terminal is as the shell left it, mouse
 * reports off (else every later click would type escape sequences). */
static void assert_terminal_restored(struct pty *p)
{
	if (pty_altscreen(p) || !pty_cursor_visible(p) || !pty_termios_restored(p) || pty_mouse_mode(p) ||
	    pty_keypad(p)) {
		print_message("alt %d cursor %d termios %d mouse %d keypad %d\n", pty_altscreen(p),
		              pty_cursor_visible(p), pty_termios_restored(p), pty_mouse_mode(p), pty_keypad(p));
		show("screen", pty_screen(p));
	}
	assert_int_equal(pty_mouse_mode(p), 0);
	assert_false(pty_keypad(p));
	assert_false(pty_altscreen(p));
	assert_true(pty_cursor_visible(p));
	assert_true(pty_termios_restored(p));
	assert_int_equal(pty_altscreen_entries(p), 1);
	assert_null(strstr(pty_output(p, NULL), "Sanitizer"));
}

static bool session_saved(void)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	if (session_load(session_path, &c, &w, msg, sizeof msg) != 0) {
		print_message("session: %s\n", msg);
		return false;
	}
	mha_weights_free(&w);
	return true;
}

/* ---- every way out ---- */

static void test_q_quits_saves_and_restores_the_terminal(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_terminal_restored(p);
	assert_true(session_saved());
	pty_free(p);
}

/* How many input cells hold exactly v. */
static int count_cells_equal(const struct mha_config *c, const struct mha_weights *w, float v)
{
	int n = 0;
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		const float *m = mha_tensor_data(w, NULL, t);
		for (int i = 0; i < s.rows * s.cols; i++)
			n += m[i] == v;
	}
	return n;
}

/* Type 3.75 (a value the default workbench does not hold, so the files can
 * be searched for it) into the selected cell and wait until the screen shows it. */
static void edit_one_cell(struct pty *p)
{
	pty_type(p, "\n3.75\n");
	if (pty_wait_text(p, "3.75", 10000) != 0)
		show("no 3.75 on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "3.75"));
}

/* The file at path loads and holds the edit of edit_one_cell. */
static bool holds_the_edit(const char *path)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	if (session_load(path, &c, &w, msg, sizeof msg) != 0) {
		print_message("%s\n", msg);
		return false;
	}
	int n = count_cells_equal(&c, &w, 3.75f);
	mha_weights_free(&w);
	return n == 1;
}

/* A signal that asks the program to stop: the loop sees the flag, saves
 * (the edit is in the session), and leaves with 128 + the signal. */
static void check_quit_signal(int sig)
{
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	pty_kill(p, sig);
	int st = pty_wait_exit(p, EXIT_MS);
	print_message("signal %d: wait status %#x\n", sig, st);
	assert_true(st != -1);
	assert_true((WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig) ||
	            (WIFSIGNALED(st) && WTERMSIG(st) == sig));
	assert_terminal_restored(p);
	assert_true(session_saved());
	assert_true(holds_the_edit(session_path));
	pty_free(p);
}

static void test_sigint_saves_and_restores_the_terminal(void **state)
{
	(void)state;
	check_quit_signal(SIGINT);
}

static void test_sigterm_saves_and_restores_the_terminal(void **state)
{
	(void)state;
	check_quit_signal(SIGTERM);
}

static void test_sighup_saves_and_restores_the_terminal(void **state)
{
	(void)state;
	check_quit_signal(SIGHUP);
}

/* check(sig) for each of n signals, each in a fresh state directory. */
static void each_signal(void **state, void (*check)(int), const int *sigs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		check(sigs[i]);
		remove_state(state);
		make_state(state);
	}
}

/* Ctrl-\ and the signals a user can send with kill. */
static void test_sigquit_usr1_usr2_alrm_xcpu_save_and_restore_the_terminal(void **state)
{
	static const int sigs[] = { SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU };
	each_signal(state, check_quit_signal, sigs, sizeof sigs / sizeof sigs[0]);
}

/* Ctrl-\ typed: the terminal's own SIGQUIT, the same as kill. */
static void test_ctrl_backslash_saves_and_restores_the_terminal(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	pty_char(p, 0x1c);
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGQUIT);
	assert_terminal_restored(p);
	assert_true(holds_the_edit(session_path));
	pty_free(p);
}

/* Ctrl-S is a key like any other: the screen keeps following the keys. */
static void test_ctrl_s_does_not_freeze_the_screen(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	pty_char(p, 0x13);
	edit_one_cell(p); /* drawn: the output was not stopped */
	pty_kill(p, SIGTERM);
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM);
	assert_terminal_restored(p);
	assert_true(holds_the_edit(session_path));
	pty_free(p);
}

/* A crash: restored by the handler, the crash keeps its status, and the
 * edit no file held yet is in the autosave, which the next start names. */
static void check_crash_signal(int sig)
{
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	pty_kill(p, sig);
	int st = pty_wait_exit(p, EXIT_MS);
	print_message("signal %d: wait status %#x\n", sig, st);
	assert_true(st != -1 && WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), sig);
	assert_terminal_restored(p);
	assert_non_null(strstr(pty_screen(p), "mha-tui --load"));
	char autosave[160];
	snprintf(autosave, sizeof autosave, "%s.autosave", session_path);
	assert_true(holds_the_edit(autosave));
	pty_free(p);
}

static void test_sigsegv_restores_the_terminal_and_keeps_the_crash_status(void **state)
{
	(void)state;
	check_crash_signal(SIGSEGV);
}

static void test_sigabrt_restores_the_terminal_and_keeps_the_crash_status(void **state)
{
	(void)state;
	check_crash_signal(SIGABRT);
}

static void test_sigbus_fpe_ill_trap_sys_restore_the_terminal_and_autosave(void **state)
{
	static const int sigs[] = { SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	each_signal(state, check_crash_signal, sigs, sizeof sigs / sizeof sigs[0]);
}

/* A file size limit (ulimit -f) below the session's size: q says the
 * save failed, the program is not killed, no temporary file is left, the
 * second q leaves with the terminal restored. */
static void test_file_size_limit_fails_the_save_with_a_message(void **state)
{
	(void)state;
	struct rlimit old, small = { 2048, 2048 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_FSIZE, &small); /* for the child pty_start forks */
	struct pty *p = start_workbench(24, 80);
	setrlimit(RLIMIT_FSIZE, &old);
	pty_char(p, 'q');
	if (pty_wait_text(p, "not saved", 10000) != 0)
		show("no failed save on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "not saved"));
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	assert_terminal_restored(p);
	/* the whole reason, on stderr (the raw output: the screen wraps it);
	 * there was no session before, and none is said to be kept */
	const char *said = strstr(pty_output(p, NULL), "mha-tui: not saved: ");
	assert_non_null(said);
	assert_non_null(strstr(said, "session.txt: write failed, no file written: File too large\r\n"));
	char cmd[256];
	snprintf(cmd, sizeof cmd, "ls %s/mha-tui | grep -q tmp", state_dir);
	assert_int_not_equal(system(cmd), 0);
	pty_free(p);
}

/* A crash whose autosave cannot be written (RLIMIT_FSIZE, as a full disk
 * or a read-only state directory would): a line says the edits could not
 * be autosaved (before, nothing was said: the adversary's M8). */
static void test_a_crash_that_cannot_autosave_says_so(void **state)
{
	(void)state;
	struct rlimit old, small = { 2048, 2048 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_FSIZE, &small);
	struct pty *p = start_workbench(24, 80);
	setrlimit(RLIMIT_FSIZE, &old);
	edit_one_cell(p);
	pty_kill(p, SIGSEGV);
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	assert_terminal_restored(p);
	assert_non_null(strstr(pty_output(p, NULL), "mha-tui: crashed; the edits since the last save could not be "
	                                            "written to the autosave"));
	assert_null(strstr(pty_output(p, NULL), "mha-tui --load"));
	pty_free(p);
}

/* A state directory whose path holds a space and an apostrophe: the
 * command the crash note prints is one shell word that names the
 * autosave (M7: it was '...it's...', which a shell reads otherwise). */
static void test_the_crash_note_quotes_an_apostrophe_for_the_shell(void **state)
{
	(void)state;
	char dir[200], env[240], path[700], cmd[700];
	snprintf(dir, sizeof dir, "%s/a b/it's", state_dir);
	snprintf(path, sizeof path, "mkdir -p \"%s/mha-tui\" && cp '%s/mha-tui/progress.txt' \"%s/mha-tui/\"", dir,
	         state_dir, dir);
	assert_int_equal(system(path), 0);
	snprintf(env, sizeof env, "XDG_STATE_HOME=%s", dir);
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", NULL };
	struct pty *p = pty_start(argv, 24, 200, (const char *const[]){ env, NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "Projection", START_MS), 0);
	edit_one_cell(p);
	pty_kill(p, SIGSEGV);
	assert_true(pty_wait_exit(p, EXIT_MS) != -1);
	const char *said = strstr(pty_output(p, NULL), "mha-tui --load ");
	assert_non_null(said);
	char word[400];
	snprintf(word, sizeof word, "%.*s", (int)strcspn(said + 15, "\r\n"), said + 15);
	snprintf(cmd, sizeof cmd, "test -f %s", word); /* the shell reads it as the autosave's name */
	if (system(cmd) != 0)
		print_message("not one word naming the file: %s\n", word);
	assert_int_equal(system(cmd), 0);
	assert_non_null(strstr(word, "'\\''"));
	pty_free(p);
}

/* ---- two instances, flags over a saved session ---- */

/* Two real instances on one state directory, each editing and quitting:
 * both edits are on disk, and the second says where its edits went. */
static void test_two_instances_keep_both_sets_of_edits(void **state)
{
	(void)state;
	struct pty *a = start_workbench(24, 80);
	struct pty *b = start_workbench(24, 80);
	edit_one_cell(a);
	pty_type(b, "\n-3.5\n");
	assert_int_equal(pty_wait_text(b, "-3.5", 10000), 0);
	pty_char(a, 'q');
	assert_int_equal(pty_wait_exit(a, EXIT_MS), 0);
	pty_char(b, 'q');
	assert_int_equal(pty_wait_exit(b, EXIT_MS), 0);
	assert_terminal_restored(b);
	assert_true(holds_the_edit(session_path));
	char other[160];
	snprintf(other, sizeof other, "%s/mha-tui/session-2.txt", state_dir);
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(other, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(count_cells_equal(&c, &w, -3.5f), 1);
	mha_weights_free(&w);
	const char *said = strstr(pty_output(b, NULL), "is open in another mha-tui (pid ");
	assert_non_null(said);
	assert_non_null(strstr(said, "session-2.txt instead"));
	pty_free(a);
	pty_free(b);
}

static void quit_and_check(struct pty *p);

/* A lock file is removed when its run ends: none is left beside the
 * session, nor beside a file opened with --load (the adversary's M15). */
static void test_no_lock_file_is_left_after_the_run(void **state)
{
	(void)state;
	char lock[200];
	snprintf(lock, sizeof lock, "%s.lock", session_path);
	struct pty *p = start_workbench(24, 80);
	assert_true(access(lock, F_OK) == 0); /* held while it runs */
	edit_one_cell(p);
	quit_and_check(p);
	pty_free(p);
	assert_false(access(lock, F_OK) == 0);
	p = start_with(24, 80, (const char *const[]){ "--load", session_path, NULL });
	assert_true(access(lock, F_OK) == 0);
	quit_and_check(p);
	pty_free(p);
	assert_false(access(lock, F_OK) == 0);
}

/* A second instance that quits with no edit writes nothing: session-2.txt
 * would only be a copy of the file the first one has open (the adversary's
 * M14: 68 MB at the largest shape). */
static void test_an_unedited_second_instance_writes_nothing(void **state)
{
	(void)state;
	struct pty *a = start_workbench(24, 80);
	quit_and_check(a); /* a session to open twice */
	pty_free(a);
	a = start_workbench(24, 80);
	struct pty *b = start_workbench(24, 80);
	quit_and_check(b);
	char other[160];
	snprintf(other, sizeof other, "%s/mha-tui/session-2.txt", state_dir);
	assert_false(access(other, F_OK) == 0);
	assert_null(strstr(pty_output(b, NULL), "instead"));
	quit_and_check(a);
	pty_free(a);
	pty_free(b);
}

/* A run from flags replaces the saved session only with a numbered
 * backup of it, said on exit. */
static void test_flags_keep_the_replaced_session_as_a_backup(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	pty_char(p, 'q');
	assert_int_equal(pty_wait_exit(p, EXIT_MS), 0);
	pty_free(p);
	p = start_with(24, 80, (const char *const[]){ "--heads", "2", NULL });
	pty_char(p, 'q');
	assert_int_equal(pty_wait_exit(p, EXIT_MS), 0);
	assert_terminal_restored(p);
	char backup[160];
	snprintf(backup, sizeof backup, "%s.~1~", session_path);
	assert_true(holds_the_edit(backup));
	assert_non_null(strstr(pty_output(p, NULL), "is kept as "));
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.h, 2);
	mha_weights_free(&w);
	pty_free(p);
}

/* ---- input that is not the user's ---- */

static void quit_and_check(struct pty *p)
{
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_terminal_restored(p);
}


/* The workbench started, keys typed (an edit to 4.25), then the session
 * rewritten in place by another program. */
static struct pty *start_then_change_behind(const char *keys)
{
	struct pty *p = start_workbench(24, 80);
	pty_type(p, keys);
	assert_int_equal(pty_wait_text(p, "4.25", 10000), 0);
	FILE *f = fopen(session_path, "w"); /* another program, in place */
	assert_non_null(f);
	fputs("changed by hand\n", f);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* q with no edit writes nothing (the session keeps its inode and mtime);
 * a session another program changed while the run had it open is never
 * saved over: the edit goes beside it, said on exit. */
static void test_a_session_changed_behind_the_run_is_never_saved_over(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	quit_and_check(p);
	pty_free(p);
	struct stat a, b;
	assert_int_equal(stat(session_path, &a), 0);
	p = start_workbench(24, 80);
	if (pty_wait_text(p, "3.75", START_MS) != 0)
		show("no 3.75 on screen", pty_screen(p));
	quit_and_check(p);
	pty_free(p);
	assert_int_equal(stat(session_path, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
	            a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
	p = start_then_change_behind("\n4.25\n");
	quit_and_check(p);
	FILE *f;
	char beside[160], buf[64] = "";
	snprintf(beside, sizeof beside, "%.*s-2.txt", (int)(strlen(session_path) - 4), session_path);
	assert_non_null(strstr(pty_output(p, NULL), "was changed on disk by another program"));
	assert_non_null(strstr(pty_output(p, NULL), beside));
	f = fopen(session_path, "r");
	assert_non_null(f);
	buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
	fclose(f);
	assert_string_equal(buf, "changed by hand\n");
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(beside, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(count_cells_equal(&c, &w, 4.25f), 1);
	mha_weights_free(&w);
	pty_free(p);
}

/* A session with a second hard link: q replaces the file (atomically), so
 * the other name keeps the session from before, and the exit says so. */
static void test_a_hard_link_split_by_the_save_is_said_on_exit(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	quit_and_check(p); /* a session to link to */
	pty_free(p);
	char other[160];
	snprintf(other, sizeof other, "%s/linked.txt", state_dir);
	assert_int_equal(link(session_path, other), 0);
	p = start_workbench(24, 80);
	edit_one_cell(p);
	quit_and_check(p);
	assert_non_null(strstr(pty_output(p, NULL), "had 1 other hard link: it holds the session from before"));
	assert_true(holds_the_edit(session_path));
	assert_false(holds_the_edit(other));
	pty_free(p);
}

/* A crash after the saves went elsewhere: the note printed names the
 * autosave that holds the edits, the one beside the file saved to now. */
static void check_crash_note_names(struct pty *p, const char *saved_to, float edit)
{
	char typed[32], autosave[200], quoted[220], old[200];
	snprintf(typed, sizeof typed, "\n%g\n", (double)edit);
	pty_type(p, typed);
	snprintf(typed, sizeof typed, "%g", (double)edit);
	assert_int_equal(pty_wait_text(p, typed, 10000), 0);
	pty_kill(p, SIGSEGV);
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	assert_terminal_restored(p);
	snprintf(autosave, sizeof autosave, "%s.autosave", saved_to);
	snprintf(quoted, sizeof quoted, "mha-tui --load '%s'", autosave);
	snprintf(old, sizeof old, "'%s.autosave'", session_path);
	if (!strstr(pty_output(p, NULL), quoted))
		show("crash note not found; screen", pty_screen(p));
	assert_non_null(strstr(pty_output(p, NULL), quoted));
	assert_null(strstr(pty_output(p, NULL), old));
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(autosave, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(count_cells_equal(&c, &w, edit), 1);
	mha_weights_free(&w);
}

/* The session was changed behind the run, w saved beside it
 * (session-2.txt), then another edit and a crash: the note names
 * session-2.txt.autosave, which holds that edit. */
static void test_the_crash_note_follows_a_save_beside_a_changed_session(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	edit_one_cell(p);
	quit_and_check(p);
	pty_free(p);
	p = start_then_change_behind("l\n4.25\n");
	char beside[160];
	snprintf(beside, sizeof beside, "%.*s-2.txt", (int)(strlen(session_path) - 4), session_path);
	pty_char(p, 'w');
	if (pty_wait_text(p, "session-2.txt", 10000) != 0)
		show("no session-2.txt on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "session-2.txt"));
	pty_char(p, 'l');
	check_crash_note_names(p, beside, 5.5f);
	pty_free(p);
}

/* A second instance saves to session-2.txt from the start: its crash note
 * names session-2.txt.autosave, never the first instance's. */
static void test_a_second_instances_crash_note_names_its_own_autosave(void **state)
{
	(void)state;
	struct pty *a = start_workbench(24, 80);
	struct pty *b = start_workbench(24, 80);
	char beside[160];
	snprintf(beside, sizeof beside, "%.*s-2.txt", (int)(strlen(session_path) - 4), session_path);
	check_crash_note_names(b, beside, -3.5f);
	pty_char(a, 'q');
	assert_int_equal(pty_wait_exit(a, EXIT_MS), 0);
	pty_free(a);
	pty_free(b);
}

/* The screen's first rows (all above the status line), as a new string. */
static char *rows_above_status(struct pty *p)
{
	char *s = strdup(pty_screen(p));
	char *at = s;
	for (int row = 0; row < 22 && at; row++) {
		at = strchr(at, '\n');
		at = at ? at + 1 : NULL;
	}
	if (at)
		*at = '\0';
	return s;
}

/* Reads the program's output until cond(p) holds (a state, not a time);
 * false at the deadline. */
static bool wait_for(struct pty *p, bool (*cond)(struct pty *p), int deadline_ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (cond(p))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > deadline_ms)
			return false;
		pty_wait_quiet(p, 10, 50); /* reads what the program writes meanwhile */
	}
}

static char gate_fifo[160];
static int gate_fd = -1;

/* The autosave writer waits at its gate: the FIFO opens for writing. */
static bool writer_at_gate(struct pty *p)
{
	(void)p;
	gate_fd = open(gate_fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return gate_fd >= 0;
}

static bool autosave_written(struct pty *p)
{
	char path[200];
	(void)p;
	snprintf(path, sizeof path, "%s.autosave", session_path);
	return access(path, F_OK) == 0;
}

static char *frame_before; /* rows above the status line before Ctrl-Z */

/* How many times the program wrote seq. */
static int count_of(struct pty *p, const char *seq)
{
	int n = 0;
	for (const char *at = pty_output(p, NULL); (at = strstr(at, seq)) != NULL; at++)
		n++;
	return n;
}

static int pastes_before_fg;

static bool mouse_and_paste_back(struct pty *p)
{
	return pty_mouse_mode(p) != 0 && count_of(p, "\033[?2004h") > pastes_before_fg;
}

static bool frame_back(struct pty *p)
{
	char *now = rows_above_status(p);
	bool same = pty_altscreen(p) && strcmp(now, frame_before) == 0;
	free(now);
	return same;
}

/* Ctrl-Z while the forked autosave writer is in the middle of its file
 * (held there, before its rename, by MHA_TEST_AUTOSAVE_GATE), the app
 * moved on to Softmax meanwhile; then fg: the screen is the app's frame
 * of now, never the writer's stale copy of the Projection stage, and the
 * autosave completes, holding every edit. Run as a shell's job, so that
 * Ctrl-Z stops it. */
static void test_ctrl_z_during_an_autosave_resumes_on_the_current_frame(void **state)
{
	(void)state;
	char gate[200], autosave[200];
	snprintf(gate_fifo, sizeof gate_fifo, "%s/gate", state_dir);
	assert_int_equal(mkfifo(gate_fifo, 0600), 0);
	snprintf(gate, sizeof gate, "MHA_TEST_AUTOSAVE_GATE=%s", gate_fifo);
	snprintf(autosave, sizeof autosave, "%s.autosave", session_path);
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", NULL };
	struct pty *p = pty_start_job(argv, 24, 80, (const char *const[]){ state_env, gate, NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "Projection", START_MS), 0);
	pty_type(p, "++++++++++++++++++++"); /* 20 edits: an autosave is owed */
	assert_true(wait_for(p, writer_at_gate, 20000));
	assert_false(autosave_written(p)); /* written, not yet renamed */
	pty_char(p, '4');
	assert_int_equal(pty_wait_row(p, 1, "softmax(S₀)", 10000), 0);
	frame_before = rows_above_status(p);
	pastes_before_fg = count_of(p, "\033[?2004h");
	assert_int_equal(pty_send(p, "\032", 1, 5000), 0); /* Ctrl-Z */
	assert_int_equal(pty_wait_stopped(p, 10000), 0);
	assert_false(pty_altscreen(p)); /* the shell's screen while stopped */
	/* fg, in the order that would show a stale frame: the app first, and
	 * once it has drawn its frame again, the writer, let through its gate */
	pty_continue(p, false);
	if (!wait_for(p, frame_back, 10000))
		show("after fg, not the frame of before Ctrl-Z", pty_screen(p));
	assert_true(frame_back(p));
	/* and the modes ncurses does not restore: each mouse mode (libvterm
	 * acts on the first of a combined one), bracketed paste (a shell turns
	 * it off while it has the terminal: a paste would run as commands) */
	assert_true(wait_for(p, mouse_and_paste_back, 10000));
	assert_int_equal(write(gate_fd, "x", 1), 1);
	close(gate_fd);
	gate_fd = -1;
	pty_continue(p, true);
	assert_true(wait_for(p, autosave_written, 20000));
	struct mha_config c, ac;
	struct mha_weights w, aw;
	char msg[1024];
	assert_int_equal(session_load(autosave, &ac, &aw, msg, sizeof msg), 0); /* whole */
	pty_wait_quiet(p, 50, 2000); /* anything the writer drew is out */
	if (!frame_back(p))
		show("once the writer finished, not the app's frame", pty_screen(p));
	assert_true(frame_back(p));
	free(frame_before);
	pty_char(p, 'q');
	assert_int_equal(pty_wait_exit(p, EXIT_MS), 0);
	assert_false(pty_altscreen(p));
	assert_true(pty_cursor_visible(p));
	assert_true(pty_termios_restored(p));
	/* the autosave held every edit: the same inputs as the session q saved
	 * (which then removed it) */
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	assert_false(autosave_written(p));
	assert_memory_equal(w.x, aw.x, (size_t)c.n * (size_t)c.d * sizeof *w.x);
	mha_weights_free(&w);
	mha_weights_free(&aw);
	pty_free(p);
}

static char orphan[200]; /* session-2.txt.autosave */

static bool orphan_written(struct pty *p)
{
	(void)p;
	return access(orphan, F_OK) == 0;
}

/* A second instance says at start where it saves; killed with -9 after an
 * autosave, its autosave is offered at the next start once the first
 * instance has quit (the adversary's N2: it was never offered again). */
static void test_a_killed_second_instances_autosave_is_offered_at_the_next_start(void **state)
{
	(void)state;
	struct pty *a = start_workbench(24, 160);
	struct pty *b = start_workbench(24, 160);
	assert_int_equal(pty_wait_text(b, "is open in another mha-tui (pid ", 10000), 0);
	assert_non_null(strstr(pty_screen(b), "this run saves to "));
	assert_non_null(strstr(pty_screen(b), "session-2.txt: "));
	snprintf(orphan, sizeof orphan, "%.*s-2.txt.autosave", (int)(strlen(session_path) - 4), session_path);
	pty_type(b, "++++++++++++++++++++"); /* 20 edits: an autosave */
	assert_true(wait_for(b, orphan_written, 20000));
	pty_kill(b, SIGKILL);
	pty_wait_exit(b, EXIT_MS);
	pty_free(b);
	quit_and_check(a);
	pty_free(a);
	struct pty *c = start_workbench(24, 160);
	char command[240];
	snprintf(command, sizeof command, "recover: mha-tui --load '%s'", orphan);
	if (pty_wait_text(c, command, 10000) != 0)
		show("no recover notice", pty_screen(c));
	assert_non_null(strstr(pty_screen(c), command));
	quit_and_check(c);
	pty_free(c);
	assert_true(access(orphan, F_OK) == 0); /* kept until loaded */
}

/* At 80 columns the recover question keeps the autosave's file name whole
 * (the middle of its directory left out), and when it is left for later
 * the path is on stderr whole at exit (the adversary's M12: it was cut). */
static void test_the_recover_question_keeps_the_file_name_and_exit_names_the_path(void **state)
{
	(void)state;
	char autosave[200], kept[220], cmd[600];
	struct pty *first = start_workbench(24, 80);
	quit_and_check(first); /* the session exists */
	pty_free(first);
	snprintf(autosave, sizeof autosave, "%s.autosave", session_path);
	snprintf(kept, sizeof kept, "%s.~1~", autosave);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", session_path, autosave);
	assert_int_equal(system(cmd), 0);
	struct pty *p = start_workbench(24, 80);
	if (pty_wait_text(p, "/session.txt.autosave.~1~", 10000) != 0)
		show("no recover question", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "Enter loads, d discards, Esc later: /tmp/mha-\u2026/session.txt.autosave.~1~"));
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	assert_int_equal(pty_wait_text(p, "kept for later", 10000), 0);
	quit_and_check(p);
	char said[300];
	snprintf(said, sizeof said, "unsaved edits, %s", kept);
	assert_non_null(strstr(pty_output(p, NULL), said));
	pty_free(p);
	assert_int_equal(unlink(kept), 0);
}

/* Bytes a terminal may send by itself change nothing: sent, then the
 * value prompt opened as a probe (once it is open, every byte before it
 * was read), the screen above the status line is as before; Esc closes
 * the prompt again. */
static void assert_ignored(struct pty *p, const char *bytes, const char *what)
{
	char *before = rows_above_status(p);
	assert_int_equal(pty_send(p, bytes, strlen(bytes), 5000), 0);
	pty_type(p, "\n");
	if (pty_wait_row(p, 22, "Enter sets", 10000) != 0) {
		print_message("no prompt after %s\n", what);
		show("screen", pty_screen(p));
	}
	assert_non_null(strstr(pty_row(p, 22), "Enter sets"));
	char *after = rows_above_status(p);
	if (strcmp(before, after) != 0) {
		print_message("changed by %s\n", what);
		show("before", before);
		show("after", after);
	}
	assert_string_equal(before, after);
	free(before);
	free(after);
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	assert_int_equal(pty_wait_row(p, 22, "edit cancelled", 10000), 0);
}

static void test_mouse_reports_with_the_mouse_off_are_ignored(void **state)
{
	(void)state;
	struct pty *p = start_with(24, 80, (const char *const[]){ "--no-mouse", NULL });
	assert_ignored(p, "\033[<0;30;2M\033[<0;30;2m", "an SGR click on stage 5");
	assert_ignored(p, "\033[M #\"\033[M##\"", "an X10 click");
	assert_ignored(p, "\033[<64;10;10M", "an SGR wheel");
	quit_and_check(p);
	pty_free(p);
}

/* Where terminfo's kmous is X10's "Esc [ M" (tmux, screen), curses
 * decodes KEY_MOUSE and leaves the report's three bytes: they are read
 * with it, not run as keys (' ' 'M' '5' would jump to stage 5, 'q' quit). */
static void test_x10_reports_under_tmux_with_the_mouse_off_are_ignored(void **state)
{
	(void)state;
	const char *terms[] = { "TERM=tmux-256color", "TERM=screen" };
	for (size_t i = 0; i < sizeof terms / sizeof *terms; i++) {
		term_env = terms[i];
		struct pty *p = start_with(24, 80, (const char *const[]){ "--no-mouse", NULL });
		term_env = NULL;
		assert_ignored(p, "\033[M M5\033[M#M5", "an X10 click on stage 5");
		assert_ignored(p, "\033[Mq!!\033[M#!!", "an X10 report whose first byte is q");
		quit_and_check(p);
		pty_free(p);
	}
}

static void test_focus_events_and_terminal_replies_are_ignored(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	assert_ignored(p, "\033[I\033[O", "focus in and out");
	assert_ignored(p, "\033]11;rgb:0000/0000/0000\033\\", "an OSC 11 reply ended by ST");
	assert_ignored(p, "\033]11;rgb:ffff/ffff/ffff\007", "an OSC 11 reply ended by BEL");
	assert_ignored(p, "\033P1$r0m\033\\", "a DECRQSS reply");
	assert_ignored(p, "\033[?62;22c\033[12;40R", "device attributes and a cursor report");
	assert_ignored(p, "\233" "2J\235" "0;x\234", "raw C1 CSI and OSC");
	assert_ignored(p, "\302\233" "5~\302\233" "1;5H", "a CSI encoded in UTF-8 (C2 9B)");
	assert_ignored(p, "\033]\033M\033n", "Alt+], Alt+M, Alt+n");
	quit_and_check(p);
	pty_free(p);
}

/* A bracketed paste into the prompt is typed; anywhere else it is not a
 * command. */
static void test_a_bracketed_paste_is_text_never_commands(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	assert_ignored(p, "\033[200~n7h1]M\r\033[201~", "a paste outside a prompt");
	pty_type(p, "\n");
	assert_int_equal(pty_wait_row(p, 22, "Enter sets", 10000), 0);
	/* as a terminal pastes: libvterm adds the markers the program asked for */
	assert_int_equal(pty_paste(p, "0.75\r", 5, 5000), 0);
	pty_type(p, "\n");
	if (pty_wait_row(p, 5, " 0.75  0.00", 10000) != 0) /* the first cell of X (row label the\u2080) */
		show("after the paste", pty_screen(p));
	assert_non_null(strstr(pty_row(p, 5), " 0.75  0.00"));
	quit_and_check(p);
	pty_free(p);
}

/* COLUMNS and LINES from another terminal do not override the size this
 * one reports. */
static void test_columns_and_lines_in_the_environment_do_not_pin_the_size(void **state)
{
	(void)state;
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", NULL };
	struct pty *p = pty_start(argv, 24, 80, (const char *const[]){ state_env, "COLUMNS=40", "LINES=10", NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "Projection", START_MS), 0);
	assert_null(strstr(pty_screen(p), "40x10"));
	assert_non_null(strstr(pty_row(p, 23), "q quit"));
	quit_and_check(p);
	pty_free(p);
}

/* ---- resize, paste, mouse ---- */

/* 50 resizes in one second, reading all the while, then one last size:
 * the screen must then be exactly what a fresh start at that size draws. */
static void test_resize_storm_ends_in_the_right_frame(void **state)
{
	(void)state;
	static const int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 30, 100 }, { 50, 160 }, { 26, 90 } };
	struct pty *p = start_workbench(24, 80);
	for (int i = 0; i < 50; i++) {
		pty_resize(p, sizes[i % 5][0], sizes[i % 5][1]);
		pty_wait_quiet(p, 20, 20); /* 20 ms apart: 50 in a second */
	}
	pty_resize(p, 33, 111);
	struct pty *fresh = start_workbench(33, 111);
	/* a state, not a time: read both until they agree (a busy machine
	 * may pause either for any time mid-frame), with a deadline */
	bool same = false;
	for (int round = 0; round < 100 && !same; round++) {
		pty_wait_quiet(p, 100, 2000);
		pty_wait_quiet(fresh, 100, 2000);
		char *after = strdup(pty_screen(p));
		same = strcmp(after, pty_screen(fresh)) == 0;
		if (!same && round == 99) {
			show("after the storm", after);
			show("fresh", pty_screen(fresh));
		}
		free(after);
	}
	assert_true(same);

	pty_char(p, 'q'); /* still alive and listening */
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_terminal_restored(p);
	pty_free(fresh);
	pty_free(p);
}

/* Set the selected cell to 0, paste 10,000 '+' at once, quit: the saved
 * cell must hold exactly what 10,000 float nudges of 0.1 give, so not one
 * key was lost or doubled. */
static void test_paste_of_10000_keys_loses_none(void **state)
{
	(void)state;
	enum { KEYS = 10000 };
	struct pty *p = start_workbench(24, 80);
	pty_type(p, "\n0\n");
	pty_wait_quiet(p, 100, 5000);
	char *keys = malloc(KEYS);
	memset(keys, '+', KEYS);
	assert_int_equal(pty_send(p, keys, KEYS, 60000), 0); /* typed ahead: not a paste */
	free(keys);
	pty_char(p, 'q');
	int st = pty_wait_exit(p, 60000);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_terminal_restored(p);
	float want = 0.0f;
	for (int i = 0; i < KEYS; i++)
		want = want + 1.0f * 0.1f; /* as the nudge computes it */
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	int found = count_cells_equal(&c, &w, want);
	if (found != 1)
		print_message("no cell holds %.9g (or several do: %d)\n", (double)want, found);
	assert_int_equal(found, 1);
	mha_weights_free(&w);
	pty_free(p);
}

/* The column where text starts on a row of the screen, or -1. */
static int column_of(struct pty *p, int row, const char *text)
{
	const char *line = pty_row(p, row), *at = strstr(line, text);
	return at ? (int)(at - line) : -1; /* the bar and the matrices are ASCII */
}

/* A click on "4 Softmax" in the pipeline bar shows the Softmax stage. */
static void test_click_on_a_stage_label_shows_that_stage(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	int x = column_of(p, 0, "4 Softmax");
	assert_true(x > 0);
	assert_null(strstr(pty_row(p, 1), "softmax(S₀)"));
	pty_click(p, 0, x + 4, 1);
	if (pty_wait_text(p, "softmax(S₀)", 5000) != 0)
		show("after the click", pty_screen(p));
	assert_non_null(strstr(pty_row(p, 1), "P₀ 6x6 = softmax(S₀)"));
	quit_and_check(p);
	pty_free(p);
}

/* --no-mouse leaves the mouse to the terminal: no mouse mode while it
 * runs, and a click does nothing. */
static void test_no_mouse_leaves_the_mouse_to_the_terminal(void **state)
{
	(void)state;
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", "--no-mouse", NULL };
	struct pty *p = pty_start(argv, 24, 80, (const char *const[]){ state_env, NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "Projection", START_MS), 0);
	assert_int_equal(pty_mouse_mode(p), 0);
	quit_and_check(p);
	pty_free(p);
}

/* On Projection, a click on X's row 2, column 3 puts the cursor there:
 * the status line names that cell. The wheel then moves the cursor down
 * a row; a click on a blank of the screen changes nothing. */
static void test_click_on_a_cell_of_x_puts_the_cursor_there(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	assert_int_equal(column_of(p, 3, "X 6x16"), 0); /* title, column numbers, then the rows */
	char label[8] = "", want[32];
	sscanf(pty_row(p, 7), "%7s", label); /* row 2's token */
	snprintf(want, sizeof want, "X[2 %s, 3] = ", label); /* the cell notation: row, its token */
	assert_null(strstr(pty_row(p, 22), want));
	pty_click(p, 7, 5 + 3 * 6 + 2, 1); /* row labels are 5 wide, cells 6 */
	if (pty_wait_text(p, want, 5000) != 0)
		show("after the click", pty_screen(p));
	assert_ptr_equal(strstr(pty_row(p, 22), want), pty_row(p, 22));

	char below[8] = "";
	sscanf(pty_row(p, 8), "%7s", below);
	snprintf(want, sizeof want, "X[3 %s, 3] = ", below);
	pty_click(p, 10, 40, 5); /* the wheel, down */
	if (pty_wait_text(p, want, 5000) != 0)
		show("after the wheel", pty_screen(p));
	assert_ptr_equal(strstr(pty_row(p, 22), want), pty_row(p, 22));

	assert_int_equal(pty_wait_quiet(p, 100, 5000), 0);
	char *before = strdup(pty_screen(p));
	pty_click(p, 1, 79, 1); /* right of the formula line */
	pty_click(p, 2, 40, 3); /* the right button is not asked for */
	pty_wait_quiet(p, 200, 5000);
	if (strcmp(before, pty_screen(p)) != 0) {
		show("before", before);
		show("after", pty_screen(p));
	}
	assert_string_equal(before, pty_screen(p));
	free(before);
	quit_and_check(p);
	pty_free(p);
}

/* ---- typed values ---- */

/* Nothing on screen reads as NaN or Inf, whatever the case. */
static void assert_no_nan_or_inf(struct pty *p, const char *when)
{
	const char *screen = pty_screen(p);
	static const char *const bad[] = { "nan", "NaN", "NAN", "inf", "Inf", "INF" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (strstr(screen, bad[i])) {
			print_message("'%s' on screen %s\n", bad[i], when);
			show("screen", screen);
		}
		assert_null(strstr(screen, bad[i]));
	}
}

/* Each bad value typed into a cell is refused on the status line, and the
 * cell keeps its value. */
static void test_typed_garbage_is_refused_on_the_status_line(void **state)
{
	(void)state;
	char long_value[501];
	memset(long_value, '1', 500);
	long_value[500] = '\0';
	const char *const bad[] = { "abc", "1e309", "nan", "-inf", "", "1.2.3", "1e30", long_value };
	struct pty *p = start_workbench(24, 80);
	char *before = strdup(pty_row(p, 5)); /* the first row of X */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		/* wait for states, not for time: the prompt open, then gone and
		 * the status line saying what happened (a busy machine can take
		 * any time between the two) */
		pty_type(p, "\n");
		assert_int_equal(pty_wait_row(p, 22, "Enter sets", 10000), 0);
		pty_type(p, bad[i]);
		pty_type(p, "\n");
		pty_wait_row(p, 22, "not changed", 10000);
		const char *status = pty_row(p, 22);
		if (!strstr(status, "not changed"))
			show("status line", status);
		assert_non_null(strstr(status, "not changed"));
		assert_string_equal(pty_row(p, 5), before);
		/* the status names the value, not NaN or Inf: only the input shows */
		if (strcmp(bad[i], "nan") && strcmp(bad[i], "-inf"))
			assert_no_nan_or_inf(p, bad[i]);
	}
	free(before);
	pty_char(p, 'q');
	assert_int_equal(WEXITSTATUS(pty_wait_exit(p, EXIT_MS)), 0);
	pty_free(p);
}

/* Esc then a key, read together (within ESCDELAY) while a prompt is
 * open: the Esc cancels the prompt as it would alone and the key is
 * itself; they came as one Alt-key, which the prompt used to swallow
 * with its message hidden under the prompt line. */
static void test_esc_and_a_key_together_close_a_prompt_then_act(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	char *before = strdup(pty_row(p, 5)); /* the first row of X */
	pty_type(p, "\n");
	assert_int_equal(pty_wait_row(p, 22, "Enter sets", 10000), 0);
	pty_type(p, "9");
	assert_int_equal(pty_send(p, "\033?", 2, 10000), 0);
	assert_int_equal(pty_wait_text(p, "mha-tui keys", 10000), 0);
	assert_null(strstr(pty_screen(p), "Enter sets"));
	assert_null(strstr(pty_screen(p), "is not a key"));
	pty_key(p, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
	pty_wait_input_read(p, 10000);
	pty_wait_quiet(p, 60, 10000);
	assert_string_equal(pty_row(p, 5), before); /* the 9 was never set */
	free(before);
	pty_char(p, 'q');
	assert_int_equal(WEXITSTATUS(pty_wait_exit(p, EXIT_MS)), 0);
	pty_free(p);
}

/* +-1e6 typed into X and every W, then every stage at two sizes: no NaN,
 * no Inf anywhere on screen. */
static void test_extreme_typed_weights_never_show_nan_or_inf(void **state)
{
	(void)state;
	struct pty *p = start_workbench(24, 80);
	/* Two cells each of X, W^Q, W^K, W^V, W^O at +1e6 and -1e6. In
	 * Projection, c steps X -> W^Q -> Q -> X and v shows Q, K or V. */
	static const char *const route[] = { "", "c", "ccvc", "ccvc", "7c" };
	for (size_t i = 0; i < sizeof route / sizeof route[0]; i++) {
		pty_type(p, route[i]);
		pty_type(p, "\n1e6\nl\n-1e6\n");
		assert_int_equal(pty_wait_quiet(p, 50, 5000), 0);
		assert_no_nan_or_inf(p, route[i]);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (char st = '1'; st <= '7'; st++) {
			pty_char(p, (uint32_t)st);
			assert_int_equal(pty_wait_quiet(p, 80, 5000), 0);
			char when[32];
			snprintf(when, sizeof when, "stage %c pass %d", st, pass);
			assert_no_nan_or_inf(p, when);
		}
		pty_resize(p, 50, 160);
		pty_wait_quiet(p, 100, 5000);
	}
	pty_char(p, 'q');
	assert_int_equal(WEXITSTATUS(pty_wait_exit(p, EXIT_MS)), 0);
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(count_cells_equal(&c, &w, 1e6f), 5);
	assert_int_equal(count_cells_equal(&c, &w, -1e6f), 5);
	mha_weights_free(&w);
	pty_free(p);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_state, remove_state)
	const struct CMUnitTest tests[] = {
		T(test_q_quits_saves_and_restores_the_terminal),
		T(test_sigint_saves_and_restores_the_terminal),
		T(test_sigterm_saves_and_restores_the_terminal),
		T(test_sighup_saves_and_restores_the_terminal),
		T(test_sigsegv_restores_the_terminal_and_keeps_the_crash_status),
		T(test_sigabrt_restores_the_terminal_and_keeps_the_crash_status),
		T(test_sigquit_usr1_usr2_alrm_xcpu_save_and_restore_the_terminal),
		T(test_ctrl_backslash_saves_and_restores_the_terminal),
		T(test_ctrl_s_does_not_freeze_the_screen),
		T(test_esc_and_a_key_together_close_a_prompt_then_act),
	T(test_ctrl_z_during_an_autosave_resumes_on_the_current_frame),
		T(test_sigbus_fpe_ill_trap_sys_restore_the_terminal_and_autosave),
		T(test_file_size_limit_fails_the_save_with_a_message),
		T(test_two_instances_keep_both_sets_of_edits),
		T(test_flags_keep_the_replaced_session_as_a_backup),
		T(test_a_session_changed_behind_the_run_is_never_saved_over),
	T(test_a_hard_link_split_by_the_save_is_said_on_exit),
	T(test_an_unedited_second_instance_writes_nothing),
	T(test_no_lock_file_is_left_after_the_run),
	T(test_the_crash_note_follows_a_save_beside_a_changed_session),
	T(test_a_crash_that_cannot_autosave_says_so),
	T(test_the_crash_note_quotes_an_apostrophe_for_the_shell),
	T(test_a_killed_second_instances_autosave_is_offered_at_the_next_start),
	T(test_a_second_instances_crash_note_names_its_own_autosave),
		T(test_mouse_reports_with_the_mouse_off_are_ignored),
		T(test_x10_reports_under_tmux_with_the_mouse_off_are_ignored),
		T(test_the_recover_question_keeps_the_file_name_and_exit_names_the_path),
		T(test_focus_events_and_terminal_replies_are_ignored),
		T(test_a_bracketed_paste_is_text_never_commands),
		T(test_columns_and_lines_in_the_environment_do_not_pin_the_size),
		T(test_resize_storm_ends_in_the_right_frame),
		T(test_paste_of_10000_keys_loses_none),
		T(test_click_on_a_stage_label_shows_that_stage),
		T(test_click_on_a_cell_of_x_puts_the_cursor_there),
		T(test_no_mouse_leaves_the_mouse_to_the_terminal),
		T(test_typed_garbage_is_refused_on_the_status_line),
		T(test_extreme_typed_weights_never_show_nan_or_inf),
	};
#undef T
	return cmocka_run_group_tests_name("workbench on a pty", tests, NULL, NULL);
}
