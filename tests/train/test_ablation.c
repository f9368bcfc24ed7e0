/*
 * test_ablation.c - the stepwise ablation (src/train/ablation.c), which the
 * training screen runs a few steps per idle pause: sliced into odd pieces
 * it gives the same table as the headless `--ablate` for the same seeds,
 * each run the same numbers as training that (h, seed) directly, and the
 * headless output prints the paper's row from train_paper_row_a. Small
 * budgets (d_model 8, 2 seeds, 20 steps) so it stays fast under valgrind.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "command.h"
#include "train.h"

enum { D = 8, SEEDS = 2, STEPS = 20, SEED = 3 };

static void run_sliced(struct train_ablation *a, int slice)
{
	char msg[MHA_MSG_MAX];
	assert_int_equal(train_ablation_start(a, train_task_find("multi"), 0, D, SEEDS, STEPS, SEED, 1, msg,
	                                      sizeof msg), MHA_OK);
	assert_int_equal(a->nh, 4); /* h = 1, 2, 4, 8 */
	long total = 0;
	while (!train_ablation_done(a)) {
		int did = train_ablation_step(a, slice);
		assert_true(did > 0 && did <= slice);
		total += did;
	}
	assert_int_equal(total, 4L * SEEDS * STEPS);
	assert_int_equal(a->runs_done, 4 * SEEDS);
}

static void test_sliced_equals_the_headless_table(void **state)
{
	(void)state;
	struct train_ablation a;
	run_sliced(&a, 7);
	FILE *out = tmpfile(), *err = tmpfile();
	struct train_request rq = { .task = "multi", .d_model = D, .seeds = SEEDS, .steps = STEPS, .seed = SEED };
	assert_int_equal(ablate_command(&rq, out, err), 0);
	rewind(out);
	char line[512];
	int rows = 0;
	bool paper = false;
	while (fgets(line, sizeof line, out)) {
		int h, dk, solved, n;
		double am, as, lm, ls;
		if (sscanf(line, " %d %d %lf +- %lf %lf +- %lf %d/%d", &h, &dk, &am, &as, &lm, &ls, &solved, &n) == 8) {
			double m[4];
			train_ablation_summary(&a.row[rows], &m[0], &m[1], &m[2], &m[3]);
			assert_int_equal(h, a.row[rows].h);
			assert_int_equal(dk, D / h);
			assert_true(fabs(am - m[0]) <= 0.0005 && fabs(as - m[1]) <= 0.0005);
			assert_true(fabs(lm - m[2]) <= 0.00005 && fabs(ls - m[3]) <= 0.00005);
			assert_int_equal(solved, a.row[rows].solved);
			assert_int_equal(n, SEEDS);
			rows++;
		}
		if (strstr(line, "the paper") && strstr(line, "h 1: 24.9") && strstr(line, "h 32: 25.4"))
			paper = true;
	}
	assert_int_equal(rows, 4);
	assert_true(paper);
	fclose(out);
	fclose(err);
	train_ablation_free(&a);
}

static void test_each_run_equals_training_it_directly(void **state)
{
	(void)state;
	struct train_ablation a;
	run_sliced(&a, 13);
	const struct train_task *t = train_task_find("multi");
	for (int k = 0; k < a.nh; k += 3) /* h = 1 and h = 8 */
		for (int sd = 0; sd < SEEDS; sd++) {
			struct train_shape s = train_task_shape(t, 0, D, a.row[k].h);
			struct train_model m;
			struct trainer *tr;
			struct train_stats st;
			char msg[MHA_MSG_MAX];
			assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
			train_model_init(&m, SEED + (uint64_t)sd);
			assert_int_equal(trainer_create(&tr, &m, t, NULL, SEED + (uint64_t)sd, msg, sizeof msg), MHA_OK);
			for (int i = 0; i < STEPS; i++)
				trainer_step(tr, &st);
			train_evaluate(&m, t, 256, &st);
			assert_true(st.accuracy == a.row[k].acc[sd] && st.loss == a.row[k].loss[sd]);
			trainer_destroy(tr);
			train_model_free(&m);
		}
	train_ablation_free(&a);
}

static void test_the_paper_row_is_table_3_a(void **state)
{
	(void)state;
	static const int h[] = { 1, 4, 8, 16, 32 };
	static const double bleu[] = { 24.9, 25.5, 25.8, 25.8, 25.4 };
	for (int i = 0; i < TRAIN_PAPER_ROW_A; i++) {
		assert_int_equal(train_paper_row_a[i].h, h[i]);
		assert_int_equal(train_paper_row_a[i].dk * h[i], 512);
		assert_true(train_paper_row_a[i].bleu == bleu[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sliced_equals_the_headless_table),
		cmocka_unit_test(test_each_run_equals_training_it_directly),
		cmocka_unit_test(test_the_paper_row_is_table_3_a),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
