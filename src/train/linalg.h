/*
 * linalg.h - two small dense float64 problems the circuits need
 * (src/train/circ_*.c), written out so that every build (OpenBLAS, or
 * -Dblas=reference under the sanitizers) runs the same tested code:
 *
 *     double a[3 * 3] = { ... }, re[3], im[3], s[2];
 *     linalg_eigenvalues(3, a, re, im);      // a is overwritten
 *     linalg_product_singular_values(d, dk, A, dk, B, dk, s); // of A B^T
 *
 * Matrices are row-major. Neither function allocates more than its
 * work arrays (NULL back: -1), prints or exits.
 */
#ifndef TRAIN_LINALG_H
#define TRAIN_LINALG_H

/* Every eigenvalue of the real (n, n) matrix a: re[k] + i im[k], complex
 * ones in conjugate pairs (positive imaginary part first), in the order
 * the QR iteration finds them. a is destroyed. Householder reduction to
 * upper Hessenberg form, then Francis double-shift QR with deflation (the
 * EISPACK hqr scheme); no balancing, no eigenvectors. 0, or -1 when an
 * eigenvalue did not converge in 60 iterations (re, im then partial). */
int linalg_eigenvalues(int n, double *a, double *re, double *im);

/* The k largest singular values, descending, of the (m, m) product
 * A B^T of two (m, k) matrices (row strides lda, ldb). With m >= k a
 * Householder QR B = Q R gives A B^T = (A R^T) Q^T with orthonormal Q, so
 * the singular values are those of the (m, k) matrix A R^T, found by
 * one-sided Jacobi; the other m - k singular values of A B^T are exactly
 * 0 (its columns lie in A's column space). With m < k (a head wider than
 * the model) it is A B^T itself, and s[m..k-1] are 0. 0, or -1 (out of
 * memory or no convergence in 60 sweeps). */
int linalg_product_singular_values(int m, int k, const double *a, int lda, const double *b,
                                   int ldb, double *s);

#endif
