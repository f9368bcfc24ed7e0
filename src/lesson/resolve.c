/*
 * resolve.c - the second half of the lesson parser: once every line is
 * read, give each step its configuration (the lesson's base changed by the
 * step's own @config) and check against it what the lines alone could not:
 * matrix shapes, the sentence embedding, labels, the heads, rows and
 * columns goals and highlights name, and that questions, answers and
 * hidden parts fit together. Nothing here runs the forward pass.
 */
#include "flash_step.h"
#include "model_step.h"
#include "goal.h"
#include "parser.h"
#include "run.h"

#include <stdio.h>
#include <string.h>

static void check_op(struct parser *ps, const struct lesson_op *op, const struct lesson_step *s,
                     const char *const *labels, int nlabels, bool *reported)
{
	const struct mha_config *c = &s->cfg;
	char why[256];
	if (*reported)
		return;
	int before = ps->nerr;
	if (op->kind == LESSON_OP_MATRIX && op->data) {
		struct mha_shape sh = mha_tensor_shape(c, op->t);
		if (sh.rows != op->rows || sh.cols != op->cols)
			lesson_parser_err(ps, op->line, "%s is %dx%d in step '%s' (tokens %d, d_model %d, heads %d, d_k %d), "
			    "but this matrix is %dx%d", mha_tensor_info(op->t)->name, sh.rows, sh.cols, s->id,
			    c->n, c->d, c->h, c->dk, op->rows, op->cols);
	} else if (op->kind == LESSON_OP_EMBED && op->tokens) {
		if (op->cols != c->d)
			lesson_parser_err(ps, op->line, "@embed: features are %d wide but d_model is %d in step '%s'",
			    op->cols, c->d, s->id);
		else if (op->npositions < c->n)
			lesson_parser_err(ps, op->line, "@embed: %d position rows for %d tokens", op->npositions, c->n);
		else if (!labels)
			lesson_parser_err(ps, op->line, "@embed needs @labels: each label picks its token features");
		for (int i = 0; i < op->npositions && i < c->n && ps->nerr == before; i++) {
			char key[16];
			snprintf(key, sizeof key, "%d", i);
			if (strcmp(op->positions[i].key, key) != 0)
				lesson_parser_err(ps, op->line, "@embed: position row %d is keyed '%s', expected '%d'", i,
				    op->positions[i].key, i);
		}
		for (int i = 0; labels && i < nlabels && ps->nerr == before; i++) {
			int k = 0;
			while (k < op->ntokens && strcmp(op->tokens[k].key, labels[i]) != 0)
				k++;
			if (k == op->ntokens)
				lesson_parser_err(ps, op->line, "@embed: no token features for label '%s'", labels[i]);
		}
	} else if (op->kind == LESSON_OP_EDIT) {
		if (op->edit.kind == LESSON_EDIT_HEAD && op->edit.head >= c->h)
			lesson_parser_err(ps, op->line, "@set: head %d does not exist: there are %d heads (0..%d)",
			    op->edit.head, c->h, c->h - 1);
		else if (op->edit.kind == LESSON_EDIT_PAD && op->edit.head >= mha_keys(c))
			lesson_parser_err(ps, op->line, "@set: key token %d does not exist: there are %d keys (0..%d)",
			    op->edit.head, mha_keys(c), mha_keys(c) - 1);
		else if ((op->edit.kind == LESSON_EDIT_SET || op->edit.kind == LESSON_EDIT_SCALE) &&
		         lesson_ref_check(&op->edit.ref, c, why, sizeof why) != 0)
			lesson_parser_err(ps, op->line, "@set: %s", why);
	}
	*reported = ps->nerr != before;
}

static bool solution_reshapes(const struct lesson_step *s)
{
	for (int i = 0; i < s->nsolution; i++)
		if (s->solution[i].kind == LESSON_EDIT_CONFIG)
			return true;
	return false;
}

static void check_cond(struct parser *ps, const struct lesson_step *s, const struct lesson_cond *c)
{
	char why[256];
	bool later = solution_reshapes(s); /* shapes may change: the checker tries it */
	if (c->kind == LESSON_COND_HEAD && c->head >= s->cfg.h && !later)
		lesson_parser_err(ps, c->line, "@goal names head %d, which does not exist: there are %d heads (0..%d)",
		    c->head, s->cfg.h, s->cfg.h - 1);
	if ((c->kind == LESSON_COND_CELL || c->kind == LESSON_COND_ARGMAX ||
	     c->kind == LESSON_COND_REDUCE) && !later &&
	    lesson_ref_check(&c->ref, &s->cfg, why, sizeof why) != 0)
		lesson_parser_err(ps, c->line, "@goal: %s", why);
	if (c->kind == LESSON_COND_ARGMAX && !later && c->a >= mha_tensor_shape(&s->cfg, c->ref.t).cols)
		lesson_parser_err(ps, c->line, "@goal: column %g does not exist: %s has %d columns", c->a,
		    mha_tensor_info(c->ref.t)->name, mha_tensor_shape(&s->cfg, c->ref.t).cols);
	if (c->kind == LESSON_COND_PROBE) {
		bool embed = false;
		const struct lesson_setup *sets[2] = { &s->setup, &ps->l->base };
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < sets[k]->nops; i++)
				embed |= sets[k]->ops[i].kind == LESSON_OP_EMBED;
		if (!embed)
			lesson_parser_err(ps, c->line, "@goal %s measures generated sequences embedded as X is: the "
			    "lesson or the step needs @embed", lesson_probe_name(c->probe));
		if (c->layer >= (s->cfg.layers > 1 ? s->cfg.layers : 1) && !later)
			lesson_parser_err(ps, c->line, "@goal names layer %d, which does not exist: give @config layers=%d",
			    c->layer, c->layer + 1);
	}
	if (c->kind == LESSON_COND_ANSWER && !s->question)
		lesson_parser_err(ps, c->line, "@goal answer needs a @question in the step");
}

static bool is_choice(const struct lesson_question *q, const char *key)
{
	for (int i = 0; i < q->nchoices; i++)
		if (!strcmp(q->choices[i].key, key))
			return true;
	return false;
}

/* "cell ..." (@answer cell REF [TOL], @feedback cell REF TEXT). */
static bool is_cell(const char *text)
{
	return !strncmp(text, "cell", 4) && (text[4] == ' ' || text[4] == '\t' || text[4] == '\0');
}

/* The one cell at text (what follows "cell"), checked against the step's
 * configuration, with *rest past it; NULL (said) when it is not one. */
static struct lesson_ref *cell_ref(struct parser *ps, const struct lesson_step *s, int line, const char *what,
                                   const char *text, const char **rest)
{
	struct lesson_ref ref;
	char why[256];
	const char *p = lesson_skip_blanks(text);
	*rest = p;
	if (lesson_parse_ref(p, &p, &ref, why, sizeof why) != 0) {
		lesson_parser_err(ps, line, "%s cell: %s", what, why);
		return NULL;
	}
	for (int i = 0; i < 3; i++)
		if (ref.r[i].lo != ref.r[i].hi) {
			lesson_parser_err(ps, line, "%s cell names one cell: give every index (x\u2081[2,0])", what);
			return NULL;
		}
	if (lesson_ref_check(&ref, &s->cfg, why, sizeof why) != 0) {
		lesson_parser_err(ps, line, "%s cell: %s", what, why);
		return NULL;
	}
	struct lesson_ref *out = lesson_parser_need(ps, lesson_arena_alloc(ps->a, sizeof *out));
	if (out)
		*out = ref;
	*rest = lesson_skip_blanks(p);
	return out;
}

static void check_question(struct parser *ps, struct lesson_step *s, struct caps *caps)
{
	struct lesson_question *q = s->question;
	if (!q) {
		for (int i = 0; i < s->nsolution; i++)
			if (s->solution[i].kind == LESSON_EDIT_ANSWER)
				lesson_parser_err(ps, s->solution[i].line, "@solution answer needs a @question in the step");
		if (s->nhides)
			lesson_parser_err(ps, s->line, "step '%s': @hide needs a @question: what is hidden shows once the "
			    "learner answers", s->id);
		if (s->wait)
			lesson_parser_err(ps, s->line, "step '%s': @wait needs a @question: the view waits for its answer",
			                  s->id);
		return;
	}
	if (!q->answer) {
		lesson_parser_err(ps, q->line, "@question without @answer");
		return;
	}
	if (q->nchoices == 1)
		lesson_parser_err(ps, q->line, "a multiple-choice question needs at least two @choice lines");
	if (q->nchoices > 0) {
		if (!is_choice(q, q->answer))
			lesson_parser_err(ps, q->line, "@answer '%.20s' is not one of the choices' keys", q->answer);
	} else if (is_cell(q->answer)) { /* "cell REF [TOL]": the cell's live value */
		const char *p;
		q->cell = cell_ref(ps, s, q->line, "@answer", q->answer + 4, &p);
		q->tol = 0.005;
		if (q->cell && ((*p && lesson_parse_number(p, &p, &q->tol) != 0) || *lesson_skip_blanks(p) || q->tol < 0))
			lesson_parser_err(ps, q->line, "@answer cell takes one cell and an optional tolerance: "
			                  "@answer cell x\u2081[2,0] 0.01");
	} else if (!lesson_flash_answer_is(q->answer) && !lesson_model_answer_is(q->answer)) {
		/* a live answer is flash_step.c's or model_step.c's */
		const char *p = q->answer;
		if (lesson_parse_number(p, &p, &q->value) != 0 ||
		    (*lesson_skip_blanks(p) && lesson_parse_number(lesson_skip_blanks(p), &p, &q->tol) != 0) ||
		    *lesson_skip_blanks(p) || q->tol < 0)
			lesson_parser_err(ps, q->line, "@answer of a question without choices is a number and an optional "
			    "tolerance: @answer 0.25 0.01");
	}
	for (int i = 0; i < q->nfeedback && !lesson_flash_answer_is(q->answer) && !lesson_model_answer_is(q->answer);
	     i++) {
		struct lesson_feedback *f = &q->feedback[i];
		const char *p = f->key;
		if (q->nchoices > 0) {
			if (!is_choice(q, f->key))
				lesson_parser_err(ps, f->line, "@feedback '%.24s' is not one of the choices' keys", f->key);
			else if (!strcmp(f->key, q->answer))
				lesson_parser_err(ps, f->line, "@feedback '%.24s' is the right answer: feedback is for "
				                  "wrong ones", f->key);
		} else if (q->cell && is_cell(f->key) && f->text) { /* "cell REF TEXT": a slip's live value */
			const char *rest;
			f->cell = cell_ref(ps, s, f->line, "@feedback", f->text, &rest);
			if (f->cell && !*rest)
				lesson_parser_err(ps, f->line, "@feedback cell REF says why after the cell: @feedback cell "
				                  "Y[2,0] that is Y alone");
			f->text = rest;
			if (i >= LESSON_CELL_SLIPS)
				lesson_parser_err(ps, f->line, "at most %d @feedback cell lines a question", LESSON_CELL_SLIPS);
		} else if (lesson_parse_number(p, &p, &f->value) != 0 || *p) {
			lesson_parser_err(ps, f->line, "@feedback of a question without choices starts with the wrong "
			                  "number it answers: @feedback 16 that is the standard deviation");
		} else if (!q->cell && lesson_answer_near(q, f->value, q->value)) {
			lesson_parser_err(ps, f->line, "@feedback %.24s would count as the right answer", f->key);
		}
	}
	/* a question is an exercise whose goal is the right answer */
	bool has = false;
	for (int i = 0; i < s->ngoals; i++)
		has |= s->goals[i].kind == LESSON_COND_ANSWER;
	if (!has) {
		struct lesson_cond *c = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->goals, &s->ngoals,
		                                            &caps->goals, sizeof *c));
		if (c) {
			c->kind = LESSON_COND_ANSWER;
			c->line = q->line;
			c->text = "answer";
		}
	}
	has = false;
	for (int i = 0; i < s->nsolution; i++)
		has |= s->solution[i].kind == LESSON_EDIT_ANSWER;
	if (!has) {
		struct lesson_edit *e = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->solution, &s->nsolution,
		                                            &caps->solution, sizeof *e));
		if (e) {
			char num[40];
			snprintf(num, sizeof num, "%.15g", q->value); /* without the tolerance */
			e->kind = LESSON_EDIT_ANSWER;
			e->line = q->line;
			e->answer = q->nchoices ? q->answer : lesson_parser_need(ps, lesson_arena_strdup(ps->a, num));
		}
	}
}

static void check_step(struct parser *ps, struct lesson_step *s, struct caps *caps)
{
	struct lesson *l = ps->l;
	char why[256];
	if (lesson_setup_resolve_config(&l->base, &s->setup, &s->cfg, why, sizeof why) != 0) {
		int at = s->setup.config_line ? s->setup.config_line
		       : l->base.config_line ? l->base.config_line : s->line;
		lesson_parser_err(ps, at, "configuration of step '%s': %s", s->id, why);
		return;
	}
	const struct lesson_setup *lab = s->setup.labels ? &s->setup : &l->base;
	if (lab->labels && lab->nlabels != s->cfg.n && !(lab == &l->base && ps->base_labels_bad)) {
		lesson_parser_err(ps, lab->labels_line, "%d labels for %d tokens in step '%s'", lab->nlabels, s->cfg.n,
		    s->id);
		ps->base_labels_bad |= lab == &l->base; /* once is enough */
	}
	const struct lesson_setup *kv = s->setup.kv_labels ? &s->setup : &l->base;
	if (kv->kv_labels && kv->nkv_labels != s->cfg.m)
		lesson_parser_err(ps, kv->kv_labels_line, "%d kv_labels for kv_tokens %d in step '%s'", kv->nkv_labels,
		                  s->cfg.m, s->id);
	/* each base operation is reported once, for the first step it fails in */
	for (int i = 0; i < l->base.nops; i++) {
		bool rep = false;
		if (ps->base_op_reported[i])
			continue;
		check_op(ps, &l->base.ops[i], s, lab->labels, lab->nlabels, &rep);
		ps->base_op_reported[i] = rep;
	}
	for (int i = 0; i < s->setup.nops; i++) {
		bool rep = false;
		check_op(ps, &s->setup.ops[i], s, lab->labels, lab->nlabels, &rep);
	}
	for (int i = 0; i < s->nmarks; i++) {
		const struct lesson_mark *m = &s->marks[i];
		if (m->is_head ? m->head >= s->cfg.h : lesson_ref_check(&m->ref, &s->cfg, why, sizeof why) != 0)
			lesson_parser_err(ps, s->line, "step '%s': @highlight %s", s->id,
			    m->is_head ? "names a head that does not exist" : why);
	}
	for (int i = 0; i < s->nhides; i++)
		if (s->hides[i].kind == LESSON_HIDE_CELLS &&
		    lesson_ref_check(&s->hides[i].ref, &s->cfg, why, sizeof why) != 0)
			lesson_parser_err(ps, s->line, "step '%s': @hide %s", s->id, why);
	if (s->focus_layer >= s->cfg.layers)
		lesson_parser_err(ps, s->line, "step '%s': @focus layer %d: there %s %d layer%s", s->id, s->focus_layer,
		                  s->cfg.layers == 1 ? "is" : "are", s->cfg.layers, s->cfg.layers == 1 ? "" : "s");
	check_question(ps, s, caps);
	lesson_flash_resolve(ps, s);
	lesson_model_resolve(ps, s);
	for (int i = 0; i < s->ngoals; i++)
		check_cond(ps, s, &s->goals[i]);
	if (s->ngoals == 0 && (s->nhints || s->nsolution))
		lesson_parser_err(ps, s->line, "step '%s' has hints or a solution but no @goal", s->id);
	s->resets = s->setup.given || s->setup.labels || s->setup.kv_labels || s->setup.nops || s->ngoals > 0 ||
	            s->model;
	l->nexercises += s->ngoals > 0;
}

void lesson_parser_finish(struct parser *ps)
{
	struct lesson *l = ps->l;
	int last = ps->line > 0 ? ps->line : 1;
	if (!ps->number_line)
		lesson_parser_err(ps, 1, "missing @lesson N: every lesson has a number");
	if (!ps->title_line)
		lesson_parser_err(ps, 1, "missing @title: every lesson has a title");
	if (!ps->objective_line)
		lesson_parser_err(ps, 1, "missing @objective: every lesson has a one-line goal");
	if (l->nsteps == 0)
		lesson_parser_err(ps, last, "no @step: a lesson needs at least one");
	/* the file name's number, when it has one, must agree */
	long long fnum;
	const char *end;
	if (ps->number_line && l->number && lesson_parse_int(l->stem, &end, &fnum) == 0 && *end == '-' &&
	    fnum != l->number)
		lesson_parser_err(ps, ps->number_line, "@lesson %d, but the file name says %lld", l->number, fnum);
	size_t flags = ((size_t)l->base.nops + 1) * sizeof(bool);
	ps->base_op_reported = lesson_parser_need(ps, lesson_arena_alloc(ps->a, flags));
	for (int i = 0; i < l->nsteps && !ps->oom; i++) {
		struct caps caps = { 0 };
		struct lesson_step *s = &l->steps[i];
		/* arrays may grow here: count as full so the push reallocates */
		caps.goals = s->ngoals;
		caps.solution = s->nsolution;
		check_step(ps, s, &caps);
	}
}

