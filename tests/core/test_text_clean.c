/*
 * test_text_clean.c - no byte the program did not mean to print reaches
 * the terminal: mha_text_clean (every message printed) turns C0, DEL, C1
 * (raw and UTF-8) and malformed UTF-8 into '?', and leaves other UTF-8
 * whole; labels refuse C1 as lessons do; a session's first line gives a
 * true message for a byte-order mark (accepted) and CR-only line ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"
#include "session.h"

static void expect_clean(const char *in, const char *want)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s", in);
	mha_text_clean(buf);
	assert_string_equal(buf, want);
}

static void test_controls_become_question_marks_and_text_stays(void **state)
{
	(void)state;
	expect_clean("a\033[2Jb\a\x7f", "a?[2Jb??");
	expect_clean("\x9b" "31m", "?31m");           /* raw C1 CSI */
	expect_clean("x\xc2\x9b" "31m", "x??31m");     /* C1 CSI in UTF-8 */
	expect_clean("\xc2\x85\xc2\x9f", "????");      /* NEL, APC in UTF-8 */
	expect_clean("\xe6\x97", "??");                /* a character cut short */
	expect_clean("\xc0\xaf", "??");                /* an overlong '/' */
	expect_clean("\xed\xa0\x80", "???");           /* a UTF-16 surrogate */
	expect_clean("caf\xc3\xa9 \xc2\xa0 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	             "caf\xc3\xa9 \xc2\xa0 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"); /* é, NBSP, 日本, 😀 */
}

static void test_labels_refuse_c1_as_lessons_do(void **state)
{
	(void)state;
	assert_false(mha_label_valid("a\xc2\x85"));
	assert_false(mha_label_valid("\xc2\x9b" "2J"));
	assert_false(mha_label_valid("\x9b"));
	assert_true(mha_label_valid("\xe6\x97\xa5\xe6\x9c\xac"));
	assert_true(mha_label_valid("\xc2\xa0x")); /* NBSP is text */
}

static const char session_text[] =
	"mha-tui-session 1\ntokens 1\nd_model 1\nheads 1\nkv_heads 1\nd_k 1\ncausal 0\ntop_k 0\nscale 1\n"
	"seed 1\nheads_off\nlabels a\nX 1 1\n0.5\nW_Q 1 1\n1\nW_K 1 1\n1\nW_V 1 1\n1\nW_O 1 1\n1\nend\n";

static void test_a_byte_order_mark_is_accepted_and_cr_line_ends_are_named(void **state)
{
	(void)state;
	struct mha_config c;
	struct mha_weights w;
	char msg[512], text[1024];
	int rc = session_parse("plain", session_text, sizeof session_text - 1, &c, &w, msg, sizeof msg);
	if (rc != 0)
		print_message("%s\n", msg);
	assert_int_equal(rc, 0);
	mha_weights_free(&w);
	int n = snprintf(text, sizeof text, "\xef\xbb\xbf%s", session_text);
	assert_int_equal(session_parse("bom", text, (size_t)n, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
	n = snprintf(text, sizeof text, "%s", session_text);
	for (int i = 0; i < n; i++)
		if (text[i] == '\n')
			text[i] = '\r';
	assert_int_equal(session_parse("cr", text, (size_t)n, &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "lines end in CR alone"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_become_question_marks_and_text_stays),
		cmocka_unit_test(test_labels_refuse_c1_as_lessons_do),
		cmocka_unit_test(test_a_byte_order_mark_is_accepted_and_cr_line_ends_are_named),
	};
	return cmocka_run_group_tests_name("text that reaches the terminal", tests, NULL, NULL);
}
