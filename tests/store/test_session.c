/*
 * test_session.c - session files (src/store/session.h): save then load
 * gives back every bit; every damaged file (truncated anywhere, foreign,
 * wrong version, wrong shapes, NaN, trailing text, missing, a directory)
 * is refused with "file:line: message" or "file: reason" and left exactly
 * as it was; CRLF, blank lines and comments are accepted. Works in a
 * fresh temporary directory, removed at the end.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mha.h"
#include "session.h"
#include "tmpdir.h"

/* A configuration that exercises every field: GQA, causal, top-k, scale
 * off, two heads off, the largest seed, and values that test the
 * printing: -0, the smallest denormal, the limits, thirds. */
static void example(struct mha_config *c, struct mha_weights *w)
{
	*c = mha_config_default();
	c->n = 5; c->d = 6; c->h = 4; c->g = 2; c->dk = 3;
	c->causal = true; c->top_k = 2; c->scale = false;
	c->head_off[1] = true;
	c->head_off[3] = true;
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	mha_weights_init(w, c, UINT64_MAX);
	mha_weights_default_labels(w, c);
	snprintf(w->labels[4], MHA_LABEL_MAX, "fifteen-bytes!!");
	w->x[0] = -0.0f;
	w->x[1] = 1.40129846e-45f;
	w->x[2] = MHA_VALUE_MAX;
	w->x[3] = -MHA_VALUE_MAX;
	w->x[4] = 1.0f / 3.0f;
	w->wo[0] = 123456.789f;
	w->wq[5] = 1.17549435e-38f;
}

static void expect_same(const struct mha_config *a, const struct mha_weights *wa,
                        const struct mha_config *b, const struct mha_weights *wb)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->d, b->d);
	assert_int_equal(a->h, b->h);
	assert_int_equal(a->g, b->g);
	assert_int_equal(a->dk, b->dk);
	assert_int_equal(a->causal, b->causal);
	assert_int_equal(a->top_k, b->top_k);
	assert_int_equal(a->scale, b->scale);
	assert_true(a->seed == b->seed);
	assert_memory_equal(a->head_off, b->head_off, sizeof a->head_off);
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(a, t);
		const float *p = mha_tensor_data(wa, NULL, t), *q = mha_tensor_data(wb, NULL, t);
		for (int i = 0; i < s.rows * s.cols; i++)
			if (memcmp(&p[i], &q[i], sizeof(float)) != 0)
				fail_msg("%s[%d]: saved %.9g, loaded %.9g (bits differ)",
				         mha_tensor_info(t)->name, i, (double)p[i], (double)q[i]);
	}
	for (int i = 0; i < a->n; i++)
		assert_string_equal(wa->labels[i], wb->labels[i]);
}

static void test_save_then_load_gives_back_every_bit(void **state)
{
	(void)state;
	struct mha_config c, back;
	struct mha_weights w, wb;
	example(&c, &w);
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, "round.txt");
	if (session_save(path, &c, &w, msg, sizeof msg) != 0)
		fail_msg("save: %s", msg);
	if (session_load(path, &back, &wb, msg, sizeof msg) != 0)
		fail_msg("load: %s", msg);
	expect_same(&c, &w, &back, &wb);
	mha_weights_free(&wb);
	mha_weights_free(&w);
}

/* Every valid configuration of a sweep round-trips, also through a second save. */
static void test_round_trip_holds_for_many_shapes(void **state)
{
	(void)state;
	static const int shapes[][8] = { /* n d h g dk causal top_k scale */
		{ 1, 1, 1, 1, 1, 0, 0, 1 }, { 64, 3, 2, 1, 2, 1, 64, 1 }, { 3, 10, 3, 3, 4, 0, 1, 0 },
		{ 2, 16, 64, 64, 1, 0, 0, 1 }, { 4, 8, 8, 1, 2, 1, 0, 0 },
	};
	char a[320], b[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(a, sizeof a, "sweep-a.txt");
	tmpdir_path(b, sizeof b, "sweep-b.txt");
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const int *s = shapes[i];
		struct mha_config c = mha_config_default(), back;
		c.n = s[0]; c.d = s[1]; c.h = s[2]; c.g = s[3]; c.dk = s[4];
		c.causal = s[5]; c.top_k = s[6]; c.scale = s[7];
		struct mha_weights w, wb;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, i);
		mha_weights_default_labels(&w, &c);
		assert_int_equal(session_save(a, &c, &w, msg, sizeof msg), 0);
		if (session_load(a, &back, &wb, msg, sizeof msg) != 0)
			fail_msg("shape %zu: %s", i, msg);
		expect_same(&c, &w, &back, &wb);
		assert_int_equal(session_save(b, &back, &wb, msg, sizeof msg), 0);
		size_t la, lb;
		char *ta = tmpdir_slurp(a, &la), *tb = tmpdir_slurp(b, &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(ta, tb, la); /* saving is deterministic */
		free(ta);
		free(tb);
		mha_weights_free(&wb);
		mha_weights_free(&w);
	}
}

/* The wired start at d_model 1024 (n 3, 4 heads) saves and reads back:
 * its W^K once held 1,040,400, past what a session may hold, so the
 * saved session was refused and the next plain start with it. */
static void test_the_wired_start_at_d_model_1024_reads_back(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(), back;
	c.n = 3; c.d = 1024; c.h = 4; c.g = 4; c.dk = 2;
	c.seed = MHA_SEED_WIRED;
	struct mha_weights w, wb;
	char path[320], msg[MHA_MSG_MAX + 512];
	assert_int_equal(mha_weights_start(&w, &c), MHA_OK);
	tmpdir_path(path, sizeof path, "wired-1024.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	if (session_load(path, &back, &wb, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	expect_same(&c, &w, &back, &wb);
	mha_weights_free(&wb);
	mha_weights_free(&w);
}

/* The example saved, as text: the base every damaged variant starts from. */
static char *example_text(size_t *size)
{
	struct mha_config c;
	struct mha_weights w;
	example(&c, &w);
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, "base.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
	return tmpdir_slurp(path, size);
}

/* Write text to a file, try to load it: refused with a message starting
 * "path:LINE: " (line > 0; LINE checked when want_line > 0) and holding
 * `words`; the file byte for byte as before; the weights unallocated. */
static void expect_refused_file(const char *name, const char *text, size_t size,
                                int want_line, const char *words)
{
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, name);
	tmpdir_spit(path, text, size);
	struct mha_config c;
	struct mha_weights w;
	memset(&w, 0, sizeof w);
	if (session_load(path, &c, &w, msg, sizeof msg) == 0)
		fail_msg("%s: accepted, expected a complaint about %s", name, words);
	assert_null(w.mem);
	char prefix[400];
	snprintf(prefix, sizeof prefix, "%s:", path);
	int line = 0;
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || sscanf(msg + strlen(prefix), "%d", &line) != 1
	    || line < 1 || (want_line > 0 && line != want_line))
		fail_msg("%s: message '%s' should start '%s%d: '", name, msg, prefix, want_line);
	if (words && !strstr(msg, words))
		fail_msg("%s: message '%s' should mention '%s'", name, msg, words);
	if (strchr(msg, '\n'))
		fail_msg("%s: message '%s' is more than one line", name, msg);
	size_t after_size;
	char *after = tmpdir_slurp(path, &after_size);
	assert_int_equal(after_size, size);
	assert_memory_equal(after, text, size);
	free(after);
}

/* Replace line `line` (1-based) of text with `with`; NULL deletes it. */
static char *replace_line(const char *text, int line, const char *with, size_t *size)
{
	const char *start = text;
	for (int i = 1; i < line; i++) {
		start = strchr(start, '\n');
		assert_non_null(start);
		start++;
	}
	const char *end = strchr(start, '\n');
	end = end ? end + 1 : start + strlen(start);
	size_t head = (size_t)(start - text), tail = strlen(end);
	size_t mid = with ? strlen(with) + 1 : 0;
	char *out = malloc(head + mid + tail + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	if (with) {
		memcpy(out + head, with, mid - 1);
		out[head + mid - 1] = '\n';
	}
	memcpy(out + head + mid, end, tail + 1);
	*size = head + mid + tail;
	return out;
}

/* The line number of the first line starting with `key`. */
static int line_of(const char *text, const char *key)
{
	int line = 1;
	for (const char *p = text; *p; line++) {
		if (strncmp(p, key, strlen(key)) == 0)
			return line;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	fail_msg("no line starts with '%s'", key);
	return -1;
}

static void test_truncation_anywhere_is_refused(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	/* every prefix but the whole file (and the file less its last newline) */
	for (size_t cut = 0; cut + 1 < size; cut++) {
		struct mha_config c;
		struct mha_weights w;
		memset(&w, 0, sizeof w);
		char msg[MHA_MSG_MAX + 64];
		if (session_parse("cut", text, cut, &c, &w, msg, sizeof msg) == 0)
			fail_msg("the first %zu of %zu bytes were accepted as a session", cut, size);
		assert_null(w.mem);
		assert_true(strncmp(msg, "cut:", 4) == 0);
	}
	/* and on disk at a few points, with the line checked where it is clear */
	int total_lines = 0;
	for (size_t i = 0; i < size; i++)
		total_lines += text[i] == '\n';
	/* (the empty file is test_bugs_session.c's: it reports line 0) */
	expect_refused_file("cut-magic.txt", text, 8, 1, NULL);
	size_t config_end = (size_t)(strstr(text, "heads_off") - text);
	expect_refused_file("cut-config.txt", text, config_end, 0, "ends early");
	size_t mid_x = (size_t)(strstr(text, "\nW_Q") - text) - 3;
	expect_refused_file("cut-mid-row.txt", text, mid_x, 0, NULL);
	size_t before_end = (size_t)(strstr(text, "\nend") - text) + 1;
	expect_refused_file("cut-before-end.txt", text, before_end, total_lines - 1, "end");
	free(text);
}

static void test_foreign_files_and_other_versions_are_refused(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	static const char *firsts[] = {
		"mha-tui-sessio 1", "MHA-TUI-SESSION 1", "hello world", "{\"config\": {}}",
	};
	for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
		size_t len;
		char *t = replace_line(text, 1, firsts[i], &len);
		expect_refused_file("foreign.txt", t, len, 1, "not an mha-tui session");
		free(t);
	}
	static const char *versions[] = { "mha-tui-session 3", "mha-tui-session 0", "mha-tui-session",
	                                  "mha-tui-session 1.0", "mha-tui-session 10" };
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		size_t len;
		char *t = replace_line(text, 1, versions[i], &len);
		expect_refused_file("version.txt", t, len, 1, "version");
		free(t);
	}
	free(text);
}

/* One damaged line: the refusal names that line. */
struct damage {
	const char *key;  /* the line starting with this (after the magic line) */
	const char *with; /* its replacement; NULL deletes it */
	const char *words;
	bool any_line;    /* a rule across fields: test_bugs_session.c wants the field's line */
};

static void test_damaged_lines_are_refused_with_their_line_number(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	static const struct damage cases[] = {
		{ "tokens", "tokens 0", "tokens" },
		{ "tokens", "tokens 65", "tokens" },
		{ "tokens", "tokens 5x", "tokens" },
		{ "tokens", "tokens", "tokens" },
		{ "tokens", "d_model 6", "tokens" },
		{ "d_model", "d_model 1025", "d_model" },
		{ "heads ", "heads -4", "heads" },
		{ "kv_heads", "kv_heads 3", "kv_heads", true }, /* does not divide 4 */
		{ "kv_heads", "kv_heads 99999999999999999999", "kv_heads" },
		{ "d_k", "d_k 0", "d_k" },
		{ "causal", "causal 2", "causal" },
		{ "causal", "causal yes", "causal" },
		{ "top_k", "top_k 6", "top_k", true },         /* more than 5 tokens */
		{ "scale", "scale -1", "scale" },
		{ "seed", "seed -1", "seed" },
		{ "seed", "seed 18446744073709551616", "seed" },
		{ "seed", "seed", "seed" },
		{ "heads_off", "heads_off 4", "heads_off" },   /* heads are 0..3 */
		{ "heads_off", "heads_off -1", "heads_off" },
		{ "heads_off", "heads_off x", "heads_off" },
		{ "heads_off", "headsoff 1", "heads_off" },
		{ "labels", "labels the cat", "labels" },
		{ "labels", "labels a b c d e f", "labels" },
		{ "labels", "labels a b c d sixteen-bytes!!!", "too long" },
		{ "labels", "labels a b c d \x01", "control" },
		{ "labels", "labels", "labels" },
		{ "X ", "X 5 7", "X 5 6" },
		{ "X ", "X 6 6", "X 5 6" },
		{ "X ", "W_Q 6 12", "X 5 6" },
		{ "W_K ", "W_K 6 12", "W_K 6 6" },
		{ "W_O ", "W_O 6 12", "W_O 12 6" },
		{ "end", "end end", "end" },
		{ "end", "END", "end" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *after_magic = strchr(text, '\n') + 1;
		int line = line_of(after_magic, cases[i].key) + 1;
		size_t len;
		char *t = replace_line(text, line, cases[i].with, &len);
		char name[32];
		snprintf(name, sizeof name, "damage-%zu.txt", i);
		expect_refused_file(name, t, len, cases[i].any_line ? 0 : line, cases[i].words);
		free(t);
	}
	free(text);
}

/* Bad numbers inside a matrix: the line of the bad value is named. */
static void test_bad_matrix_values_are_refused(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	static const char *rows[] = {
		"nan 0 0 0 0 0", "0 inf 0 0 0 0", "0 0 -inf 0 0 0", "1e7 0 0 0 0 0", "0x1p3 0 0 0 0 0",
		"1,5 0 0 0 0 0", "0 0 0 0 0", "0 0 0 0 0 0 0", "0 0 0 0 0 abc", "0 0 0 0 0 1e309",
		"0 0 0 0 0 NaN",
	};
	int first_row = line_of(text, "W_V ") + 1;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		size_t len;
		char *t = replace_line(text, first_row + 2, rows[i], &len);
		expect_refused_file("values.txt", t, len, first_row + 2, NULL);
		free(t);
	}
	/* a row deleted: the next matrix's header arrives where a row was due */
	size_t len;
	char *t = replace_line(text, first_row, NULL, &len);
	expect_refused_file("row-missing.txt", t, len, 0, NULL);
	free(t);
	free(text);
}

static void test_text_after_end_is_refused(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	int lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	static const char *tails[] = { "x\n", "end\n", "\n\nmha-tui-session 1\n", "0 0 0\n" };
	static const int offsets[] = { 1, 1, 3, 1 };
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		size_t len = size + strlen(tails[i]);
		char *t = malloc(len + 1);
		assert_non_null(t);
		memcpy(t, text, size);
		memcpy(t + size, tails[i], strlen(tails[i]) + 1);
		expect_refused_file("tail.txt", t, len, lines + offsets[i], "after 'end'");
		free(t);
	}
	/* a NUL byte anywhere is refused too */
	char *t = malloc(size);
	assert_non_null(t);
	memcpy(t, text, size);
	t[strstr(text, "W_K") - text + 5] = '\0';
	expect_refused_file("nul.txt", t, size, 0, NULL);
	free(t);
	free(text);
}

static void expect_loads_like_the_example(const char *name, const char *text, size_t size)
{
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, name);
	tmpdir_spit(path, text, size);
	struct mha_config c, back;
	struct mha_weights w, wb;
	if (session_load(path, &back, &wb, msg, sizeof msg) != 0)
		fail_msg("%s refused: %s", name, msg);
	example(&c, &w);
	expect_same(&c, &w, &back, &wb);
	mha_weights_free(&w);
	mha_weights_free(&wb);
}

/* CRLF line ends, blank lines, comments and a missing final newline are
 * all read as the plain file. */
static void test_crlf_blank_lines_and_comments_are_accepted(void **state)
{
	(void)state;
	size_t size;
	char *text = example_text(&size);
	char *crlf = malloc(2 * size + 1);
	assert_non_null(crlf);
	size_t len = 0;
	for (size_t i = 0; i < size; i++) {
		if (text[i] == '\n')
			crlf[len++] = '\r';
		crlf[len++] = text[i];
	}
	expect_loads_like_the_example("crlf.txt", crlf, len);
	free(crlf);

	char *spaced = malloc(3 * size + 64);
	assert_non_null(spaced);
	len = 0;
	len += (size_t)sprintf(spaced, "\n# a comment before the magic line\n\n");
	for (size_t i = 0; i < size; i++) {
		spaced[len++] = text[i];
		if (text[i] == '\n' && i + 1 < size)
			len += (size_t)sprintf(spaced + len, "\n   \t\n# note\n");
	}
	len += (size_t)sprintf(spaced + len, "\n# trailing comment\n");
	expect_loads_like_the_example("spaced.txt", spaced, len);
	free(spaced);

	expect_loads_like_the_example("no-final-newline.txt", text, size - 1);
	free(text);
}

static void expect_refused_reason(const char *path, const char *reason)
{
	struct mha_config c;
	struct mha_weights w;
	memset(&w, 0, sizeof w);
	char msg[MHA_MSG_MAX + 512];
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), -1);
	assert_null(w.mem);
	char prefix[400];
	snprintf(prefix, sizeof prefix, "%s: ", path);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, reason))
		fail_msg("message '%s' should be '%s...%s...'", msg, prefix, reason);
}

static void test_missing_file_and_directory_are_refused(void **state)
{
	(void)state;
	char path[320];
	tmpdir_path(path, sizeof path, "does-not-exist.txt");
	expect_refused_reason(path, "No such file");
	tmpdir_path(path, sizeof path, "a-directory");
	assert_int_equal(mkdir(path, 0700), 0);
	expect_refused_reason(path, "directory");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

/* Saving over an existing session replaces it whole and leaves no
 * temporary file; a save that cannot happen leaves the old file intact. */
static void test_save_replaces_atomically_and_cleans_up(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	example(&c, &w);
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, "atomic.txt");
	/* a file that is not a session is never replaced by one: kept, said */
	tmpdir_spit(path, "old contents\n", 13);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "is not an mha-tui session"));
	size_t len;
	char *text = tmpdir_slurp(path, &len);
	assert_string_equal(text, "old contents\n");
	free(text);
	/* an empty file holds nothing to keep; a session replaces it, and a
	 * session replaces a session */
	tmpdir_spit(path, "", 0);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	text = tmpdir_slurp(path, &len);
	assert_true(strncmp(text, "mha-tui-session 1\n", 18) == 0);
	free(text);

	/* onto a non-empty directory: rename fails, the directory stays */
	char target[320], inner[400];
	tmpdir_path(target, sizeof target, "busy");
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(inner, sizeof inner, "%s/keep", target);
	tmpdir_spit(inner, "x", 1);
	assert_int_equal(session_save(target, &c, &w, msg, sizeof msg), -1);
	if (strncmp(msg, target, strlen(target)) != 0)
		fail_msg("message '%s' should start with the path", msg);
	/* into a directory that does not exist */
	tmpdir_path(target, sizeof target, "no/such/dir/s.txt");
	assert_int_equal(session_save(target, &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, target));

	/* no temporary files left behind in the directory */
	DIR *d = opendir(tmpdir_get());
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strstr(e->d_name, ".tmp."))
			fail_msg("temporary file %s left in %s", e->d_name, tmpdir_get());
	closedir(d);
	mha_weights_free(&w);
}

/* A writer killed mid-save leaves "<path>.tmp.XXXXXX": the next save
 * removes such files once they are over a minute old, and leaves a younger
 * one alone (it may be another process's save in progress). */
static void test_save_removes_stale_temporary_files_only(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	example(&c, &w);
	char path[320], stale[400], fresh[400], other[400], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, "stale.txt");
	snprintf(stale, sizeof stale, "%s.tmp.AAAAAA", path);
	snprintf(fresh, sizeof fresh, "%s.tmp.BBBBBB", path);
	snprintf(other, sizeof other, "%s.tmp.CCCCCCC", path); /* not mkstemp's shape */
	tmpdir_spit(stale, "half", 4);
	tmpdir_spit(fresh, "half", 4);
	tmpdir_spit(other, "keep", 4);
	struct timeval old[2] = { { time(NULL) - 120, 0 }, { time(NULL) - 120, 0 } };
	assert_int_equal(utimes(stale, old), 0);
	assert_int_equal(utimes(other, old), 0);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(fresh, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	unlink(fresh);
	unlink(other);
	mha_weights_free(&w);
}

static void test_default_path_follows_xdg_state_home_then_home(void **state)
{
	(void)state;
	char out[512], msg[MHA_MSG_MAX + 512], want[512];
	char *old_state = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	tmpdir_path(want, sizeof want, "xdg/deep");
	setenv("XDG_STATE_HOME", want, 1);
	assert_int_equal(session_default_path(out, sizeof out, msg, sizeof msg), 0);
	tmpdir_path(want, sizeof want, "xdg/deep/mha-tui/session.txt");
	assert_string_equal(out, want);
	struct stat st;
	tmpdir_path(want, sizeof want, "xdg/deep/mha-tui");
	assert_int_equal(stat(want, &st), 0); /* the directory was created */
	assert_true(S_ISDIR(st.st_mode));

	setenv("XDG_STATE_HOME", "relative/path", 1); /* not absolute: ignored */
	tmpdir_path(want, sizeof want, "home");
	setenv("HOME", want, 1);
	assert_int_equal(session_default_path(out, sizeof out, msg, sizeof msg), 0);
	tmpdir_path(want, sizeof want, "home/.local/state/mha-tui/session.txt");
	assert_string_equal(out, want);

	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(session_default_path(out, sizeof out, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "HOME"));

	if (old_state)
		setenv("XDG_STATE_HOME", old_state, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_state);
	free(old_home);
}

/* A save through a symlink replaces the link's target and leaves the
 * link; the saved file keeps its mode and (as root) its owner. */
static void test_a_save_through_a_symlink_writes_the_target_and_keeps_mode_and_owner(void **state)
{
	(void)state;
	struct mha_config c, back;
	struct mha_weights w, wb;
	example(&c, &w);
	char target[320], link[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(target, sizeof target, "target.txt");
	tmpdir_path(link, sizeof link, "link.txt");
	assert_int_equal(session_save(target, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(chmod(target, 0644), 0);
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(chown(target, 65534, 65534), 0);
	unlink(link);
	assert_int_equal(symlink("target.txt", link), 0); /* relative, as people make them */
	w.x[0] = 0.25f;
	assert_int_equal(session_save(link, &c, &w, msg, sizeof msg), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	if (root)
		assert_int_equal(st.st_uid, 65534);
	assert_int_equal(session_load(target, &back, &wb, msg, sizeof msg), 0);
	assert_true(wb.x[0] == 0.25f);
	mha_weights_free(&wb);
	mha_weights_free(&w);
}

/* A matrix of more than 65,536 values is stored as binary float32
 * (version 2): it reads back bit for bit; a cut file and a NaN among the
 * binary values are refused; a small session stays version 1 text. */
static void test_large_matrices_are_binary_and_read_back_bit_for_bit(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(), back;
	struct mha_weights w, wb;
	c.n = 2; c.d = 300; c.h = 4; c.g = 4; c.dk = 64; /* W_Q 300 x 256: 76,800 values */
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 5);
	mha_weights_default_labels(&w, &c);
	w.wq[7] = -0.0f;
	w.wk[9] = 1.40129846e-45f;
	w.wv[11] = MHA_VALUE_MAX;
	char path[320], msg[MHA_MSG_MAX + 512];
	tmpdir_path(path, sizeof path, "large.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	size_t size;
	char *text = tmpdir_slurp(path, &size);
	assert_memory_equal(text, "mha-tui-session 2\n", 18);
	assert_non_null(strstr(text, "\nW_Q 300 256 f32le\n"));
	assert_non_null(strstr(text, "\nX 2 300\n")); /* small matrices stay text */
	if (session_load(path, &back, &wb, msg, sizeof msg) != 0)
		fail_msg("load: %s", msg);
	expect_same(&c, &w, &back, &wb);
	mha_weights_free(&wb);
	/* cut inside W_Q's values */
	const char *wq = strstr(text, "W_Q 300 256 f32le\n");
	size_t cut = (size_t)(wq - text) + 18 + 1000;
	assert_int_equal(session_parse("cut", text, cut, &back, &wb, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "ends inside"));
	/* a NaN among them */
	float nan = NAN;
	memcpy(text + (wq - text) + 18 + 40, &nan, 4);
	assert_int_equal(session_parse("nan", text, size, &back, &wb, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not a number within"));
	free(text);
	mha_weights_free(&w);
	/* and a small one is version 1, all text */
	example(&c, &w);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	text = tmpdir_slurp(path, &size);
	assert_memory_equal(text, "mha-tui-session 1\n", 18);
	free(text);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_save_then_load_gives_back_every_bit),
		cmocka_unit_test(test_round_trip_holds_for_many_shapes),
		cmocka_unit_test(test_the_wired_start_at_d_model_1024_reads_back),
		cmocka_unit_test(test_truncation_anywhere_is_refused),
		cmocka_unit_test(test_foreign_files_and_other_versions_are_refused),
		cmocka_unit_test(test_damaged_lines_are_refused_with_their_line_number),
		cmocka_unit_test(test_bad_matrix_values_are_refused),
		cmocka_unit_test(test_text_after_end_is_refused),
		cmocka_unit_test(test_crlf_blank_lines_and_comments_are_accepted),
		cmocka_unit_test(test_missing_file_and_directory_are_refused),
		cmocka_unit_test(test_a_save_through_a_symlink_writes_the_target_and_keeps_mode_and_owner),
		cmocka_unit_test(test_large_matrices_are_binary_and_read_back_bit_for_bit),
		cmocka_unit_test(test_save_replaces_atomically_and_cleans_up),
		cmocka_unit_test(test_save_removes_stale_temporary_files_only),
		cmocka_unit_test(test_default_path_follows_xdg_state_home_then_home),
	};
	return cmocka_run_group_tests_name("session", tests, tmpdir_make, tmpdir_remove);
}
