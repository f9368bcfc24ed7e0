/*
 * vexp_poly.h - the constants and the scalar exp(x) behind vexp.c's
 * kernels (the algorithm and its bound are in vexp.h), shared with the
 * tests' full-range exp (tests/vexp_full.c), which sweeps the bound. Not a
 * public interface: include it only from those two.
 */
#ifndef VEXP_POLY_H
#define VEXP_POLY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp(x) = 2^k exp(r), k = round(x log2 e), r = x - k ln2 with
 * ln2 = LN2_HI + LN2_LO: LN2_HI has 9 significant bits, so k LN2_HI is
 * exact for |k| <= 256 and r loses nothing to cancellation. */
#define EXP_LO (-87.3365447505531f) /* ln FLT_MIN: below, the result is 0 */
#define EXP_HI 89.0f                /* above ln FLT_MAX = 88.72: +inf anyway */
#define LOG2E 1.44269504088896341f
#define LN2_HI 0.693359375f
#define LN2_LO (-2.12194440e-4f)
/* exp(r) ~ C0 + C1 r + ... + C5 r^5 on |r| <= ln2/2: a degree-5 fit
 * minimising the relative error (Lawson's iteration, computed for this
 * file): 7.5e-8 in exact arithmetic, 2.2e-7 evaluated in float. */
#define C0 1.000000119e+00f
#define C1 9.999997020e-01f
#define C2 4.999889433e-01f
#define C3 1.666757464e-01f
#define C4 4.191538319e-02f
#define C5 8.297654800e-03f
/* 1.5 * 2^23: adding it rounds a float of magnitude < 2^22 to an integer,
 * which then sits in the low mantissa bits */
#define ROUNDER 12582912.0f
/* 2^k for k in -126..127, built in the exponent field. */
static inline float pow2i(int k)
{
	uint32_t bits = (uint32_t)(k + 127) << 23;
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static inline float exp_one(float x)
{
	if (isnan(x))
		return x;
	if (x < EXP_LO)
		return 0.0f;
	if (x > EXP_HI)
		x = EXP_HI;
	float fk = floorf(x * LOG2E + 0.5f);
	float r = (x - fk * LN2_HI) - fk * LN2_LO;
	float y = ((((C5 * r + C4) * r + C3) * r + C2) * r + C1) * r + C0;
	/* two halves: k = 128 alone would not fit the exponent field */
	int k = (int)fk, k1 = k / 2;
	return y * pow2i(k1) * pow2i(k - k1);
}

/* exp(r), |r| <= ln2/2 (see C0..C5) */
#define POLY5(fma, set1, r) \
	fma(fma(fma(fma(fma(set1(C5), r, set1(C4)), r, set1(C3)), r, set1(C2)), r, set1(C1)), r, set1(C0))

#endif
