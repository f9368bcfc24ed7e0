/*
 * lex.c - the small pieces every lesson line is made of: blanks, words,
 * numbers (the core's mha_scan_number: locale-independent, no "nan" /
 * "inf" / hexadecimal), whole numbers, a quantity's value (a number, or on / off). Each returns the
 * end of what it read; nothing here knows about directives or lines.
 */
#include "lesson_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *lesson_skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '^' || ch == '.';
}

const char *lesson_read_word(const char *p, char *buf, size_t len)
{
	size_t n = 0;
	while (word_char(*p)) {
		if (n + 1 < len)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	return p;
}

int lesson_parse_number(const char *p, const char **end, double *out)
{
	return mha_scan_number(p, end, out) == MHA_OK ? 0 : -1; /* the core's reader */
}

int lesson_parse_int(const char *p, const char **end, long long *out)
{
	if (!isdigit((unsigned char)*p) && !(*p == '-' && isdigit((unsigned char)p[1])))
		return -1;
	char *e;
	errno = 0;
	long long v = strtoll(p, &e, 10);
	if (errno == ERANGE || (*e == '.' && e[1] != '.') || *e == 'e' || *e == 'E')
		return -1;
	*end = e;
	*out = v;
	return 0;
}

int lesson_parse_qty_value(const char *p, const char **end, double *out)
{
	static const struct { const char *word; int v; } words[] = {
		{ "on", 1 }, { "off", 0 }, { "true", 1 }, { "false", 0 }, { "yes", 1 }, { "no", 0 },
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i].word);
		if (!strncmp(p, words[i].word, n) && !word_char(p[n])) {
			*out = words[i].v;
			*end = p + n;
			return 0;
		}
	}
	char word[16]; /* an encoding: "rope" reads as MHA_POS_ROPE */
	size_t n = 0;
	while (word_char(p[n]) && n + 1 < sizeof word) {
		word[n] = p[n];
		n++;
	}
	word[n] = '\0';
	int pos = n && !word_char(p[n]) ? mha_pos_by_name(word) : -1;
	if (pos >= 0) {
		*out = pos;
		*end = p + n;
		return 0;
	}
	return lesson_parse_number(p, end, out);
}
