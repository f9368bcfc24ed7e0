/*
 * smallmm.c - the row-major product of gemm_rm (forward.h's gemm_fn) for
 * the trainer's small matrices: 32 x 32 x 16 and the like, called a dozen
 * times per sequence and layer, where OpenBLAS spends more time packing
 * its operands and dispatching than multiplying. op(B) is read in place,
 * or copied transposed into a (k, n) block on the stack when tb, then
 * each block of 4 rows of C is held in AVX-512 registers, 16 columns to a
 * vector, while the k multiply-adds run: C[i][j] = alpha sum_p op(A)[i][p]
 * op(B)[p][j], summed in float in order p = 0..k-1 (OpenBLAS sums in
 * another order: the results differ by float rounding, not more).
 * Larger shapes, and CPUs without AVX-512, go to gemm_rm. No allocation,
 * no threads.
 */
#include "smallmm.h"
#include "gemm.h"
#include "vexp.h"

/* The largest op(B) copied (floats: 64 KiB on the stack) and the widest
 * row of C held in registers (4 vectors of 16). */
enum { SMALL_B_MAX = 16384, SMALL_N_MAX = 64 };

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SMALL_X86 1

#define KTARGET __attribute__((target("avx512f,avx2,fma")))

/* R rows from r0 of C = alpha op(A) Bp, Bp (k, n) packed, n within NV
 * vectors of 16 (the last one masked): R x NV accumulators, sized at
 * compile time so that they stay in registers. */
#define SMALL_ROWS(R, NV)                                                                     \
	KTARGET static void small_##R##_##NV(bool ta, int r0, int n, int k, float alpha,          \
	                                     const float *a, int lda, const float *bp, int ldbp,   \
	                                     float *c, int ldc)                                   \
	{                                                                                         \
		const __mmask16 tail = (__mmask16)(n % 16 ? (1u << (n % 16)) - 1 : 0xffffu);      \
		__m512 acc[R][NV];                                                                \
		_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                                                       \
			_Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                              \
				acc[r][v] = _mm512_setzero_ps();                                  \
		for (int p = 0; p < k; p++) {                                                     \
			const float *brow = bp + (size_t)p * ldbp;                                   \
			__m512 bv[NV];                                                            \
			_Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                              \
				bv[v] = _mm512_maskz_loadu_ps(v == NV - 1 ? tail : 0xffff,        \
				                              brow + 16 * v);                     \
			_Pragma("GCC unroll 4") for (int r = 0; r < R; r++) {                                             \
				const int i = r0 + r;                                             \
				const __m512 av = _mm512_set1_ps(ta ? a[(size_t)p * lda + i]      \
				                                    : a[(size_t)i * lda + p]);    \
				_Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                      \
					acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);        \
			}                                                                         \
		}                                                                                 \
		const __m512 al = _mm512_set1_ps(alpha);                                          \
		_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                                                       \
			_Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                              \
				_mm512_mask_storeu_ps(c + (size_t)(r0 + r) * ldc + 16 * v,        \
				                      v == NV - 1 ? tail : 0xffff,                \
				                      _mm512_mul_ps(al, acc[r][v]));              \
	}
SMALL_ROWS(4, 1)
SMALL_ROWS(4, 2)
SMALL_ROWS(4, 3)
SMALL_ROWS(4, 4)
SMALL_ROWS(1, 1)
SMALL_ROWS(1, 2)
SMALL_ROWS(1, 3)
SMALL_ROWS(1, 4)

typedef void small_fn(bool ta, int r0, int n, int k, float alpha, const float *a, int lda,
                      const float *bp, int ldbp, float *c, int ldc);
static small_fn *const small_four[4] = { small_4_1, small_4_2, small_4_3, small_4_4 };
static small_fn *const small_one[4] = { small_1_1, small_1_2, small_1_3, small_1_4 };
#endif

void small_gemm(bool ta, bool tb, int m, int n, int k, float alpha,
                const float *a, int lda, size_t a_len,
                const float *b, int ldb, size_t b_len,
                float *c, int ldc, size_t c_len)
{
#ifdef SMALL_X86
	if (vexp_isa() == VEXP_AVX512 && m > 0 && n > 0 && k > 0 && n <= SMALL_N_MAX
	    && (size_t)k * n <= SMALL_B_MAX) {
		(void)a_len; (void)b_len; (void)c_len;
		// Bp (k,n) = op(B): B's own rows, or B^T copied (contiguous)
		float bt[SMALL_B_MAX];
		const float *bp = b;
		int ldbp = ldb;
		if (tb) {
			for (int j = 0; j < n; j++)
				for (int p = 0; p < k; p++)
					bt[(size_t)p * n + j] = b[(size_t)j * ldb + p];
			bp = bt;
			ldbp = n;
		}
		const int nv = (n + 15) / 16;
		int i = 0;
		for (; i + 4 <= m; i += 4)
			small_four[nv - 1](ta, i, n, k, alpha, a, lda, bp, ldbp, c, ldc);
		for (; i < m; i++)
			small_one[nv - 1](ta, i, n, k, alpha, a, lda, bp, ldbp, c, ldc);
		return;
	}
#endif
	gemm_rm(ta, tb, m, n, k, alpha, a, lda, a_len, b, ldb, b_len, c, ldc, c_len);
}
