/*
 * command.c - `mha-tui --train` and `mha-tui --ablate` without a terminal:
 * train, report progress, print the result. Everything numeric comes from
 * the library (trainer, evaluation, analysis); this file only loops,
 * times and formats. Files it will write are checked before the training
 * starts; every message goes out cleaned (report_line).
 */
#include "command.h"
#include "clock.h"
#include "report.h"
#include "session.h"
#include "train.h"
#include "writefile.h"

#include <math.h>
#include <string.h>
#include <time.h>

enum { HELDOUT_SEQUENCES = 256, CHECK_EVERY = 25 };

static double score_of(const double *sc, int l, int i, enum train_pattern p)
{
	return sc[(l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + p];
}

/* The head (layer, index) with the best score of pattern p in layer l. */
static int best_head(const struct train_model *m, const double *sc, int l, enum train_pattern p)
{
	int best = 0;
	for (int i = 1; i < m->s.h; i++)
		if (score_of(sc, l, i, p) > score_of(sc, l, best, p))
			best = i;
	return best;
}

/* Train a model of shape s on t; err gets progress when not NULL. */
static int train_one(struct train_model *m, const struct train_task *t, const struct train_shape *s,
                     int steps, uint64_t seed, int threads, FILE *err, double *formed_s,
                     long *formed_step, double *seconds)
{
	char msg[MHA_MSG_MAX];
	if (train_model_alloc(m, s) != MHA_OK) {
		if (err) report_line(err, 1, "out of memory for the model");
		return 1;
	}
	train_model_init(m, seed);
	struct trainer *tr;
	struct train_options o = { .threads = threads };
	if (trainer_create(&tr, m, t, &o, seed, msg, sizeof msg) != MHA_OK) {
		if (err) report_line(err, 1, msg);
		train_model_free(m);
		return 1;
	}
	double t0 = clock_wall(), clock_used = 0;
	*formed_step = -1;
	*formed_s = -1;
	double sc[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
	for (int k = 1; k <= steps; k++) {
		struct train_stats st;
		double a = clock_wall();
		trainer_step(tr, &st);
		clock_used += clock_wall() - a;
		bool check = k % CHECK_EVERY == 0 || k == steps;
		if (check && *formed_step < 0 && t->layer < s->layers) {
			train_pattern_scores(m, sc);
			int i = best_head(m, sc, t->layer, t->head);
			if (score_of(sc, t->layer, i, t->head) > t->want_score) {
				*formed_step = k;
				*formed_s = clock_used;
			}
		}
		if (err && (k % 100 == 0 || k == steps))
			fprintf(err, "step %5d/%d  loss %.4f  accuracy %.3f  %.0f steps/s\n", k, steps, st.loss,
			        st.accuracy, k / (clock_wall() - t0));
	}
	*seconds = clock_used;
	trainer_destroy(tr);
	return 0;
}

static struct train_shape request_shape(const struct train_request *rq, const struct train_task *t,
                                        int heads)
{
	return train_task_shape(t, rq->layers, rq->d_model, heads);
}

/* "PATH.layerL" into out: the session of layer l beside the model file.
 * 0, or -1 when it does not fit. */
static int layer_path(const char *path, int l, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "%s.layer%d", path, l) < len ? 0 : -1;
}

/* Every file --save will write, checked before the training starts (an
 * hour of it at --steps 1000000, thrown away by a bad name before): the
 * model file, and a session per layer beside it. 0, or 1 said on err. */
static int check_saves(const char *path, int layers, FILE *err)
{
	char msg[MHA_MSG_MAX + 8400], why[MHA_MSG_MAX + 4400], spath[4200];
	struct writefile_target t;
	int rc = writefile_check(path, WRITEFILE_MODEL, &t, why, sizeof why);
	for (int l = 0; rc == 0 && l < layers; l++) {
		if (layer_path(path, l, spath, sizeof spath) != 0) {
			snprintf(why, sizeof why, "%.200s...: path too long", path);
			rc = -1;
		} else {
			rc = writefile_check(spath, WRITEFILE_SESSION, &t, why, sizeof why);
		}
	}
	if (rc == 0)
		return 0;
	snprintf(msg, sizeof msg, "--save: %s: nothing trained", why);
	return report_line(err, 1, msg);
}

/* The model file, and beside it each layer as a workbench session
 * (FILE.layer0, FILE.layer1) that mha-tui --load opens: the command is
 * printed with the path quoted for the shell. */
static int save_all(const struct train_model *m, const struct train_task *t, const char *path, FILE *err)
{
	char msg[MHA_MSG_MAX + 4096], spath[4200], word[4300], line[4400];
	if (train_model_save(m, t, path, msg, sizeof msg) != 0)
		return report_line(err, 1, msg);
	for (int l = 0; l < m->s.layers; l++) {
		struct mha_config c;
		struct mha_weights w;
		if (layer_path(path, l, spath, sizeof spath) != 0)
			return report_line(err, 1, "--save: path too long for the layers' sessions");
		if (train_layer_workbench(m, l, &c, &w, msg, sizeof msg) != MHA_OK) {
			snprintf(line, sizeof line, "%.4000s: %.300s", spath, msg);
			return report_line(err, 1, line);
		}
		int rc = session_save(spath, &c, &w, msg, sizeof msg);
		mha_weights_free(&w);
		if (rc != 0)
			return report_line(err, 1, msg);
		fprintf(err, "layer %d in the workbench: mha-tui --load %s\n", l,
		        report_shell_word(spath, word, sizeof word));
	}
	return 0;
}

/* Each head's importance, ranked, and the greedy prune curve, on err. */
static void print_heads(struct train_model *m, const struct train_task *t, FILE *err)
{
	double imp[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	int order[TRAIN_MAX_LAYERS * MHA_MAX_HEADS], nh = m->s.layers * m->s.h;
	train_head_importance(m, t, imp);
	for (int k = 0; k < nh; k++)
		order[k] = (k / m->s.h) * MHA_MAX_HEADS + k % m->s.h;
	for (int a = 0; a < nh; a++) /* most important first */
		for (int b = a + 1; b < nh; b++)
			if (imp[order[b]] > imp[order[a]]) {
				int x = order[a];
				order[a] = order[b];
				order[b] = x;
			}
	fprintf(err, "importance (held-out loss with the head off minus with it on):");
	for (int k = 0; k < nh; k++)
		fprintf(err, "  L%dH%d %+.3f", order[k] / MHA_MAX_HEADS, order[k] % MHA_MAX_HEADS, imp[order[k]]);
	struct train_prune_point pts[TRAIN_MAX_LAYERS * MHA_MAX_HEADS + 1];
	int np = train_prune_curve(m, t, pts, nh + 1);
	fprintf(err, "\nprune curve (greedy, least costly head first): heads kept -> held-out accuracy\n ");
	for (int k = 0; k < np; k++) {
		if (k)
			fprintf(err, "  (off L%dH%d)", pts[k].layer, pts[k].head);
		fprintf(err, " %d -> %.3f", pts[k].kept, pts[k].accuracy);
	}
	fputc('\n', err);
}

int train_command(const struct train_request *rq, FILE *out, FILE *err)
{
	const struct train_task *t = train_task_find(rq->task);
	char msg[MHA_MSG_MAX];
	struct train_shape s = request_shape(rq, t, rq->heads);
	if (train_shape_check(&s, msg, sizeof msg) != MHA_OK) {
		char line[MHA_MSG_MAX + 64];
		snprintf(line, sizeof line, "--train %s: %s", t->name, msg);
		return report_line(err, 2, line);
	}
	if (rq->save && check_saves(rq->save, s.layers, err) != 0)
		return 1;
	int steps = rq->steps ? rq->steps : t->steps;
	fprintf(err, "training '%s' (%s): %d layer%s, d_model %d, %d heads of d_k %d, %d tokens, "
	        "batch 16, %d steps, seed %llu\n", t->name, t->what, s.layers, s.layers > 1 ? "s" : "",
	        s.d, s.h, s.dk, s.n, steps, (unsigned long long)rq->seed);
	struct train_model m;
	double formed_s, seconds;
	long formed_step;
	if (train_one(&m, t, &s, steps, rq->seed, rq->threads, err, &formed_s, &formed_step, &seconds))
		return 1;
	struct train_stats st;
	train_evaluate(&m, t, HELDOUT_SEQUENCES, &st);
	double sc[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
	train_pattern_scores(&m, sc);
	fprintf(err, "pattern scores (mean attention on the expected key, probe: repeated random tokens)\n"
	        "  head  previous  first   self    duplicate  induction\n");
	for (int l = 0; l < s.layers; l++)
		for (int i = 0; i < s.h; i++)
			fprintf(err, "  L%dH%d  %.3f     %.3f   %.3f   %.3f      %.3f\n", l, i,
			        score_of(sc, l, i, TRAIN_PAT_PREVIOUS), score_of(sc, l, i, TRAIN_PAT_FIRST),
			        score_of(sc, l, i, TRAIN_PAT_SELF), score_of(sc, l, i, TRAIN_PAT_DUPLICATE),
			        score_of(sc, l, i, TRAIN_PAT_INDUCTION));
	if (t->layer < s.layers) {
		int i = best_head(&m, sc, t->layer, t->head);
		if (formed_step > 0)
			fprintf(err, "%s head L%dH%d: score above %.2f from step %ld (%.2f s of training)\n",
			        train_pattern_name(t->head), t->layer, i, t->want_score, formed_step, formed_s);
		else
			fprintf(err, "%s head: no head of layer %d scored above %.2f\n", train_pattern_name(t->head),
			        t->layer, t->want_score);
	}
	print_heads(&m, t, err);
	if (rq->save && save_all(&m, t, rq->save, err) != 0) {
		train_model_free(&m);
		return 1;
	}
	fprintf(out, "%s: steps %d  %.2f s  loss %.4f  held-out accuracy %.3f  scores", t->name, steps,
	        seconds, st.loss, st.accuracy);
	for (int l = 0; l < s.layers; l++)
		for (int i = 0; i < s.h; i++)
			fprintf(out, "  L%dH%d prev %.2f first %.2f self %.2f dup %.2f ind %.2f", l, i,
			        score_of(sc, l, i, TRAIN_PAT_PREVIOUS), score_of(sc, l, i, TRAIN_PAT_FIRST),
			        score_of(sc, l, i, TRAIN_PAT_SELF), score_of(sc, l, i, TRAIN_PAT_DUPLICATE),
			        score_of(sc, l, i, TRAIN_PAT_INDUCTION));
	fputc('\n', out);
	train_model_free(&m);
	return 0;
}

int ablate_command(const struct train_request *rq, FILE *out, FILE *err)
{
	const struct train_task *t = train_task_find(rq->task);
	char msg[MHA_MSG_MAX];
	struct train_ablation ab;
	if (train_ablation_start(&ab, t, rq->layers, rq->d_model, rq->seeds, rq->steps, rq->seed,
	                         rq->threads, msg, sizeof msg) != MHA_OK) {
		char line[MHA_MSG_MAX + 64];
		snprintf(line, sizeof line, "--ablate %s: %s", t->name, msg);
		return report_line(err, 2, line);
	}
	int nh = ab.nh, seeds = ab.seeds, steps = ab.steps, layers = t->layers;
	if (rq->layers)
		layers = rq->layers;
	double acc[TRAIN_ABLATE_MAX_H][2], loss[TRAIN_ABLATE_MAX_H][2];
	fprintf(err, "ablation on '%s': d_model %d, %d layer%s, h = 1..%d with d_k = d_model / h, "
	        "%d seeds x %d steps\n", t->name, ab.d, layers, layers > 1 ? "s" : "", ab.row[nh - 1].h,
	        seeds, steps);
	double t0 = clock_wall();
	while (!train_ablation_done(&ab)) {
		int k = ab.k, sd = ab.sd;
		if (train_ablation_step(&ab, steps) < 0) { /* at most to the end of this run */
			report_line(err, 1, "out of memory for the model");
			train_ablation_free(&ab);
			return 1;
		}
		fprintf(err, "h %2d seed %llu: accuracy %.3f loss %.4f (%.0f s so far)\n", ab.row[k].h,
		        (unsigned long long)(rq->seed + (uint64_t)sd), ab.row[k].acc[sd], ab.row[k].loss[sd],
		        clock_wall() - t0);
	}
	for (int k = 0; k < nh; k++)
		train_ablation_summary(&ab.row[k], &acc[k][0], &acc[k][1], &loss[k][0], &loss[k][1]);
	fprintf(out, "Table 3 row (A), your own: task '%s', d_model %d, %d layer%s, %d steps, %d seeds "
	        "(mean +- sd), held-out accuracy and loss;\n  solved: seeds that reached the task's "
	        "accuracy %.2f\n\n"
	        "   h   d_k   accuracy          loss              solved\n", t->name, ab.d, layers,
	        layers > 1 ? "s" : "", steps, seeds, t->want_accuracy);
	for (int k = 0; k < nh; k++)
		fprintf(out, "  %2d  %4d   %.3f +- %.3f   %.4f +- %.4f   %d/%d\n", ab.row[k].h, ab.d / ab.row[k].h,
		        acc[k][0], acc[k][1], loss[k][0], loss[k][1], ab.row[k].solved, seeds);
	fputs("\n  held-out accuracy (each # is 0.02; | marks mean + sd)\n", out);
	for (int k = 0; k < nh; k++) {
		int bar = (int)lround(acc[k][0] * 50), hi = (int)lround(fmin(1.0, acc[k][0] + acc[k][1]) * 50);
		char line[64];
		memset(line, ' ', sizeof line);
		for (int c = 0; c < bar; c++)
			line[c] = '#';
		if (hi > bar && hi <= 50)
			line[hi - 1] = '|';
		line[51] = '\0';
		fprintf(out, "  h %2d %s %.3f\n", ab.row[k].h, line, acc[k][0]);
	}
	fprintf(out, "\n  the paper (EN-DE BLEU, d_model 512):");
	for (int i = 0; i < TRAIN_PAPER_ROW_A; i++)
		fprintf(out, "%s h %d: %.1f", i ? "," : "", train_paper_row_a[i].h, train_paper_row_a[i].bleu);
	fputc('\n', out);
	train_ablation_free(&ab);
	return 0;
}
