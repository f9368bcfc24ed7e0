/*
 * vexp_full.c - vexp(): exp over the whole float range, every version
 * vexp.h describes (scalar, AVX2+FMA, AVX-512F), for the tests that sweep
 * its error bound and special values. The product only needs exp of
 * s - max <= 0 (vexp_shift_sum); this general one is test support, kept
 * out of the engine. The version follows vexp_isa() (vexp_use).
 */
#include "vexp_full.h"
#include "vexp.h"
#include "vexp_poly.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VEXP_X86 1
#endif

static void exp_c(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = exp_one(x[i]);
}

#ifdef VEXP_X86
#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static inline __m256 exp8(__m256 x)
{
	/* clamp first (max before min: a NaN lane becomes EXP_LO and is put
	 * back at the end), so no lane computes inf, NaN or a subnormal */
	__m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(EXP_LO)), _mm256_set1_ps(EXP_HI));
	__m256 fk = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(LOG2E)),
	                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256 r = _mm256_fnmadd_ps(fk, _mm256_set1_ps(LN2_HI), xc);
	r = _mm256_fnmadd_ps(fk, _mm256_set1_ps(LN2_LO), r);
	__m256 y = POLY5(_mm256_fmadd_ps, _mm256_set1_ps, r);
	__m256i k = _mm256_cvtps_epi32(fk);
	__m256i k1 = _mm256_srai_epi32(k, 1), k2 = _mm256_sub_epi32(k, k1);
	__m256i bias = _mm256_set1_epi32(127);
	y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23)));
	y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23)));
	y = _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(EXP_LO), _CMP_LT_OQ), y);
	return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* lanes 0..rem-1 on, for the tail of an array */
AVX2 static inline __m256i tail8(size_t rem)
{
	__m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem), idx);
}

AVX2 static void exp_avx2(const float *x, float *y, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(y + i, exp8(_mm256_loadu_ps(x + i)));
	if (i < n) {
		__m256i m = tail8(n - i);
		_mm256_maskstore_ps(y + i, m, exp8(_mm256_maskload_ps(x + i, m)));
	}
}

#define AVX512 __attribute__((target("avx512f,avx2,fma")))

AVX512 static inline __m512 exp16(__m512 x)
{
	__m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(EXP_LO)), _mm512_set1_ps(EXP_HI));
	__m512 fk = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(LOG2E)),
	                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m512 r = _mm512_fnmadd_ps(fk, _mm512_set1_ps(LN2_HI), xc);
	r = _mm512_fnmadd_ps(fk, _mm512_set1_ps(LN2_LO), r);
	__m512 y = POLY5(_mm512_fmadd_ps, _mm512_set1_ps, r);
	/* scalef: y 2^k with one rounding, overflowing to inf only past FLT_MAX;
	 * lanes below EXP_LO give 0 */
	y = _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(EXP_LO), _CMP_GE_OQ), y, fk);
	return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

AVX512 static inline __mmask16 tail16(size_t rem)
{
	return (__mmask16)((1u << rem) - 1u);
}

AVX512 static void exp_avx512(const float *x, float *y, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		_mm512_storeu_ps(y + i, exp16(_mm512_loadu_ps(x + i)));
	if (i < n) {
		__mmask16 t = tail16(n - i);
		_mm512_mask_storeu_ps(y + i, t, exp16(_mm512_maskz_loadu_ps(t, x + i)));
	}
}

#endif

void vexp(const float *x, float *y, size_t n)
{
	switch (vexp_isa()) {
#ifdef VEXP_X86
	case VEXP_AVX512: exp_avx512(x, y, n); return;
	case VEXP_AVX2: exp_avx2(x, y, n); return;
#endif
	default: exp_c(x, y, n); return;
	}
}
