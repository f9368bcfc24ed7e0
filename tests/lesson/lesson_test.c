/*
 * lesson_test.c - helpers for the lesson suite (see lesson_test.h).
 */
#include "lesson_test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

const char *test_assets_dir(void)
{
	static char dir[4096];
	const char *root = getenv("MHA_SOURCE_ROOT");
	snprintf(dir, sizeof dir, "%s/assets", root ? root : ".");
	return dir;
}

int test_parse(const char *text, struct lesson *l, struct lesson_errors *errs)
{
	return lesson_parse("t.lesson", text, strlen(text), test_assets_dir(), l, errs);
}

void test_parse_fails_with(const char *text, const char *want)
{
	struct lesson l;
	struct lesson_errors errs = { 0 };
	int rc = test_parse(text, &l, &errs);
	bool found = false;
	for (int i = 0; i < errs.count; i++)
		found |= strcmp(errs.msg[i], want) == 0;
	if (rc == 0 || !found) {
		print_error("wanted the error: %s\n", want);
		for (int i = 0; i < errs.count; i++)
			print_error("got: %s\n", errs.msg[i]);
		if (rc == 0)
			print_error("(the parse succeeded)\n");
	}
	if (rc == 0)
		lesson_free(&l);
	lesson_errors_free(&errs);
	assert_int_equal(rc, -1);
	assert_true(found);
}

void test_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	mha_acts_free(a);
	assert_int_equal(mha_acts_alloc(a, c), MHA_OK);
	mha_forward(c, w, a);
}

void test_setup(const struct lesson *l, int step, struct lesson_run *run, struct mha_config *c,
                struct mha_weights *w, struct mha_acts *a)
{
	char msg[512];
	memset(w, 0, sizeof *w);
	memset(a, 0, sizeof *a);
	int rc = lesson_run_start(run, l, step, true, c, w, msg, sizeof msg);
	if (rc < 0)
		print_error("set-up failed: %s\n", msg);
	assert_int_equal(rc, 1);
	test_forward(c, w, a);
}

void test_bench_open(struct test_bench *b, const char *text, int step)
{
	struct lesson_errors errs = { 0 };
	int rc = test_parse(text, &b->l, &errs);
	for (int i = 0; i < errs.count; i++)
		print_error("%s\n", errs.msg[i]);
	lesson_errors_free(&errs);
	assert_int_equal(rc, 0);
	test_setup(&b->l, step, &b->run, &b->c, &b->w, &b->a);
}

void test_bench_step(struct test_bench *b, int step)
{
	mha_acts_free(&b->a);
	mha_weights_free(&b->w);
	lesson_run_end(&b->run);
	test_setup(&b->l, step, &b->run, &b->c, &b->w, &b->a);
}

void test_bench_close(struct test_bench *b)
{
	mha_acts_free(&b->a);
	mha_weights_free(&b->w);
	lesson_run_end(&b->run);
	lesson_free(&b->l);
}
