/*
 * lex.h - the small pieces of a lesson line (lex.c); each returns 0, or
 * -1 when the text is not one.
 */
#ifndef LEX_H
#define LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* Skip spaces and tabs. */
const char *lesson_skip_blanks(const char *p);
/* A word (letters, digits, '_', '-', '^', '.') into buf; returns the end. */
const char *lesson_read_word(const char *p, char *buf, size_t len);
/* A decimal number, locale-independent (digits, sign, '.', exponent):
 * mha_scan_number, the core's reader of typed and stored values. */
int lesson_parse_number(const char *p, const char **end, double *out);
/* A whole number. */
int lesson_parse_int(const char *p, const char **end, long long *out);

/* A quantity's value: a number, or on / off (true / false, yes / no) as 1 / 0. */
int lesson_parse_qty_value(const char *p, const char **end, double *out);

#endif
