/*
 * fmt.h - numbers formatted to fit a fixed number of screen columns.
 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>

/* Writes v into buf in at most width characters (width 3..15), right
 * aligned to exactly width, with a fixed number of decimals chosen by the
 * width alone (width 6: "-0.123", width 5: "-0.12") so that screens are
 * stable; too large for that: fewer decimals, then a compact exponent
 * ("1.2e5", "-3e12"). Never "nan": NaN is "?", infinities "inf" / "-inf".
 * Negative zero prints as zero. Returns buf. */
char *fmt_num(char *buf, size_t len, float v, int width);

/* v with `digits` significant digits, keeping its exponent ("1.71e-12"
 * at 3), never "nan". Returns buf. */
char *fmt_sig(char *buf, size_t len, float v, int digits);

/* The full value for the status line: 9 significant digits, never "nan". */
char *fmt_full(char *buf, size_t len, float v);

#endif
