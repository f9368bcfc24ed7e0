/*
 * edit.c - one edit line, as @set and @solution write them ("W^Q[4,0] =
 * 12", "X *= 2", "heads = 8", "head 2 off", "pad 4 on", "answer b"), parsed
 * into a struct lesson_edit. Applying edits is setup.c's.
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

/* "H off" / "H on" after what ("head": H a head; "pad": H a key token). */
static int parse_head_state(const char *p, const char *what, int *head, bool *off, char *why, size_t len)
{
	long long h;
	p = lesson_skip_blanks(p);
	bool pad = !strcmp(what, "pad");
	if (lesson_parse_int(p, &p, &h) != 0 || h < 0 || h >= (pad ? MHA_MAX_TOKENS : MHA_MAX_HEADS)) {
		snprintf(why, len, "expected '%s %s off' or '%s %s on' with %s a %s number", what, pad ? "T" : "H", what,
		         pad ? "T" : "H", pad ? "T" : "H", pad ? "key token" : "head");
		return -1;
	}
	p = lesson_skip_blanks(p);
	bool is_off = !strncmp(p, "off", 3), is_on = !strncmp(p, "on", 2);
	if (!is_off && !is_on) {
		snprintf(why, len, "expected 'off' or 'on' after the %s number", pad ? "token" : "head");
		return -1;
	}
	p = lesson_skip_blanks(p + (is_off ? 3 : 2));
	if (*p) {
		snprintf(why, len, "unexpected '%.20s' after '%s %lld %s'", p, what, h, is_off ? "off" : "on");
		return -1;
	}
	*head = (int)h;
	*off = is_off;
	return 0;
}

int lesson_parse_edit(const char *p, struct lesson_edit *e, struct lesson_arena *a, bool allow_answer,
               char *why, size_t len)
{
	char word[32];
	p = lesson_skip_blanks(p);
	const char *after = lesson_read_word(p, word, sizeof word);
	if (!strcmp(word, "head")) {
		e->kind = LESSON_EDIT_HEAD;
		return parse_head_state(after, word, &e->head, &e->off, why, len);
	}
	if (!strcmp(word, "model")) { /* the language model's head: the TUI switches it */
		if (!allow_answer) {
			snprintf(why, len, "'model head KIND off' belongs in @solution: a step's set-up opens the model as shipped");
			return -1;
		}
		return lesson_model_parse_edit(after, e, why, len);
	}
	if (!strcmp(word, "pad")) {
		e->kind = LESSON_EDIT_PAD;
		return parse_head_state(after, word, &e->head, &e->off, why, len);
	}
	if (!strcmp(word, "answer")) {
		after = lesson_skip_blanks(after);
		if (!allow_answer || !*after) {
			snprintf(why, len, allow_answer ? "'answer' needs the answer after it"
			                                : "'answer' belongs in @solution, not here");
			return -1;
		}
		e->kind = LESSON_EDIT_ANSWER;
		e->answer = lesson_arena_strdup(a, after);
		return e->answer ? 0 : (snprintf(why, len, "out of memory"), -1);
	}
	enum lesson_qty q = lesson_qty_by_name(word);
	if (q != LESSON_Q_COUNT) {
		if (q >= LESSON_Q_CONFIG_COUNT || q == LESSON_Q_SEED) {
			snprintf(why, len, "%s cannot be assigned: it follows from the configuration", word);
			return -1;
		}
		p = lesson_skip_blanks(after);
		if (*p != '=' || p[1] == '=') {
			snprintf(why, len, "expected '%s = VALUE'", word);
			return -1;
		}
		p = lesson_skip_blanks(p + 1);
		if (lesson_parse_qty_value(p, &p, &e->value) != 0 || *lesson_skip_blanks(p) ||
		    e->value != floor(e->value) || fabs(e->value) > 1e6) {
			snprintf(why, len, "%s needs a whole number (or on / off)", word);
			return -1;
		}
		e->kind = LESSON_EDIT_CONFIG;
		e->field = q;
		return 0;
	}
	if (lesson_parse_ref(p, &p, &e->ref, why, len) != 0)
		return -1;
	if (!mha_tensor_info(e->ref.t)->input) {
		snprintf(why, len, "%s is computed, not edited: edit X, W^Q, W^K, W^V or W^O",
		         mha_tensor_info(e->ref.t)->name);
		return -1;
	}
	p = lesson_skip_blanks(p);
	if (p[0] == '*' && p[1] == '=') {
		e->kind = LESSON_EDIT_SCALE;
		p += 2;
	} else if (p[0] == '=' && p[1] != '=') {
		e->kind = LESSON_EDIT_SET;
		p += 1;
	} else {
		snprintf(why, len, "expected '= VALUE' or '*= FACTOR' after the cells");
		return -1;
	}
	p = lesson_skip_blanks(p);
	if (lesson_parse_number(p, &p, &e->value) != 0 || *lesson_skip_blanks(p) || fabs(e->value) > MHA_VALUE_MAX) {
		snprintf(why, len, "expected a number within +-1e6 after '%s'",
		         e->kind == LESSON_EDIT_SCALE ? "*=" : "=");
		return -1;
	}
	return 0;
}
