/*
 * fuzz_lesson.c - libFuzzer target for lesson_parse, the reader of lesson
 * files (the format of lessons/README.md), with assets from the source
 * tree. Promises checked: it returns; a refusal has at least one message
 * and every message starts with the file's name; an accepted lesson has
 * steps with ids and valid starting configurations. An accepted lesson of
 * small shapes then goes through the lesson checker (set-up, goals and
 * solutions on the real forward pass), which must not crash either; large
 * shapes are left out there so that one input cannot take seconds.
 */
#include <string.h>

#include "checker.h"
#include "fuzz.h"
#include "lesson.h"
#include "mha.h"

#ifndef FUZZ_ASSETS_DIR
#define FUZZ_ASSETS_DIR NULL
#endif

static const char name[] = "fuzz.lesson";

/* Multiply-adds of one forward pass, about: the projections dominate. */
static long long cost(const struct mha_config *c)
{
	return (long long)c->n * c->d * (c->h + 2 * c->g) * c->dk + (long long)c->h * c->n * c->n * c->dk;
}

static void check_errors(const struct lesson_errors *errs)
{
	for (int i = 0; i < errs->count; i++)
		FUZZ_REQUIRE(strncmp(errs->msg[i], name, sizeof name - 1) == 0, "a message names the file");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lesson l;
	struct lesson_errors errs = { 0 };
	int rc = lesson_parse(name, (const char *)data, size, FUZZ_ASSETS_DIR, &l, &errs);
	check_errors(&errs);
	if (rc != 0) {
		FUZZ_REQUIRE(errs.count + errs.dropped > 0, "a refusal says why");
		lesson_errors_free(&errs);
		return 0;
	}
	bool small = true;
	for (int i = 0; i < l.nsteps; i++) {
		char why[MHA_MSG_MAX];
		FUZZ_REQUIRE(l.steps[i].id && l.steps[i].id[0], "every step has an id");
		FUZZ_REQUIRE(mha_config_check(&l.steps[i].cfg, why, sizeof why) == MHA_OK,
		             "every step starts from a valid configuration");
		small &= cost(&l.steps[i].cfg) <= 200000;
		for (int k = 0; k < l.steps[i].nsolution; k++) { /* a solution may reshape */
			const struct lesson_edit *e = &l.steps[i].solution[k];
			small &= e->kind != LESSON_EDIT_CONFIG || e->field > LESSON_Q_D_K || e->value <= 16;
		}
	}
	if (small) {
		struct lesson_set set = { &l, 1, (char *)(uintptr_t)"fuzz", (char *)(uintptr_t)FUZZ_ASSETS_DIR };
		struct lesson_check_stats st = { 0 };
		lesson_errors_free(&errs);
		lesson_check_set(&set, &errs, &st);
		check_errors(&errs);
	}
	lesson_errors_free(&errs);
	lesson_free(&l);
	return 0;
}
