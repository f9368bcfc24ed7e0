/*
 * test_lm_reference.c - the shipped language model against an
 * independent float64 numpy forward of the same file
 * (tools/gen_lm_fixtures.py, its output in tests/fixtures/lm/next.txt):
 * on each sentence the tokenizer gives the same ids, and at every
 * position the probability of each of numpy's five most probable next
 * tokens agrees to 1e-4, and the top five are the same tokens in the same
 * order (where two are not within 1e-6 of each other). A few sentences
 * only: fast, also under valgrind.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lm.h"
#include "readfile.h"

enum { TOP = 5 };

static void source_path(char *out, size_t len, const char *rel)
{
	const char *root = getenv("MHA_SOURCE_ROOT");
	assert_non_null(root);
	snprintf(out, len, "%s/%s", root, rel);
}

static void test_predictions_match_numpy_float64(void **state)
{
	(void)state;
	char model_path[4200], fix_path[4200], msg[4400], why[256];
	source_path(model_path, sizeof model_path, "assets/lm.model");
	source_path(fix_path, sizeof fix_path, "tests/fixtures/lm/next.txt");
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	if (lm_model_load(&m, &v, &meta, model_path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	char *bytes, *fix;
	size_t nb, nf;
	assert_int_equal(readfile_all(model_path, 256u << 20, &bytes, &nb, why, sizeof why), 0);
	uint64_t fp = lm_fnv(LM_FNV_START, bytes, nb);
	free(bytes);
	assert_int_equal(readfile_all(fix_path, 1u << 20, &fix, &nf, why, sizeof why), 0);
	struct lm_batch bt;
	assert_int_equal(lm_batch_alloc(&bt, &m, 1, 1), MHA_OK);

	int sentences = 0, positions = 0, ids[MHA_MAX_TOKENS], n = 0;
	double worst = 0;
	bool model_line = false;
	for (char *line = strtok(fix, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (!strncmp(line, "model ", 6)) {
			unsigned long long want = strtoull(line + 6, NULL, 16);
			if (want != fp)
				fail_msg("tests/fixtures/lm/next.txt is of another model file: run "
				         "/usr/bin/python3 tools/gen_lm_fixtures.py");
			model_line = true;
		} else if (!strncmp(line, "sentence ", 9)) {
			n = lm_encode(&v, line + 9, ids, NULL, MHA_MAX_TOKENS);
			assert_true(n >= 1 && n <= m.s.n);
			int targets[MHA_MAX_TOKENS];
			for (int i = 0; i < n; i++)
				targets[i] = -1;
			struct lm_result r;
			lm_forward(&m, &bt, ids, targets, 1, n, 1, &r);
			sentences++;
		} else if (!strncmp(line, "ids ", 4)) {
			char *p = line + 4;
			for (int i = 0; i < n; i++) {
				long want = strtol(p, &p, 10);
				if (want != ids[i])
					fail_msg("sentence %d token %d: id %d, numpy's tokenizer %ld", sentences, i, ids[i], want);
			}
			assert_int_equal(strtol(p, &p, 10), 0); /* nothing more */
			assert_true(*p == '\0');
		} else if (!strncmp(line, "next ", 5)) {
			char *p = line + 5;
			int i = (int)strtol(p, &p, 10);
			assert_true(i >= 0 && i < n);
			const float *pr = bt.logits + (size_t)i * m.s.classes;
			int top[TOP];
			float tp[TOP];
			lm_top_k(pr, m.s.classes, TOP, top, tp);
			double want_p[TOP];
			int want_id[TOP];
			for (int k = 0; k < TOP; k++) {
				want_id[k] = (int)strtol(p, &p, 10);
				want_p[k] = strtod(p, &p);
				double diff = fabs((double)pr[want_id[k]] - want_p[k]);
				worst = fmax(worst, diff);
				if (diff > 1e-4)
					fail_msg("sentence %d position %d: p(%s) %.9g, numpy %.9g", sentences, i,
					         v.word[want_id[k]], (double)pr[want_id[k]], want_p[k]);
			}
			for (int k = 0; k < TOP; k++)
				if (top[k] != want_id[k] && fabs(want_p[k] - (k + 1 < TOP ? want_p[k + 1] : 0)) > 1e-6 &&
				    (k == 0 || fabs(want_p[k] - want_p[k - 1]) > 1e-6))
					fail_msg("sentence %d position %d: top %d is %s, numpy's %s", sentences, i, k,
					         v.word[top[k]], v.word[want_id[k]]);
			positions++;
		}
	}
	assert_true(model_line);
	assert_int_equal(sentences, 5);
	assert_true(positions > 5 * 8);
	print_message("%d sentences, %d positions: worst probability difference %.2g\n", sentences, positions,
	              worst);
	lm_batch_free(&bt);
	free(fix);
	train_model_free(&m);
	lm_vocab_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predictions_match_numpy_float64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
