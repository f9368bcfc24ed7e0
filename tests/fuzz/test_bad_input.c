/*
 * test_bad_input.c - bad input of every kind, through the real binary where
 * a person would meet it (flags, session files given to --load) and through
 * the parsers where there are too many cases to start a process for each
 * (every truncation of a session, typed values). The promise checked every
 * time: a clear one-line message naming what was wrong, exit status 1 or 2,
 * no crash, no hang, nothing on stdout, and never NaN or Inf in a dump.
 * The table in doc/RELIABILITY.md lists these cases.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mha.h"
#include "run.h"
#include "session.h"

enum { DEADLINE_MS = 20000 };

static char dir[64]; /* a temporary directory for the files of one test */

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/mha-bad-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	chmod(dir, 0755); /* the unprivileged child of the permission test enters it */
	return 0;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in_dir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* A message a person can read: one line, "mha-tui: ..." and no control
 * characters but its newline. */
static void assert_one_clear_line(const char *err, size_t len)
{
	assert_true(len > 10);
	assert_memory_equal(err, "mha-tui: ", 9);
	assert_int_equal(strcspn(err, "\n"), len - 1);
	for (size_t i = 0; i + 1 < len; i++)
		assert_true((unsigned char)err[i] >= 0x20 && err[i] != 0x7f);
}

/* Run mha-tui with args; it must end within the deadline, by itself, with
 * `code`; a refusal is one clear line naming `says`, nothing on stdout. */
static void expect_run(const char *const args[], int code, const char *says)
{
	const char *argv[16] = { run_mha_tui() };
	int n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	struct run_result r;
	assert_int_equal(run_program(argv, DEADLINE_MS, false, &r), 0);
	if (r.code != code || r.hung || r.signal)
		print_message("args '%s' '%s' '%s': exit %d signal %d hung %d, stderr: %s\n", args[0],
		              args[1] ? args[1] : "", args[1] && args[2] ? args[2] : "", r.code,
		              r.signal, r.hung, r.err);
	assert_false(r.hung);
	assert_int_equal(r.signal, 0);
	assert_int_equal(r.code, code);
	if (code != 0) {
		if (!strstr(r.err, says))
			print_message("expected '%s' in: %s", says, r.err);
		assert_one_clear_line(r.err, r.err_len);
		assert_non_null(strstr(r.err, says));
		assert_int_equal(r.out_len, 0);
	} else {
		assert_int_equal(r.err_len, 0);
		assert_null(strstr(r.out, "null")); /* how the dump would show NaN or Inf */
	}
	run_free(&r);
}

/* ---- flags ---- */

static void test_every_numeric_flag_refuses_garbage_overflow_and_negatives(void **state)
{
	(void)state;
	static const char *const flags[] = { "--tokens", "--d-model", "--heads", "--kv-heads",
	                                     "--d-k", "--top-k", "--seed" };
	static const char *const values[] = {
		"abc", "", "-1", "-2147483649", "2147483648", "4294967297", "99999999999999999999",
		"18446744073709551616", "1e3", "1.5", "0x10", " 5", "5x", "5 ", "\xd9\xa3", "nan", "inf",
	};
	for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
		for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
			/* a seed is any 64-bit number: these two are fine there */
			if (!strcmp(flags[f], "--seed") && (v == 4 || v == 5))
				continue;
			const char *args[] = { "--dump", "json", flags[f], values[v], NULL };
			expect_run(args, 2, flags[f]);
			char joined[64];
			snprintf(joined, sizeof joined, "%s=%s", flags[f], values[v]);
			const char *args_eq[] = { "--dump", "json", joined, NULL };
			expect_run(args_eq, 2, flags[f]);
		}
	}
}

static void test_flags_at_their_limits(void **state)
{
	(void)state;
	const char *zero_heads[] = { "--dump", "json", "--heads", "0", NULL };
	expect_run(zero_heads, 2, "--heads");
	const char *zero_tokens[] = { "--dump", "json", "--tokens", "0", NULL };
	expect_run(zero_tokens, 2, "--tokens");
	const char *tokens_65[] = { "--dump", "json", "--tokens", "65", NULL };
	expect_run(tokens_65, 2, "--tokens");
	const char *d_1025[] = { "--dump", "json", "--d-model", "1025", NULL };
	expect_run(d_1025, 2, "--d-model");
	const char *too_wide[] = { "--dump", "json", "--heads", "64", "--d-k", "1024", NULL };
	expect_run(too_wide, 2, "too wide");
	const char *not_divisor[] = { "--dump", "json", "--heads", "4", "--kv-heads", "3", NULL };
	expect_run(not_divisor, 2, "kv-heads");
	const char *not_divisible[] = { "--dump", "json", "--d-model", "10", "--heads", "4", NULL };
	expect_run(not_divisible, 2, "--d-k");
	const char *top_k_past_n[] = { "--dump", "json", "--tokens", "3", "--top-k", "4", NULL };
	expect_run(top_k_past_n, 2, "top-k");
	const char *max_seed[] = { "--dump", "json", "--tokens", "1", "--d-model", "1", "--heads", "1",
	                           "--seed", "18446744073709551615", NULL };
	expect_run(max_seed, 0, "");
	const char *top_k_zero[] = { "--dump", "json", "--top-k", "0", "--tokens", "2", NULL };
	expect_run(top_k_zero, 0, "");
}

static void test_malformed_command_lines_are_usage_errors(void **state)
{
	(void)state;
	char long_arg[5001];
	memset(long_arg, 'x', sizeof long_arg - 1);
	long_arg[sizeof long_arg - 1] = '\0';
	memcpy(long_arg, "--", 2);
	const char *const cases[][4] = {
		{ "--frobnicate", NULL }, { "-x", NULL }, { "--", NULL }, { "", NULL },
		{ "extra", NULL }, { "--tokens", NULL }, { "--causal=1", NULL },
		{ "--dump", "xml", NULL }, { "--dump", NULL }, { "--load", "f", "--heads", "2" },
		{ "--lesson", "3", "--dump", "json" }, { long_arg, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_run(cases[i], 2, "");
}

/* ---- session files ---- */

/* A small valid session (n 2, d 4, h 2), as saved by the program. */
static void write_session(const char *path, float fill)
{
	struct mha_config c = mha_config_default();
	c.n = 2; c.d = 4; c.h = 2; c.g = 2; c.dk = 2;
	struct mha_weights w;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 3);
	mha_weights_default_labels(&w, &c);
	if (fill != 0.0f) { /* every input at +-fill, signs alternating */
		for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
			struct mha_shape s = mha_tensor_shape(&c, t);
			float *p = mha_tensor_data(&w, NULL, t);
			for (int i = 0; i < s.rows * s.cols; i++)
				p[i] = (i % 3 == 1) ? -fill : fill;
		}
	}
	char msg[512];
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return s;
}

static void write_all(const char *path, const char *s, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* good with the first occurrence of `from` replaced by `to`. */
static void write_edited(const char *path, const char *good, const char *from, const char *to)
{
	const char *at = strstr(good, from);
	if (!at)
		print_message("'%s' not in the session\n", from);
	assert_non_null(at);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(good, 1, (size_t)(at - good), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	assert_int_equal(fclose(f), 0);
}

static void expect_load_refused(const char *path, const char *says)
{
	const char *args[] = { "--dump", "json", "--load", path, NULL };
	expect_run(args, 1, says);
}

static void test_broken_session_files_are_refused_with_file_and_line(void **state)
{
	(void)state;
	char good_path[128], p[128];
	path_in_dir(good_path, sizeof good_path, "good.session");
	write_session(good_path, 0.0f);
	size_t len;
	char *good = read_all(good_path, &len);
	const char *good_args[] = { "--dump", "json", "--load", good_path, NULL };
	expect_run(good_args, 0, "");

	static const struct { const char *name, *from, *to, *says; } edits[] = {
		{ "wrong-version", "mha-tui-session 1", "mha-tui-session 3", "unsupported session version" },
		{ "foreign", "mha-tui-session 1", "{\"json\": true}", "not an mha-tui session" },
		{ "wrong-shape", "W_K 4 4", "W_K 4 3", "W_K 4 4" },
		{ "shape-vs-config", "d_model 4", "d_model 5", ":" },
		{ "nan", "\nX 2 4\n", "\nX 2 4\nnan ", "not a number" },
		{ "minus-inf", "\nX 2 4\n", "\nX 2 4\n-inf ", "not a number" },
		{ "overflow", "\nX 2 4\n", "\nX 2 4\n1e309 ", "too large" },
		{ "beyond-1e6", "\nX 2 4\n", "\nX 2 4\n1e30 ", "too large" },
		{ "too-many-values", "\nW_K 4 4\n", "\nW_K 4 4\n1 ", "more than" },
		{ "bad-config", "heads 2", "heads 0", "heads" },
		{ "huge-int", "tokens 2", "tokens 99999999999999999999999", "tokens" },
		{ "kv-not-divisor", "kv_heads 2", "kv_heads 3", "kv" },
		{ "head-off-range", "heads_off", "heads_off 7", "heads_off" },
		{ "label-control", "labels ", "labels \033[2J", "control character" },
		{ "nul-byte", "tokens 2", "tok\0ens 2", "tok" },
		{ "after-end", "\nend\n", "\nend\nmore\n", "after 'end'" },
		{ "no-end", "\nend\n", "\n", "truncated" },
	};
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		path_in_dir(p, sizeof p, edits[i].name);
		write_edited(p, good, edits[i].from, edits[i].to);
		expect_load_refused(p, edits[i].says);
		expect_load_refused(p, edits[i].name); /* the message names the file */
	}

	path_in_dir(p, sizeof p, "empty");
	write_all(p, "", 0);
	expect_load_refused(p, "empty");
	path_in_dir(p, sizeof p, "half");
	write_all(p, good, len / 2);
	expect_load_refused(p, "half:"); /* file:line, whatever the cut broke */
	path_in_dir(p, sizeof p, "random");
	char noise[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof noise; i++) {
		x = x * 1103515245u + 12345u; /* seeded: the same bytes on every run */
		noise[i] = (char)(x >> 16);
	}
	write_all(p, noise, sizeof noise);
	expect_load_refused(p, "not an mha-tui session");
	path_in_dir(p, sizeof p, "missing");
	expect_load_refused(p, "No such file");
	expect_load_refused(dir, "directory");
	free(good);
}

static void test_crlf_session_loads_like_the_original(void **state)
{
	(void)state;
	char lf[128], crlf[128];
	path_in_dir(lf, sizeof lf, "lf.session");
	path_in_dir(crlf, sizeof crlf, "crlf.session");
	write_session(lf, 0.0f);
	size_t len;
	char *s = read_all(lf, &len);
	FILE *f = fopen(crlf, "wb");
	for (size_t i = 0; i < len; i++)
		fputs(s[i] == '\n' ? "\r\n" : (char[]){ s[i], 0 }, f);
	fclose(f);
	const char *a1[] = { run_mha_tui(), "--dump", "json", "--load", lf, NULL };
	const char *a2[] = { run_mha_tui(), "--dump", "json", "--load", crlf, NULL };
	struct run_result r1, r2;
	assert_int_equal(run_program(a1, DEADLINE_MS, false, &r1), 0);
	assert_int_equal(run_program(a2, DEADLINE_MS, false, &r2), 0);
	assert_int_equal(r1.code, 0);
	assert_int_equal(r2.code, 0);
	assert_string_equal(r1.out, r2.out);
	run_free(&r1);
	run_free(&r2);
	free(s);
}

/* A copy of the program that nobody can run: the build directory may sit
 * below a directory only root can enter (a clone under /root, a 0700
 * mktemp directory). out: "/tmp/mha-nobody-XXXXXX/mha-tui". */
static void copy_for_nobody(char *out, size_t len)
{
	char home[] = "/tmp/mha-nobody-XXXXXX";
	assert_non_null(mkdtemp(home));
	assert_int_equal(chmod(home, 0755), 0);
	snprintf(out, len, "%s/mha-tui", home);
	FILE *in = fopen(run_mha_tui(), "rb"), *to = fopen(out, "wb");
	assert_non_null(in);
	assert_non_null(to);
	char buf[1 << 16];
	for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;)
		assert_int_equal(fwrite(buf, 1, n, to), n);
	fclose(in);
	assert_int_equal(fclose(to), 0);
	assert_int_equal(chmod(out, 0755), 0);
}

static void remove_copy(const char *path)
{
	char home[128];
	snprintf(home, sizeof home, "%s", path);
	unlink(path);
	*strrchr(home, '/') = '\0';
	rmdir(home);
}

static void test_unreadable_session_is_refused(void **state)
{
	(void)state;
	char p[128], bin[128];
	path_in_dir(p, sizeof p, "secret.session");
	write_session(p, 0.0f);
	chmod(p, 0000);
	/* root reads any file: run as nobody then */
	copy_for_nobody(bin, sizeof bin);
	const char *argv[] = { bin, "--dump", "json", "--load", p, NULL };
	struct run_result r;
	assert_int_equal(run_program(argv, DEADLINE_MS, true, &r), 0);
	assert_int_equal(r.code, 1);
	assert_one_clear_line(r.err, r.err_len);
	assert_non_null(strstr(r.err, "Permission denied"));
	run_free(&r);
	remove_copy(bin);
}

/* 100 MB: one endless line where a number should be, and a valid session
 * followed by 100 MB of comments and then junk. Refused, in bounded time. */
static void test_100_mb_session_files_are_refused_in_bounded_time(void **state)
{
	(void)state;
	enum { MB = 1 << 20, TOTAL = 100 };
	char *chunk = malloc(MB);
	assert_non_null(chunk);
	char p[128];
	path_in_dir(p, sizeof p, "huge-line");
	FILE *f = fopen(p, "wb");
	fputs("mha-tui-session 1\ntokens ", f);
	memset(chunk, '9', MB);
	for (int i = 0; i < TOTAL; i++)
		fwrite(chunk, 1, MB, f);
	fclose(f);
	expect_load_refused(p, "huge-line:2:");
	unlink(p);

	path_in_dir(p, sizeof p, "huge-tail");
	write_session(p, 0.0f);
	f = fopen(p, "ab");
	for (size_t i = 0; i < MB; i++) /* 64-byte comment lines */
		chunk[i] = i % 64 == 63 ? '\n' : i % 64 == 0 ? '#' : 'c';
	for (int i = 0; i < TOTAL; i++)
		fwrite(chunk, 1, MB, f);
	fputs("junk\n", f);
	fclose(f);
	expect_load_refused(p, "after 'end'");
	unlink(p);
	free(chunk);
}

/* Every prefix of a valid session but the whole file (and the file less
 * its last newline) is refused with "name:line: message". */
static void test_session_truncated_at_every_byte_is_refused(void **state)
{
	(void)state;
	char p[128];
	path_in_dir(p, sizeof p, "cut.session");
	write_session(p, 0.0f);
	size_t len;
	char *s = read_all(p, &len);
	for (size_t cut = 0; cut + 1 < len; cut++) {
		struct mha_config c;
		struct mha_weights w;
		char msg[1024];
		char *copy = malloc(cut ? cut : 1); /* exact size: a read past the end shows */
		memcpy(copy, s, cut);
		int rc = session_parse("cut", copy, cut, &c, &w, msg, sizeof msg);
		if (rc == 0)
			print_message("prefix of %zu bytes was accepted\n", cut);
		assert_int_equal(rc, -1);
		assert_memory_equal(msg, "cut:", 4);
		free(copy);
	}
	print_message("%zu truncations refused\n", len - 1);
	free(s);
}

/* ---- typed values and extreme values ---- */

static void test_typed_values_are_refused_with_a_reason(void **state)
{
	(void)state;
	char long_text[501];
	memset(long_text, '1', 500);
	long_text[500] = '\0';
	static const char *const bad[] = { "abc", "1e309", "-1e309", "nan", "NaN", "-inf", "inf",
	                                   "", "   ", "1.2.3", "1e30", "-1e30", "1000000.5", "0x10",
	                                   "1,5", "--1", "1e", "e5", ".", "-", "4 2", "\033[2J" };
	for (size_t i = 0; i <= sizeof bad / sizeof bad[0]; i++) {
		const char *text = i < sizeof bad / sizeof bad[0] ? bad[i] : long_text;
		float v = 7.0f;
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_parse_value(text, &v, msg, sizeof msg), MHA_ERANGE);
		assert_true(v == 7.0f);
		assert_true(strlen(msg) > 10);
	}
	static const struct { const char *text; float want; } good[] = {
		{ "1e6", 1e6f }, { "-1e6", -1e6f }, { " 0.5 ", 0.5f }, { "-0", 0.0f }, { "1e-300", 0.0f },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		float v = 7.0f;
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_parse_value(good[i].text, &v, msg, sizeof msg), MHA_OK);
		assert_true(v == good[i].want);
	}
}

static bool all_finite(const struct mha_config *c, const struct mha_weights *w,
                       const struct mha_acts *a)
{
	for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		const float *p = mha_tensor_data(w, a, t);
		for (size_t i = 0; i < (size_t)s.count * (size_t)s.rows * (size_t)s.cols; i++)
			if (!isfinite(p[i]))
				return false;
	}
	return true;
}

/* The largest allowed inputs in the widest allowed shapes, with the scale
 * off: |scores| reaches d * dk * 1e24 ~ 1e30, still finite in float. */
static void test_inputs_at_1e6_never_make_nan_or_inf(void **state)
{
	(void)state;
	static const int shapes[][6] = { /* n, d, h, g, dk, causal */
		{ 2, 1024, 4, 1, 1024, 0 }, { 3, 1024, 1, 1, 1024, 1 }, { 4, 64, 64, 64, 64, 1 },
		{ 64, 16, 4, 2, 4, 0 },
	};
	static const float signs[][2] = { { 1, 1 }, { 1, -1 }, { -1, 1 } };
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		for (size_t sg = 0; sg < sizeof signs / sizeof signs[0]; sg++) {
			struct mha_config c = mha_config_default();
			c.n = shapes[i][0]; c.d = shapes[i][1]; c.h = shapes[i][2]; c.g = shapes[i][3];
			c.dk = shapes[i][4]; c.causal = shapes[i][5]; c.scale = false;
			struct mha_weights w;
			struct mha_acts a;
			assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
			assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
			for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
				struct mha_shape s = mha_tensor_shape(&c, t);
				float *p = mha_tensor_data(&w, NULL, t);
				/* X at +1e6; weights signed so that Q and K grow apart */
				float v = t == MHA_T_X ? MHA_VALUE_MAX : signs[sg][t == MHA_T_WK] * MHA_VALUE_MAX;
				for (int k = 0; k < s.rows * s.cols; k++)
					p[k] = v;
			}
			mha_forward(&c, &w, &a);
			if (!all_finite(&c, &w, &a))
				print_message("shape %zu signs %zu: not finite\n", i, sg);
			assert_true(all_finite(&c, &w, &a));
			mha_acts_free(&a);
			mha_weights_free(&w);
		}
	}
}

static void test_dump_of_1e6_session_has_no_nan_or_inf(void **state)
{
	(void)state;
	char p[128];
	path_in_dir(p, sizeof p, "big.session");
	write_session(p, MHA_VALUE_MAX);
	const char *argv[] = { run_mha_tui(), "--dump", "json", "--load", p, NULL };
	struct run_result r;
	assert_int_equal(run_program(argv, DEADLINE_MS, false, &r), 0);
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "1000000"));
	assert_null(strstr(r.out, "null"));
	assert_null(strstr(r.out, "nan"));
	assert_null(strstr(r.out, "inf"));
	run_free(&r);
}

/* --help, --version, --check-lessons: output that cannot be written
 * (a full disk, a closed stdout) is an error, said on stderr. */
static void test_a_failed_write_to_stdout_exits_1(void **state)
{
	(void)state;
	static const char *const args[] = { "--help", "--version", "--check-lessons" };
	static const char *const outs[] = { ">/dev/full", ">&-" };
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
			char cmd[512];
			snprintf(cmd, sizeof cmd, "\"$MHA_TUI\" %s 2>&1 %s | grep -q 'cannot write to standard output'",
			         args[i], outs[k]); /* stderr to the pipe first, then stdout away */
			/* the grep saw the message; the status: run again for it */
			int said = system(cmd);
			snprintf(cmd, sizeof cmd, "\"$MHA_TUI\" %s %s 2>/dev/null", args[i], outs[k]);
			int st = system(cmd);
			if (said != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 1)
				print_message("%s %s: message %d, status %#x\n", args[i], outs[k], said, st);
			assert_int_equal(said, 0);
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_failed_write_to_stdout_exits_1),
		cmocka_unit_test(test_every_numeric_flag_refuses_garbage_overflow_and_negatives),
		cmocka_unit_test(test_flags_at_their_limits),
		cmocka_unit_test(test_malformed_command_lines_are_usage_errors),
		cmocka_unit_test_setup_teardown(test_broken_session_files_are_refused_with_file_and_line,
		                                make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_crlf_session_loads_like_the_original, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_unreadable_session_is_refused, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_100_mb_session_files_are_refused_in_bounded_time,
		                                make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_session_truncated_at_every_byte_is_refused,
		                                make_dir, remove_dir),
		cmocka_unit_test(test_typed_values_are_refused_with_a_reason),
		cmocka_unit_test(test_inputs_at_1e6_never_make_nan_or_inf),
		cmocka_unit_test_setup_teardown(test_dump_of_1e6_session_has_no_nan_or_inf, make_dir, remove_dir),
	};
	return cmocka_run_group_tests_name("bad input", tests, NULL, NULL);
}
