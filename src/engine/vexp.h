/*
 * vexp.h - vector kernels for the softmax: row max, exp-and-sum, scale.
 * Internal to the engine (the tests include it too; their full-range
 * vexp(), tests/vexp_full.c, shares the exp below).
 *
 * One portable C version and, on x86-64, AVX2+FMA and AVX-512F versions
 * chosen at run time from what the CPU offers: the binary is built for
 * baseline x86-64 and runs anywhere.
 *
 * exp(x), every version, float in and out:
 *   - range reduction x = k ln2 + r, k = round(x log2 e), |r| <= ln2/2,
 *     ln2 split in two (Cody-Waite) so k ln2 is exact for |k| <= 256;
 *   - exp(r) by a degree-5 polynomial fitted for least relative error;
 *   - times 2^k built in the exponent bits (AVX-512: scalef), in two
 *     halves where k = 128 (x up to ln FLT_MAX = 88.72) would not fit.
 *   Relative error at most 4e-7 (about 3 ulp; measured: 2.2e-7 in C, 2.0e-7
 *   with AVX2 or AVX-512, over 201,787 points) for x in
 *   [ln FLT_MIN, ln FLT_MAX] = [-87.34, 88.72] (tests/perf sweeps it).
 *   x < -87.34 gives exactly 0 (the true value is below FLT_MIN = 1.2e-38,
 *   a subnormal: flushing keeps the kernel free of slow subnormal
 *   arithmetic), -inf gives exactly 0, x > 88.72 and +inf give +inf,
 *   NaN gives NaN.
 */
#ifndef VEXP_H
#define VEXP_H

#include <stdbool.h>
#include <stddef.h>

enum vexp_isa { VEXP_SCALAR, VEXP_AVX2, VEXP_AVX512 };

/* The version in use: the widest the CPU offers unless vexp_use chose. */
enum vexp_isa vexp_isa(void);
const char *vexp_isa_name(enum vexp_isa isa);
/* Use this version from now on (for tests and the bench): false, and no
 * change, when the CPU lacks it. Not thread-safe against running kernels. */
bool vexp_use(enum vexp_isa isa);

/* p_i = exp(s_i - m); returns sum_i p_i. p may equal s. Only for
 * s_i <= m and no NaN (a softmax row shifted by its max, -inf allowed):
 * that range lets it skip the upper clamp and the NaN lanes. */
float vexp_shift_sum(const float *s, float m, float *p, size_t n);
/* max_i x_i (-inf for n = 0); *nan set when some x_i is NaN. */
float vexp_max(const float *x, size_t n, bool *nan);
/* x_i *= a */
void vexp_scale(float *x, size_t n, float a);
/* y_i += x_i: one IEEE addition per element, so every version gives the
 * same bits as the plain loop (the trainers' sums rely on it). */
void vexp_add(float *y, const float *x, size_t n);

#endif
