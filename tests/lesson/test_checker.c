/*
 * test_checker.c - mha-tui --check-lessons: the shipped curriculum passes
 * (at least 13 lessons and 25 exercises); each rule the checker adds to the
 * parser catches what it should (a cell in an old notation among them);
 * lessons are found in the documented order and a failure lists every
 * place tried.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "checker.h"
#include "lesson_int.h"
#include "lesson_test.h"

static const char *shipped(void)
{
	const char *dir = getenv("MHA_TUI_LESSONS");
	assert_non_null(dir); /* set by tests/meson.build */
	return dir;
}

static void test_the_shipped_lessons_pass_the_checker(void **state)
{
	(void)state;
	struct lesson_set set;
	struct lesson_errors errs = { 0 };
	struct lesson_check_stats st;
	lesson_set_load(&set, shipped(), &errs);
	lesson_check_set(&set, &errs, &st);
	for (int i = 0; i < errs.count; i++)
		print_error("%s\n", errs.msg[i]);
	assert_int_equal(errs.count, 0);
	assert_true(st.lessons >= 13);
	assert_true(st.exercises >= 25);
	for (int i = 0; i < set.count; i++) /* numbered 1..N in order */
		assert_int_equal(set.lessons[i].number, i + 1);
	assert_non_null(lesson_set_find(&set, "7"));
	assert_string_equal(lesson_set_find(&set, "several-heads")->title, "Why several heads");
	assert_ptr_equal(lesson_set_find(&set, "07-several-heads"), lesson_set_find(&set, "7"));
	assert_null(lesson_set_find(&set, "99"));
	assert_null(lesson_set_find(&set, "no-such-lesson"));
	lesson_set_free(&set);
	lesson_errors_free(&errs);
}

static void test_the_command_prints_one_summary_line(void **state)
{
	(void)state;
	FILE *out = tmpfile(), *err = tmpfile();
	assert_int_equal(lesson_check_command(shipped(), NULL, out, err), 0);
	char line[256] = "";
	rewind(out);
	assert_non_null(fgets(line, sizeof line, out));
	int lessons, steps, exercises, used = 0;
	assert_int_equal(sscanf(line, "%d lessons, %d steps, %d exercises: ok\n%n", &lessons, &steps,
	                        &exercises, &used), 3);
	assert_int_equal((size_t)used, strlen(line));
	assert_true(lessons >= 13 && exercises >= 25 && steps > exercises);
	assert_int_equal(ftell(err), 0);
	fclose(out);
	fclose(err);
}

/* Check one lesson given as text; the errors come back in errs. */
static int check_text(const char *text, struct lesson_errors *errs)
{
	struct lesson l;
	struct lesson_check_stats st;
	assert_int_equal(test_parse(text, &l, errs), 0);
	struct lesson_set set = { &l, 1, NULL, NULL };
	int rc = lesson_check_set(&set, errs, &st);
	lesson_free(&l);
	return rc;
}

static void expect_check_error(const char *text, const char *want)
{
	struct lesson_errors errs = { 0 };
	assert_int_equal(check_text(text, &errs), -1);
	bool found = false;
	for (int i = 0; i < errs.count; i++) {
		found |= strstr(errs.msg[i], want) != NULL;
		if (!found)
			print_error("got: %s\n", errs.msg[i]);
	}
	if (!found)
		print_error("wanted: %s\n", want);
	assert_true(found);
	lesson_errors_free(&errs);
}

#define HEAD "mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n@config tokens=2 d_model=2 heads=1\n"

static void test_a_goal_met_before_any_edit_is_an_error(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\n@goal heads = 1\n@hint h\n@solution heads = 1\n",
	                   "t.lesson:7: step 's': the goal already holds before the learner does "
	                   "anything (Goal met: heads = 1)");
}

static void test_a_solution_that_misses_the_goal_is_an_error(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\n@goal heads = 2\n@hint h\n@solution W^Q[0,0] = 1\n",
	                   "t.lesson:7: step 's': the goal does not hold after the solution "
	                   "(Not yet: heads = 1, want = 2)");
}

static void test_a_solution_that_cannot_apply_is_an_error(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\n@goal heads = 2\n@hint h\n@solution heads = 2\n"
	                   "@solution kv_heads = 3\n",
	                   "t.lesson:9: step 's': the solution cannot be applied: kv-heads 3");
}

static void test_an_exercise_needs_a_hint_and_a_solution(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\n@goal heads = 2\n@solution heads = 2\n",
	                   "t.lesson:6: step 's': an exercise needs at least one @hint");
	expect_check_error(HEAD "@step s\n@goal heads = 2\n@hint h\n",
	                   "t.lesson:6: step 's': an exercise needs a @solution");
}

static void test_unknown_key_placeholders_are_errors(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\nPress {key:hnit} now.\n",
	                   "t.lesson:6: step 's': unknown key {key:hnit}: did you mean {key:hint}?");
}

/* Every wrong choice says why it is wrong; a @feedback line names a wrong
 * choice, or a wrong number. */
static void test_a_wrong_choice_without_feedback_is_an_error(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\n@question Q?\n@choice a x\n@choice b y\n@choice c z\n@answer a\n"
	                   "@feedback b not y\n@hint h\n",
	                   "t.lesson:7: step 's': wrong choice 'c' needs a @feedback c line saying why it is wrong");
	test_parse_fails_with(HEAD "@step s\n@question Q?\n@choice a x\n@choice b y\n@answer a\n"
	                      "@feedback d no\n@hint h\n",
	                      "t.lesson:11: @feedback 'd' is not one of the choices' keys");
	test_parse_fails_with(HEAD "@step s\n@question Q?\n@choice a x\n@choice b y\n@answer a\n"
	                      "@feedback a no\n@hint h\n",
	                      "t.lesson:11: @feedback 'a' is the right answer: feedback is for wrong ones");
	test_parse_fails_with(HEAD "@step s\n@question Q?\n@answer 0.35 0.01\n@feedback 0.345 close\n@hint h\n",
	                      "t.lesson:9: @feedback 0.345 would count as the right answer");
	test_parse_fails_with(HEAD "@step s\n@question Q?\n@answer 2\n@feedback two no\n@hint h\n",
	                      "t.lesson:9: @feedback of a question without choices starts with the wrong "
	                      "number it answers: @feedback 16 that is the standard deviation");
}

static void test_a_correct_exercise_passes(void **state)
{
	(void)state;
	struct lesson_errors errs = { 0 };
	assert_int_equal(check_text(HEAD "@step s\n@goal heads = 2\n@hint h\n@solution heads = 2\n",
	                            &errs), 0);
	assert_int_equal(errs.count, 0);
}

static char tmp[256];

static void write_lesson(const char *name, int number)
{
	char path[400];
	snprintf(path, sizeof path, "%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "mha-tui-lesson 1\n@lesson %d\n@title t\n@objective o\n@step s\nText.\n", number);
	fclose(f);
}

static void test_lesson_numbers_run_without_gaps(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/mha-check-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	write_lesson("01-a.lesson", 1);
	write_lesson("03-b.lesson", 3);
	FILE *out = tmpfile(), *err = tmpfile();
	assert_int_equal(lesson_check_command(tmp, NULL, out, err), 1);
	char text[2048] = "", want[600];
	rewind(err);
	size_t n = fread(text, 1, sizeof text - 1, err);
	text[n] = '\0';
	snprintf(want, sizeof want, "%s/03-b.lesson:2: lesson number 3, expected 2: numbers run 1..2 "
	         "without gaps, in file-name order\n", tmp);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof want, "mha-tui: --check-lessons %s: 2 lessons, 2 steps, 0 exercises: "
	         "1 error\n", tmp);
	assert_non_null(strstr(text, want));
	assert_int_equal(ftell(out), 0);
	fclose(out);
	fclose(err);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

static void test_lessons_are_found_in_the_documented_order(void **state)
{
	(void)state;
	char out[4096], msg[8192];
	const char *dir = shipped();
	/* the flag wins, and is the only place tried when given */
	assert_int_equal(lesson_dir_search(dir, "/nowhere", NULL, false, "/nowhere", out, sizeof out,
	                                    msg, sizeof msg), 0);
	assert_string_equal(out, dir);
	assert_int_equal(lesson_dir_search("/no/such", dir, dir, true, dir, out, sizeof out, msg,
	                                    sizeof msg), -1);
	assert_string_equal(msg, "--lessons-dir /no/such: No such file or directory");
	/* then the environment, the source tree, the installed dir */
	assert_int_equal(lesson_dir_search(NULL, dir, "/src", true, "/inst", out, sizeof out, msg,
	                                    sizeof msg), 0);
	assert_string_equal(out, dir);
	assert_int_equal(lesson_dir_search(NULL, "/env", dir, true, "/inst", out, sizeof out, msg,
	                                    sizeof msg), 0);
	assert_string_equal(out, dir);
	assert_int_equal(lesson_dir_search(NULL, NULL, "/src", false, dir, out, sizeof out, msg,
	                                    sizeof msg), 0);
	assert_string_equal(out, dir);
}

static void test_not_finding_lessons_lists_every_path_tried(void **state)
{
	(void)state;
	char out[4096], msg[8192];
	assert_int_equal(lesson_dir_search(NULL, "/env", "/src", true, "/inst", out, sizeof out, msg,
	                                    sizeof msg), -1);
	assert_string_equal(msg, "no lessons found; tried $MHA_TUI_LESSONS=/env (No such file or "
	                    "directory); /src (No such file or directory); /inst (No such file or "
	                    "directory). Give the directory with --lessons-dir DIR");
	/* an empty directory of our own: /tmp itself may hold someone's .lesson files */
	char empty[] = "/tmp/mha-no-lessons-XXXXXX", want[512];
	assert_non_null(mkdtemp(empty));
	assert_int_equal(lesson_dir_search(NULL, "", "/src", false, empty, out, sizeof out, msg,
	                                    sizeof msg), -1);
	snprintf(want, sizeof want, "no lessons found; tried $MHA_TUI_LESSONS (not set); /src (source "
	         "tree: not running from a build directory); %s (no .lesson files). "
	         "Give the directory with --lessons-dir DIR", empty);
	assert_string_equal(msg, want);
	rmdir(empty);
}

static void test_the_readme_example_is_a_lesson_that_passes(void **state)
{
	(void)state;
	char path[4096];
	const char *root = getenv("MHA_SOURCE_ROOT");
	assert_non_null(root);
	snprintf(path, sizeof path, "%s/lessons/README.md", root);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char text[1 << 16], example[1 << 16];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	/* the complete example is the first ```lesson block */
	const char *start = strstr(text, "```lesson\n");
	assert_non_null(start);
	start += strlen("```lesson\n");
	const char *end = strstr(start, "\n```");
	assert_non_null(end);
	memcpy(example, start, (size_t)(end - start) + 1);
	example[end - start + 1] = '\0';
	struct lesson_errors errs = { 0 };
	int rc = check_text(example, &errs);
	for (int i = 0; i < errs.count; i++)
		print_error("%s\n", errs.msg[i]);
	assert_int_equal(rc, 0);
}

/* What the narrowest pane cannot show whole: an indented (verbatim) line
 * is cut there and a word is broken, so both fail, but a run of CJK wraps
 * between its characters and passes; display columns count,
 * a CJK character 2. Exactly the pane's width passes. */
static void test_text_wider_than_the_narrowest_pane_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(LESSON_PANE_MIN_COLS, 34);
	const char *fits = "    " "012345678901234567890123456789"; /* 4 + 30 = 34 */
	char text[512];
	snprintf(text, sizeof text, HEAD "@step s\nA table:\n%s\n", fits);
	struct lesson_errors errs = { 0 };
	int rc = check_text(text, &errs);
	for (int i = 0; i < errs.count; i++)
		print_error("%s\n", errs.msg[i]);
	assert_int_equal(rc, 0);
	lesson_errors_free(&errs);
	snprintf(text, sizeof text, HEAD "@step s\nA table:\n%sX\n", fits);
	expect_check_error(text, "t.lesson:6: step 's': verbatim line '    012345678901234567890123456789X' "
	                         "is 35 columns, wider than the 34-column lesson pane: it would be cut");
	/* a run of CJK with no spaces wraps between its characters, as the pane
	 * wraps it (the adversary's M10): 4 x 18 characters, 144 columns, pass;
	 * a 35-letter word after one of them is still cut */
	const char *cjk18 = "\u6ce8\u610f\u529b\u6ce8\u610f\u529b\u6ce8\u610f\u529b\u6ce8\u610f\u529b"
	                    "\u6ce8\u610f\u529b\u6ce8\u610f\u529b";
	snprintf(text, sizeof text, HEAD "@step s\nProse %s%s%s%s and more.\n", cjk18, cjk18, cjk18, cjk18);
	assert_int_equal(check_text(text, &errs), 0);
	lesson_errors_free(&errs);
	snprintf(text, sizeof text, HEAD "@step s\nProse \u529b%s and more.\n", "abcdefghijklmnopqrstuvwxyzabcdefghi");
	expect_check_error(text, "is 35 columns, wider than the 34-column lesson pane");
	/* in a verbatim line, which the pane cuts, 18 CJK characters are 36 columns: too wide */
	snprintf(text, sizeof text, HEAD "@step s\n    %s\n", cjk18);
	expect_check_error(text, "is 40 columns, wider than the 34-column lesson pane");
	/* a tab in a verbatim line is drawn as 4 spaces */
	snprintf(text, sizeof text, HEAD "@step s\n\t012345678901234567890123456789X\n");
	expect_check_error(text, "verbatim line '    012345678901234567890123456789X' is 35 columns");
}

/* Prose writes a cell in the one notation: each old form is named with
 * its file, its line and the form to write; the new forms (and symbolic
 * indices) pass. */
static void test_a_cell_in_an_old_notation_is_an_error(void **state)
{
	(void)state;
	expect_check_error(HEAD "@step s\nSee P[0][2] now.\n",
	                   "t.lesson:7: 'P[0][2]' is not the cell notation: write P\u2080[2,*] (head 0, row 2) "
	                   "or P\u2080[0,2] (row, column of head 0) (lessons/README.md)");
	expect_check_error(HEAD "@step s\nText.\n\nMake S_1[0][4] pass 2.\n",
	                   "t.lesson:9: 'S_1[0][4]' is not the cell notation: write S\u2081[0,4]");
	expect_check_error(HEAD "@step s\n@question Is S[1][0][4] > 2?\n@choice a yes\n@choice b no\n"
	                        "@answer a\n@feedback b it is\n@hint h\n",
	                   "t.lesson:7: 'S[1][0][4]' is not the cell notation: write S\u2081[0,4]");
	expect_check_error(HEAD "@step s\n@goal heads = 2\n@hint Set W^K[1][5] to 0.\n@solution heads = 2\n",
	                   "t.lesson:8: 'W^K[1][5]' is not the cell notation: write W^K[1,5]");
	/* the ASCII head is what an ASCII terminal shows; the file writes S₁ */
	expect_check_error(HEAD "@step s\nS_1[0,4] is head 1's.\n",
	                   "t.lesson:7: 'S_1[0,4]' is not the cell notation: write S\u2081[0,4]");
	/* a matrix too: S_0 reads S₀ on screen */
	expect_check_error(HEAD "@step s\nConcat = [O_0 O_1].\n",
	                   "t.lesson:7: 'O_0' is not the cell notation: write O\u2080");
	struct lesson_errors errs = { 0 };
	assert_int_equal(check_text(HEAD "@step s\nP\u2080[2,0], S\u2081[0,4], P\u2080[2 sat, 0 the], "
	                                  "W^Q[*,4..7], X[1,0], O\u2080[r,*] = P\u2080[r,j] V\u2080[j,*], "
	                                  "P_i[r,j], Q_i[0,1], S[0], [O\u2080 O\u2081], d_k, h_kv, K_j^T.\n"
	                                  "@highlight P_0[1,*]\n", &errs), 0);
	lesson_errors_free(&errs);
}

/* The command over a lesson set with an old cell in it: exit 1, and the
 * message names the file and line. */
static void test_the_command_rejects_a_set_with_an_old_cell(void **state)
{
	(void)state;
	char dir[] = "/tmp/mha-notation-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/01-old.lesson", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(HEAD "@step s\nText.\nHead 0 puts P[0][2][1] on key 1.\n", f);
	fclose(f);
	FILE *out = tmpfile(), *err = tmpfile();
	assert_int_equal(lesson_check_command(dir, NULL, out, err), 1);
	char all[2048] = "";
	rewind(err);
	size_t n = fread(all, 1, sizeof all - 1, err);
	all[n] = '\0';
	char want[256];
	snprintf(want, sizeof want, "%s:8: 'P[0][2][1]' is not the cell notation: write P\u2080[2,1]", path);
	if (!strstr(all, want))
		print_error("got: %s\nwanted: %s\n", all, want);
	assert_non_null(strstr(all, want));
	fclose(out);
	fclose(err);
	assert_int_equal(remove(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_shipped_lessons_pass_the_checker),
		cmocka_unit_test(test_the_command_prints_one_summary_line),
		cmocka_unit_test(test_a_goal_met_before_any_edit_is_an_error),
		cmocka_unit_test(test_a_solution_that_misses_the_goal_is_an_error),
		cmocka_unit_test(test_a_solution_that_cannot_apply_is_an_error),
		cmocka_unit_test(test_an_exercise_needs_a_hint_and_a_solution),
		cmocka_unit_test(test_unknown_key_placeholders_are_errors),
		cmocka_unit_test(test_a_correct_exercise_passes),
		cmocka_unit_test(test_lesson_numbers_run_without_gaps),
		cmocka_unit_test(test_lessons_are_found_in_the_documented_order),
		cmocka_unit_test(test_not_finding_lessons_lists_every_path_tried),
		cmocka_unit_test(test_the_readme_example_is_a_lesson_that_passes),
		cmocka_unit_test(test_a_wrong_choice_without_feedback_is_an_error),
		cmocka_unit_test(test_text_wider_than_the_narrowest_pane_is_an_error),
		cmocka_unit_test(test_a_cell_in_an_old_notation_is_an_error),
		cmocka_unit_test(test_the_command_rejects_a_set_with_an_old_cell),
	};
	return cmocka_run_group_tests_name("lesson checker", tests, NULL, NULL);
}
