/*
 * ablation.c - your own Table 3 row (A), a run at a time: h = 1, 2, 4, ...
 * with d_k = d_model / h, each over several seeds, trained a few steps per
 * call so a screen can stay live (train_ablation_step) and the headless
 * `--ablate` can run it to the end. Also the paper's row, the one place
 * its figures live. It does not print or draw.
 */
#include "train.h"

#include <math.h>
#include <string.h>

/* Vaswani et al. 2017, Table 3 row (A): d_model 512, EN-DE newstest2013 dev BLEU. */
const struct train_paper_point train_paper_row_a[TRAIN_PAPER_ROW_A] = {
	{ 1, 512, 24.9 }, { 4, 128, 25.5 }, { 8, 64, 25.8 }, { 16, 32, 25.8 }, { 32, 16, 25.4 },
};

enum { ABLATE_HELDOUT = 256 };

static void run_free(struct train_ablation *a)
{
	if (a->tr)
		trainer_destroy(a->tr);
	a->tr = NULL;
	if (a->m.params)
		train_model_free(&a->m);
	memset(&a->m, 0, sizeof a->m);
}

enum mha_status train_ablation_start(struct train_ablation *a, const struct train_task *t, int layers,
                                     int d_model, int seeds, int steps, uint64_t seed, int threads,
                                     char *msg, size_t len)
{
	memset(a, 0, sizeof *a);
	a->task = t;
	a->layers = layers;
	a->d_model = d_model;
	struct train_shape s0 = train_task_shape(t, layers, d_model, 1);
	enum mha_status st = train_shape_check(&s0, msg, len);
	if (st != MHA_OK)
		return st;
	a->d = s0.d;
	a->seeds = seeds > 0 ? (seeds < TRAIN_ABLATE_MAX_SEEDS ? seeds : TRAIN_ABLATE_MAX_SEEDS) : 5;
	a->steps = steps > 0 ? steps : t->ablate_steps;
	a->seed = seed;
	a->threads = threads;
	for (int h = 1; h <= s0.d && h <= MHA_MAX_HEADS && a->nh < TRAIN_ABLATE_MAX_H; h *= 2)
		if (s0.d % h == 0)
			a->row[a->nh++].h = h;
	return MHA_OK;
}

/* Evaluate the finished run and move to the next (h, seed). */
static void run_finish(struct train_ablation *a)
{
	struct train_stats st;
	struct train_ablation_row *r = &a->row[a->k];
	train_evaluate(&a->m, a->task, ABLATE_HELDOUT, &st);
	r->acc[a->sd] = st.accuracy;
	r->loss[a->sd] = st.loss;
	r->solved += st.accuracy >= a->task->want_accuracy;
	r->done = a->sd + 1;
	run_free(a);
	a->runs_done++;
	if (++a->sd == a->seeds) {
		a->sd = 0;
		a->k++;
	}
}

int train_ablation_step(struct train_ablation *a, int max_steps)
{
	int did = 0;
	while (did < max_steps && !train_ablation_done(a)) {
		if (!a->tr) {
			struct train_shape s = train_task_shape(a->task, a->layers, a->d_model, a->row[a->k].h);
			char msg[MHA_MSG_MAX];
			struct train_options o = { .threads = a->threads };
			if (train_model_alloc(&a->m, &s) != MHA_OK)
				return -1;
			train_model_init(&a->m, a->seed + (uint64_t)a->sd);
			if (trainer_create(&a->tr, &a->m, a->task, &o, a->seed + (uint64_t)a->sd, msg,
			                   sizeof msg) != MHA_OK) {
				run_free(a);
				return -1;
			}
			a->run_step = 0;
		}
		struct train_stats st;
		trainer_step(a->tr, &st);
		did++;
		if (++a->run_step == a->steps)
			run_finish(a);
	}
	return did;
}

bool train_ablation_done(const struct train_ablation *a)
{
	return a->k >= a->nh;
}

void train_ablation_free(struct train_ablation *a)
{
	run_free(a);
}

void train_ablation_summary(const struct train_ablation_row *r, double *acc_mean, double *acc_sd,
                            double *loss_mean, double *loss_sd)
{
	const double *v[2] = { r->acc, r->loss };
	double *mean[2] = { acc_mean, loss_mean }, *sd[2] = { acc_sd, loss_sd };
	int n = r->done;
	for (int j = 0; j < 2; j++) {
		double s = 0, q = 0;
		for (int i = 0; i < n; i++)
			s += v[j][i];
		*mean[j] = n ? s / n : 0.0;
		for (int i = 0; i < n; i++)
			q += (v[j][i] - *mean[j]) * (v[j][i] - *mean[j]);
		*sd[j] = n > 1 ? sqrt(q / (n - 1)) : 0.0;
	}
}
