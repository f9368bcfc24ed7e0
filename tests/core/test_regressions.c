/*
 * test_regressions.c - each test pins a bug the core suite once found
 * (session lines, labels, JSON validity, key uniqueness, CLI white space,
 * devices), with the behaviour expected since the fix. Works in a
 * temporary directory only.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "dump.h"
#include "mha.h"
#include "session.h"
#include "tmpdir.h"

/* doc/SESSION.md's example: n 3, d 4, h 2, g 1, dk 2. Line numbers:
 * 1 magic, 2 tokens, 3 d_model, 4 heads, 5 kv_heads, 6 d_k, 7 causal,
 * 8 top_k, 9 scale, 10 seed, 11 heads_off, 12 labels, 13 X ... */
static const char example[] =
	"mha-tui-session 1\n"
	"tokens 3\nd_model 4\nheads 2\nkv_heads 1\nd_k 2\ncausal 1\ntop_k 0\nscale 1\nseed 7\n"
	"heads_off 1\nlabels the cat sat\n"
	"X 3 4\n0.5 -1 0.25 0\n1 0 -0.5 2\n-1.5 0.75 1 -0.25\n"
	"W_Q 4 4\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
	"W_K 4 2\n0.5 0\n0 0.5\n1 0\n0 1\n"
	"W_V 4 2\n1 2\n3 4\n-1 0\n0 -1\n"
	"W_O 4 4\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
	"end\n";

/* Parse `text` with line `line` replaced by `with`; return the message. */
static int parse_with(int line, const char *with, char *msg, size_t len)
{
	char text[sizeof example + 256];
	const char *p = example;
	size_t out = 0;
	for (int l = 1; *p; l++) {
		const char *nl = strchr(p, '\n');
		size_t n = (size_t)(nl - p) + 1;
		if (l == line)
			out += (size_t)snprintf(text + out, sizeof text - out, "%s\n", with);
		else {
			memcpy(text + out, p, n);
			out += n;
		}
		p += n;
	}
	struct mha_config c;
	struct mha_weights w;
	int rc = session_parse("s.txt", text, out, &c, &w, msg, len);
	if (rc == 0)
		mha_weights_free(&w);
	return rc;
}

/* Bug 1, fixed (src/store/session_read.c, read_session / session_load): an empty
 * file is reported at line 0, which does not exist: "s.txt:0: empty
 * file". session_parse says ":1:" for the same input. */
static void test_empty_session_file_is_reported_at_line_1(void **state)
{
	(void)state;
	char path[320], msg[512];
	tmpdir_path(path, sizeof path, "empty.txt");
	tmpdir_spit(path, "", 0);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), -1);
	char want[400];
	snprintf(want, sizeof want, "%s:1: ", path);
	if (strncmp(msg, want, strlen(want)) != 0)
		fail_msg("got '%s', want it to start '%s'", msg, want);
}

/* Bug 2, fixed (src/store/session_read.c, read_config): rules across fields are
 * checked only after the seed line, so the message names the seed's
 * line (10) instead of the line of the field in error. */
static void test_cross_field_errors_name_the_fields_line(void **state)
{
	(void)state;
	char msg[512];
	/* kv_heads 3 with heads 2: line 5 */
	assert_int_equal(parse_with(5, "kv_heads 3", msg, sizeof msg), -1);
	if (strncmp(msg, "s.txt:5: ", 9) != 0)
		fail_msg("kv_heads 3: got '%s', want 's.txt:5: ...'", msg);
	/* top_k 4 with 3 tokens: line 8 */
	assert_int_equal(parse_with(8, "top_k 4", msg, sizeof msg), -1);
	if (strncmp(msg, "s.txt:8: ", 9) != 0)
		fail_msg("top_k 4: got '%s', want 's.txt:8: ...'", msg);
}

/* Bug 3, fixed (src/store/session_write.c, write_session): labels are written as
 * they are, so a label that is empty or holds a space (the TUI can set
 * any label) gives a file that session_load refuses: the session the
 * program just saved cannot be opened again. Expected: save refuses such
 * labels, or writes them in a form load reads back (the round trip holds). */
static void test_labels_with_spaces_or_empty_survive_save_and_load(void **state)
{
	(void)state;
	static const char *labels[] = { "", "New York", "a\tb" };
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		struct mha_config c = mha_config_default(), back;
		c.n = 2; c.d = 2; c.h = 1; c.g = 1; c.dk = 2;
		struct mha_weights w, wb;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, 1);
		snprintf(w.labels[0], MHA_LABEL_MAX, "%s", labels[i]);
		snprintf(w.labels[1], MHA_LABEL_MAX, "ok");
		char path[320], msg[512];
		tmpdir_path(path, sizeof path, "labels.txt");
		int saved = session_save(path, &c, &w, msg, sizeof msg);
		if (saved == 0) {
			if (session_load(path, &back, &wb, msg, sizeof msg) != 0)
				fail_msg("label '%s': saved, but the file is refused: %s", labels[i], msg);
			assert_string_equal(wb.labels[0], labels[i]);
			mha_weights_free(&wb);
		}
		mha_weights_free(&w);
	}
}

/* Bug 4, fixed (src/dump.c, put_string): label bytes >= 0x80 are copied as they
 * are, so a session label in Latin-1 ("caf\xe9", which session_load
 * accepts) makes --dump json print invalid UTF-8, i.e. invalid JSON
 * (RFC 8259 section 8.1). Expected: load refuses invalid UTF-8 labels, or
 * the dump escapes / replaces the bytes. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (len == 0 || i + len > n)
			return false;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

static void test_dump_is_valid_utf8_whatever_the_labels(void **state)
{
	(void)state;
	char text[sizeof example + 16], msg[512];
	const char *at = strstr(example, "labels the cat sat");
	size_t head = (size_t)(at - example);
	memcpy(text, example, head);
	size_t len = head + (size_t)sprintf(text + head, "labels the caf\xe9 sat\n");
	const char *rest = strchr(at, '\n') + 1;
	memcpy(text + len, rest, strlen(rest));
	len += strlen(rest);
	struct mha_config c;
	struct mha_weights w;
	if (session_parse("s.txt", text, len, &c, &w, msg, sizeof msg) != 0)
		return; /* refusing the label is a fix too */
	struct mha_stack s;
	assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
	mha_stack_forward(&c, &w, &s);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	assert_non_null(f);
	assert_int_equal(dump_json(f, &c, &w, &s), 0);
	fclose(f);
	bool ok = valid_utf8((const unsigned char *)buf, size);
	free(buf);
	mha_stack_free(&s);
	mha_weights_free(&w);
	if (!ok)
		fail_msg("the dump of a session with label 'caf\\xe9' is not valid UTF-8, so not JSON");
}

/* Bug 5, fixed (src/core/tensor.c, table): MHA_T_HEADS and MHA_T_Y both have
 * the key "output" (the dump's Y is "output" at top level, each head's O
 * is "output" in its object). The table is what the dump, the TUI and the
 * lessons walk; one key must name one tensor. */
static void test_every_tensor_has_its_own_key(void **state)
{
	(void)state;
	for (enum mha_tensor a = MHA_T_X; a < MHA_T_COUNT; a++)
		for (enum mha_tensor b = MHA_T_X; b < a; b++)
			if (strcmp(mha_tensor_info(a)->key, mha_tensor_info(b)->key) == 0)
				fail_msg("%s and %s share the key '%s'", mha_tensor_info(b)->name,
				         mha_tensor_info(a)->name, mha_tensor_info(a)->key);
}

/* Bug 6, fixed (src/cli.c, parse_int): only a leading ' ' is refused, but
 * strtol skips any white space, so "--tokens $'\t3'" and "--tokens
 * $'\n3'" are taken as 3 while "--tokens ' 3'" is refused. */
static void test_numbers_with_leading_white_space_are_refused(void **state)
{
	(void)state;
	static const char *values[] = { "\t3", "\n3", "\v3" };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char a0[] = "mha-tui", a1[] = "--tokens", a2[8];
		snprintf(a2, sizeof a2, "%s", values[i]);
		char *argv[] = { a0, a1, a2, NULL };
		struct cli cl;
		char msg[256];
		if (cli_parse(3, argv, &cl, msg, sizeof msg) != 2)
			fail_msg("--tokens with white space byte 0x%02x before 3 was accepted",
			         (unsigned char)values[i][0]);
	}
}

/* Bug 7, fixed (src/store/session_read.c, read_int / read_matrix header): trailing
 * spaces (common after hand edits) are refused on "tokens 3 " with a
 * misleading "must be a whole number in 1..64" and on "X 3 4 ", while
 * matrix rows and heads_off accept them. Expected: accepted everywhere,
 * as leading white space and blank lines already are. */
static void test_trailing_spaces_are_accepted_on_every_line(void **state)
{
	(void)state;
	char msg[512];
	if (parse_with(2, "tokens 3 ", msg, sizeof msg) != 0)
		fail_msg("'tokens 3 ': %s", msg);
	if (parse_with(13, "X 3 4 ", msg, sizeof msg) != 0)
		fail_msg("'X 3 4 ': %s", msg);
	if (parse_with(14, "0.5 -1 0.25 0  ", msg, sizeof msg) != 0)
		fail_msg("row with trailing spaces: %s", msg);
}

/* Bug 8, fixed (src/store/session_read.c, session_load / next_line): a device or a
 * file with no newline is read by getline without a bound: --load
 * /dev/zero eats memory until malloc fails, and then the failure is
 * reported as "empty file" at line 0. Expected: refuse what is not a
 * regular file (and cap a line's length) with a message that says so.
 * Run in a child limited to 512 MiB and 20 s. */
static void test_loading_a_device_is_refused_without_reading_it_all(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		struct rlimit lim = { 512u << 20, 512u << 20 };
		setrlimit(RLIMIT_AS, &lim);
		alarm(20);
		struct mha_config c;
		struct mha_weights w;
		char msg[512] = "";
		int rc = session_load("/dev/zero", &c, &w, msg, sizeof msg);
		ssize_t wr = write(fds[1], msg, strlen(msg));
		(void)wr;
		_exit(rc == -1 ? 0 : 1);
	}
	close(fds[1]);
	char msg[512] = "";
	ssize_t got = read(fds[0], msg, sizeof msg - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("session_load(\"/dev/zero\") did not return -1 (status 0x%x)", status);
	if (strstr(msg, ":0:") || strstr(msg, "empty file"))
		fail_msg("/dev/zero reported as '%s'", msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_session_file_is_reported_at_line_1),
		cmocka_unit_test(test_cross_field_errors_name_the_fields_line),
		cmocka_unit_test(test_labels_with_spaces_or_empty_survive_save_and_load),
		cmocka_unit_test(test_dump_is_valid_utf8_whatever_the_labels),
		cmocka_unit_test(test_every_tensor_has_its_own_key),
		cmocka_unit_test(test_numbers_with_leading_white_space_are_refused),
		cmocka_unit_test(test_trailing_spaces_are_accepted_on_every_line),
		cmocka_unit_test(test_loading_a_device_is_refused_without_reading_it_all),
	};
	return cmocka_run_group_tests_name("regressions", tests, tmpdir_make, tmpdir_remove);
}
