/*
 * fmt.c - number formatting for matrix cells and the status line. The cell
 * format depends on the width only, never on the value's neighbours, so a
 * screen reads the same on every machine (the golden screens rely on it).
 * No curses here.
 */
#include "fmt.h"
#include <inttypes.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compact exponent: mantissa with as many decimals as fit, "e", exponent
 * without '+' or leading zeros: 1.2e5, -3e12, 5e-7. */
static int fmt_exp(char *out, size_t len, double v, int width)
{
	int ex0 = (int)floor(log10(fabs(v)));
	for (int dec = 2; dec >= 0; dec--) {
		/* mantissa in [1, 10); when it rounds up to 10 at these decimals
		 * ("9.97e5" at one decimal), it is 1 with the next exponent: "1.0e6" */
		int ex = ex0;
		char m[16], tail[8];
		snprintf(m, sizeof m, "%.*f", dec, v / pow(10.0, ex));
		if (fabs(atof(m)) >= 10.0) {
			ex++;
			snprintf(m, sizeof m, "%.*f", dec, v / pow(10.0, ex));
		}
		snprintf(tail, sizeof tail, "e%d", ex);
		if ((int)(strlen(m) + strlen(tail)) <= width) {
			snprintf(out, len, "%s%s", m, tail);
			return 0;
		}
	}
	return -1;
}

char *fmt_num(char *buf, size_t len, float v, int width)
{
	char s[32] = "";
	if (width < 3)
		width = 3;
	if (width > 15)
		width = 15;
	if (isnan(v)) {
		strcpy(s, "?");
	} else if (isinf(v)) {
		strcpy(s, v > 0 ? "inf" : "-inf");
	} else {
		/* decimals by width: 6 -> 3, 5 -> 2, 4 -> 1; the sign and "0." use the rest */
		int dec = width - 3 > 0 ? width - 3 : 0;
		if (dec > 4)
			dec = 4;
		double d = (double)v;
		for (; dec >= 0; dec--) {
			snprintf(s, sizeof s, "%.*f", dec, d);
			if ((int)strlen(s) <= width)
				break;
		}
		if (dec < 0 && fmt_exp(s, sizeof s, d, width) != 0)
			strcpy(s, d > 0 ? "big" : "-big");
		/* "-0.000": the value rounds to zero, the sign says nothing */
		if (s[0] == '-' && strspn(s + 1, "0.") == strlen(s + 1))
			memmove(s, s + 1, strlen(s));
		/* small values that round to zero keep their magnitude visible */
		if (d != 0.0 && strspn(s, "-0.") == strlen(s) && fmt_exp(s, sizeof s, d, width) != 0)
			strcpy(s, "0");
	}
	snprintf(buf, len, "%*s", width, s);
	return buf;
}

char *fmt_sig(char *buf, size_t len, float v, int digits)
{
	if (isnan(v))
		snprintf(buf, len, "? (not a number)");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
	else
		snprintf(buf, len, "%.*g", digits < 1 ? 1 : digits, (double)v);
	return buf;
}

char *fmt_full(char *buf, size_t len, float v) { return fmt_sig(buf, len, v, 9); }

char *fmt_bytes(char *buf, size_t len, int64_t bytes)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (u == 0 || v >= 100.0 || v == (double)(int64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, v >= 10.0 ? "%.1f %s" : "%.3g %s", v, unit[u]);
	return buf;
}

char *fmt_grouped(char *buf, size_t len, int64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%" PRId64, v), lead = digits[0] == '-';
	size_t o = 0;
	for (int i = 0; i < n && o + 2 < len; i++) {
		if (i > lead && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (len > 0)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}
