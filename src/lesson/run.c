/*
 * run.c - the step the learner is on: starting it (set-up and the
 * reference the 'unchanged' goals compare with), hints one at a time, the
 * solution, the learner's answer, and what the step hides until that
 * answer or highlights. Evaluation itself is in goal.c; drawing is the
 * TUI's, from the lines pane.c builds.
 */
#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool wants_reference(const struct lesson_step *s)
{
	for (int i = 0; i < s->ngoals; i++)
		if (s->goals[i].kind == LESSON_COND_UNCHANGED || s->goals[i].kind == LESSON_COND_CHANGED)
			return true;
	return false;
}

int lesson_run_start(struct lesson_run *run, const struct lesson *l, int i, bool force,
                     struct mha_config *c, struct mha_weights *w, char *msg, size_t len)
{
	memset(run, 0, sizeof *run);
	if (!l || i < 0 || i >= l->nsteps) {
		snprintf(msg, len, "%s: no step %d", l ? l->path : "lesson", i);
		return -1;
	}
	const struct lesson_step *s = &l->steps[i];
	int fresh = 0;
	if (s->resets || force) {
		struct mha_config nc;
		struct mha_weights nw;
		if (lesson_step_setup(l, i, &nc, &nw, msg, len) != 0)
			return -1;
		mha_weights_free(w);
		*c = nc;
		*w = nw;
		fresh = 1;
	}
	run->lesson = l;
	run->step = i;
	if (wants_reference(s)) { /* every layer's inputs and what they computed */
		if (mha_stack_alloc(&run->ref, c) != MHA_OK) {
			snprintf(msg, len, "out of memory");
			memset(run, 0, sizeof *run);
			return -1;
		}
		if (mha_weights_alloc(&run->ref_w, c) != MHA_OK) {
			mha_stack_free(&run->ref);
			snprintf(msg, len, "out of memory");
			memset(run, 0, sizeof *run);
			return -1;
		}
		mha_weights_carry(&run->ref_w, c, w, c);
		mha_stack_forward(c, &run->ref_w, &run->ref);
		run->ref_cfg = *c;
		run->has_ref = true;
	}
	return fresh;
}

bool lesson_run_question_waits(const struct lesson_run *run)
{
	const struct lesson_step *s = lesson_run_step(run);
	return s && s->question && !run->answer_right && !run->solution_shown && !run->unearned;
}

void lesson_run_forfeit(struct lesson_run *run)
{
	if (!lesson_run_question_waits(run))
		return;
	run->unearned = true;
	if (run->wrong < lesson_run_tries(run))
		run->wrong = lesson_run_tries(run);
}

void lesson_run_end(struct lesson_run *run)
{
	if (run->has_ref) {
		mha_stack_free(&run->ref);
		mha_weights_free(&run->ref_w);
	}
	memset(run, 0, sizeof *run);
}

const char *lesson_run_next_hint(struct lesson_run *run)
{
	const struct lesson_step *s = lesson_run_step(run);
	if (run->hints_shown >= s->nhints)
		return NULL;
	return s->hints[run->hints_shown++];
}

int lesson_run_solve(struct lesson_run *run, struct mha_config *c, struct mha_weights *w,
                     char *msg, size_t len)
{
	const struct lesson_step *s = lesson_run_step(run);
	bool shape;
	if (lesson_edits_apply(s->solution, s->nsolution, c, w, &shape, msg, len) != 0)
		return -1;
	char live[40];
	double v;
	bool is_live = s->question && (s->question->flash || s->question->cell);
	if (s->question && s->question->model) { /* the head the analysis names */
		int best = lesson_model_best(&run->model, (enum lesson_model_kind)s->question->model_kind);
		if (best < 0) {
			snprintf(msg, len, "the answer comes from the language model's view, which is not open here");
			return -1;
		}
		lesson_model_head_name(&run->model, best, live, sizeof live);
		is_live = true;
	} else if (is_live) { /* the recording's number, or the cell's as the learner asked */
		if (!lesson_run_expected(run, &v)) {
			snprintf(msg, len, s->question->cell ? "the cell the question asks about does not exist here"
			         : "the answer comes from the FlashAttention view, which holds no such number "
			         "here (is the row asked in the predicted step's query tile?)");
			return -1;
		}
		snprintf(live, sizeof live, "%.15g", v);
	}
	for (int i = 0; i < s->nsolution; i++)
		if (s->solution[i].kind == LESSON_EDIT_ANSWER &&
		    lesson_run_answer(run, is_live ? live : s->solution[i].answer,
		                      msg, len) < 0)
			return -1;
	run->solution_shown = run->unearned = true;
	return shape ? 1 : 0;
}

/* "1,048,576" and "1 048 576" read as 1048576. */
static bool is_group_mark(char c)
{
	return c == ',' || c == '_' || c == ' ' || c == '\t';
}

/* A typed number: a sign, digits in groups of three may be split by ',',
 * '_' or a blank (1,048,576), a '.' and decimals, an exponent. 0, or -1
 * when it is no number, -2 when a mark splits it anywhere else ("0,22",
 * "0.2 2": a comma for a decimal point, or a slip, is refused without
 * costing a try, never read as 22 or 0.22). */
static int read_answer_number(const char *text, double *out)
{
	char buf[64];
	size_t n = 0;
	const char *p = text, *end = text + strlen(text);
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	bool point = false, marked = false;
	int digits = 0; /* since the start or the last mark */
	for (; p < end; p++) {
		if (is_group_mark(*p)) {
			bool group = !point && (marked ? digits == 3 : digits >= 1 && digits <= 3) && end - p > 3 &&
			             isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
			             isdigit((unsigned char)p[3]) && (end - p == 4 || !isdigit((unsigned char)p[4]));
			if (!group)
				return -2;
			marked = true;
			digits = 0;
			continue;
		}
		digits = isdigit((unsigned char)*p) ? digits + 1 : 0;
		point = point || *p == '.' || *p == 'e' || *p == 'E';
		if (n + 1 >= sizeof buf)
			return -1;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	const char *stop;
	if (n == 0 || lesson_parse_number(buf, &stop, out) != 0 || *stop)
		return -1;
	return 0;
}

/* Decimals written after the '.' of the number at p. */
static int decimals_of(const char *p)
{
	p = lesson_skip_blanks(p);
	while (*p && *p != '.' && !isspace((unsigned char)*p))
		p++;
	int d = 0;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			d++;
	return d;
}

/* How many decimals the question asks: as its @answer is written, or for
 * a live one as its tolerance allows (0.0005 or 0.002: three). */
static int asked_decimals(const struct lesson_question *q)
{
	if (!q->flash && !q->cell)
		return decimals_of(q->answer);
	return q->tol > 0 ? (int)ceil(-log10(2 * q->tol) - 1e-9) : 0;
}

/* typed (written with d decimals) is want rounded to d, fewer than asked:
 * say so instead of a bare "not quite". */
static void note_precision(struct lesson_run *run, const struct lesson_question *q, const char *t,
                           double typed, double want)
{
	int d = decimals_of(t), asked = asked_decimals(q);
	run->precision[0] = '\0';
	if (d >= 1 && d < asked && fabs(typed - want) <= 0.5 * pow(10, -d) + 1e-9)
		snprintf(run->precision, sizeof run->precision, "right to %d decimal%s; the question asks %d",
		         d, d == 1 ? "" : "s", asked);
}

int lesson_run_answer(struct lesson_run *run, const char *text, char *msg, size_t len)
{
	const struct lesson_question *q = lesson_run_step(run)->question;
	if (!q) {
		snprintf(msg, len, "this step asks no question");
		return -1;
	}
	char t[LESSON_ANSWER_MAX];
	const char *p = lesson_skip_blanks(text);
	size_t n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n == 0 || n >= sizeof t) {
		snprintf(msg, len, "type your answer first");
		return -1;
	}
	memcpy(t, p, n);
	t[n] = '\0';
	bool right;
	if (q->nchoices > 0) {
		int k = 0;
		while (k < q->nchoices && strcasecmp(q->choices[k].key, t) != 0)
			k++;
		if (k == q->nchoices) {
			int at = snprintf(msg, len, "type one of:");
			for (int i = 0; i < q->nchoices && at >= 0 && (size_t)at < len; i++)
				at += snprintf(msg + at, len - (size_t)at, " %s", q->choices[i].key);
			return -1;
		}
		right = strcasecmp(q->answer, t) == 0;
	} else if (q->model) { /* a head, as the overview names it */
		int typed = lesson_model_read_head(&run->model, t);
		if (!run->model.ok) {
			snprintf(msg, len, "the language model's view is not open on the step's sentence");
			return -1;
		}
		if (typed < 0) {
			snprintf(msg, len, typed == -2 ? "type a head as the overview names it: L%dH%d" :
			         "the model has layers 0..%d and heads 0..%d", run->model.layers - 1, run->model.heads - 1);
			return -1;
		}
		right = typed == lesson_model_best(&run->model, (enum lesson_model_kind)q->model_kind);
	} else {
		double v, want;
		int read = read_answer_number(t, &v);
		if (read == -2) {
			snprintf(msg, len, "write decimals with a point (0.25); a comma only groups thousands (1,024)");
			return -1;
		}
		if (read != 0) {
			snprintf(msg, len, "type a number, such as 42 or 0.25");
			return -1;
		}
		if (!lesson_run_expected(run, &want)) {
			snprintf(msg, len, q->cell ? "the cell this question asks about does not exist here"
			         : "the FlashAttention view holds no number for this question (is the row "
			         "asked in the predicted step's query tile?)");
			return -1;
		}
		right = lesson_answer_near(q, v, want);
		if (!right)
			note_precision(run, q, t, v, want);
	}
	if (right || q->nchoices > 0)
		run->precision[0] = '\0';
	run->answered = true;
	run->answer_right = right;
	if (!right && run->wrong < 99 && ++run->wrong >= lesson_run_tries(run))
		run->unearned = true; /* brute force earns nothing */
	snprintf(run->answer, sizeof run->answer, "%s", t);
	const char *why = lesson_run_feedback(run);
	char tries[80];
	lesson_run_tries_text(run, tries, sizeof tries);
	/* no "look at the screen": the screen never shows the answer (screen_check.h) */
	if (right)
		snprintf(msg, len, "right%s", run->unearned ? " (counts as shown, not done)" : "");
	else if (why && why == run->precision)
		snprintf(msg, len, "almost: %s (%s)", why, tries);
	else if (why)
		snprintf(msg, len, "not quite: %s (%s)", why, tries);
	else if (run->unearned) /* no "try again" when no try is left: the rest of the line says so */
		snprintf(msg, len, "not quite (%s)", tries);
	else
		snprintf(msg, len, "not quite: try again (%s)", tries);
	return right ? 1 : 0;
}

int lesson_question_tries(const struct lesson_question *q)
{
	return q && (q->nchoices > 0 || q->model) ? 1 : LESSON_NUMBER_TRIES; /* a head: one of a few */
}

int lesson_run_tries(const struct lesson_run *run)
{
	return lesson_question_tries(lesson_run_step(run)->question);
}

int lesson_run_tries_left(const struct lesson_run *run)
{
	int left = lesson_run_tries(run) - run->wrong;
	return run->unearned || left < 0 ? 0 : left;
}

void lesson_run_tries_text(const struct lesson_run *run, char *out, size_t len)
{
	int left = lesson_run_tries_left(run);
	if (left == 0)
		snprintf(out, len, "no tries left: answer right to go on; it counts as shown");
	else if (run->wrong == 0 && left == 1)
		snprintf(out, len, "one try");
	else
		snprintf(out, len, "%d tr%s left", left, left == 1 ? "y" : "ies");
}

bool lesson_answer_near(const struct lesson_question *q, double typed, double v)
{
	return fabs(typed - v) <= q->tol + 1e-9 * fmax(1.0, fabs(v));
}

const char *lesson_run_feedback(const struct lesson_run *run)
{
	const struct lesson_question *q = lesson_run_step(run)->question;
	double v;
	if (!q || !run->answered || run->answer_right)
		return NULL;
	if (q->model) { /* the head of another kind: the slip its @feedback names */
		int typed = lesson_model_read_head(&run->model, run->answer);
		for (int i = 0; i < q->nfeedback && typed >= 0; i++)
			if (lesson_model_best(&run->model, (enum lesson_model_kind)q->feedback[i].slip) == typed)
				return q->feedback[i].text;
		return NULL;
	}
	bool numeric = q->nchoices == 0 && read_answer_number(run->answer, &v) == 0;
	for (int i = 0; i < q->nfeedback; i++) {
		const struct lesson_feedback *f = &q->feedback[i];
		double key = q->flash ? lesson_flash_value(q->flash, &run->live, f->slip)
		           : f->cell ? run->cell_slip[i < LESSON_CELL_SLIPS ? i : 0] : f->value;
		if (f->cell && (i >= LESSON_CELL_SLIPS || !run->cell_ok))
			continue;
		if (numeric ? lesson_answer_near(q, v, key) : strcasecmp(f->key, run->answer) == 0)
			return f->text;
	}
	return run->precision[0] ? run->precision : NULL;
}

bool lesson_run_expected(const struct lesson_run *run, double *out)
{
	const struct lesson_question *q = lesson_run_step(run)->question;
	*out = q ? q->value : 0.0;
	if (q && q->cell) { /* the cell's value at the last evaluation */
		*out = run->cell_value;
		return run->cell_ok;
	}
	if (q && q->model)
		return false; /* a head, not a number */
	if (!q || !q->flash)
		return true;
	if (!run->live.ok)
		return false;
	*out = lesson_flash_value(q->flash, &run->live, LESSON_SLIP_NONE);
	return true;
}

bool lesson_run_revealed(const struct lesson_run *run)
{
	return run->solution_shown || (run->answered && run->answer_right);
}

/* A wrong answer reveals nothing: what the step hides is the answer, or
 * gives it away, and a learner who could read it would copy it. */
static bool hiding(const struct lesson_run *run)
{
	return run && run->lesson && !lesson_run_revealed(run) && lesson_run_step(run)->nhides > 0;
}

bool lesson_run_hidden(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c)
{
	return lesson_run_hidden_at(run, 0, t, m, r, c);
}

bool lesson_run_hidden_at(const struct lesson_run *run, int layer, enum mha_tensor t, int m, int r, int c)
{
	if (!hiding(run))
		return false;
	const struct lesson_step *s = lesson_run_step(run);
	for (int i = 0; i < s->nhides; i++) {
		const struct lesson_hide *h = &s->hides[i];
		if (h->kind == LESSON_HIDE_STAGE && pipeline_stage_of(t) < PIPELINE_STAGE_COUNT &&
		    pipeline_stage_of(t) >= h->stage)
			return true;
		if (h->kind == LESSON_HIDE_CELLS && lesson_ref_in_layer(&h->ref, t, layer) &&
		    lesson_ref_contains(&h->ref, m, r, c))
			return true;
	}
	return false;
}

bool lesson_run_stage_hidden(const struct lesson_run *run, enum pipeline_stage st)
{
	if (!hiding(run))
		return false;
	const struct lesson_step *s = lesson_run_step(run);
	for (int i = 0; i < s->nhides; i++)
		if (s->hides[i].kind == LESSON_HIDE_STAGE && st >= s->hides[i].stage)
			return true;
	return false;
}

static bool hides_kind(const struct lesson_run *run, enum lesson_hide_kind k)
{
	if (!hiding(run))
		return false;
	const struct lesson_step *s = lesson_run_step(run);
	for (int i = 0; i < s->nhides; i++)
		if (s->hides[i].kind == k)
			return true;
	return false;
}

bool lesson_run_counts_hidden(const struct lesson_run *run)
{
	return hides_kind(run, LESSON_HIDE_COUNTS);
}

bool lesson_run_model_hidden(const struct lesson_run *run)
{
	return hides_kind(run, LESSON_HIDE_MODEL);
}

bool lesson_run_marked(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c)
{
	return lesson_run_marked_at(run, 0, t, m, r, c);
}

bool lesson_run_marked_at(const struct lesson_run *run, int layer, enum mha_tensor t, int m, int r, int c)
{
	if (!run || !run->lesson)
		return false;
	const struct lesson_step *s = lesson_run_step(run);
	for (int i = 0; i < s->nmarks; i++)
		if (!s->marks[i].is_head && lesson_ref_in_layer(&s->marks[i].ref, t, layer) &&
		    lesson_ref_contains(&s->marks[i].ref, m, r, c))
			return true;
	return false;
}

bool lesson_run_head_marked(const struct lesson_run *run, int h)
{
	if (!run || !run->lesson)
		return false;
	const struct lesson_step *s = lesson_run_step(run);
	for (int i = 0; i < s->nmarks; i++)
		if (s->marks[i].is_head && s->marks[i].head == h)
			return true;
	return false;
}
