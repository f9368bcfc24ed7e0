/*
 * test_files.c - which file a run of the real workbench writes, and what
 * it keeps (doc/SESSION.md, doc/RELIABILITY.md P7c and P8), on a pseudo-
 * terminal: a session kept through a symlink and replaced by a run from
 * flags keeps its backup (a copy), the link stays a link; 999 backups in
 * the way still give one; a session that cannot be replaced (read-only,
 * not a session) sends a run from flags beside it, said on exit; the
 * recover command on "X.autosave" never replaces an X that is not a
 * session, keeps a copy of one that is, and "dir/.autosave" saves to
 * itself; a read-only session opened with --load is never replaced, the
 * status line and the exit say why. A lesson's bench: a failure to save it
 * (or the progress) at quit is said on stderr, exit 1; two instances at
 * one step keep both benches (and the second writes no session-2.txt
 * without an edit); a bench that cannot be read is kept and the edits go
 * beside it. Each test has a state directory of its own.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "lessonbench.h"
#include "mha.h"
#include "session.h"

enum { START_MS = 10000, EXIT_MS = 10000 };

static char state_dir[64];
static char state_env[96]; /* XDG_STATE_HOME=<state_dir> */
static char mha_dir[128];  /* <state_dir>/mha-tui */
static char session_path[160];

static int make_state(void **state)
{
	(void)state;
	snprintf(state_dir, sizeof state_dir, "/tmp/mha-files-XXXXXX");
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", state_dir);
	snprintf(mha_dir, sizeof mha_dir, "%s/mha-tui", state_dir);
	snprintf(session_path, sizeof session_path, "%s/session.txt", mha_dir);
	/* not the first run (that one opens on the lesson menu) */
	return pty_state_free_workbench(state_dir);
}

static int remove_state(void **state)
{
	(void)state;
	return pty_state_remove(state_dir);
}

static void show(const char *title, const char *screen)
{
	printf("%s:\n%s\n", title, screen);
	fflush(stdout);
}

/* The workbench with flags (NULL-ended, up to 6), drawn. */
static struct pty *start_with(const char *const flags[])
{
	const char *argv[8] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui" };
	for (int i = 0; flags && flags[i] && i < 6; i++)
		argv[i + 1] = flags[i];
	struct pty *p = pty_start(argv, 24, 80, (const char *const[]){ state_env, NULL });
	assert_non_null(p);
	if (pty_wait_text(p, "Projection", START_MS) != 0)
		show("no pipeline bar; screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "Projection"));
	return p;
}

/* q, and the program's exit status (-1 when it did not end). */
static int quit(struct pty *p)
{
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* X[0][0] set to 3.75 through the value prompt. */
static void edit_one_cell(struct pty *p)
{
	pty_type(p, "\n3.75\n");
	if (pty_wait_text(p, "3.75", 10000) != 0)
		show("no 3.75 on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "3.75"));
}

/* The session at path, loaded: its head count, or -1 (said). */
static int heads_of(const char *path)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	if (session_load(path, &c, &w, msg, sizeof msg) != 0) {
		print_message("%s\n", msg);
		return -1;
	}
	mha_weights_free(&w);
	return c.h;
}

/* X[0][0] of the session at path, or -1e9. */
static float x00_of(const char *path)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	if (session_load(path, &c, &w, msg, sizeof msg) != 0)
		return -1e9f;
	float v = w.x[0];
	mha_weights_free(&w);
	return v;
}

static void save_heads(const char *path, int heads)
{
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	char msg[1024];
	c.h = heads;
	c.g = heads;
	c.dk = c.d / heads;
	assert_int_equal(mha_weights_start(&w, &c), MHA_OK);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strdup(buf);
}

/* What the run said on its way out (stderr reaches the terminal). */
static bool said(struct pty *p, const char *text)
{
	const char *out = pty_output(p, NULL);
	if (strstr(out, text))
		return true;
	show("not said", text);
	return false;
}

/* The state directory's session.txt is a symlink to a session elsewhere
 * (documented as supported); a run from flags replaces the target, keeps
 * the old one as a backup (a copy, not a link to the link) and says so;
 * the link stays a link. Before, the backup was a hard link to the
 * symlink, the settle saw both names at the new file and deleted it: the
 * old session was gone, exit 0, nothing said (the adversary's 1). */
static void test_a_session_through_a_symlink_keeps_its_backup(void **state)
{
	(void)state;
	char target[200], backup[200];
	snprintf(target, sizeof target, "%s/kept-elsewhere.session", state_dir);
	save_heads(target, 4);
	char *old = slurp(target);
	assert_int_equal(symlink(target, session_path), 0);
	struct pty *p = start_with((const char *const[]){ "--heads", "2", NULL });
	assert_int_equal(quit(p), 0);
	struct stat st;
	assert_int_equal(lstat(session_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(heads_of(target), 2);
	snprintf(backup, sizeof backup, "%s.~1~", session_path);
	assert_int_equal(lstat(backup, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	char *kept = slurp(backup);
	assert_string_equal(kept, old);
	assert_true(said(p, "is kept as "));
	free(kept);
	free(old);
	pty_free(p);
}

/* 999 numbered backups in the way (they were never pruned): a run from
 * flags still keeps the session it replaces, and ten backups are left
 * (before: no backup, the session replaced, nothing said: the
 * adversary's 10). */
static void test_999_backups_in_the_way_still_give_one(void **state)
{
	(void)state;
	char name[220];
	save_heads(session_path, 4);
	char *old = slurp(session_path);
	for (int n = 1; n <= 999; n++) {
		snprintf(name, sizeof name, "%s.~%d~", session_path, n);
		FILE *f = fopen(name, "w");
		assert_non_null(f);
		fprintf(f, "old backup %d\n", n);
		fclose(f);
	}
	struct pty *p = start_with((const char *const[]){ "--heads", "2", NULL });
	assert_int_equal(quit(p), 0);
	assert_int_equal(heads_of(session_path), 2);
	int left = 0;
	char *kept = NULL;
	for (int n = 1; n <= 999; n++) {
		snprintf(name, sizeof name, "%s.~%d~", session_path, n);
		if (access(name, F_OK) == 0) {
			left++;
			free(kept);
			kept = slurp(name);
		}
	}
	assert_int_equal(left, 10);
	assert_non_null(kept);
	assert_string_equal(kept, old); /* the newest is the session this run replaced */
	assert_true(said(p, "is kept as "));
	free(kept);
	free(old);
	pty_free(p);
}

/* A read-only session.txt (chmod a-w) and a run from flags: never
 * replaced; the run saves beside it and says so on exit. */
static void test_a_run_from_flags_saves_beside_a_read_only_session(void **state)
{
	(void)state;
	char beside[200];
	save_heads(session_path, 4);
	char *old = slurp(session_path);
	assert_int_equal(chmod(session_path, 0444), 0);
	struct pty *p = start_with((const char *const[]){ "--heads", "2", NULL });
	assert_int_equal(quit(p), 0);
	char *now = slurp(session_path);
	assert_string_equal(now, old);
	snprintf(beside, sizeof beside, "%s/session-2.txt", mha_dir);
	assert_int_equal(heads_of(beside), 2);
	assert_true(said(p, "is read-only (mode 0444)"));
	assert_true(said(p, "this run saved to "));
	free(now);
	free(old);
	pty_free(p);
}

/* A read-only session opened with --load, an edit, q: not replaced (it
 * was, silently: the adversary's 11); the status line says why, and q
 * again leaves with status 1 and the reason on stderr. */
static void test_a_read_only_session_opened_with_load_is_never_replaced(void **state)
{
	(void)state;
	char path[200];
	snprintf(path, sizeof path, "%s/example.session", state_dir);
	save_heads(path, 4);
	char *old = slurp(path);
	assert_int_equal(chmod(path, 0444), 0);
	struct pty *p = start_with((const char *const[]){ "--load", path, NULL });
	edit_one_cell(p);
	pty_char(p, 'q');
	if (pty_wait_text(p, "read-only", 10000) != 0)
		show("no read-only on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "read-only"));
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	assert_true(said(p, "is read-only (mode 0444): not replaced"));
	char *now = slurp(path);
	assert_string_equal(now, old);
	free(now);
	free(old);
	pty_free(p);
}

/* The recover command on "X.autosave" where X is not a session (a text of
 * the user's): X is never replaced (it was, with no check and no backup,
 * and the autosave deleted: the adversary's 2); the edits go beside X,
 * said on exit, and the autosave stays. */
static void test_recovering_into_a_file_that_is_not_a_session_saves_beside_it(void **state)
{
	(void)state;
	char x[200], autosave[220], beside[200];
	snprintf(x, sizeof x, "%s/notes.txt", state_dir);
	snprintf(autosave, sizeof autosave, "%s.autosave", x);
	snprintf(beside, sizeof beside, "%s/notes-2.txt", state_dir);
	FILE *f = fopen(x, "w");
	assert_non_null(f);
	fputs("my own notes, not a session\n", f);
	fclose(f);
	save_heads(autosave, 2);
	struct pty *p = start_with((const char *const[]){ "--load", autosave, NULL });
	assert_int_equal(quit(p), 0);
	char *now = slurp(x);
	assert_string_equal(now, "my own notes, not a session\n");
	assert_int_equal(heads_of(beside), 2);
	assert_int_equal(access(autosave, F_OK), 0);
	assert_true(said(p, "is not an mha-tui session"));
	assert_true(said(p, "this run saved to "));
	free(now);
	pty_free(p);
}

/* The recover command on the autosave of a session: the session is
 * replaced by the recovered edits only with a copy of it kept (said), and
 * the autosave, whose edits it now holds, removed. */
static void test_recovering_into_a_session_keeps_a_copy_of_it(void **state)
{
	(void)state;
	char x[200], autosave[220], backup[220];
	snprintf(x, sizeof x, "%s/mine.session", state_dir);
	snprintf(autosave, sizeof autosave, "%s.autosave", x);
	snprintf(backup, sizeof backup, "%s.~1~", x);
	save_heads(x, 4);
	save_heads(autosave, 2);
	struct pty *p = start_with((const char *const[]){ "--load", autosave, NULL });
	edit_one_cell(p);
	assert_int_equal(quit(p), 0);
	assert_int_equal(heads_of(x), 2);
	assert_true(x00_of(x) == 3.75f);
	assert_int_equal(heads_of(backup), 4);
	assert_int_not_equal(access(autosave, F_OK), 0);
	assert_true(said(p, "is kept as "));
	pty_free(p);
}

/* "dir/.autosave" is a name, not the autosave of "dir/": the run saves to
 * it (before, it saved to a file named "dir/-2" and said another program
 * had changed "dir/"). */
static void test_a_file_named_dot_autosave_saves_to_itself(void **state)
{
	(void)state;
	char path[200], wrong[200];
	snprintf(path, sizeof path, "%s/.autosave", state_dir);
	snprintf(wrong, sizeof wrong, "%s/-2", state_dir);
	save_heads(path, 4);
	struct pty *p = start_with((const char *const[]){ "--load", path, NULL });
	edit_one_cell(p);
	assert_int_equal(quit(p), 0);
	assert_true(x00_of(path) == 3.75f);
	assert_int_not_equal(access(wrong, F_OK), 0);
	assert_null(strstr(pty_output(p, NULL), "another program"));
	pty_free(p);
}

/* The program started with env (NULL-ended, besides state_env unless
 * env names XDG_STATE_HOME) and args, run to its end with no key: its
 * exit status (-1: killed or hung); *out its output. */
static int run_to_end(const char *const env[], const char *const args[], struct pty **out)
{
	const char *argv[8] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui" };
	const char *e[6] = { state_env };
	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	for (int i = 0; env[i] && i < 4; i++)
		e[strncmp(env[i], "XDG_STATE_HOME=", 15) == 0 ? 0 : i + 1] = env[i];
	struct pty *p = pty_start(argv, 24, 80, e);
	assert_non_null(p);
	int st = pty_wait_exit(p, EXIT_MS);
	*out = p;
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* How many lines "mha-tui: " the run printed. */
static int message_lines(struct pty *p)
{
	int n = 0;
	for (const char *s = pty_output(p, NULL); (s = strstr(s, "mha-tui: ")); s++)
		n++;
	return n;
}

/* Nothing in the state directory but the progress file the test made. */
static void assert_nothing_written(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = progress.txt", mha_dir);
	assert_int_equal(system(cmd), 0);
}

/* --text writes its session before the workbench opens: past a file size
 * limit (2 KiB) that write fails with the reason, exit 1, and nothing is
 * left, neither a temporary file nor a lock (it died of SIGXFSZ, exit
 * 153, leaving both: the adversary's 6). */
static void test_text_past_a_file_size_limit_says_why_and_leaves_nothing(void **state)
{
	(void)state;
	struct rlimit old, small = { 2048, 2048 };
	getrlimit(RLIMIT_FSIZE, &old);
	small.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_FSIZE, &small); /* for the child pty_start forks */
	struct pty *p;
	int rc = run_to_end((const char *const[]){ NULL }, (const char *const[]){ "--text", "the cat sat", NULL }, &p);
	setrlimit(RLIMIT_FSIZE, &old);
	assert_int_equal(rc, 1);
	assert_true(said(p, "session.txt: write failed, no file written: File too large"));
	assert_int_equal(message_lines(p), 1);
	assert_nothing_written();
	pty_free(p);
}

/* A terminal type nobody knows: --text and a run from flags write
 * nothing (they replaced the session, kept a backup and wrote progress
 * before the workbench refused to start: the adversary's 9). */
static void test_a_run_that_cannot_start_writes_nothing(void **state)
{
	(void)state;
	save_heads(session_path, 4);
	char *old = slurp(session_path);
	const char *const runs[][3] = { { "--text", "the cat sat", NULL }, { "--heads", "2", NULL } };
	for (int i = 0; i < 2; i++) {
		struct pty *p;
		int rc = run_to_end((const char *const[]){ "TERM=no-such-terminal-type", NULL }, runs[i], &p);
		assert_int_equal(rc, 1);
		assert_true(said(p, "not a terminal type this system knows"));
		assert_int_equal(message_lines(p), 1);
		pty_free(p);
	}
	char *now = slurp(session_path);
	assert_string_equal(now, old);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'progress.txt session.txt '", mha_dir);
	assert_int_equal(system(cmd), 0);
	free(now);
	free(old);
}

/* XDG_STATE_HOME naming a regular file: --text says so in one line (a
 * second line told the user to set the variable they had set: the
 * adversary's 16). */
static void test_a_state_home_that_is_a_file_is_said_once(void **state)
{
	(void)state;
	char file[200], env[240];
	snprintf(file, sizeof file, "%s/a-file", state_dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(env, sizeof env, "XDG_STATE_HOME=%s", file);
	struct pty *p;
	assert_int_equal(run_to_end((const char *const[]){ env, NULL }, (const char *const[]){ "--text", "a b", NULL }, &p),
	                 1);
	assert_true(said(p, "a file is in the way of the state directory"));
	assert_int_equal(message_lines(p), 1);
	pty_free(p);
}

/* An XDG_STATE_HOME longer than a path can be: refused before a single
 * directory is made (it was cut to 4 KiB and about 2,000 nested
 * directories were created before the run failed: the adversary's 16). */
static void test_a_state_home_too_long_creates_no_directory(void **state)
{
	(void)state;
	static char env[6000];
	int n = snprintf(env, sizeof env, "XDG_STATE_HOME=%s/long", state_dir);
	while (n < 5200)
		n += snprintf(env + n, sizeof env - (size_t)n, "/d");
	struct pty *p;
	assert_int_equal(run_to_end((const char *const[]){ env, NULL }, (const char *const[]){ "--text", "a b", NULL }, &p),
	                 1);
	assert_true(said(p, "XDG_STATE_HOME is "));
	assert_true(said(p, "too long for the state directory"));
	char path[200];
	snprintf(path, sizeof path, "%s/long", state_dir);
	assert_int_not_equal(access(path, F_OK), 0);
	pty_free(p);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_state, remove_state)

/* The bench of lesson 1's first step in the state directory. */
static void lesson_bench_path(char *out, size_t len, const char *suffix)
{
	snprintf(out, len, "%s/lesson-bench-one-head-idea%s.txt", mha_dir, suffix);
}

/* X[0][0] of the bench of lesson 1's first step at path, or -1e9. */
static float bench_x00(const char *path)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	if (lessonbench_load(path, "one-head", "idea", &c, &w, msg, sizeof msg) != 0) {
		print_message("%s: %s\n", path, msg);
		return -1e9f;
	}
	float v = w.x[0];
	mha_weights_free(&w);
	return v;
}

/* A lesson's edits and the progress that cannot be saved at quit (here a
 * directory is in the way of each, made while the run is on): each is
 * said on stderr and the exit status is 1. Before, the failures went to a
 * status line no longer drawn: exit 0, nothing said (the adversary's 3). */
static void test_a_lessons_edits_that_cannot_be_saved_are_said_at_exit(void **state)
{
	(void)state;
	char bench[200], progress[200], moved[220];
	lesson_bench_path(bench, sizeof bench, "");
	snprintf(progress, sizeof progress, "%s/progress.txt", mha_dir);
	snprintf(moved, sizeof moved, "%s/progress.moved", mha_dir);
	struct pty *p = start_with((const char *const[]){ "--lesson", "1", NULL });
	edit_one_cell(p);
	assert_int_equal(mkdir(bench, 0700), 0);
	assert_int_equal(rename(progress, moved), 0);
	assert_int_equal(mkdir(progress, 0700), 0);
	pty_key(p, VTERM_KEY_DOWN, VTERM_MOD_NONE); /* the step's place moved: the progress is owed */
	pty_char(p, 'q');
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	assert_true(said(p, "the lesson's edits not saved: "));
	assert_true(said(p, "lesson-bench-one-head-idea.txt: is a directory"));
	assert_true(said(p, "progress not saved: "));
	pty_free(p);
}

/* Two instances in lesson 1's first step, each with an edit: the second
 * saves to "-2" and says so, the first to the bench itself; both kept
 * whoever quits last (the last deleted the other's: the adversary's 5),
 * and the second, whose free workbench was never edited, writes no
 * session-2.txt. */
static void test_two_instances_in_a_lesson_keep_both_benches(void **state)
{
	(void)state;
	char bench[200], second[200], copy[200];
	lesson_bench_path(bench, sizeof bench, "");
	lesson_bench_path(second, sizeof second, "-2");
	snprintf(copy, sizeof copy, "%s/session-2.txt", mha_dir);
	struct pty *a = start_with((const char *const[]){ "--lesson", "1", NULL });
	edit_one_cell(a);
	struct pty *b = start_with((const char *const[]){ "--lesson", "1", NULL });
	pty_type(b, "\n2.5\n");
	if (pty_wait_text(b, "2.5", 10000) != 0)
		show("no 2.5 on screen", pty_screen(b));
	assert_int_equal(quit(b), 0);
	assert_true(said(b, "is open in another mha-tui: this run saved the step's edits to "));
	assert_int_equal(quit(a), 0);
	assert_true(bench_x00(bench) == 3.75f);
	assert_true(bench_x00(second) == 2.5f);
	assert_int_equal(access(copy, F_OK), -1);
	pty_free(a);
	pty_free(b);
}

/* A bench of a newer version where lesson 1's first step keeps its edits:
 * refused on the status line, kept byte for byte; the edits go beside it,
 * said on exit. Before, it was ignored and overwritten (the adversary's
 * 12). */
static void test_a_bench_that_cannot_be_read_is_kept_and_the_edits_go_beside_it(void **state)
{
	(void)state;
	char bench[200], beside[200];
	lesson_bench_path(bench, sizeof bench, "");
	lesson_bench_path(beside, sizeof beside, "-2");
	FILE *f = fopen(bench, "w");
	assert_non_null(f);
	fputs("mha-tui-bench 9\nlesson one-head\nstep idea\n", f);
	fclose(f);
	char *old = slurp(bench);
	struct pty *p = start_with((const char *const[]){ "--lesson", "1", NULL });
	if (pty_wait_text(p, "lesson bench not read", 10000) != 0)
		show("no refusal on screen", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "lesson bench not read"));
	edit_one_cell(p);
	assert_int_equal(quit(p), 0);
	assert_true(said(p, "a bench of a newer mha-tui (version 9"));
	assert_true(said(p, "this run saved the step's edits to "));
	char *now = slurp(bench);
	assert_string_equal(now, old);
	assert_true(bench_x00(beside) == 3.75f);
	free(now);
	free(old);
	pty_free(p);
}

/* bench_x00 of the autosave at path reads want before deadline_ms: the
 * autosave is written by a child in a pause of the keys. */
static bool autosave_holds(const char *path, float want, int deadline_ms)
{
	for (int waited = 0; waited < deadline_ms; waited += 20) {
		struct mha_config c;
		struct mha_weights w;
		char msg[1024];
		if (lessonbench_load(path, "one-head", "idea", &c, &w, msg, sizeof msg) == 0) {
			bool same = w.x[0] == want;
			mha_weights_free(&w);
			if (same)
				return true;
		}
		usleep(20000);
	}
	return false;
}

/* Lesson 1's first step, 20 edits (19 nudges, then X[0][0] = 3.75):
 * written to the step's autosave as the workbench's are; kill -9; the
 * next run into the lesson has them back, says so, and the quit saves
 * them into the bench and removes the autosave. Before, a lesson's edits
 * were never autosaved: kill -9 lost them all (the adversary's 4). */
static void test_a_lessons_edits_survive_kill_9(void **state)
{
	(void)state;
	char bench[200], autosave[220];
	lesson_bench_path(bench, sizeof bench, "");
	snprintf(autosave, sizeof autosave, "%s.autosave", bench);
	struct pty *p = start_with((const char *const[]){ "--lesson", "1", NULL });
	for (int i = 0; i < 19; i++)
		pty_char(p, '+');
	if (pty_wait_text(p, "2.90", 10000) != 0)
		show("no 2.90 after 19 nudges", pty_screen(p));
	edit_one_cell(p);
	assert_true(autosave_holds(autosave, 3.75f, 60000));
	pty_kill(p, SIGKILL);
	assert_int_not_equal(pty_wait_exit(p, EXIT_MS), -1);
	pty_free(p);
	assert_int_equal(access(bench, F_OK), -1); /* no quit: the bench was never saved */
	p = start_with((const char *const[]){ "--lesson", "1", NULL });
	if (pty_wait_text(p, "crashed run left are back", 10000) != 0)
		show("no recovery said", pty_screen(p));
	assert_non_null(strstr(pty_screen(p), "crashed run left are back"));
	assert_int_equal(quit(p), 0);
	assert_true(bench_x00(bench) == 3.75f);
	assert_int_equal(access(autosave, F_OK), -1);
	pty_free(p);
}

/* A crash (SIGSEGV) in a lesson after one edit: the edit is written to
 * the step's autosave by the crash handler, and the note on the restored
 * terminal names the command that brings it back. */
static void test_a_crash_in_a_lesson_keeps_its_edit_and_says_how_to_open_it(void **state)
{
	(void)state;
	char bench[200], autosave[220];
	lesson_bench_path(bench, sizeof bench, "");
	snprintf(autosave, sizeof autosave, "%s.autosave", bench);
	struct pty *p = start_with((const char *const[]){ "--lesson", "1", NULL });
	edit_one_cell(p);
	pty_kill(p, SIGSEGV);
	int st = pty_wait_exit(p, EXIT_MS);
	assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	assert_true(said(p, "the lesson's edits are in "));
	assert_true(said(p, "mha-tui --lesson one-head"));
	assert_false(said(p, "could not be written"));
	assert_true(bench_x00(autosave) == 3.75f);
	pty_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_session_through_a_symlink_keeps_its_backup),
		T(test_999_backups_in_the_way_still_give_one),
		T(test_a_run_from_flags_saves_beside_a_read_only_session),
		T(test_a_read_only_session_opened_with_load_is_never_replaced),
		T(test_recovering_into_a_file_that_is_not_a_session_saves_beside_it),
		T(test_recovering_into_a_session_keeps_a_copy_of_it),
		T(test_a_file_named_dot_autosave_saves_to_itself),
		T(test_text_past_a_file_size_limit_says_why_and_leaves_nothing),
		T(test_a_run_that_cannot_start_writes_nothing),
		T(test_a_state_home_that_is_a_file_is_said_once),
		T(test_a_state_home_too_long_creates_no_directory),
		T(test_a_lessons_edits_that_cannot_be_saved_are_said_at_exit),
		T(test_two_instances_in_a_lesson_keep_both_benches),
		T(test_a_bench_that_cannot_be_read_is_kept_and_the_edits_go_beside_it),
		T(test_a_lessons_edits_survive_kill_9),
		T(test_a_crash_in_a_lesson_keeps_its_edit_and_says_how_to_open_it),
	};
	return cmocka_run_group_tests_name("the files a run writes", tests, NULL, NULL);
}
