/*
 * roof.c - the ceilings of roof.h: a streaming read and an FMA loop, in
 * AVX-512, AVX2+FMA or plain C as vexp_isa() chose (the build stays
 * baseline x86-64). They measure the machine, not mha-tui: nothing here
 * is used to compute attention.
 */
#include "roof.h"
#include "vexp.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ROOF_X86 1
#endif

static float stream_c(const float *p, size_t n)
{
	float acc[8] = { 0 };
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		for (int l = 0; l < 8; l++)
			acc[l] += p[i + l];
	for (; i < n; i++)
		acc[0] += p[i];
	return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* C: one lane per chain, so the figure is what plain code reaches */
static float fma_c(long iters)
{
	float a[ROOF_CHAINS];
	for (int c = 0; c < ROOF_CHAINS; c++)
		a[c] = 0.001f * (float)c;
	for (long k = 0; k < iters; k++)
		for (int c = 0; c < ROOF_CHAINS; c++)
			a[c] = a[c] * 0.999f + 1e-4f;
	float s = 0.0f;
	for (int c = 0; c < ROOF_CHAINS; c++)
		s += a[c];
	return s;
}

#ifdef ROOF_X86
/* Four accumulators: the adds' latency hidden, the loads free to stream. */
#define STREAM_BODY(VF, LOAD, ADD, ZERO, W)                                          \
	VF a0 = ZERO(), a1 = ZERO(), a2 = ZERO(), a3 = ZERO();                       \
	size_t i = 0;                                                                \
	for (; i + 4 * (W) <= n; i += 4 * (W)) {                                     \
		a0 = ADD(a0, LOAD(p + i));                                           \
		a1 = ADD(a1, LOAD(p + i + (W)));                                     \
		a2 = ADD(a2, LOAD(p + i + 2 * (W)));                                 \
		a3 = ADD(a3, LOAD(p + i + 3 * (W)));                                 \
	}                                                                            \
	float lanes[W];                                                              \
	VF all = ADD(ADD(a0, a1), ADD(a2, a3));

__attribute__((target("avx512f"))) static float stream_avx512(const float *p, size_t n)
{
	STREAM_BODY(__m512, _mm512_loadu_ps, _mm512_add_ps, _mm512_setzero_ps, 16)
	_mm512_storeu_ps(lanes, all);
	return stream_c(lanes, 16) + stream_c(p + i, n - i);
}

__attribute__((target("avx2"))) static float stream_avx2(const float *p, size_t n)
{
	STREAM_BODY(__m256, _mm256_loadu_ps, _mm256_add_ps, _mm256_setzero_ps, 8)
	_mm256_storeu_ps(lanes, all);
	return stream_c(lanes, 8) + stream_c(p + i, n - i);
}

/* ROOF_CHAINS independent chains: enough to cover the FMA's latency on
 * two pipes (4-5 cycles x 2). The empty asm keeps every chain in a
 * register and every multiply-add in the loop. */
#define FMA_BODY(VF, FMA, ADD, SET1, STORE, W)                                       \
	VF x = SET1(0.999f), y = SET1(1e-4f);                                        \
	VF a0 = SET1(0.1f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0;     \
	VF a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;                            \
	for (long k = 0; k < iters; k++) {                                           \
		a0 = FMA(a0, x, y); a1 = FMA(a1, x, y); a2 = FMA(a2, x, y);          \
		a3 = FMA(a3, x, y); a4 = FMA(a4, x, y); a5 = FMA(a5, x, y);          \
		a6 = FMA(a6, x, y); a7 = FMA(a7, x, y); a8 = FMA(a8, x, y);          \
		a9 = FMA(a9, x, y); a10 = FMA(a10, x, y); a11 = FMA(a11, x, y);      \
		__asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), \
		                 "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9),   \
		                 "+v"(a10), "+v"(a11));                              \
	}                                                                            \
	VF s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));    \
	s = ADD(s, ADD(ADD(a8, a9), ADD(a10, a11)));                                 \
	float lanes[W];                                                              \
	STORE(lanes, s);                                                             \
	return stream_c(lanes, W);

__attribute__((target("avx512f"))) static float fma_avx512(long iters)
{
	FMA_BODY(__m512, _mm512_fmadd_ps, _mm512_add_ps, _mm512_set1_ps, _mm512_storeu_ps, 16)
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long iters)
{
	FMA_BODY(__m256, _mm256_fmadd_ps, _mm256_add_ps, _mm256_set1_ps, _mm256_storeu_ps, 8)
}
#endif

float roof_stream_sum(const float *p, size_t n)
{
#ifdef ROOF_X86
	switch (vexp_isa()) {
	case VEXP_AVX512: return stream_avx512(p, n);
	case VEXP_AVX2: return stream_avx2(p, n);
	case VEXP_SCALAR: break;
	}
#endif
	return stream_c(p, n);
}

float roof_fma(long iters)
{
#ifdef ROOF_X86
	switch (vexp_isa()) {
	case VEXP_AVX512: return fma_avx512(iters);
	case VEXP_AVX2: return fma_avx2(iters);
	case VEXP_SCALAR: break;
	}
#endif
	return fma_c(iters);
}

double roof_fma_flops(long iters)
{
	int lanes = 1;
#ifdef ROOF_X86
	lanes = vexp_isa() == VEXP_AVX512 ? 16 : vexp_isa() == VEXP_AVX2 ? 8 : 1;
#endif
	return 2.0 * ROOF_CHAINS * lanes * (double)iters;
}
