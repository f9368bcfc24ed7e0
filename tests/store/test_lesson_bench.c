/*
 * test_lesson_bench.c - a lesson's bench as the store keeps it
 * (src/store/lessonbench.c), below the TUI that will call it: saved and
 * loaded back for its own lesson and step only; a bench it cannot read
 * (damaged, a newer version, another kind) refused with the reason, kept,
 * and never saved over (the adversary's 12); a second instance at the
 * same step gets a name of its own, and pruning never removes a bench a
 * running instance holds nor the newest few (the adversary's 5); a
 * crashed lesson's autosave is found once no instance holds its bench
 * (the adversary's 4); names that would make another path refused.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "claim.h"
#include "lessonbench.h"
#include "session.h"
#include "mha.h"
#include "fixture.h"


/* Each test's benches in a directory of its own (pruning counts them). */
static char dir[4096];

static void bench(char *out, size_t len, const char *lesson, const char *step)
{
	assert_int_equal(lessonbench_path(dir, lesson, step, out, len), 0);
}

static int fresh_dir(void **state)
{
	static int n;
	(void)state;
	char name[32];
	snprintf(name, sizeof name, "t%d", ++n);
	tmpdir_path(dir, sizeof dir, name);
	return mkdir(dir, 0700);
}

static void test_a_bench_is_read_back_for_its_own_step_only(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	struct mha_config c;
	struct mha_weights w;
	bench(path, sizeof path, "one-head", "steer");
	assert_non_null(strstr(path, "/lesson-bench-one-head-steer.txt"));
	assert_int_equal(lessonbench_load(path, "one-head", "steer", &c, &w, msg, sizeof msg), 1); /* none yet */
	wts.x[3] = 0.625f;
	assert_int_equal(lessonbench_save(path, "one-head", "steer", &cfg, &wts, msg, sizeof msg), 0);
	char *text = tmpdir_slurp(path, &(size_t){ 0 });
	assert_true(strncmp(text, "mha-tui-bench 1\nlesson one-head\nstep steer\nmha-tui-session 1\n", 60) == 0);
	free(text);
	assert_int_equal(lessonbench_load(path, "one-head", "steer", &c, &w, msg, sizeof msg), 0);
	assert_true(w.x[3] == 0.625f);
	mha_weights_free(&w);
	/* the same file under another step's name: never put under that step */
	assert_int_equal(lessonbench_load(path, "one-head", "look", &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "the bench of lesson one-head step steer, not of one-head step look"));
	/* a plain session, as earlier versions kept benches: read as its name says */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	assert_int_equal(lessonbench_load(path, "one-head", "steer", &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
	assert_int_equal(lessonbench_save(path, "one-head", "steer", &cfg, &wts, msg, sizeof msg), 0);
	wts.x[3] = 0;
}

/* Damaged (cut in half), a newer version, a text of the user's: refused
 * with the reason, and the next save keeps the file as it is. */
static void test_a_bench_that_cannot_be_read_is_refused_and_kept(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	struct mha_config c;
	struct mha_weights w;
	bench(path, sizeof path, "reshape", "split");
	assert_int_equal(lessonbench_save(path, "reshape", "split", &cfg, &wts, msg, sizeof msg), 0);
	size_t size;
	char *whole = tmpdir_slurp(path, &size);
	const struct {
		const char *text;
		size_t size;
		const char *why;
	} cases[] = {
		{ whole, size / 2, "row has too few values" },
		{ "mha-tui-bench 2\nlesson reshape\nstep split\nwhatever comes in version 2\n", 0, "a bench of a newer mha-tui (version 2" },
		{ "my own notes\n", 0, "not an mha-tui lesson bench" },
		{ "mha-tui-bench 1\nlesson ../../etc\nstep split\n", 0, ":2: expected 'lesson NAME'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = cases[i].size ? cases[i].size : strlen(cases[i].text);
		tmpdir_spit(path, cases[i].text, n);
		assert_int_equal(lessonbench_load(path, "reshape", "split", &c, &w, msg, sizeof msg), -1);
		if (!strstr(msg, cases[i].why) || !strstr(msg, "kept as it is"))
			fail_msg("case %zu: '%s'", i, msg);
		assert_int_equal(lessonbench_save(path, "reshape", "split", &cfg, &wts, msg, sizeof msg), -1);
		assert_non_null(strstr(msg, "not saved over it, kept as it is"));
		size_t now;
		char *kept = tmpdir_slurp(path, &now);
		assert_int_equal(now, n);
		assert_memory_equal(kept, cases[i].text, n);
		free(kept);
	}
	free(whole);
}

/* A second instance at the same step (another process holds the bench):
 * a name of its own, never the first one's file; the first's bench and
 * the newest eight survive pruning, a held one always. */
/* The pid a lock file holds, or 0. */
static pid_t lock_pid(const char *lock)
{
	char buf[32] = "";
	FILE *f = fopen(lock, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (pid_t)atol(buf);
}

static void test_two_instances_keep_both_benches(void **state)
{
	(void)state;
	char path[4096], mine[4096], other[4096], msg[1024];
	bench(path, sizeof path, "gqa", "share");
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) { /* the first instance: holds the bench until told */
		int holder;
		char got[4096], byte;
		close(fds[1]);
		_exit(lessonbench_claim(path, got, sizeof got, &holder) == 0 && read(fds[0], &byte, 1) >= 0 ? 0 : 1);
	}
	close(fds[0]);
	int holder = 0, tries = 0;
	char lock[4200];
	snprintf(lock, sizeof lock, "%s.lock", path);
	/* held, and its pid written: the lock comes first, so a claim in
	 * between finds holder 0 (under valgrind it did) */
	while (!(claim_held(path) && lock_pid(lock) == pid) && tries++ < 2000)
		usleep(5000);
	assert_true(claim_held(path));
	assert_int_equal(lessonbench_claim(path, mine, sizeof mine, &holder), 1);
	assert_int_equal(holder, (int)pid);
	bench(other, sizeof other, "gqa", "share-2");
	assert_string_equal(mine, other);
	assert_int_equal(lessonbench_save(path, "gqa", "share", &cfg, &wts, msg, sizeof msg), 0);  /* the first's */
	assert_int_equal(lessonbench_save(mine, "gqa", "share", &cfg, &wts, msg, sizeof msg), 0); /* ours */
	/* ten older benches of finished runs */
	for (int i = 0; i < 10; i++) {
		char step[32], old[4096];
		snprintf(step, sizeof step, "old%d", i);
		bench(old, sizeof old, "gqa", step);
		assert_int_equal(lessonbench_save(old, "gqa", step, &cfg, &wts, msg, sizeof msg), 0);
		struct timespec t[2] = { { 1000 + i, 0 }, { 1000 + i, 0 } };
		assert_int_equal(utimensat(0, old, t, 0), 0);
	}
	struct timespec t[2] = { { 10, 0 }, { 10, 0 } }; /* the held one, oldest of all */
	assert_int_equal(utimensat(0, path, t, 0), 0);
	lessonbench_prune(dir, mine);
	assert_int_equal(access(path, F_OK), 0); /* held by the other instance */
	assert_int_equal(access(mine, F_OK), 0);
	int left = 0;
	for (int i = 0; i < 10; i++) {
		char step[32], old[4096];
		snprintf(step, sizeof step, "old%d", i);
		bench(old, sizeof old, "gqa", step);
		left += access(old, F_OK) == 0;
		if (i >= 3) /* the newest seven of them, with ours eight */
			assert_int_equal(access(old, F_OK), 0);
	}
	assert_int_equal(left, LESSONBENCH_KEPT - 1);
	/* the first instance gone: its bench is an orphan now, pruned like the rest */
	assert_int_equal(write(fds[1], "x", 1), 1);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	lessonbench_prune(dir, mine);
	assert_int_not_equal(access(path, F_OK), 0);
	lessonbench_release(mine);
	close(fds[1]);
}

/* The autosave of a bench a crash left: found once no instance holds the
 * bench, not while one does (its own edits, still being made). */
static void test_a_crashed_lessons_autosave_is_found(void **state)
{
	(void)state;
	char path[4096], autosave[4200], found[4200], msg[1024];
	bench(path, sizeof path, "flash", "tiles");
	assert_int_equal(lessonbench_autosave_path(path, autosave, sizeof autosave), 0);
	assert_int_equal(lessonbench_orphan_autosave(dir, found, sizeof found), -1);
	assert_int_equal(lessonbench_save(autosave, "flash", "tiles", &cfg, &wts, msg, sizeof msg), 0);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) { /* the instance working in that lesson: holds its bench until told */
		int holder;
		char mine[4096], byte;
		close(fds[1]);
		_exit(lessonbench_claim(path, mine, sizeof mine, &holder) == 0 && read(fds[0], &byte, 1) >= 0 ? 0 : 1);
	}
	close(fds[0]);
	for (int tries = 0; !claim_held(path) && tries < 2000; tries++)
		usleep(5000);
	assert_true(claim_held(path));
	assert_int_equal(lessonbench_orphan_autosave(dir, found, sizeof found), -1);
	assert_int_equal(write(fds[1], "x", 1), 1); /* it ends (a crash frees the lock the same way) */
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[1]);
	assert_int_equal(lessonbench_orphan_autosave(dir, found, sizeof found), 0);
	assert_string_equal(found, autosave);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(lessonbench_load(found, "flash", "tiles", &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
}

/* At the step, the autosave a crashed run left for its bench: its own,
 * while newer than the bench (a clean save removes it; one older than the
 * bench is stale), and a second instance's ("-2") once that is gone. */
static void test_a_steps_crashed_autosave_is_found_while_newer_than_its_bench(void **state)
{
	(void)state;
	char path[4096], autosave[4200], second[4200], found[4200], msg[1024];
	bench(path, sizeof path, "layers", "stream");
	assert_int_equal(lessonbench_autosave_path(path, autosave, sizeof autosave), 0);
	assert_int_equal(lessonbench_crashed_autosave(path, found, sizeof found), -1);
	assert_int_equal(lessonbench_save(autosave, "layers", "stream", &cfg, &wts, msg, sizeof msg), 0);
	assert_int_equal(lessonbench_crashed_autosave(path, found, sizeof found), 0); /* no bench at all */
	assert_string_equal(found, autosave);
	assert_int_equal(lessonbench_save(path, "layers", "stream", &cfg, &wts, msg, sizeof msg), 0);
	struct timespec older[2] = { { 1000000, 0 }, { 1000000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, autosave, older, 0), 0);
	assert_int_equal(lessonbench_crashed_autosave(path, found, sizeof found), -1); /* the bench is newer */
	struct timespec newer[2] = { { 2000000000, 0 }, { 2000000000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, autosave, newer, 0), 0);
	assert_int_equal(lessonbench_crashed_autosave(path, found, sizeof found), 0);
	assert_string_equal(found, autosave);
	unlink(autosave);
	snprintf(second, sizeof second, "%.*s-2.txt.autosave", (int)(strlen(path) - 4), path);
	assert_int_equal(lessonbench_save(second, "layers", "stream", &cfg, &wts, msg, sizeof msg), 0);
	assert_int_equal(lessonbench_crashed_autosave(path, found, sizeof found), 0);
	assert_string_equal(found, second);
}

static void test_names_that_would_make_another_path_are_refused(void **state)
{
	(void)state;
	char out[4096], msg[1024];
	assert_int_equal(lessonbench_path("/d", "../x", "s", out, sizeof out), -1);
	assert_int_equal(lessonbench_path("/d", "a", "b/c", out, sizeof out), -1);
	assert_int_equal(lessonbench_path("/d", "", "s", out, sizeof out), -1);
	assert_int_equal(lessonbench_path("/d", "a b", "s", out, sizeof out), -1);
	assert_int_equal(lessonbench_path("/d", "one-head", "look_2.x", out, sizeof out), 0);
	tmpdir_path(out, sizeof out, "x.txt");
	assert_int_equal(lessonbench_save(out, "a/b", "s", &cfg, &wts, msg, sizeof msg), -1);
	assert_int_not_equal(access(out, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_a_bench_is_read_back_for_its_own_step_only, fresh_dir),
		cmocka_unit_test_setup(test_a_bench_that_cannot_be_read_is_refused_and_kept, fresh_dir),
		cmocka_unit_test_setup(test_two_instances_keep_both_benches, fresh_dir),
		cmocka_unit_test_setup(test_a_crashed_lessons_autosave_is_found, fresh_dir),
		cmocka_unit_test_setup(test_a_steps_crashed_autosave_is_found_while_newer_than_its_bench, fresh_dir),
		cmocka_unit_test_setup(test_names_that_would_make_another_path_are_refused, fresh_dir),
	};
	return cmocka_run_group_tests_name("lesson benches", tests, fixture_setup, fixture_teardown);
}
