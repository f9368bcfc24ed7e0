/*
 * fmt.h - numbers formatted to fit a fixed number of screen columns.
 */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <stdint.h>

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

/* A size in bytes as people write it, three significant digits and binary
 * units: "512 B", "1.5 KiB", "320 KiB", "1.25 GiB", "10 GiB". The one
 * formatter of sizes (the KV-cache view, the FlashAttention meter).
 * Returns buf. */
char *fmt_bytes(char *buf, size_t len, int64_t bytes);

/* A count with thousands separators: "1,089,536". Returns buf. */
char *fmt_grouped(char *buf, size_t len, int64_t v);

#endif
