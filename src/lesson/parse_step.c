/*
 * parse_step.c - the directives of a step's exercise and view: @focus,
 * @highlight, @hide, @goal, @hint, @solution, @question, @choice, @answer.
 * Each fills the current step; what they mean at run time is run.c's and
 * goal.c's.
 */
#include "lesson_int.h"
#include "parser.h"
#include "wrap.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_d_focus(struct parser *ps, const char *arg)
{
	long long layer = -1;
	if (!strncmp(arg, "layer", 5) && (arg[5] == ' ' || arg[5] == '\t')) { /* "@focus layer 1 Scores" */
		const char *p = lesson_skip_blanks(arg + 5);
		if (lesson_parse_int(p, &p, &layer) != 0 || layer < 0 || layer >= MHA_MAX_LAYERS ||
		    (*p != ' ' && *p != '\t')) {
			lesson_parser_err(ps, ps->line, "@focus: write 'layer L STAGE', L in 0..%d (@focus layer 1 %s)",
			                  MHA_MAX_LAYERS - 1, pipeline_stage_label(PIPELINE_SCORES));
			return;
		}
		arg = lesson_skip_blanks(p);
	}
	lesson_parser_step(ps)->focus_layer = (int)layer;
	int st = lesson_stage_by_name(arg);
	if (st < 0) {
		char stages[160] = "";
		for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) /* as the pipeline names them */
			snprintf(stages + strlen(stages), sizeof stages - strlen(stages), "%s%s", s ? ", " : "",
			         pipeline_stage_label((enum pipeline_stage)s));
		lesson_parser_err(ps, ps->line, "@focus: '%.24s' is not a stage: %s (or 1-%d)", arg, stages,
		                  PIPELINE_STAGE_COUNT);
		return;
	}
	lesson_parser_step(ps)->focus = st;
}

/* A whole argument that is a reference; else an error saying what takes it. */
static int ref_arg(struct parser *ps, const char *arg, struct lesson_ref *ref, const char *what)
{
	char why[256] = "";
	const char *end = arg;
	if (lesson_parse_ref(arg, &end, ref, why, sizeof why) == 0 && !*lesson_skip_blanks(end))
		return 0;
	lesson_parser_err(ps, ps->line, "%s: %s", what, why[0] ? why : "unexpected text after the cells");
	return -1;
}

void lesson_d_highlight(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	struct lesson_mark m = { 0 };
	if (!strncmp(arg, "head ", 5)) {
		long long h;
		const char *end;
		if (lesson_parse_int(lesson_skip_blanks(arg + 5), &end, &h) != 0 || *lesson_skip_blanks(end) || h < 0 ||
		    h >= MHA_MAX_HEADS) {
			lesson_parser_err(ps, ps->line, "@highlight head H: H must be a head number");
			return;
		}
		m.is_head = true;
		m.head = (int)h;
	} else if (ref_arg(ps, arg, &m.ref, "@highlight takes 'head H' or cells (P\u2080[3,*])") != 0) {
		return;
	}
	struct lesson_mark *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->marks, &s->nmarks,
	                                               &ps->step_caps.marks, sizeof *slot));
	if (slot)
		*slot = m;
}

void lesson_d_hide(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	struct lesson_hide h = { 0 };
	int st = lesson_stage_by_name(arg);
	if (!strcmp(arg, "counts")) {
		h.kind = LESSON_HIDE_COUNTS;
	} else if (!strcmp(arg, "model")) { /* the language model's predictions and heads */
		h.kind = LESSON_HIDE_MODEL;
	} else if (st >= 0) {
		h.kind = LESSON_HIDE_STAGE;
		h.stage = (enum pipeline_stage)st;
	} else {
		h.kind = LESSON_HIDE_CELLS;
		if (ref_arg(ps, arg, &h.ref, "@hide takes a stage, 'counts' or cells (P\u2080[3,*])") != 0)
			return;
	}
	struct lesson_hide *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->hides, &s->nhides,
	                                               &ps->step_caps.hides, sizeof *slot));
	if (slot)
		*slot = h;
}

/* @wait ACTION: a view (named by its key action, as {key:...} names it)
 * that would show this step's answer from an earlier step. */
void lesson_d_wait(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	if (!lesson_key_action_known(arg) || s->wait) {
		lesson_parser_err(ps, ps->line, "@wait takes one view's action, as {key:...} names it (kv-cache)");
		return;
	}
	s->wait = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

/* ---- exercises ---- */

void lesson_d_goal(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	struct lesson_cond c = { 0 };
	char why[256];
	if (lesson_parse_cond(arg, &c, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@goal: %s", why);
		return;
	}
	c.line = ps->line;
	c.text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
	struct lesson_cond *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->goals, &s->ngoals,
	                                               &ps->step_caps.goals, sizeof *slot));
	if (slot)
		*slot = c;
}

void lesson_d_hint(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@hint needs its text on the same line");
		return;
	}
	const char **slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->hints, &s->nhints,
	                                        &ps->step_caps.hints, sizeof *slot));
	if (slot)
		*slot = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

void lesson_d_solution(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	struct lesson_edit e = { 0 };
	char why[256];
	if (lesson_parse_edit(arg, &e, ps->a, true, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@solution: %s", why);
		return;
	}
	e.line = ps->line;
	struct lesson_edit *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->solution, &s->nsolution,
	                                               &ps->step_caps.solution, sizeof *slot));
	if (slot)
		*slot = e;
}

void lesson_d_question(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	if (s->question) {
		lesson_parser_err(ps, ps->line, "one @question per step (the first is at line %d)", s->question->line);
		return;
	}
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@question needs its text on the same line");
		return;
	}
	s->question = lesson_parser_need(ps, lesson_arena_alloc(ps->a, sizeof *s->question));
	if (!s->question)
		return;
	s->question->text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
	s->question->line = ps->line;
}

static struct lesson_question *question(struct parser *ps, const char *what)
{
	struct lesson_question *q = lesson_parser_step(ps)->question;
	if (!q)
		lesson_parser_err(ps, ps->line, "@%s before any @question in this step", what);
	return q;
}

/* "KEY TEXT" (@choice, @feedback): KEY's length in *n and TEXT, or NULL
 * (said with usage) when either is missing or KEY is longer than max. */
static const char *key_and_text(struct parser *ps, const char *arg, size_t max, size_t *n,
                                const char *usage)
{
	*n = strcspn(arg, " \t");
	const char *text = lesson_skip_blanks(arg + *n);
	if (*n == 0 || *n > max || !*text) {
		lesson_parser_err(ps, ps->line, "%s", usage);
		return NULL;
	}
	return text;
}

void lesson_d_choice(struct parser *ps, const char *arg)
{
	struct lesson_question *q = question(ps, "choice");
	size_t n;
	const char *text = q ? key_and_text(ps, arg, 8, &n, "@choice takes a short key and its text: "
	                                    "@choice a the previous token") : NULL;
	if (!text)
		return;
	for (int i = 0; i < q->nchoices; i++)
		if (strlen(q->choices[i].key) == n && !strncmp(q->choices[i].key, arg, n))
			lesson_parser_err(ps, ps->line, "choice '%.8s' given twice", arg);
	struct lesson_choice *c = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&q->choices, &q->nchoices,
	                                              &ps->step_caps.choices, sizeof *c));
	if (!c)
		return;
	c->key = lesson_parser_need(ps, lesson_arena_strndup(ps->a, arg, n));
	c->text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, text));
}

/* @feedback KEY TEXT: what the pane says to that wrong answer. */
void lesson_d_feedback(struct parser *ps, const char *arg)
{
	struct lesson_question *q = question(ps, "feedback");
	size_t n;
	const char *text = q ? key_and_text(ps, arg, 24, &n, "@feedback takes a wrong choice's key (or a "
	                                    "wrong number) and why it is wrong: @feedback b that is the "
	                                    "standard deviation") : NULL;
	if (!text)
		return;
	for (int i = 0; i < q->nfeedback && strncmp(arg, "cell", n > 4 ? n : 4); i++) /* "cell REF" may repeat */
		if (strlen(q->feedback[i].key) == n && !strncmp(q->feedback[i].key, arg, n))
			lesson_parser_err(ps, ps->line, "@feedback for '%.24s' given twice", arg);
	struct lesson_feedback *f = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&q->feedback,
	                                                &q->nfeedback, &ps->step_caps.feedback, sizeof *f));
	if (!f)
		return;
	f->key = lesson_parser_need(ps, lesson_arena_strndup(ps->a, arg, n));
	f->text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, text));
	f->line = ps->line;
}

void lesson_d_answer(struct parser *ps, const char *arg)
{
	struct lesson_question *q = question(ps, "answer");
	if (!q)
		return;
	if (q->answer) {
		lesson_parser_err(ps, ps->line, "@answer given twice");
		return;
	}
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@answer needs the right choice's key, or a number");
		return;
	}
	q->answer = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}
