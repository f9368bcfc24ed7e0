/*
 * gemm.h - the one door to matrix products. Every product of the core goes
 * through gemm_rm so that sizes are checked in one place (AddressSanitizer
 * cannot see inside OpenBLAS) and so that a plain-loop backend can replace
 * OpenBLAS for sanitizer builds (meson -Dblas=reference).
 */
#ifndef GEMM_H
#define GEMM_H

#include <stdbool.h>
#include <stddef.h>

/* Row-major C (m,n) = alpha * op(A) (m,k) op(B) (k,n), beta = 0.
 * op(A) = A^T when ta; A is then stored (k,m). lda/ldb/ldc are row strides.
 * a_len, b_len, c_len: floats available behind a, b, c (checked). */
void gemm_rm(bool ta, bool tb, int m, int n, int k, float alpha,
             const float *a, int lda, size_t a_len,
             const float *b, int ldb, size_t b_len,
             float *c, int ldc, size_t c_len);

/* The same with plain loops and double accumulators: the reference. */
void gemm_rm_naive(bool ta, bool tb, int m, int n, int k, float alpha,
                   const float *a, int lda, size_t a_len,
                   const float *b, int ldb, size_t b_len,
                   float *c, int ldc, size_t c_len);

/* The same in double precision (cblas_dgemm, or plain loops with
 * -Dblas=reference), for analyses that want float64 throughout
 * (src/train/circ_*.c: sums of many heads' small contributions). */
void gemm_rm_f64(bool ta, bool tb, int m, int n, int k, double alpha,
                 const double *a, int lda, size_t a_len,
                 const double *b, int ldb, size_t b_len,
                 double *c, int ldc, size_t c_len);

/* Set the BLAS library's own thread count (OpenBLAS); returns the count
 * it had. With -Dblas=reference there are no BLAS threads: returns 1. */
int gemm_threads_set(int threads);
/* What does the products: "OpenBLAS <core> <build config>" or
 * "reference loops". */
const char *gemm_backend(void);

#endif
