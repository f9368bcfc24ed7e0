/*
 * value.c - the one parser for a number a learner types or a file stores.
 * Strict: a decimal number and nothing else, finite, within MHA_VALUE_MAX.
 * mha_scan_number is its first half, for a number inside a longer line
 * (the lesson lexer's): it reads the number and says where it ends.
 * Also the cleaning of a message for print (mha_text_clean); the printing
 * itself is the store's (report.h): the core never prints.
 * The program never sets LC_NUMERIC, so strtod reads '.' as the decimal
 * point whatever the user's locale.
 */
#include "mha.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VALUE_TEXT_MAX = 64 }; /* longer than any useful float literal */
/* Only digits, sign, point and exponent: strtod alone would also take
 * "nan", "inf" and hexadecimal, none of which a learner or an author means. */
static const char number_chars[] = "0123456789+-.eE";

static enum mha_status refuse(char *msg, size_t len, const char *text, const char *why)
{
	snprintf(msg, len, "'%.24s%s' %s", text, strlen(text) > 24 ? "..." : "", why);
	return MHA_ERANGE;
}

void mha_text_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

enum mha_status mha_scan_number(const char *text, const char **end, double *out)
{
	size_t n = strspn(text, number_chars);
	if (n == 0)
		return MHA_EINVAL;
	if (n >= VALUE_TEXT_MAX)
		return MHA_ERANGE;
	char buf[VALUE_TEXT_MAX];
	memcpy(buf, text, n);
	buf[n] = '\0';
	errno = 0;
	char *e = NULL;
	double v = strtod(buf, &e);
	if (e == buf)
		return MHA_EINVAL;
	if ((errno == ERANGE && fabs(v) > 1.0) || !isfinite(v))
		return MHA_ERANGE; /* an underflow to 0 or a denormal is harmless */
	*end = text + (e - buf);
	*out = v;
	return MHA_OK;
}

enum mha_status mha_parse_value(const char *text, float *out, char *msg, size_t len)
{
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	if (n == 0)
		return refuse(msg, len, text, "is empty: type a number such as 0.5 or -1e-3");
	if (n >= VALUE_TEXT_MAX)
		return refuse(msg, len, text, "is too long to be a number");
	const char *end = p;
	double v = 0;
	enum mha_status s = strspn(p, number_chars) < n ? MHA_EINVAL : mha_scan_number(p, &end, &v);
	if (s == MHA_EINVAL || (s == MHA_OK && end != p + n))
		return refuse(msg, len, text, "is not a number: use digits, '.', '-' and e (0.5, -3, 1e-3)");
	if (s != MHA_OK || fabs(v) > (double)MHA_VALUE_MAX)
		return refuse(msg, len, text, "is too large: values must be within +-1e6");
	*out = (float)v; /* underflow to 0 or a denormal is harmless */
	if (len > 0)
		msg[0] = '\0';
	return MHA_OK;
}
