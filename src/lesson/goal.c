/*
 * goal.c - evaluating an exercise's goal on the live computation: each
 * condition (a cell against a value, a row's arg-max, a count or
 * configuration field, a head on or off, the output unchanged since the
 * step began, the learner's answer) gives true or false and a short reason
 * the pane shows as it is. Reads only; changes nothing but the run's status.
 */
#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_int.h"
#include "notation.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool compare(double x, enum lesson_cmp cmp, double a, double b)
{
	/* "=" allows float32 rounding: a cell set to 0.1 holds 0.1f */
	bool eq = fabs(x - a) <= 1e-6 * fmax(1.0, fabs(a));
	switch (cmp) {
	case LESSON_LT: return x < a;
	case LESSON_LE: return x <= a || eq;
	case LESSON_GT: return x > a;
	case LESSON_GE: return x >= a || eq;
	case LESSON_EQ: return eq;
	case LESSON_NE: return !eq;
	case LESSON_IN: return x >= a && x <= b;
	}
	return false;
}

/* "want > 0.8", "want within 0.1..0.3". */
static void want_text(const struct lesson_cond *cond, char *buf, size_t len)
{
	if (cond->cmp == LESSON_IN)
		snprintf(buf, len, "want within %g..%g", cond->a, cond->b);
	else
		snprintf(buf, len, "want %s %g", lesson_cmp_text(cond->cmp), cond->a);
}

/* "P₁[5,4] = 0.91 > 0.8" when met, "P₁[5,4] = 0.31, want > 0.8" when not. */
static void verdict(bool ok, const char *what, const char *value, const struct lesson_cond *cond,
                    char *why, size_t len)
{
	char want[64];
	want_text(cond, want, sizeof want);
	if (ok && cond->cmp == LESSON_EQ)
		snprintf(why, len, "%s = %s", what, value);
	else if (ok)
		snprintf(why, len, "%s = %s %s", what, value, want + strlen("want "));
	else
		snprintf(why, len, "%s = %s, %s", what, value, want);
}

/* Token i's label as the heatmaps write it: a repeated word carries its
 * index ("the\u2084"), so "argmax = 0 (the\u2080), want 4 (the\u2084)" says which. */
static const char *label(const struct mha_weights *w, const struct mha_config *c, int i, char *buf, size_t len)
{
	return notation_token(buf, len, w ? (const char(*)[MHA_LABEL_MAX])w->labels : NULL, c->n, i, true);
}

/* The data of cond's tensor, with its shape in *s and its reference as
 * text in name; NULL with why when the cells do not exist under c. */
static const float *ref_data(const struct lesson_cond *cond, const struct mha_config *c,
                             const struct mha_weights *w, const struct mha_acts *a,
                             struct mha_shape *s, char *name, size_t nlen, char *why, size_t len)
{
	lesson_ref_format(&cond->ref, name, nlen);
	if (lesson_ref_check(&cond->ref, c, why, len) != 0)
		return NULL;
	const float *p = lesson_ref_data(&cond->ref, c, w, a);
	if (!p) {
		snprintf(why, len, "%s: not computed yet", name);
		return NULL;
	}
	*s = mha_tensor_shape(c, cond->ref.t);
	return p;
}

static bool eval_cell(const struct lesson_cond *cond, const struct mha_config *c,
                      const struct mha_weights *w, const struct mha_acts *a, char *why, size_t len)
{
	char name[96], value[32];
	struct mha_shape s;
	const float *p = ref_data(cond, c, w, a, &s, name, sizeof name, why, len);
	if (!p)
		return false;
	size_t at = ((size_t)cond->ref.r[0].lo * s.rows + cond->ref.r[1].lo) * s.cols + cond->ref.r[2].lo;
	double x = p[at];
	bool ok = compare(x, cond->cmp, cond->a, cond->b);
	snprintf(value, sizeof value, "%.4g", x);
	verdict(ok, name, value, cond, why, len);
	return ok;
}

static bool eval_argmax(const struct lesson_cond *cond, const struct mha_config *c,
                        const struct mha_weights *w, const struct mha_acts *a, char *why, size_t len)
{
	char name[96];
	struct mha_shape s;
	const float *p = ref_data(cond, c, w, a, &s, name, sizeof name, why, len);
	if (!p)
		return false;
	const float *row = p + ((size_t)cond->ref.r[0].lo * s.rows + cond->ref.r[1].lo) * s.cols;
	int best = -1;
	for (int j = 0; j < s.cols; j++) /* ties go to the lower index; NaN never wins */
		if (row[j] == row[j] && (best < 0 || row[j] > row[best]))
			best = j;
	int want = (int)cond->a;
	bool ok = cond->cmp == LESSON_EQ ? best == want : best != want;
	char bl[NOTATION_MAX + 4] = "", wl[NOTATION_MAX + 4] = "";
	if (notation_col_is_token(cond->ref.t)) { /* columns are tokens: name them */
		char lb[NOTATION_MAX];
		snprintf(bl, sizeof bl, " (%s)", label(w, c, best, lb, sizeof lb));
		snprintf(wl, sizeof wl, " (%s)", label(w, c, want, lb, sizeof lb));
	}
	if (ok && cond->cmp == LESSON_EQ)
		snprintf(why, len, "argmax %s = %d%s", name, best, bl);
	else if (ok)
		snprintf(why, len, "argmax %s = %d%s, not %d%s", name, best, bl, want, wl);
	else if (cond->cmp == LESSON_EQ)
		snprintf(why, len, "argmax %s = %d%s, want %d%s", name, best, bl, want, wl);
	else
		snprintf(why, len, "argmax %s = %d%s, want any column but %d", name, best, bl, want);
	return ok;
}

/* A running max (0), min (1), sum (2), or largest |p - p0| (3). */
struct fold {
	const float *p, *p0;
	int op;
	double acc;
};

static bool fold_cell(size_t at, void *ctx)
{
	struct fold *f = ctx;
	double v = f->p[at];
	if (f->op == 0)
		f->acc = fmax(f->acc, v);
	else if (f->op == 1)
		f->acc = fmin(f->acc, v);
	else if (f->op == 2)
		f->acc += v;
	else if (!(fabs(v - f->p0[at]) <= f->acc)) /* NaN counts as the worst */
		f->acc = v == v && f->p0[at] == f->p0[at] ? fabs(v - f->p0[at]) : INFINITY;
	return true;
}

static bool eval_reduce(const struct lesson_cond *cond, const struct mha_config *c,
                        const struct mha_weights *w, const struct mha_acts *a, char *why, size_t len)
{
	static const char *const names[] = { "max", "min", "sum" };
	char name[96], what[120], value[32];
	struct mha_shape s;
	const float *p = ref_data(cond, c, w, a, &s, name, sizeof name, why, len);
	if (!p)
		return false;
	snprintf(what, sizeof what, "%s %s", names[cond->reduce], name);
	struct fold f = { p, NULL, cond->reduce, cond->reduce == 0 ? -INFINITY
	                                         : cond->reduce == 1 ? INFINITY : 0.0 };
	lesson_ref_visit(&cond->ref, s, fold_cell, &f);
	double acc = f.acc;
	bool ok = compare(acc, cond->cmp, cond->a, cond->b);
	snprintf(value, sizeof value, "%.4g", acc);
	verdict(ok, what, value, cond, why, len);
	return ok;
}

static bool eval_unchanged(const struct lesson_cond *cond, const struct lesson_run *run,
                           const struct mha_config *c, const struct mha_weights *w,
                           const struct mha_acts *a, char *why, size_t len)
{
	char name[96];
	lesson_ref_format(&cond->ref, name, sizeof name);
	if (!run || !run->has_ref) {
		snprintf(why, len, "%s: no starting point to compare with", name);
		return false;
	}
	struct mha_shape s = mha_tensor_shape(c, cond->ref.t), s0 = mha_tensor_shape(&run->ref_cfg, cond->ref.t);
	if (lesson_ref_check(&cond->ref, c, why, len) != 0)
		return false;
	const float *p = lesson_ref_data(&cond->ref, c, w, a);
	const float *p0 = run->ref_cfg.layers == c->layers
	                ? lesson_ref_data(&cond->ref, &run->ref_cfg, &run->ref_w, run->ref.layer) : NULL;
	if (!p || !p0 || s.count != s0.count || s.rows != s0.rows || s.cols != s0.cols) {
		snprintf(why, len, "%s changed shape since the step began", name);
		return false;
	}
	struct fold f = { p, p0, 3, 0.0 };
	lesson_ref_visit(&cond->ref, s, fold_cell, &f);
	double worst = f.acc;
	if (cond->kind == LESSON_COND_CHANGED) { /* the same measure, the other way */
		bool moved = worst > cond->a;
		snprintf(why, len, "%s moved by at most %.3g since the step began, %s %g", name, worst,
		         moved ? "more than" : "want more than", cond->a);
		return moved;
	}
	bool ok = worst <= cond->a;
	snprintf(why, len, "%s moved by at most %.3g since the step began, %s %g", name, worst,
	         ok ? "within" : "want within", cond->a);
	return ok;
}

/* The sentence embedding the step's X is built with (its own @embed, else
 * the lesson's), or NULL. */
static const struct lesson_op *step_embed(const struct lesson_run *run)
{
	const struct lesson_setup *sets[2] = { &lesson_run_step(run)->setup, &run->lesson->base };
	for (int k = 0; k < 2; k++)
		for (int i = sets[k]->nops - 1; i >= 0; i--)
			if (sets[k]->ops[i].kind == LESSON_OP_EMBED)
				return &sets[k]->ops[i];
	return NULL;
}

/* previous-token / prefix-matching layer L: the best head of layer L on
 * generated sequences embedded as the step's X is (probe.h), against the
 * lesson's threshold: "layer 0 head 1: 0.83 on the previous token, need
 * >= 0.6", "layer 1 head 0: prefix matching 0.21 (weakest at period 3),
 * need >= 0.5": which head, how far, and at which repeat length it fails. */
static bool eval_probe(const struct lesson_cond *cond, const struct lesson_run *run,
                       const struct mha_config *c, const struct mha_weights *w, char *why, size_t len)
{
	const struct lesson_op *op = run ? step_embed(run) : NULL;
	int layers = c->layers > 1 ? c->layers : 1;
	if (!op || !op->tokens || op->cols != c->d || op->npositions < c->n) {
		snprintf(why, len, "%s needs the step's X built by @embed", lesson_probe_name(cond->probe));
		return false;
	}
	if (cond->layer >= layers) {
		snprintf(why, len, "layer %d does not exist: there %s %d", cond->layer,
		         layers == 1 ? "is" : "are", layers);
		return false;
	}
	const float *tok[MHA_PROBE_VOCAB_MAX], *pos[MHA_MAX_TOKENS];
	int vocab = op->ntokens < MHA_PROBE_VOCAB_MAX ? op->ntokens : MHA_PROBE_VOCAB_MAX;
	for (int i = 0; i < vocab; i++)
		tok[i] = op->tokens[i].v;
	for (int i = 0; i < c->n; i++)
		pos[i] = op->positions[i].v;
	struct mha_probe_spec sp = { .vocab = vocab, .tok = tok, .pos = pos, .seed = LESSON_PROBE_SEED,
	                             .per_period = LESSON_PROBE_SEQUENCES };
	struct mha_probe pr;
	struct mha_probe_scores *sc = malloc(sizeof *sc);
	char msg[MHA_MSG_MAX];
	enum mha_status st = sc ? mha_probe_alloc(&pr, c) : MHA_ENOMEM;
	if (st == MHA_OK) {
		st = mha_probe_run(&pr, c, w, &sp, sc, msg, sizeof msg);
		mha_probe_free(&pr);
	} else {
		snprintf(msg, sizeof msg, "%s", st == MHA_EINVAL ? "it runs on one sequence, not with cross-attention"
		                                                 : "out of memory");
	}
	if (st != MHA_OK) {
		snprintf(why, len, "%s: %s", lesson_probe_name(cond->probe), msg);
		free(sc);
		return false;
	}
	int l = cond->layer, best = 0;
	const double *score = cond->probe == LESSON_PROBE_PREVIOUS ? sc->previous[l] : sc->prefix_min[l];
	for (int i = 1; i < c->h; i++)
		if (score[i] > score[best])
			best = i;
	double x = score[best];
	bool ok = compare(x, cond->cmp, cond->a, cond->b);
	char want[64], what[64];
	want_text(cond, want, sizeof want);
	if (cond->probe == LESSON_PROBE_PREVIOUS)
		snprintf(what, sizeof what, "%.2f on the previous token", x);
	else
		snprintf(what, sizeof what, "prefix matching %.2f (weakest at period %d)", x,
		         sc->period[sc->weakest[l][best]]);
	/* the same words met or not: the status's "Goal met" / "Not yet" says which */
	snprintf(why, len, "layer %d head %d: %s, need %s", l, best, what, want + strlen("want "));
	free(sc);
	return ok;
}

const char *lesson_probe_name(enum lesson_probe p)
{
	return p == LESSON_PROBE_PREVIOUS ? "previous-token" : "prefix-matching";
}

static void qty_text(enum lesson_qty q, double v, char *buf, size_t len)
{
	if (q == LESSON_Q_CAUSAL || q == LESSON_Q_SCALE)
		snprintf(buf, len, "%s", v != 0 ? "on" : "off");
	else if (q == LESSON_Q_POS)
		snprintf(buf, len, "%s", mha_pos_name((enum mha_pos)v));
	else
		snprintf(buf, len, "%.0f", v);
}

bool lesson_cond_eval(const struct lesson_cond *cond, const struct lesson_run *run,
                      const struct mha_config *c, const struct mha_weights *w,
                      const struct mha_acts *a, char *why, size_t len)
{
	char value[32];
	bool ok;
	switch (cond->kind) {
	case LESSON_COND_CELL:
		return eval_cell(cond, c, w, a, why, len);
	case LESSON_COND_ARGMAX:
		return eval_argmax(cond, c, w, a, why, len);
	case LESSON_COND_REDUCE:
		return eval_reduce(cond, c, w, a, why, len);
	case LESSON_COND_QTY: {
		double x = (double)lesson_qty_value(c, cond->qty);
		ok = compare(x, cond->cmp, cond->a, cond->b);
		qty_text(cond->qty, x, value, sizeof value);
		if (cond->qty == LESSON_Q_CAUSAL || cond->qty == LESSON_Q_SCALE)
			snprintf(why, len, "%s is %s, want %s", lesson_qty_name(cond->qty), value,
			         (cond->cmp == LESSON_EQ) == (cond->a != 0) ? "on" : "off");
		else if (cond->qty == LESSON_Q_POS)
			snprintf(why, len, "pos is %s, want %s%s", value, cond->cmp == LESSON_NE ? "any but " : "",
			         mha_pos_name((enum mha_pos)cond->a));
		else
			verdict(ok, lesson_qty_name(cond->qty), value, cond, why, len);
		return ok;
	}
	case LESSON_COND_HEAD:
		if (cond->head >= c->h) {
			snprintf(why, len, "head %d does not exist with %d heads", cond->head, c->h);
			return false;
		}
		ok = c->head_off[cond->head] == cond->off;
		snprintf(why, len, "head %d is %s, want %s", cond->head,
		         c->head_off[cond->head] ? "off" : "on", cond->off ? "off" : "on");
		return ok;
	case LESSON_COND_UNCHANGED:
	case LESSON_COND_CHANGED:
		return eval_unchanged(cond, run, c, w, a, why, len);
	case LESSON_COND_PROBE:
		return eval_probe(cond, run, c, w, why, len);
	case LESSON_COND_MODEL: {
		static const struct lesson_model_live none;
		return lesson_model_cond_eval(cond, run ? &run->model : &none, why, len);
	}
	case LESSON_COND_ANSWER:
		ok = run && run->answered && run->answer_right;
		snprintf(why, len, "%s", ok ? "answered right" : !run || !run->answered ? "answer the question"
		         : run->unearned ? "that answer is not right" : "that answer is not right: try again");
		return ok;
	}
	snprintf(why, len, "?");
	return false;
}

/* One cell's live value into *out; false when it does not exist under c. */
static bool cell_value(const struct lesson_ref *ref, const struct mha_config *c, const struct mha_weights *w,
                       const struct mha_acts *a, double *out)
{
	char why[160];
	const float *p = lesson_ref_check(ref, c, why, sizeof why) == 0 ? lesson_ref_data(ref, c, w, a) : NULL;
	if (!p)
		return false;
	struct mha_shape s = mha_tensor_shape(c, ref->t);
	*out = p[((size_t)ref->r[0].lo * s.rows + ref->r[1].lo) * s.cols + ref->r[2].lo];
	return *out == *out;
}

/* A cell question's answer and slips, as they are now: the learner
 * answers about the numbers in front of them. */
static void read_cells(struct lesson_run *run, const struct lesson_question *q, const struct mha_config *c,
                       const struct mha_weights *w, const struct mha_acts *a)
{
	run->cell_ok = cell_value(q->cell, c, w, a, &run->cell_value);
	for (int i = 0; i < q->nfeedback && i < LESSON_CELL_SLIPS; i++)
		if (q->feedback[i].cell && !cell_value(q->feedback[i].cell, c, w, a, &run->cell_slip[i]))
			run->cell_slip[i] = NAN; /* matches no answer */
}

int lesson_run_eval(struct lesson_run *run, const struct mha_config *c,
                    const struct mha_weights *w, const struct mha_acts *a)
{
	const struct lesson_step *s = lesson_run_step(run);
	if (s->question && s->question->cell)
		read_cells(run, s->question, c, w, a);
	if (s->ngoals == 0) {
		run->status[0] = '\0';
		return 0;
	}
	char why[LESSON_STATUS_MAX], first[LESSON_STATUS_MAX] = "", last[LESSON_STATUS_MAX] = "";
	char ask[LESSON_STATUS_MAX] = ""; /* the question's "answer the question", while it waits */
	int met = 0;
	/* probe goals are parts of one circuit: the status names every part,
	 * held or not, with its figure ("layer 0 ...; layer 1 ...") */
	char parts[LESSON_STATUS_MAX - 16] = ""; /* room for "Not yet: " */
	bool probes = true;
	for (int i = 0; i < s->ngoals; i++)
		probes &= s->goals[i].kind == LESSON_COND_PROBE;
	for (int i = 0; i < s->ngoals; i++) {
		bool held = lesson_cond_eval(&s->goals[i], run, c, w, a, why, sizeof why);
		if (probes) {
			size_t at = strlen(parts);
			snprintf(parts + at, sizeof parts - at, "%s%.*s", at ? "; " : "", (int)(sizeof parts - at), why);
		}
		if (held) {
			met++;
			snprintf(last, sizeof last, "%s", why);
		} else {
			if (s->goals[i].kind == LESSON_COND_ANSWER)
				snprintf(ask, sizeof ask, "%s", why);
			if (!first[0])
				snprintf(first, sizeof first, "%s", why);
		}
	}
	/* While the question waits, the status names only it, whatever the
	 * order of the goals: another goal's status carries its live value
	 * ("Y[2,1] = 0.46"), which may be a cell the step hides until then. */
	bool asking = ask[0] != '\0';
	if (asking)
		snprintf(first, sizeof first, "%s", ask);
	bool was = run->met;
	run->met = met == s->ngoals;
	run->conds_met = met;
	if (probes && s->ngoals > 1)
		snprintf(run->status, sizeof run->status, "%s %s", run->met ? "Goal met:" : "Not yet:", parts);
	else if (run->met && s->ngoals == 1)
		snprintf(run->status, sizeof run->status, "Goal met: %s", last);
	else if (run->met)
		snprintf(run->status, sizeof run->status, "Goal met: all %d conditions hold", s->ngoals);
	else if (s->ngoals == 1 || asking) /* no "2 of 3 hold" to climb on before the answer */
		snprintf(run->status, sizeof run->status, "Not yet: %s", first);
	else
		snprintf(run->status, sizeof run->status, "Not yet (%d of %d hold): %s", met, s->ngoals,
		         first);
	return run->met ? LESSON_EVAL_MET | (was ? 0 : LESSON_EVAL_JUST_MET) : 0;
}
