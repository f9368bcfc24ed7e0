/*
 * wrap.h - lesson text as lines of a given width (wrap.c): prose
 * re-wrapped, indented lines kept verbatim, {key:ACTION} placeholders
 * filled by the caller's key table; the lines and their kinds; widths in
 * display columns (wcwidth: a CJK character or an emoji is 2). The pane (pane.h) and the TUI's help build on it.
 */
#ifndef WRAP_H
#define WRAP_H

#include <stdbool.h>
#include <stddef.h>

/* The narrowest the lesson pane is ever drawn (the TUI's side column on
 * terminals below 130 columns, layout.h): lessons are written for it, and
 * --check-lessons fails a verbatim line or a word wider than it. */
enum { LESSON_PANE_MIN_COLS = 34 };

typedef const char *lesson_key_fn(const char *action, const void *ctx);

/* Every ACTION a lesson may name in {key:ACTION}, NULL-terminated. */
extern const char *const lesson_key_actions[];
bool lesson_key_action_known(const char *action);

enum lesson_line_kind {
	LESSON_LINE_BLANK,
	LESSON_LINE_TITLE,     /* lesson or step heading */
	LESSON_LINE_PROSE,     /* re-wrapped text */
	LESSON_LINE_VERBATIM,  /* an indented line, as written (formulas, tables) */
	LESSON_LINE_QUESTION,
	LESSON_LINE_CHOICE,
	LESSON_LINE_ANSWER,    /* what the learner answered, and whether it is right */
	LESSON_LINE_MET,       /* the goal holds: draw with the tick / success colour */
	LESSON_LINE_UNMET,     /* the goal does not hold yet */
	LESSON_LINE_HINT,
	LESSON_LINE_SOLUTION,
	LESSON_LINE_KEYS,      /* which keys do what here */
	LESSON_LINE_MENU,      /* a lesson in the menu */
	LESSON_LINE_MENU_DONE, /* a lesson in the menu, done */
};

struct lesson_line {
	enum lesson_line_kind kind;
	char *text;  /* UTF-8, at most `width` display columns */
};

struct lesson_text {
	struct lesson_line *lines;
	int count, cap;
};
void lesson_text_free(struct lesson_text *t);
/* Append one line, cut at width columns (no cut when width <= 0). 0 or -1. */
int lesson_text_add(struct lesson_text *t, enum lesson_line_kind kind, const char *s, int width);

/* Append prose wrapped to width display columns: lines separated by a blank
 * line are paragraphs, re-wrapped (kind: LESSON_LINE_PROSE, or `kind` for
 * continuation text such as hints); lines that start with a space or tab
 * are verbatim (tabs as 4 spaces, cut at the width). keys may be NULL.
 * Returns 0, or -1 when out of memory. */
int lesson_wrap(struct lesson_text *out, const char *prose, int width, enum lesson_line_kind kind,
                lesson_key_fn *keys, const void *ctx);

/* Text widths, in display columns as the terminal shows them. */
/* Bytes of the longest start of s within `cols` columns, never splitting
 * a character (a wide one that does not fit whole is left out). */
size_t lesson_utf8_prefix(const char *s, int cols);
/* Display columns of s. */
int lesson_utf8_width(const char *s);
/* The columns of the widest piece of a word that must stay on one line:
 * the pane breaks a word too long for its width between characters,
 * which cuts a word of a script written with spaces but is how text
 * with no spaces (CJK, wide characters) wraps anyway; so a wide character
 * ends a piece. "注意力" -> 2, "attention" -> 9, "注意attention" -> 9. */
int lesson_unbreakable_width(const char *word);

#endif
