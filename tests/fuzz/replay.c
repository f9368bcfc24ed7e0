/*
 * replay.c - runs a fuzz target over its corpus without libFuzzer, so that
 * every `meson test` (gcc, no sanitizer; or under valgrind, or the
 * sanitizer build) replays every input ever found. Arguments: corpus
 * directories or single files. A broken promise aborts the target, which
 * fails the test; the last input read is named first, to reproduce it.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fuzz.h"

enum { HANG_SECONDS = 10 }; /* as tools/fuzz.sh's -timeout */

static int n_paths;
static char **paths;
static char current[4096]; /* the input being replayed, for the hang report */

/* One input still running after HANG_SECONDS is a hang: name it and abort
 * (write and abort only: this is a signal handler). */
static void on_alarm(int sig)
{
	(void)sig;
	static const char what[] = "replay: a hang (over 10 s) on ";
	ssize_t ignored = write(STDERR_FILENO, what, sizeof what - 1);
	ignored = write(STDERR_FILENO, current, strlen(current));
	ignored = write(STDERR_FILENO, "\n", 1);
	(void)ignored;
	abort();
}

/* The whole file in a buffer of exactly its size (no terminator), as
 * libFuzzer hands it over. Returns 0 or -1. */
static int replay_file(const char *path, size_t *bytes)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, size = 0;
	uint8_t *data = malloc(cap);
	size_t got;
	while (data && (got = fread(data + size, 1, cap - size, f)) > 0) {
		size += got;
		if (size == cap) {
			uint8_t *bigger = realloc(data, cap * 2);
			if (!bigger) {
				free(data);
				data = NULL;
			}
			data = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (!data)
		return -1;
	/* copy into an exact-size block so that reads past the end show */
	uint8_t *exact = malloc(size ? size : 1);
	if (!exact) {
		free(data);
		return -1;
	}
	memcpy(exact, data, size);
	free(data);
	snprintf(current, sizeof current, "%s", path);
	fprintf(stderr, "replaying %s\n", path);
	alarm(HANG_SECONDS);
	LLVMFuzzerTestOneInput(exact, size);
	alarm(0);
	free(exact);
	*bytes += size;
	return 0;
}

static void replay_path(const char *path, int *files, size_t *bytes)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	if (!S_ISDIR(st.st_mode)) {
		assert_int_equal(replay_file(path, bytes), 0);
		(*files)++;
		return;
	}
	DIR *d = opendir(path);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", path, e->d_name);
		assert_int_equal(replay_file(full, bytes), 0);
		(*files)++;
	}
	closedir(d);
}

static void test_every_corpus_input_keeps_the_promises(void **state)
{
	(void)state;
	int files = 0;
	size_t bytes = 0;
	for (int i = 0; i < n_paths; i++)
		replay_path(paths[i], &files, &bytes);
	print_message("%d inputs, %zu bytes replayed\n", files, bytes);
	assert_true(files > 0);
}

int main(int argc, char **argv)
{
	n_paths = argc - 1;
	paths = argv + 1;
	signal(SIGALRM, on_alarm);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_corpus_input_keeps_the_promises),
	};
	return cmocka_run_group_tests_name("fuzz corpus replay", tests, NULL, NULL);
}
