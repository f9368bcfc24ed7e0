/*
 * flash_step.c - lessons on the FlashAttention view (flash_step.h): the @flash
 * directive, the live answer "@answer flash QTY[ROW] TOL" with its slips
 * as @feedback keys, checked when the lesson is resolved, and the
 * arithmetic that turns the recording's numbers into the right answer
 * and each slip's answer. The numbers themselves come from the TUI, which
 * owns the recording; this file never computes attention.
 */
#include "flash_step.h"
#include "lesson_int.h"
#include "parser.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const slip_names[LESSON_SLIP_COUNT] = {
	"sum", "kept", "inverse", "no-exp", "no-rescale", "tile-only", "divided", "old",
};

enum lesson_flash_slip lesson_flash_slip_by_name(const char *name)
{
	for (int i = 0; i < LESSON_SLIP_COUNT; i++)
		if (!strcmp(slip_names[i], name))
			return (enum lesson_flash_slip)i;
	return LESSON_SLIP_NONE;
}

const char *lesson_flash_slip_name(enum lesson_flash_slip s)
{
	return s >= 0 && s < LESSON_SLIP_COUNT ? slip_names[s] : "";
}

bool lesson_flash_slip_fits(enum lesson_flash_slip s, enum lesson_flash_qty q)
{
	switch (s) {
	case LESSON_SLIP_SUM: return q == LESSON_FLASH_M;
	case LESSON_SLIP_KEPT: return q == LESSON_FLASH_M || q == LESSON_FLASH_RESCALE;
	case LESSON_SLIP_INVERSE: case LESSON_SLIP_NO_EXP: return q == LESSON_FLASH_RESCALE;
	case LESSON_SLIP_NO_RESCALE: case LESSON_SLIP_TILE_ONLY: case LESSON_SLIP_OLD:
		return q == LESSON_FLASH_L || q == LESSON_FLASH_O;
	case LESSON_SLIP_DIVIDED: return q == LESSON_FLASH_O;
	default: return false;
	}
}

/* The step's update, for x one of l and o (alpha = exp(m0 - m1)):
 *     x1 = alpha x0 + new,   new = sum over the tile's keys of exp(s - m1) [v]
 * so "no rescale" is x0 + new = x1 + (1 - alpha) x0, "tile only" is new
 * and "old" is x0. */
double lesson_flash_value(const struct lesson_flash_ask *ask, const struct lesson_flash_live *v,
                          enum lesson_flash_slip slip)
{
	bool o = ask->qty == LESSON_FLASH_O;
	double x0 = o ? v->o0 : v->l0, x1 = o ? v->o1 : v->l1;
	switch (slip) {
	case LESSON_SLIP_SUM: return v->seen_sum;
	case LESSON_SLIP_KEPT: return ask->qty == LESSON_FLASH_M ? v->m0 : 1.0;
	case LESSON_SLIP_INVERSE: return v->alpha > 0 ? 1.0 / v->alpha : HUGE_VAL;
	case LESSON_SLIP_NO_EXP: return v->m0 - v->m1;
	case LESSON_SLIP_NO_RESCALE: return x1 + (1.0 - v->alpha) * x0;
	case LESSON_SLIP_TILE_ONLY: return x1 - v->alpha * x0;
	case LESSON_SLIP_DIVIDED: return v->l1 > 0 ? v->o1 / v->l1 : HUGE_VAL;
	case LESSON_SLIP_OLD: return x0;
	default: break;
	}
	switch (ask->qty) {
	case LESSON_FLASH_M: return v->m1;
	case LESSON_FLASH_L: return v->l1;
	case LESSON_FLASH_RESCALE: return v->alpha;
	default: return v->o1;
	}
}

bool lesson_flash_answer_is(const char *answer)
{
	return answer && !strncmp(answer, "flash", 5) && (answer[5] == ' ' || answer[5] == '\t');
}

/* @flash BRxBC STEP [predict] */
void lesson_d_flash(struct parser *ps, const char *arg)
{
	struct lesson_step *s = lesson_parser_step(ps);
	long long br, bc, step;
	const char *p = arg;
	char word[16] = "";
	bool ok = lesson_parse_int(p, &p, &br) == 0 && (*p == 'x' || *p == 'X') &&
	          lesson_parse_int(p + 1, &p, &bc) == 0 &&
	          lesson_parse_int(lesson_skip_blanks(p), &p, &step) == 0;
	if (ok) {
		p = lesson_read_word(lesson_skip_blanks(p), word, sizeof word);
		ok = (!word[0] || !strcmp(word, "predict")) && !*lesson_skip_blanks(p);
	}
	if (!ok || br < 1 || bc < 1 || br > MHA_MAX_TOKENS || bc > MHA_MAX_TOKENS || step < 1 ||
	    step > 1 << 20) {
		lesson_parser_err(ps, ps->line, "@flash takes the tile sizes, the step and optionally "
		                  "'predict': @flash 2x2 3 predict");
		return;
	}
	if (s->flash) {
		lesson_parser_err(ps, ps->line, "@flash given twice (first at line %d)", s->flash->line);
		return;
	}
	s->flash = lesson_parser_need(ps, lesson_arena_alloc(ps->a, sizeof *s->flash));
	if (!s->flash)
		return;
	*s->flash = (struct lesson_flash){ (int)br, (int)bc, (int)step, word[0] != '\0', ps->line };
	if (s->flash->predict && step < 2)
		lesson_parser_err(ps, ps->line, "@flash ... predict: the step predicted comes after one the "
		                  "view shows, so it is 2 or more");
}

/* "m[0]", "l[3]", "rescale[1]", "o[0,2]": 0, or -1. */
static int parse_ask(const char *p, struct lesson_flash_ask *ask, const char **end)
{
	static const char *const names[] = { "m", "l", "rescale", "o" };
	size_t n = strcspn(p, "[");
	int q = -1;
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], p, n))
			q = i;
	long long row, col = 0;
	if (q < 0 || p[n] != '[' || lesson_parse_int(p + n + 1, &p, &row) != 0 || row < 0 ||
	    row >= MHA_MAX_TOKENS)
		return -1;
	if (q == LESSON_FLASH_O && (*p != ',' || lesson_parse_int(lesson_skip_blanks(p + 1), &p, &col) != 0 ||
	                            col < 0))
		return -1;
	if (*p != ']')
		return -1;
	*ask = (struct lesson_flash_ask){ (enum lesson_flash_qty)q, (int)row, (int)col };
	*end = p + 1;
	return 0;
}

/* A live question (its @answer starts "flash"): the answer names a
 * quantity of the recording, the step has @flash ... predict, and every
 * @feedback names a slip that fits the quantity. */
void lesson_flash_resolve(struct parser *ps, struct lesson_step *s)
{
	struct lesson_question *q = s->question;
	bool live = q && lesson_flash_answer_is(q->answer);
	if (s->flash && s->flash->predict && !live)
		lesson_parser_err(ps, s->flash->line, "@flash ... predict needs a question answered from the "
		                  "view (@answer flash ...): the hidden step shows once it is answered");
	if (!live)
		return;
	struct lesson_flash_ask ask;
	const char *p = lesson_skip_blanks(q->answer + 5), *end;
	q->tol = 0.0005;
	if (parse_ask(p, &ask, &end) != 0 ||
	    (*lesson_skip_blanks(end) && lesson_parse_number(lesson_skip_blanks(end), &end, &q->tol) != 0) ||
	    *lesson_skip_blanks(end) || q->tol < 0) {
		lesson_parser_err(ps, q->line, "@answer flash names m[ROW], l[ROW], rescale[ROW] or o[ROW,COL] "
		                  "and an optional tolerance: @answer flash l[0] 0.002");
		return;
	}
	if (!s->flash || !s->flash->predict)
		lesson_parser_err(ps, q->line, "@answer flash needs '@flash ... predict' in the step: the "
		                  "view hides the step the question asks about");
	if (ask.row >= s->cfg.n || (ask.qty == LESSON_FLASH_O && ask.col >= s->cfg.dk))
		lesson_parser_err(ps, q->line, "@answer flash: %s row %d does not exist at %d tokens, d_k %d",
		                  ask.qty == LESSON_FLASH_O ? "o column or" : "query", ask.row, s->cfg.n, s->cfg.dk);
	q->flash = lesson_parser_need(ps, lesson_arena_alloc(ps->a, sizeof *q->flash));
	if (q->flash)
		*q->flash = ask;
	for (int i = 0; i < q->nfeedback; i++) {
		struct lesson_feedback *f = &q->feedback[i];
		f->slip = lesson_flash_slip_by_name(f->key);
		if (f->slip == LESSON_SLIP_NONE || !lesson_flash_slip_fits(f->slip, ask.qty)) {
			char names[160] = "";
			for (int k = 0; k < LESSON_SLIP_COUNT; k++)
				if (lesson_flash_slip_fits((enum lesson_flash_slip)k, ask.qty))
					snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
					         names[0] ? ", " : "", slip_names[k]);
			lesson_parser_err(ps, f->line, "@feedback of a flash question names a slip: here %s",
			                  names);
		}
	}
}
