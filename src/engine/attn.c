/*
 * attn.c - one head's S = Q K^T and O = diag(inv) P V for the planned
 * forward's large path, and the same two products for the decode step
 * (kvdec.c: the rows are the query heads sharing a kv head, the keys come
 * from memory), in register tiles (attn_kernels.inc and kvdec_kernels.inc, compiled
 * once for AVX-512 and once for AVX2+FMA; the build stays baseline x86-64
 * and vexp's run-time choice picks the version). K is packed once per
 * forward into panels of `lanes` keys, so no block of rows pays for
 * re-packing it as sgemm does. Plain multiply-adds in float, no blocking
 * over dk or n beyond the register tile: a (rows, n) block and one head's
 * K and V sit in the core's L2. No BLAS, no allocation.
 */
#include "attn.h"
#include "vexp.h"

#include <assert.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KW 16
#define KN(x) x##_avx512
#define KTARGET __attribute__((target("avx512f,avx2,fma")))
#define VF __m512
#define VLOAD _mm512_loadu_ps
#define VSTORE _mm512_storeu_ps
#define VFMA _mm512_fmadd_ps
#define VMUL _mm512_mul_ps
#define VSET1 _mm512_set1_ps
#define VZERO _mm512_setzero_ps
#define SR 8
#define WR 6
#define WV 4
#include "attn_kernels.inc"
#include "kvdec_kernels.inc"
#undef KW
#undef KN
#undef KTARGET
#undef VF
#undef VLOAD
#undef VSTORE
#undef VFMA
#undef VMUL
#undef VSET1
#undef VZERO
#undef SR
#undef WR
#undef WV

#define KW 8
#define KN(x) x##_avx2
#define KTARGET __attribute__((target("avx2,fma")))
#define VF __m256
#define VLOAD _mm256_loadu_ps
#define VSTORE _mm256_storeu_ps
#define VFMA _mm256_fmadd_ps
#define VMUL _mm256_mul_ps
#define VSET1 _mm256_set1_ps
#define VZERO _mm256_setzero_ps
#define SR 6
#define WR 6
#define WV 2
#include "attn_kernels.inc"
#include "kvdec_kernels.inc"
#define ATTN_X86 1
#endif

int attn_lanes(int dk)
{
#ifdef ATTN_X86
	enum vexp_isa isa = vexp_isa();
	if (isa == VEXP_AVX512 && dk % 16 == 0)
		return 16;
	if (isa != VEXP_SCALAR && dk % 8 == 0)
		return 8;
#endif
	(void)dk;
	return 0;
}

size_t attn_packed_len(int n, int dk, int lanes)
{
	return lanes ? (size_t)((n + lanes - 1) / lanes) * (size_t)dk * (size_t)lanes : 0;
}

void attn_pack_k(int lanes, const float *k, int ldk, int r0, int r1, int dk, float *kp)
{
	for (int r = r0; r < r1; r++) {
		float *dst = kp + (size_t)(r / lanes) * dk * lanes + r % lanes;
		const float *src = k + (size_t)r * ldk;
		for (int e = 0; e < dk; e++)
			dst[(size_t)e * lanes] = src[e];
	}
}

typedef void scores_fn(const float *q, int ldq, const float *kp, int rows, int cols,
                       int dk, float alpha, float *s, int lds);
typedef void weighted_fn(const float *p, int ldp, const float *v, int rows, int cols,
                         int dk, const float *f, float *o, int ldo);

struct kernels {
	scores_fn *scores;
	weighted_fn *weighted, *weighted_acc;
};

static struct kernels kernels_for(int lanes)
{
	struct kernels k = { NULL, NULL, NULL };
#ifdef ATTN_X86
	if (lanes == 16)
		k = (struct kernels){ scores_avx512, weighted_avx512, weighted_acc_avx512 };
	else if (lanes == 8)
		k = (struct kernels){ scores_avx2, weighted_avx2, weighted_acc_avx2 };
#endif
	(void)lanes;
	/* no kernel: the caller should have asked attn_lanes first */
	assert(k.scores && k.weighted && k.weighted_acc);
	return k;
}

void attn_scores(int lanes, const float *q, int ldq, const float *kp, int rows, int cols,
                 int dk, float alpha, float *s, int lds)
{
	assert(lds >= cols && ldq >= dk);
	kernels_for(lanes).scores(q, ldq, kp, rows, cols, dk, alpha, s, lds);
}

void attn_weighted(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                   int dk, const float *inv, float *o, int ldo)
{
	assert(ldp >= cols && ldo >= dk && lanes && dk % lanes == 0);
	kernels_for(lanes).weighted(p, ldp, v, rows, cols, dk, inv, o, ldo);
}

void attn_dec_scores(int lanes, const float *q, int rows, const float *kp, int cols, int dk,
                     float alpha, float *s, int lds, const float *next, int next_cols)
{
	assert(lanes && cols % lanes == 0 && dk % lanes == 0 && lds >= cols);
#ifdef ATTN_X86
	if (lanes == 16)
		dec_scores_avx512(q, rows, kp, cols, dk, alpha, s, lds, next, next_cols / lanes);
	else
		dec_scores_avx2(q, rows, kp, cols, dk, alpha, s, lds, next, next_cols / lanes);
#else
	(void)q; (void)rows; (void)kp; (void)alpha; (void)s; (void)next; (void)next_cols;
#endif
}

void attn_dec_weighted(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                       int dk, const float *alpha, float *o, int v_rows)
{
	assert(lanes && dk % lanes == 0 && ldp >= cols);
#ifdef ATTN_X86
	if (lanes == 16)
		dec_weighted_avx512(p, ldp, v, rows, cols, dk, alpha, o, v_rows);
	else
		dec_weighted_avx2(p, ldp, v, rows, cols, dk, alpha, o, v_rows);
#else
	(void)p; (void)v; (void)rows; (void)cols; (void)alpha; (void)o; (void)v_rows;
#endif
}

void attn_weighted_acc(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                       int dk, const float *alpha, float *o, int ldo)
{
	assert(ldp >= cols && ldo >= dk && lanes && dk % lanes == 0);
	kernels_for(lanes).weighted_acc(p, ldp, v, rows, cols, dk, alpha, o, ldo);
}
