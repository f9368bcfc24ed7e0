/*
 * model_step.c - lessons on the language model's view (model_step.h): the
 * @model directive, the goals "model ...", the solution edit "model head
 * KIND off", and the live answer "@answer model head KIND", checked when
 * the lesson is resolved and judged on the numbers the TUI measured
 * (struct lesson_model_live). Which head is "the previous-token head" is
 * never written in a lesson: it is the head with the largest score on the
 * step's sentence, so a lesson holds for whatever model is shipped. This
 * file computes nothing of the model.
 */
#include "model_step.h"
#include "lesson_int.h"
#include "parser.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[LESSON_MODEL_KINDS] = {
	"previous", "first", "current", "same", "induction",
};

int lesson_model_kind_by_name(const char *name)
{
	for (int i = 0; i < LESSON_MODEL_KINDS; i++)
		if (!strcmp(kind_names[i], name))
			return i;
	return -1;
}

const char *lesson_model_kind_name(enum lesson_model_kind k)
{
	return (unsigned)k < LESSON_MODEL_KINDS ? kind_names[k] : "?";
}

int lesson_model_best(const struct lesson_model_live *v, enum lesson_model_kind k)
{
	if (!v->ok || (unsigned)k >= LESSON_MODEL_KINDS)
		return -1;
	int best = -1;
	for (int i = 0; i < v->layers * v->heads && i < LESSON_MODEL_HEADS_MAX; i++)
		if (best < 0 || v->score[i][k] > v->score[best][k])
			best = i;
	return best;
}

void lesson_model_head_name(const struct lesson_model_live *v, int i, char *out, size_t len)
{
	int h = v->heads > 0 ? v->heads : 1;
	snprintf(out, len, "L%dH%d", i / h, i % h);
}

int lesson_model_read_head(const struct lesson_model_live *v, const char *text)
{
	const char *p = lesson_skip_blanks(text);
	long long l, h;
	if (toupper((unsigned char)*p) != 'L' || lesson_parse_int(p + 1, &p, &l) != 0)
		return -2;
	p = lesson_skip_blanks(p);
	if (toupper((unsigned char)*p) != 'H' || lesson_parse_int(p + 1, &p, &h) != 0 || *lesson_skip_blanks(p))
		return -2;
	if (l < 0 || h < 0 || l >= v->layers || h >= v->heads)
		return -1;
	return (int)(l * v->heads + h);
}

bool lesson_model_answer_is(const char *answer)
{
	return answer && !strncmp(answer, "model", 5) && (answer[5] == ' ' || answer[5] == '\t');
}

/* @model SENTENCE */
void lesson_d_model(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@model takes the sentence the language model reads: "
		                  "@model the dog saw the cat");
		return;
	}
	if (s->model) {
		lesson_parser_err(ps, ps->line, "@model given twice (first at line %d)", s->model_line);
		return;
	}
	/* the model reads at most MHA_MAX_TOKENS tokens; the view counts them
	 * with its tokenizer, here every word counts one at least */
	int words = 0;
	for (const char *p = arg; *p;) {
		p = lesson_skip_blanks(p);
		if (*p)
			words++;
		p += strcspn(p, " \t");
	}
	if (words > MHA_MAX_TOKENS)
		lesson_parser_err(ps, ps->line, "@model: %d words; the language model reads at most %d tokens", words,
		                  MHA_MAX_TOKENS);
	s->model = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
	s->model_line = ps->line;
}

/* "KIND off|on" into kind and off; 0, or -1. */
static int kind_state(const char *p, int *kind, bool *off, char *why, size_t len)
{
	char word[24];
	p = lesson_read_word(lesson_skip_blanks(p), word, sizeof word);
	*kind = lesson_model_kind_by_name(word);
	p = lesson_skip_blanks(p);
	bool is_off = !strncmp(p, "off", 3), is_on = !strncmp(p, "on", 2);
	if (*kind < 0 || (!is_off && !is_on) || *lesson_skip_blanks(p + (is_off ? 3 : 2))) {
		snprintf(why, len, "expected 'model head KIND off' (or on), KIND one of previous, first, current, "
		         "same, induction");
		return -1;
	}
	*off = is_off;
	return 0;
}

int lesson_model_parse_cond(const char *p, struct lesson_cond *c, char *why, size_t len)
{
	char word[24];
	p = lesson_skip_blanks(p);
	const char *after = lesson_read_word(p, word, sizeof word);
	if (!strcmp(word, "head")) {
		c->model = LESSON_MODEL_HEAD;
		return kind_state(after, &c->model_kind, &c->off, why, len);
	}
	if (!strcmp(word, "heads_off")) {
		c->model = LESSON_MODEL_HEADS_OFF;
		int cmp = lesson_parse_cmp(lesson_skip_blanks(after), &p);
		if (cmp < 0 || cmp == LESSON_IN || lesson_parse_number(lesson_skip_blanks(p), &p, &c->a) != 0 ||
		    *lesson_skip_blanks(p)) {
			snprintf(why, len, "expected 'model heads_off OP N' (model heads_off = 1)");
			return -1;
		}
		c->cmp = (enum lesson_cmp)cmp;
		return 0;
	}
	bool top1 = !strncmp(p, "top1[", 5), next = !strncmp(p, "next[", 5);
	long long t;
	if (top1 || next) {
		c->model = top1 ? LESSON_MODEL_TOP1 : LESSON_MODEL_NEXT;
		p += 5;
		if (lesson_parse_int(p, &p, &t) == 0 && *p == ']' && t >= 0 && t < MHA_MAX_TOKENS) {
			p = lesson_read_word(lesson_skip_blanks(p + 1), word, sizeof word);
			bool changed = !strcmp(word, "changed");
			if ((changed || !strcmp(word, "unchanged")) && !*lesson_skip_blanks(p)) {
				c->token = (int)t;
				c->off = changed; /* true: it must differ from the model as shipped */
				return 0;
			}
		}
		snprintf(why, len, "expected 'model %s[T] changed' (or unchanged), T a token's position",
		         top1 ? "top1" : "next");
		return -1;
	}
	snprintf(why, len, "a model goal is 'model head KIND off', 'model heads_off = N', 'model top1[T] changed' "
	         "or 'model next[T] changed'");
	return -1;
}

int lesson_model_parse_edit(const char *p, struct lesson_edit *e, char *why, size_t len)
{
	char word[24];
	p = lesson_read_word(lesson_skip_blanks(p), word, sizeof word);
	if (strcmp(word, "head") != 0) {
		snprintf(why, len, "the model's edit is 'model head KIND off' (or on)");
		return -1;
	}
	e->kind = LESSON_EDIT_MODEL_HEAD;
	return kind_state(p, &e->head, &e->off, why, len);
}

bool lesson_model_cond_eval(const struct lesson_cond *c, const struct lesson_model_live *v, char *why,
                            size_t len)
{
	if (!v->ok) {
		snprintf(why, len, "the language model's view is not open on the step's sentence");
		return false;
	}
	char name[24];
	switch (c->model) {
	case LESSON_MODEL_HEADS_OFF: {
		int off = 0;
		for (int i = 0; i < v->layers * v->heads && i < LESSON_MODEL_HEADS_MAX; i++)
			off += v->off[i];
		bool ok = false;
		switch (c->cmp) {
		case LESSON_LT: ok = off < c->a; break;
		case LESSON_LE: ok = off <= c->a; break;
		case LESSON_GT: ok = off > c->a; break;
		case LESSON_GE: ok = off >= c->a; break;
		case LESSON_EQ: ok = off == c->a; break;
		case LESSON_NE: ok = off != c->a; break;
		case LESSON_IN: break;
		}
		snprintf(why, len, "%d head%s of the model off, %s %s %g", off, off == 1 ? "" : "s",
		         ok ? "as wanted:" : "want", lesson_cmp_text(c->cmp), c->a);
		return ok;
	}
	case LESSON_MODEL_HEAD: {
		int best = lesson_model_best(v, (enum lesson_model_kind)c->model_kind);
		bool ok = best >= 0 && v->off[best] == c->off;
		/* the head is not named: finding it is the exercise */
		snprintf(why, len, "the head with the largest %s score is %s, want %s",
		         kind_names[c->model_kind], best >= 0 && v->off[best] ? "off" : "on", c->off ? "off" : "on");
		return ok;
	}
	case LESSON_MODEL_TOP1:
	case LESSON_MODEL_NEXT: {
		if (c->token >= v->n) {
			snprintf(why, len, "the sentence has no token %d", c->token);
			return false;
		}
		bool moved = c->model == LESSON_MODEL_TOP1 ? v->top1_changed[c->token] : v->next_changed[c->token];
		snprintf(name, sizeof name, "%s", c->model == LESSON_MODEL_TOP1 ? "the top prediction" : "the top 5");
		snprintf(why, len, "%s after token %d %s the model as shipped, want %s", name, c->token,
		         moved ? "differs from" : "is that of", c->off ? "a change" : "no change");
		return moved == c->off;
	}
	}
	snprintf(why, len, "?");
	return false;
}

/* A step on the model: its question answered from the live numbers is
 * "model head KIND", each @feedback key another kind (that kind's head
 * is the slip); model goals and answers need the step's @model. */
void lesson_model_resolve(struct parser *ps, struct lesson_step *s)
{
	struct lesson_question *q = s->question;
	bool needs = q && lesson_model_answer_is(q->answer);
	for (int i = 0; i < s->ngoals; i++)
		needs |= s->goals[i].kind == LESSON_COND_MODEL;
	for (int i = 0; i < s->nsolution; i++)
		needs |= s->solution[i].kind == LESSON_EDIT_MODEL_HEAD;
	for (int i = 0; i < s->nhides; i++)
		needs |= s->hides[i].kind == LESSON_HIDE_MODEL;
	if (needs && !s->model)
		lesson_parser_err(ps, s->line, "step '%s': model goals, answers, edits and '@hide model' need '@model "
		                  "SENTENCE' in the step", s->id);
	if (!q || !lesson_model_answer_is(q->answer))
		return;
	char word[24];
	const char *p = lesson_read_word(lesson_skip_blanks(q->answer + 5), word, sizeof word);
	char kind[24];
	p = lesson_read_word(lesson_skip_blanks(p), kind, sizeof kind);
	q->model_kind = lesson_model_kind_by_name(kind);
	if (strcmp(word, "head") != 0 || q->model_kind < 0 || *lesson_skip_blanks(p) || q->nchoices > 0) {
		lesson_parser_err(ps, q->line, "@answer model head KIND (KIND one of previous, first, current, same, "
		                  "induction), without @choice lines: the learner types the head");
		return;
	}
	q->model = true;
	for (int i = 0; i < q->nfeedback; i++) {
		struct lesson_feedback *f = &q->feedback[i];
		f->slip = lesson_model_kind_by_name(f->key);
		if (f->slip < 0 || f->slip == q->model_kind)
			lesson_parser_err(ps, f->line, "@feedback of a model question names another kind, whose head "
			                  "the learner typed instead: previous, first, current, same or induction");
	}
}
