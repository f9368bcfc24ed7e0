/*
 * lesson_test.h - helpers shared by the lesson suite's tests: parse a
 * lesson from a string, and assert on the first error message.
 */
#ifndef LESSON_TEST_H
#define LESSON_TEST_H

#include <stdbool.h>

#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson.h"

/* The shipped assets directory ($MHA_SOURCE_ROOT/assets). */
const char *test_assets_dir(void);
/* Parse text as "t.lesson" with the shipped assets; errors kept in errs. */
int test_parse(const char *text, struct lesson *l, struct lesson_errors *errs);
/* Fail unless parsing text fails and some error is exactly want. */
void test_parse_fails_with(const char *text, const char *want);
/* A lesson and the workbench of one of its steps, set up and computed. */
struct test_bench {
	struct lesson l;
	struct lesson_run run;
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
};
/* Parse text (it must parse), set step up, run the forward pass. */
void test_bench_open(struct test_bench *b, const char *text, int step);
/* Set another step of the same lesson up. */
void test_bench_step(struct test_bench *b, int step);
void test_bench_close(struct test_bench *b);

/* Set step `step` of l up, run the forward pass: c, w, a owned by the caller after. */
void test_setup(const struct lesson *l, int step, struct lesson_run *run, struct mha_config *c,
                struct mha_weights *w, struct mha_acts *a);
/* Recompute a after c or w changed (reallocates). */
void test_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);

#endif
