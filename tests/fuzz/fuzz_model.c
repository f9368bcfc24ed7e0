/*
 * fuzz_model.c - libFuzzer target for train_model_parse, the reader of a
 * trained model file (mha-tui --train --save writes them; doc/TRAINING.md).
 * Promises checked: it returns; a refusal names the file and allocates
 * nothing; an accepted model has a shape train_shape_check takes, a task
 * mha-tui knows, and every value finite and within +-1e6 (what the
 * workbench then shows).
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "train.h"

static void check_values(const float *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		FUZZ_REQUIRE(isfinite(p[i]) && fabsf(p[i]) <= MHA_VALUE_MAX, "every value finite within 1e6");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct train_model m;
	const struct train_task *task = NULL;
	char msg[512];
	memset(msg, 'x', sizeof msg);
	if (train_model_parse("in", (const char *)data, size, &m, &task, msg, sizeof msg) != 0) {
		FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
		FUZZ_REQUIRE(strncmp(msg, "in:", 3) == 0, "a refusal names the file and the line");
		FUZZ_REQUIRE(m.emb == NULL, "a refusal allocates nothing");
		return 0;
	}
	char why[MHA_MSG_MAX];
	FUZZ_REQUIRE(task != NULL && train_task_find(task->name) == task, "the task is one mha-tui knows");
	FUZZ_REQUIRE(train_shape_check(&m.s, why, sizeof why) == MHA_OK, "the shape is one mha-tui trains");
	const struct train_shape *s = &m.s;
	size_t hw = (size_t)s->h * (size_t)s->dk;
	check_values(m.emb, (size_t)s->vocab * s->d);
	check_values(m.pos, (size_t)s->n * s->d);
	for (int l = 0; l < s->layers; l++) {
		check_values(m.wq[l], (size_t)s->d * hw);
		check_values(m.wk[l], (size_t)s->d * hw);
		check_values(m.wv[l], (size_t)s->d * hw);
		check_values(m.wo[l], hw * s->d);
	}
	check_values(m.unemb, (size_t)s->d * s->classes);
	train_model_free(&m);
	return 0;
}
