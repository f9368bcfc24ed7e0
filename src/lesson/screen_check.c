/*
 * screen_check.c - no answer, and no goal target of a question step, on
 * the step's own drawn screen before the learner answers or after a wrong
 * answer (screen_check.h).
 */
#include "screen_check.h"
#include "lesson_int.h"
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SCREEN_MAX = 64 * 1024 };

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The number starting at p: digits, ',' between groups of three, one '.'. */
static double read_token(const char *p, const char **end)
{
	char buf[64];
	size_t n = 0;
	while (n + 1 < sizeof buf && (is_digit(*p) || ((*p == ',' || *p == '.') && is_digit(p[1])))) {
		if (*p != ',')
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	*end = p;
	return atof(buf);
}

/* A minus sign before p: '-' not itself after a letter or digit ("-0.75",
 * not the range "r0-2"). */
static bool negated(const char *text, const char *p)
{
	if (p == text || p[-1] != '-')
		return false;
	char b = p - 1 > text ? p[-2] : ' ';
	return !(is_digit(b) || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z'));
}

bool lesson_screen_shows(const char *text, double v)
{
	for (const char *p = text; *p;) {
		if (!is_digit(*p) || (p > text && (is_digit(p[-1]) || p[-1] == '.'))) {
			p++;
			continue;
		}
		const char *end;
		double got = read_token(p, &end);
		if (negated(text, p))
			got = -got; /* -0.75 on screen does not give away 0.75 */
		if (fabs(got - v) <= 1e-9 * fmax(1.0, fabs(v)))
			return true;
		if (*end == 'x' && is_digit(end[1])) { /* a shape: "W^Q 6x6" gives 36 away */
			const char *e2;
			double b = read_token(end + 1, &e2);
			if (fabs(got * b - v) <= 1e-9 * fmax(1.0, fabs(v)))
				return true;
		}
		p = end;
	}
	return false;
}

/* Worth searching for: at least two digits, or a fraction. */
static bool searchable(double v)
{
	return fabs(v) >= 10 || (v != floor(v));
}

void lesson_screen_wrong_answer(const struct lesson_question *q, char *out, size_t len)
{
	for (int i = 0; i < q->nchoices; i++)
		if (strcmp(q->choices[i].key, q->answer) != 0) {
			snprintf(out, len, "%s", q->choices[i].key);
			return;
		}
	/* far from any answer a lesson asks; and not it */
	snprintf(out, len, "%s", fabs(q->value - 12345) > q->tol + 1 ? "12345" : "54321");
}

/* The answer on step s's screen text, as it opens (wrong NULL) or after
 * the wrong answer: one error. */
static int shows_answer(const struct lesson *l, const struct lesson_step *s, const char *text,
                        const char *wrong, struct lesson_errors *errs)
{
	const struct lesson_question *q = s->question;
	if (q->nchoices > 0 || !searchable(q->value) || !lesson_screen_shows(text, q->value))
		return 0;
	if (wrong)
		lesson_errors_add(errs, "%s:%d: step '%s': its screen shows the answer %.15g after the wrong "
		                  "answer %s: a wrong answer must reveal nothing (not in @feedback either)",
		                  l->path, q->line, s->id, q->value, wrong);
	else
		lesson_errors_add(errs, "%s:%d: step '%s': its screen shows the answer %.15g before the "
		                  "learner answers: @hide what shows it", l->path, q->line, s->id, q->value);
	return 1;
}

int lesson_check_screens(const struct lesson_set *set, lesson_screen_fn *draw, void *ctx,
                         struct lesson_errors *errs)
{
	static char text[SCREEN_MAX];
	int found = 0;
	for (int li = 0; li < set->count; li++) {
		const struct lesson *l = &set->lessons[li];
		for (int si = 0; si < l->nsteps; si++) {
			const struct lesson_step *s = &l->steps[si];
			const struct lesson_question *q = s->question;
			if (!q || draw(ctx, set, li, si, NULL, text, sizeof text) != 0)
				continue;
			int shown = shows_answer(l, s, text, NULL, errs);
			char wrong[LESSON_ANSWER_MAX];
			lesson_screen_wrong_answer(q, wrong, sizeof wrong);
			if (!shown && draw(ctx, set, li, si, wrong, text, sizeof text) == 0)
				shown = shows_answer(l, s, text, wrong, errs);
			found += shown;
			/* the goal line shows the first condition not met: the answer, or a target */
			if (s->ngoals > 1 && s->goals[0].kind != LESSON_COND_ANSWER) {
				lesson_errors_add(errs, "%s:%d: step '%s': its goal line would show the target of '%s' "
				                  "before the learner answers: put @goal answer first", l->path,
				                  s->goals[0].line, s->id, s->goals[0].text);
				found++;
			}
		}
	}
	return found;
}
