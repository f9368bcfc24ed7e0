/*
 * gemm.c - matrix products for the core: OpenBLAS's cblas_sgemm (and
 * cblas_dgemm for the float64 analyses), or plain
 * loops when built with -Dblas=reference. The size check comes first on
 * both paths; a violation is a programming error, so it aborts (assert).
 */
#include "gemm.h"

#include <assert.h>
#include <stdio.h>

#ifndef MHA_BLAS_REFERENCE
#include <cblas.h>
#endif

/* Last element touched by a row-major (rows, cols) view with stride ld. */
static size_t extent(int rows, int cols, int ld)
{
	return rows == 0 || cols == 0 ? 0 : (size_t)(rows - 1) * (size_t)ld + (size_t)cols;
}

static void check_sizes(bool ta, bool tb, int m, int n, int k,
                        int lda, size_t a_len, int ldb, size_t b_len,
                        int ldc, size_t c_len)
{
	assert(m >= 0 && n >= 0 && k >= 0);
	int ar = ta ? k : m, ac = ta ? m : k; /* A as stored */
	int br = tb ? n : k, bc = tb ? k : n; /* B as stored */
	assert(lda >= ac && ldb >= bc && ldc >= n);
	assert(extent(ar, ac, lda) <= a_len);
	assert(extent(br, bc, ldb) <= b_len);
	assert(extent(m, n, ldc) <= c_len);
	(void)ar; (void)ac; (void)br; (void)bc;
	(void)lda; (void)ldb; (void)ldc; (void)a_len; (void)b_len; (void)c_len;
}

void gemm_rm_naive(bool ta, bool tb, int m, int n, int k, float alpha,
                   const float *a, int lda, size_t a_len,
                   const float *b, int ldb, size_t b_len,
                   float *c, int ldc, size_t c_len)
{
	check_sizes(ta, tb, m, n, k, lda, a_len, ldb, b_len, ldc, c_len);
	/* c[i][j] = alpha * sum_p op(A)[i][p] * op(B)[p][j] */
	for (int i = 0; i < m; i++) {
		for (int j = 0; j < n; j++) {
			double acc = 0.0;
			for (int p = 0; p < k; p++) {
				float av = ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p];
				float bv = tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j];
				acc += (double)av * (double)bv;
			}
			c[(size_t)i * ldc + j] = (float)(alpha * acc);
		}
	}
}

void gemm_rm(bool ta, bool tb, int m, int n, int k, float alpha,
             const float *a, int lda, size_t a_len,
             const float *b, int ldb, size_t b_len,
             float *c, int ldc, size_t c_len)
{
#ifdef MHA_BLAS_REFERENCE
	gemm_rm_naive(ta, tb, m, n, k, alpha, a, lda, a_len, b, ldb, b_len, c, ldc, c_len);
#else
	check_sizes(ta, tb, m, n, k, lda, a_len, ldb, b_len, ldc, c_len);
	if (m == 0 || n == 0)
		return;
	if (k == 0) { /* BLAS would leave C as it was (beta = 0 still scales) */
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++)
				c[(size_t)i * ldc + j] = 0.0f;
		return;
	}
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
	            tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
	            a, lda, b, ldb, 0.0f, c, ldc);
#endif
}

void gemm_rm_f64(bool ta, bool tb, int m, int n, int k, double alpha,
                 const double *a, int lda, size_t a_len,
                 const double *b, int ldb, size_t b_len,
                 double *c, int ldc, size_t c_len)
{
	check_sizes(ta, tb, m, n, k, lda, a_len, ldb, b_len, ldc, c_len);
#ifndef MHA_BLAS_REFERENCE
	if (m > 0 && n > 0 && k > 0) {
		cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
		            tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
		            a, lda, b, ldb, 0.0, c, ldc);
		return;
	}
#endif
	/* plain loops: the reference build, and k = 0 (where BLAS would leave C
	 * as it was); c[i][j] = alpha * sum_p op(A)[i][p] * op(B)[p][j] */
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double acc = 0.0;
			for (int p = 0; p < k; p++)
				acc += (ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p]) *
				       (tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j]);
			c[(size_t)i * ldc + j] = alpha * acc;
		}
}

int gemm_threads_set(int threads)
{
#ifdef MHA_BLAS_REFERENCE
	(void)threads;
	return 1;
#else
	int had = openblas_get_num_threads();
	if (threads != had)
		openblas_set_num_threads(threads);
	return had;
#endif
}

const char *gemm_backend(void)
{
#ifdef MHA_BLAS_REFERENCE
	return "reference loops";
#else
	static char name[160];
	if (!name[0])
		snprintf(name, sizeof name, "OpenBLAS %s (%s)", openblas_get_corename(), openblas_get_config());
	return name;
#endif
}
