/*
 * vexp.c - max, exp-and-sum, scale and add over float arrays, for the
 * softmax of the engine's paths and the trainers' gradient sums: a portable C version and, on x86-64,
 * AVX2+FMA and AVX-512F versions picked at run time (the build itself
 * stays baseline x86-64, and no -ffast-math: NaN and -inf keep their
 * meaning). The algorithm and its error bound are in vexp.h. No masking
 * or softmax logic here: softmax_fast.c decides which entries are computed.
 */
#include "vexp.h"
#include "vexp_poly.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VEXP_X86 1
#endif

static float shift_sum_c(const float *s, float m, float *p, size_t n)
{
	float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
	for (size_t i = 0; i < n; i++) {
		p[i] = exp_one(s[i] - m);
		acc[i & 3] += p[i];
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static float max_c(const float *x, size_t n, bool *nan)
{
	float m = -INFINITY;
	bool seen = false;
	for (size_t i = 0; i < n; i++) {
		seen |= isnan(x[i]);
		m = x[i] > m ? x[i] : m;
	}
	*nan = seen;
	return m;
}

static void scale_c(float *x, size_t n, float a)
{
	for (size_t i = 0; i < n; i++)
		x[i] *= a;
}

static void add_c(float *y, const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] += x[i];
}

#ifdef VEXP_X86
#define AVX2 __attribute__((target("avx2,fma")))

/* exp for x <= 0 and not NaN (the softmax's s - max): k is in -127..0,
 * so 2^k fits the exponent field at once (k = -127 makes it +0), and the
 * rounding to k is the ROUNDER addition, whose low bits give k. x is
 * clamped at -88, where k = -127, not at EXP_LO: there the product below
 * would be subnormal, and each such vector costs a microcode assist (rows
 * far below their max, and -inf masks, ran 3x slower); lanes under EXP_LO
 * are zeroed at the end either way. */
AVX2 static inline __m256 exp8_neg(__m256 x)
{
	__m256 xc = _mm256_max_ps(x, _mm256_set1_ps(-88.0f));
	__m256 t = _mm256_fmadd_ps(xc, _mm256_set1_ps(LOG2E), _mm256_set1_ps(ROUNDER));
	__m256 fk = _mm256_sub_ps(t, _mm256_set1_ps(ROUNDER));
	__m256 r = _mm256_fnmadd_ps(fk, _mm256_set1_ps(LN2_HI), xc);
	r = _mm256_fnmadd_ps(fk, _mm256_set1_ps(LN2_LO), r);
	__m256 y = POLY5(_mm256_fmadd_ps, _mm256_set1_ps, r);
	__m256i e = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(t), 23),
	                             _mm256_set1_epi32(127 << 23));
	y = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
	return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(EXP_LO), _CMP_LT_OQ), y);
}

/* lanes 0..rem-1 on, for the tail of an array */
AVX2 static inline __m256i tail8(size_t rem)
{
	__m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem), idx);
}

AVX2 static float hsum8(__m256 v)
{
	__m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	s = _mm_add_ps(s, _mm_movehl_ps(s, s));
	s = _mm_add_ss(s, _mm_movehdup_ps(s));
	return _mm_cvtss_f32(s);
}

AVX2 static float shift_sum_avx2(const float *s, float mx, float *p, size_t n)
{
	__m256 m = _mm256_set1_ps(mx), a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
	size_t i = 0;
	/* two independent chains: the exp's latency overlaps, and each
	 * accumulator sums half as many terms (less rounding) */
	for (; i + 16 <= n; i += 16) {
		__m256 e0 = exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(s + i), m));
		__m256 e1 = exp8_neg(_mm256_sub_ps(_mm256_loadu_ps(s + i + 8), m));
		_mm256_storeu_ps(p + i, e0);
		_mm256_storeu_ps(p + i + 8, e1);
		a0 = _mm256_add_ps(a0, e0);
		a1 = _mm256_add_ps(a1, e1);
	}
	for (; i < n; i += 8) {
		__m256i t = tail8(n - i);
		__m256 e = exp8_neg(_mm256_sub_ps(_mm256_maskload_ps(s + i, t), m));
		e = _mm256_and_ps(e, _mm256_castsi256_ps(t));
		_mm256_maskstore_ps(p + i, t, e);
		a0 = _mm256_add_ps(a0, e);
	}
	return hsum8(_mm256_add_ps(a0, a1));
}

AVX2 static float max_avx2(const float *x, size_t n, bool *nan)
{
	__m256 ninf = _mm256_set1_ps(-INFINITY), m0 = ninf, m1 = ninf, bad = _mm256_setzero_ps();
	size_t i = 0;
	/* max_ps(v, m) returns m when v is NaN: NaN is tracked apart */
	for (; i + 16 <= n; i += 16) {
		__m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
		m0 = _mm256_max_ps(v0, m0);
		m1 = _mm256_max_ps(v1, m1);
		bad = _mm256_or_ps(bad, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
	}
	for (; i < n; i += 8) {
		__m256i t = tail8(n - i);
		__m256 v = _mm256_blendv_ps(ninf, _mm256_maskload_ps(x + i, t), _mm256_castsi256_ps(t));
		m0 = _mm256_max_ps(v, m0);
		bad = _mm256_or_ps(bad, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
	}
	m0 = _mm256_max_ps(m0, m1);
	__m128 h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
	h = _mm_max_ps(h, _mm_movehl_ps(h, h));
	h = _mm_max_ss(h, _mm_movehdup_ps(h));
	*nan = _mm256_movemask_ps(bad) != 0;
	return _mm_cvtss_f32(h);
}

AVX2 static void scale_avx2(float *x, size_t n, float a)
{
	__m256 va = _mm256_set1_ps(a);
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), va));
	for (; i < n; i++)
		x[i] *= a;
}

AVX2 static void add_avx2(float *y, const float *x, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(x + i)));
	for (; i < n; i++)
		y[i] += x[i];
}

#define AVX512 __attribute__((target("avx512f,avx2,fma")))

/* exp for x <= 0 and not NaN (the softmax's s - max): no upper clamp,
 * no NaN lane to restore */
AVX512 static inline __m512 exp16_neg(__m512 x)
{
	__m512 xc = _mm512_max_ps(x, _mm512_set1_ps(EXP_LO));
	__m512 fk = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(LOG2E)),
	                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m512 r = _mm512_fnmadd_ps(fk, _mm512_set1_ps(LN2_HI), xc);
	r = _mm512_fnmadd_ps(fk, _mm512_set1_ps(LN2_LO), r);
	__m512 y = POLY5(_mm512_fmadd_ps, _mm512_set1_ps, r);
	return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(EXP_LO), _CMP_GE_OQ), y, fk);
}

AVX512 static inline __mmask16 tail16(size_t rem)
{
	return (__mmask16)((1u << rem) - 1u);
}

AVX512 static float shift_sum_avx512(const float *s, float mx, float *p, size_t n)
{
	__m512 m = _mm512_set1_ps(mx), a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		__m512 e0 = exp16_neg(_mm512_sub_ps(_mm512_loadu_ps(s + i), m));
		__m512 e1 = exp16_neg(_mm512_sub_ps(_mm512_loadu_ps(s + i + 16), m));
		_mm512_storeu_ps(p + i, e0);
		_mm512_storeu_ps(p + i + 16, e1);
		a0 = _mm512_add_ps(a0, e0);
		a1 = _mm512_add_ps(a1, e1);
	}
	for (; i < n; i += 16) {
		__mmask16 t = tail16(n - i < 16 ? n - i : 16);
		__m512 e = exp16_neg(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, s + i), m));
		e = _mm512_maskz_mov_ps(t, e);
		_mm512_mask_storeu_ps(p + i, t, e);
		a0 = _mm512_add_ps(a0, e);
	}
	return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

AVX512 static float max_avx512(const float *x, size_t n, bool *nan)
{
	__m512 ninf = _mm512_set1_ps(-INFINITY), m0 = ninf, m1 = ninf;
	__mmask16 bad = 0;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		__m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
		m0 = _mm512_max_ps(v0, m0);
		m1 = _mm512_max_ps(v1, m1);
		bad |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q);
	}
	for (; i < n; i += 16) {
		__mmask16 t = tail16(n - i < 16 ? n - i : 16);
		__m512 v = _mm512_mask_loadu_ps(ninf, t, x + i);
		m0 = _mm512_max_ps(v, m0);
		bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
	}
	*nan = bad != 0;
	return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

AVX512 static void scale_avx512(float *x, size_t n, float a)
{
	__m512 va = _mm512_set1_ps(a);
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		_mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), va));
	if (i < n) {
		__mmask16 t = tail16(n - i);
		_mm512_mask_storeu_ps(x + i, t, _mm512_mul_ps(_mm512_maskz_loadu_ps(t, x + i), va));
	}
}

AVX512 static void add_avx512(float *y, const float *x, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		_mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_loadu_ps(y + i), _mm512_loadu_ps(x + i)));
	if (i < n) {
		__mmask16 t = tail16(n - i);
		_mm512_mask_storeu_ps(y + i, t, _mm512_add_ps(_mm512_maskz_loadu_ps(t, y + i),
		                                              _mm512_maskz_loadu_ps(t, x + i)));
	}
}
#endif

struct kernels {
	float (*shift_sum)(const float *, float, float *, size_t);
	float (*max)(const float *, size_t, bool *);
	void (*scale)(float *, size_t, float);
	void (*add)(float *, const float *, size_t);
};

static const struct kernels table[] = {
	[VEXP_SCALAR] = { shift_sum_c, max_c, scale_c, add_c },
#ifdef VEXP_X86
	[VEXP_AVX2] = { shift_sum_avx2, max_avx2, scale_avx2, add_avx2 },
	[VEXP_AVX512] = { shift_sum_avx512, max_avx512, scale_avx512, add_avx512 },
#endif
};

static bool cpu_has(enum vexp_isa isa)
{
#ifdef VEXP_X86
	/* libgcc's check includes the OS's support (XGETBV) for the wide registers */
	if (isa == VEXP_AVX512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
	if (isa == VEXP_AVX2)
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
	return isa == VEXP_SCALAR;
}

/* -1 until the first call picks the widest version */
static atomic_int current = -1;

enum vexp_isa vexp_isa(void)
{
	int isa = atomic_load_explicit(&current, memory_order_relaxed);
	if (isa < 0) {
		isa = cpu_has(VEXP_AVX512) ? VEXP_AVX512 : cpu_has(VEXP_AVX2) ? VEXP_AVX2 : VEXP_SCALAR;
		atomic_store_explicit(&current, isa, memory_order_relaxed);
	}
	return (enum vexp_isa)isa;
}

const char *vexp_isa_name(enum vexp_isa isa)
{
	switch (isa) {
	case VEXP_SCALAR: return "scalar";
	case VEXP_AVX2: return "avx2+fma";
	case VEXP_AVX512: return "avx512f";
	}
	return "?";
}

bool vexp_use(enum vexp_isa isa)
{
	if (!cpu_has(isa))
		return false;
	atomic_store_explicit(&current, (int)isa, memory_order_relaxed);
	return true;
}

float vexp_shift_sum(const float *s, float m, float *p, size_t n)
{
	return table[vexp_isa()].shift_sum(s, m, p, n);
}

float vexp_max(const float *x, size_t n, bool *nan)
{
	return table[vexp_isa()].max(x, n, nan);
}

void vexp_scale(float *x, size_t n, float a)
{
	table[vexp_isa()].scale(x, n, a);
}

void vexp_add(float *y, const float *x, size_t n)
{
	table[vexp_isa()].add(y, x, n);
}
