/*
 * test_cli.c - cli_parse on every accepted form and every usage error:
 * an error returns 2 with one line naming the flag; nothing is printed.
 * The real binary's exit codes and stderr are checked by test_cli.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

enum { MAX_ARGS = 16, ARG_MAX = 128 };

/* argv for one call: copies of the given strings, kept until the next
 * call (struct cli points into them). */
static char pool[MAX_ARGS][ARG_MAX];
static char *argv_pool[MAX_ARGS + 1];

static int parse_list(const char *const *args, struct cli *out, char *msg, size_t len)
{
	int argc = 0;
	snprintf(pool[argc], ARG_MAX, "mha-tui");
	argv_pool[argc] = pool[argc];
	argc++;
	for (; args[argc - 1]; argc++) {
		assert_true(argc < MAX_ARGS);
		snprintf(pool[argc], ARG_MAX, "%s", args[argc - 1]);
		argv_pool[argc] = pool[argc];
	}
	argv_pool[argc] = NULL;
	return cli_parse(argc, argv_pool, out, msg, len);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect_ok(const char *const *args, struct cli *out)
{
	char msg[512] = "";
	int rc = parse_list(args, out, msg, sizeof msg);
	if (rc != 0)
		fail_msg("'%s ...' refused (%d): %s", args[0] ? args[0] : "", rc, msg);
}

/* Returns 2, one line, naming `flag` (and `also`, when given). */
static void expect_usage_error(const char *const *args, const char *flag, const char *also)
{
	struct cli out;
	char msg[512] = "";
	int rc = parse_list(args, &out, msg, sizeof msg);
	char line[256] = "";
	for (size_t i = 0; args[i]; i++) {
		strncat(line, args[i], sizeof line - strlen(line) - 2);
		strncat(line, " ", sizeof line - strlen(line) - 1);
	}
	if (rc != 2)
		fail_msg("'%s' returned %d, want 2 (msg '%s')", line, rc, msg);
	if (!msg[0] || strchr(msg, '\n'))
		fail_msg("'%s': message '%s' is not one line", line, msg);
	if (!strstr(msg, flag) || (also && !strstr(msg, also)))
		fail_msg("'%s': message '%s' does not name %s%s%s", line, msg, flag,
		         also ? " and " : "", also ? also : "");
}

static void test_no_arguments_open_the_workbench_with_defaults(void **state)
{
	(void)state;
	struct cli cl;
	char msg[64];
	char *argv[] = { pool[0], NULL };
	snprintf(pool[0], ARG_MAX, "mha-tui");
	assert_int_equal(cli_parse(1, argv, &cl, msg, sizeof msg), 0);
	assert_int_equal(cl.mode, CLI_TUI);
	assert_false(cl.config_given);
	assert_null(cl.load);
	assert_null(cl.lesson);
	assert_int_equal(cl.cfg.n, 6);
	assert_int_equal(cl.cfg.d, 16);
	assert_int_equal(cl.cfg.h, 4);
	assert_int_equal(cl.cfg.g, 4);
	assert_int_equal(cl.cfg.dk, 4);
	assert_true(cl.cfg.scale);
	assert_true(cl.cfg.seed == MHA_SEED_WIRED);
}

static void test_configuration_flags_fill_the_config(void **state)
{
	(void)state;
	struct cli cl;
	expect_ok(ARGS("--tokens", "3", "--d-model", "8", "--heads", "2"), &cl);
	assert_int_equal(cl.cfg.n, 3);
	assert_int_equal(cl.cfg.d, 8);
	assert_int_equal(cl.cfg.h, 2);
	assert_int_equal(cl.cfg.g, 2);  /* default g = h */
	assert_int_equal(cl.cfg.dk, 4); /* default dk = d / h */
	assert_true(cl.config_given);

	expect_ok(ARGS("--d-model=10", "--heads=3", "--d-k=4", "--kv-heads=1", "--tokens=64"), &cl);
	assert_int_equal(cl.cfg.d, 10);
	assert_int_equal(cl.cfg.h, 3);
	assert_int_equal(cl.cfg.dk, 4);
	assert_int_equal(cl.cfg.g, 1);
	assert_int_equal(cl.cfg.n, 64);

	expect_ok(ARGS("--causal", "--top-k", "6", "--no-scale", "--seed", "18446744073709551615"), &cl);
	assert_true(cl.cfg.causal);
	assert_int_equal(cl.cfg.top_k, 6);
	assert_false(cl.cfg.scale);
	assert_true(cl.cfg.seed == UINT64_MAX);

	expect_ok(ARGS("--seed", "0", "--top-k", "0"), &cl);
	assert_true(cl.cfg.seed == 0);
	assert_int_equal(cl.cfg.top_k, 0);

	expect_ok(ARGS("--d-model", "1024", "--heads", "64"), &cl); /* dk 16 */
	assert_int_equal(cl.cfg.dk, 16);
	expect_ok(ARGS("--heads", "4", "--d-k", "1024"), &cl);      /* 4 x 1024 = 4096 */
	assert_int_equal(cl.cfg.dk, 1024);
	expect_ok(ARGS("--tokens", "3", "--top-k", "3"), &cl);
	assert_int_equal(cl.cfg.top_k, 3);
}

static void test_modes_and_other_options_are_recognised(void **state)
{
	(void)state;
	struct cli cl;
	expect_ok(ARGS("--dump", "json"), &cl);
	assert_int_equal(cl.mode, CLI_DUMP);
	expect_ok(ARGS("--dump=json", "--heads", "2"), &cl);
	assert_int_equal(cl.mode, CLI_DUMP);
	assert_int_equal(cl.cfg.h, 2);
	expect_ok(ARGS("--dump", "json", "--load", "s.txt"), &cl);
	assert_int_equal(cl.mode, CLI_DUMP);
	assert_string_equal(cl.load, "s.txt");
	assert_false(cl.config_given);
	assert_ptr_equal(cl.load, argv_pool[4]); /* referenced, not copied */
	expect_ok(ARGS("--load", "x"), &cl);
	assert_int_equal(cl.mode, CLI_TUI);
	expect_ok(ARGS("--help"), &cl);
	assert_int_equal(cl.mode, CLI_HELP);
	expect_ok(ARGS("--version"), &cl);
	assert_int_equal(cl.mode, CLI_VERSION);
	expect_ok(ARGS("--tokens", "3", "--help"), &cl);
	assert_int_equal(cl.mode, CLI_HELP);
	expect_ok(ARGS("--check-lessons"), &cl);
	assert_int_equal(cl.mode, CLI_CHECK_LESSONS);
	assert_null(cl.check_dir);
	expect_ok(ARGS("--circuits", "m.model"), &cl);
	assert_int_equal(cl.mode, CLI_CIRCUITS);
	assert_string_equal(cl.circuits.model, "m.model");
	assert_false(cl.circuits.json);
	assert_int_equal(cl.circuits.position, -1);
	expect_ok(ARGS("--json", "--position", "7", "--circuits=m"), &cl);
	assert_int_equal(cl.mode, CLI_CIRCUITS);
	assert_true(cl.circuits.json);
	assert_int_equal(cl.circuits.position, 7);
	expect_ok(ARGS("--check-lessons", "lessons"), &cl);
	assert_string_equal(cl.check_dir, "lessons");
	expect_ok(ARGS("--check-lessons=dir", "--no-color"), &cl);
	assert_string_equal(cl.check_dir, "dir");
	assert_true(cl.no_color);
	expect_ok(ARGS("--check-lessons", "--no-color"), &cl);
	assert_null(cl.check_dir);
	assert_false(cl.no_mouse);
	expect_ok(ARGS("--no-mouse"), &cl);
	assert_true(cl.no_mouse);
	expect_ok(ARGS("--lesson", "3", "--lessons-dir", "/tmp"), &cl);
	assert_string_equal(cl.lesson, "3");
	assert_string_equal(cl.lessons_dir, "/tmp");
}

static void test_unknown_or_stray_arguments_are_usage_errors(void **state)
{
	(void)state;
	expect_usage_error(ARGS("--bogus"), "--bogus", NULL);
	expect_usage_error(ARGS("--bogus=3"), "--bogus", NULL);
	expect_usage_error(ARGS("--token", "3"), "--token", NULL);
	expect_usage_error(ARGS("--tokensx", "3"), "--tokensx", NULL);
	expect_usage_error(ARGS("-t"), "-t", NULL);
	expect_usage_error(ARGS("-h"), "-h", NULL);
	expect_usage_error(ARGS("tokens"), "tokens", NULL);
	expect_usage_error(ARGS("--"), "--", NULL);
	expect_usage_error(ARGS("--tokens", "3", "4"), "'4'", NULL);
	expect_usage_error(ARGS("--causal=1"), "--causal", NULL);
	expect_usage_error(ARGS("--no-scale=yes"), "--no-scale", NULL);
	expect_usage_error(ARGS("--help=1"), "--help", NULL);
	expect_usage_error(ARGS("--dump", "xml"), "--dump", "json");
	expect_usage_error(ARGS("--dump", "JSON"), "--dump", NULL);
	expect_usage_error(ARGS("--dump="), "--dump", NULL);
}

static void test_every_value_flag_needs_its_value(void **state)
{
	(void)state;
	static const char *flags[] = {
		"--tokens", "--d-model", "--heads", "--kv-heads", "--d-k", "--top-k", "--seed",
		"--load", "--lesson", "--lessons-dir", "--dump",
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		expect_usage_error(ARGS(flags[i]), flags[i], NULL);
	expect_usage_error(ARGS("--causal", "--tokens"), "--tokens", NULL);
}

static void test_garbage_numbers_are_usage_errors(void **state)
{
	(void)state;
	static const char *flags[] = { "--tokens", "--d-model", "--heads", "--kv-heads", "--d-k", "--top-k", "--seed" };
	static const char *garbage[] = { "abc", "3x", "", " 3", "3 ", "3.5", "0x10", "1e2", "--3", "three" };
	for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
		for (size_t g = 0; g < sizeof garbage / sizeof garbage[0]; g++)
			expect_usage_error(ARGS(flags[f], garbage[g]), flags[f], NULL);
	expect_usage_error(ARGS("--tokens="), "--tokens", NULL);
}

static void test_out_of_range_numbers_are_usage_errors(void **state)
{
	(void)state;
	expect_usage_error(ARGS("--tokens", "0"), "--tokens", "1..64");
	expect_usage_error(ARGS("--tokens", "65"), "--tokens", "1..64");
	expect_usage_error(ARGS("--tokens", "-1"), "--tokens", NULL);
	expect_usage_error(ARGS("--tokens", "99999999999999999999"), "--tokens", NULL);
	expect_usage_error(ARGS("--tokens", "-99999999999999999999"), "--tokens", NULL);
	expect_usage_error(ARGS("--tokens", "4294967297"), "--tokens", NULL); /* 2^32 + 1 */
	expect_usage_error(ARGS("--d-model", "0"), "--d-model", "1..1024");
	expect_usage_error(ARGS("--d-model", "1025"), "--d-model", NULL);
	expect_usage_error(ARGS("--heads", "0"), "--heads", NULL);
	expect_usage_error(ARGS("--heads", "65"), "--heads", NULL);
	expect_usage_error(ARGS("--heads", "-2"), "--heads", NULL);
	expect_usage_error(ARGS("--kv-heads", "0"), "--kv-heads", NULL);
	expect_usage_error(ARGS("--kv-heads", "65"), "--kv-heads", NULL);
	expect_usage_error(ARGS("--d-k", "0"), "--d-k", NULL);
	expect_usage_error(ARGS("--d-k", "1025"), "--d-k", NULL);
	expect_usage_error(ARGS("--top-k", "-1"), "--top-k", NULL);
	expect_usage_error(ARGS("--top-k", "65"), "--top-k", NULL);
	expect_usage_error(ARGS("--seed", "-1"), "--seed", NULL);
	expect_usage_error(ARGS("--seed", "18446744073709551616"), "--seed", NULL);
	expect_usage_error(ARGS("--seed", "99999999999999999999999"), "--seed", NULL);
}

static void test_inconsistent_configurations_are_usage_errors(void **state)
{
	(void)state;
	/* d_model not divisible by h without --d-k: names both, suggests --d-k */
	expect_usage_error(ARGS("--d-model", "10", "--heads", "3"), "--d-model", "--d-k");
	expect_usage_error(ARGS("--heads", "3"), "--heads", "--d-k"); /* default d_model 16 */
	expect_usage_error(ARGS("--heads", "4", "--kv-heads", "3"), "--kv-heads", "3");
	expect_usage_error(ARGS("--heads", "6", "--kv-heads", "4", "--d-model", "12"), "--kv-heads", NULL);
	expect_usage_error(ARGS("--heads", "2", "--kv-heads", "4", "--d-model", "8"), "--kv-heads", NULL);
	expect_usage_error(ARGS("--kv-heads", "8"), "--kv-heads", NULL); /* default h 4 */
	expect_usage_error(ARGS("--top-k", "7"), "--top-k", "7");        /* default n 6 */
	expect_usage_error(ARGS("--tokens", "3", "--top-k", "4"), "--top-k", NULL);
	expect_usage_error(ARGS("--heads", "64", "--d-k", "65"), "--heads", "4096");
	expect_usage_error(ARGS("--heads", "8", "--d-k", "1024"), "--heads", NULL);
}

static void test_load_and_lesson_exclude_other_flags(void **state)
{
	(void)state;
	expect_usage_error(ARGS("--load", "s.txt", "--tokens", "3"), "--load", NULL);
	expect_usage_error(ARGS("--tokens", "3", "--load", "s.txt"), "--load", NULL);
	expect_usage_error(ARGS("--load", "s.txt", "--seed", "3"), "--load", NULL);
	expect_usage_error(ARGS("--load", "s.txt", "--causal"), "--load", NULL);
	expect_usage_error(ARGS("--load", "s.txt", "--no-scale"), "--load", NULL);
	expect_usage_error(ARGS("--dump", "json", "--load", "s.txt", "--heads", "2"), "--load", NULL);
	expect_usage_error(ARGS("--lesson", "2", "--load", "s.txt"), "--lesson", NULL);
	expect_usage_error(ARGS("--lesson", "2", "--dump", "json"), "--lesson", NULL);
}

/* A short buffer truncates the message; it never overflows. */
static void test_short_message_buffers_are_not_overrun(void **state)
{
	(void)state;
	struct cli cl;
	char buf[24];
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(parse_list(ARGS("--d-model", "10", "--heads", "3"), &cl, buf, 8), 2);
	assert_int_equal(strlen(buf), 7);
	for (size_t i = 8; i < sizeof buf; i++)
		assert_int_equal(buf[i], 'Z');
}

static void test_usage_text_lists_every_flag(void **state)
{
	(void)state;
	static const char *flags[] = {
		"--tokens", "--d-model", "--heads", "--kv-heads", "--d-k", "--causal", "--top-k",
		"--no-scale", "--seed", "--load", "--lesson", "--lessons-dir", "--dump json",
		"--check-lessons", "--no-color", "--no-mouse", "--help", "--version",
		"--circuits", "--json", "--position",
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (!strstr(cli_usage, flags[i]))
			fail_msg("--help does not mention %s", flags[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_arguments_open_the_workbench_with_defaults),
		cmocka_unit_test(test_configuration_flags_fill_the_config),
		cmocka_unit_test(test_modes_and_other_options_are_recognised),
		cmocka_unit_test(test_unknown_or_stray_arguments_are_usage_errors),
		cmocka_unit_test(test_every_value_flag_needs_its_value),
		cmocka_unit_test(test_garbage_numbers_are_usage_errors),
		cmocka_unit_test(test_out_of_range_numbers_are_usage_errors),
		cmocka_unit_test(test_inconsistent_configurations_are_usage_errors),
		cmocka_unit_test(test_load_and_lesson_exclude_other_flags),
		cmocka_unit_test(test_short_message_buffers_are_not_overrun),
		cmocka_unit_test(test_usage_text_lists_every_flag),
	};
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
