/*
 * cond.c - one @goal condition, parsed into a struct lesson_cond (the
 * comparison, the quantity or cell it looks at, the values it wants).
 * Evaluating one is goal.c's.
 */
#include "lesson_int.h"
#include "model_step.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int lesson_parse_cmp(const char *p, const char **end)
{
	static const struct { const char *text; enum lesson_cmp c; } ops[] = {
		{ "<=", LESSON_LE }, { ">=", LESSON_GE }, { "==", LESSON_EQ }, { "!=", LESSON_NE },
		{ "<", LESSON_LT }, { ">", LESSON_GT }, { "=", LESSON_EQ },
		{ "within ", LESSON_IN }, { "in ", LESSON_IN },
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);
		if (!strncmp(p, ops[i].text, n)) {
			*end = p + n;
			return (int)ops[i].c;
		}
	}
	return -1;
}

const char *lesson_cmp_text(enum lesson_cmp c)
{
	static const char *const text[] = { "<", "<=", ">", ">=", "=", "!=", "within" };
	return (unsigned)c <= LESSON_IN ? text[c] : "?";
}

/* "head H off|on" after the word "head". */
static int cond_values(const char *p, struct lesson_cond *c, char *why, size_t len)
{
	p = lesson_skip_blanks(p);
	if (lesson_parse_qty_value(p, &p, &c->a) != 0) {
		snprintf(why, len, "expected a number after '%s'", lesson_cmp_text(c->cmp));
		return -1;
	}
	if (c->cmp == LESSON_IN) {
		p = p[0] == '.' && p[1] == '.' ? p + 2 : lesson_skip_blanks(p);
		if (lesson_parse_qty_value(p, &p, &c->b) != 0 || c->b < c->a) {
			snprintf(why, len, "'within' takes two numbers, low then high: within 0.1 0.3");
			return -1;
		}
	}
	if (*lesson_skip_blanks(p)) {
		snprintf(why, len, "unexpected '%.20s' at the end", lesson_skip_blanks(p));
		return -1;
	}
	return 0;
}

static bool single(struct lesson_range r)
{
	return r.lo == r.hi;
}

int lesson_parse_cond(const char *arg, struct lesson_cond *c, char *why, size_t len)
{
	char word[32];
	const char *p = lesson_skip_blanks(arg), *after = lesson_read_word(p, word, sizeof word);
	if (!strcmp(word, "answer") && !*lesson_skip_blanks(after)) {
		c->kind = LESSON_COND_ANSWER;
		return 0;
	}
	if (!strcmp(word, "model")) {
		c->kind = LESSON_COND_MODEL;
		return lesson_model_parse_cond(after, c, why, len);
	}
	if (!strcmp(word, "head")) {
		struct lesson_edit e = { 0 };
		c->kind = LESSON_COND_HEAD;
		if (lesson_parse_edit(p, &e, NULL, false, why, len) != 0)
			return -1;
		c->head = e.head;
		c->off = e.off;
		return 0;
	}
	if (!strcmp(word, "unchanged") || !strcmp(word, "changed")) {
		c->kind = word[0] == 'u' ? LESSON_COND_UNCHANGED : LESSON_COND_CHANGED;
		p = lesson_skip_blanks(after);
		if (lesson_parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		p = lesson_skip_blanks(p);
		if (lesson_parse_number(p, &p, &c->a) != 0 || c->a < 0 || *lesson_skip_blanks(p)) {
			snprintf(why, len, "expected '%s TENSOR TOLERANCE' (%s Y 0.05)", word, word);
			return -1;
		}
		return 0;
	}
	if (!strcmp(word, "argmax")) {
		c->kind = LESSON_COND_ARGMAX;
		p = lesson_skip_blanks(after);
		if (lesson_parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		if (!single(c->ref.r[0]) || !single(c->ref.r[1]) || c->ref.r[2].lo != 0 ||
		    c->ref.r[2].hi != -1) {
			snprintf(why, len, "argmax takes one row: argmax P\u2080[row,*] = column");
			return -1;
		}
		int cmp = lesson_parse_cmp(lesson_skip_blanks(p), &p);
		long long col;
		if ((cmp != LESSON_EQ && cmp != LESSON_NE) || lesson_parse_int(lesson_skip_blanks(p), &p, &col) != 0 ||
		    col < 0 || *lesson_skip_blanks(p)) {
			snprintf(why, len, "expected '= COLUMN' or '!= COLUMN' after the row");
			return -1;
		}
		c->cmp = (enum lesson_cmp)cmp;
		c->a = (double)col;
		return 0;
	}
	bool prev = !strcmp(word, "previous-token");
	if (prev || !strcmp(word, "prefix-matching")) {
		/* previous-token layer 0 >= 0.6: the layer's best head on generated sequences */
		char lw[16];
		long long l;
		c->kind = LESSON_COND_PROBE;
		c->probe = prev ? LESSON_PROBE_PREVIOUS : LESSON_PROBE_PREFIX;
		p = lesson_read_word(lesson_skip_blanks(after), lw, sizeof lw);
		if (strcmp(lw, "layer") != 0 || lesson_parse_int(lesson_skip_blanks(p), &p, &l) != 0 || l < 0 ||
		    l >= MHA_MAX_LAYERS) {
			snprintf(why, len, "expected '%s layer L OP VALUE' (%s layer 0 >= 0.6)", word, word);
			return -1;
		}
		c->layer = (int)l;
		int cmp = lesson_parse_cmp(lesson_skip_blanks(p), &p);
		if (cmp < 0) {
			snprintf(why, len, "expected a comparison (<, <=, >, >=, =, !=, within) after 'layer %lld'", l);
			return -1;
		}
		c->cmp = (enum lesson_cmp)cmp;
		return cond_values(p, c, why, len);
	}
	static const char *const reducers[] = { "max", "min", "sum" };
	enum lesson_qty q = lesson_qty_by_name(word);
	for (int r = 0; r < 3; r++) {
		if (strcmp(word, reducers[r]) != 0)
			continue;
		c->kind = LESSON_COND_REDUCE;
		c->reduce = r;
		p = lesson_skip_blanks(after);
		if (lesson_parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		break;
	}
	if (c->kind == LESSON_COND_REDUCE) {
		/* the comparison follows below */
	} else if (q != LESSON_Q_COUNT) {
		c->kind = LESSON_COND_QTY;
		c->qty = q;
		p = after;
	} else {
		c->kind = LESSON_COND_CELL;
		if (lesson_parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		if (!single(c->ref.r[0]) || !single(c->ref.r[1]) || !single(c->ref.r[2])) {
			snprintf(why, len, "a goal compares one cell: give every index (P\u2080[row,column])");
			return -1;
		}
	}
	int cmp = lesson_parse_cmp(lesson_skip_blanks(p), &p);
	if (cmp < 0) {
		snprintf(why, len, "expected a comparison (<, <=, >, >=, =, !=, within) after '%.30s'",
		         word);
		return -1;
	}
	c->cmp = (enum lesson_cmp)cmp;
	return cond_values(p, c, why, len);
}
