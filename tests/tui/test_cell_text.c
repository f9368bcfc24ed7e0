/*
 * test_cell_text.c - the status line's cell at a known cursor (cell_text.c):
 * in the one notation with its token labels and sources when there is
 * room; narrower, the labels go first, then the keys and the sources, then
 * digits; a number is never cut. ASCII here (no UTF-8 theme): P_0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cell_text.h"
#include "tui_check.h"
#include "wrap.h"

/* The status text for the cursor's cell at width w. */
static void status_at(struct app *app, int w, char *buf, size_t len)
{
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	assert_true(app_cursor_cell(app, &c, &p, &v));
	cell_text_status(app, &c, p, w, buf, len);
	assert_true(lesson_utf8_width(buf) <= w);
}

/* The number after " = " reads back as the cell's value to its digits. */
static void value_whole(const char *line, double want)
{
	const char *eq = strstr(line, " = ");
	assert_non_null(eq);
	char *end;
	double got = strtod(eq + 3, &end);
	assert_true(end > eq + 3);
	assert_true(*end == '\0' || *end == ' ');
	assert_true(got == want || (want != 0 && fabs(got - want) <= 0.005 * fabs(want)));
}

static void test_softmax_cursor_reads_head_row_column_and_tokens(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "4"); /* Softmax: the cursor starts on its result, P_0[0,0] */
	char line[512];
	status_at(app, 200, line, sizeof line);
	/* "the" is tokens 0 and 4 of the default sentence: the index says which */
	assert_string_equal(line, "P_0[0 the, 0 the] = 0.999876618   from S_0[0,*]");
	/* one column short: the labels go, every digit stays */
	status_at(app, (int)strlen(line) - 1, line, sizeof line);
	assert_string_equal(line, "P_0[0,0] = 0.999876618   from S_0[0,*]");
	/* then the sources */
	status_at(app, 30, line, sizeof line);
	assert_string_equal(line, "P_0[0,0] = 0.999876618");
	/* then digits, rounded, never cut */
	status_at(app, 16, line, sizeof line);
	assert_string_equal(line, "P_0[0,0] = 1");
	value_whole(line, 0.999876618);
	tui_check_close(app);
}

static void test_an_input_names_its_keys_after_its_labels_went(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "1jl"); /* Projection: X, row 1 ("cat"), column 1 */
	char line[512];
	status_at(app, 200, line, sizeof line);
	assert_non_null(strstr(line, "X[1 cat, 1] = "));
	assert_non_null(strstr(line, "   Enter edits, +/- nudge"));
	size_t full = strlen(line);
	status_at(app, (int)full - 1, line, sizeof line);
	assert_non_null(strstr(line, "X[1,1] = "));
	assert_non_null(strstr(line, "Enter edits"));
	tui_check_close(app);
}

/* A message from a lesson (feedback, an answer) holds cells as the lesson
 * writes them; without UTF-8 the status line has them in ASCII. */
static void test_messages_write_cells_for_the_terminal(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	app_message(app, false, "answer c: V\u2080 = X W^V\u2080, see P\u2080[2,0] and the\u2084");
	assert_string_equal(app->status, "answer c: V_0 = X W^V_0, see P_0[2,0] and the4");
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softmax_cursor_reads_head_row_column_and_tokens),
		cmocka_unit_test(test_an_input_names_its_keys_after_its_labels_went),
		cmocka_unit_test(test_messages_write_cells_for_the_terminal),
	};
	return cmocka_run_group_tests_name("cell text", tests, NULL, NULL);
}
