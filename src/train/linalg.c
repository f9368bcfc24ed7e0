/*
 * linalg.c - the eigenvalues of a small real matrix and the singular
 * values of a product A B^T, in float64 (linalg.h). The circuits ask for
 * a head's dk x dk eigenproblem (the copying score) and its rank; LAPACK's
 * dgeev would do the first in OpenBLAS builds, but the sanitizer build
 * (-Dblas=reference) has no LAPACK, and one code path for both is one
 * path tested (tests/train/test_circuits_fixtures.c, against numpy). It finds no
 * eigenvectors and does no balancing: not needed for well-scaled heads.
 */
#include "linalg.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define A(i, j) a[(size_t)(i) * (size_t)n + (size_t)(j)]

/* A = P A P with P = I - 2 v v^T / (v^T v) acting on rows and columns
 * k+1..n-1, chosen so that column k below its subdiagonal becomes 0. */
static void hessenberg_step(int n, double *a, int k, double *v)
{
	int len = n - k - 1;
	double norm = 0;
	for (int i = 0; i < len; i++) {
		v[i] = A(k + 1 + i, k);
		norm += v[i] * v[i];
	}
	norm = sqrt(norm);
	if (norm == 0)
		return;
	// v = x - alpha e_1 with alpha = -sign(x_0) ||x||: no cancellation in v_0
	double alpha = v[0] > 0 ? -norm : norm;
	v[0] -= alpha;
	double vv = 0;
	for (int i = 0; i < len; i++)
		vv += v[i] * v[i];
	if (vv == 0)
		return;
	// from the left: rows k+1.., columns k.. (the rest of those rows is 0)
	for (int j = k; j < n; j++) {
		double s = 0;
		for (int i = 0; i < len; i++)
			s += v[i] * A(k + 1 + i, j);
		s *= 2 / vv;
		for (int i = 0; i < len; i++)
			A(k + 1 + i, j) -= s * v[i];
	}
	// from the right: every row, columns k+1..
	for (int r = 0; r < n; r++) {
		double s = 0;
		for (int i = 0; i < len; i++)
			s += A(r, k + 1 + i) * v[i];
		s *= 2 / vv;
		for (int i = 0; i < len; i++)
			A(r, k + 1 + i) -= s * v[i];
	}
	A(k + 1, k) = alpha;
	for (int i = k + 2; i < n; i++)
		A(i, k) = 0;
}

/* The two eigenvalues of the trailing block [[y, b], [c, x]] (w = b c),
 * shifted back by t. */
static void two_by_two(double x, double y, double w, double t, double *re, double *im)
{
	// lambda = x + p +- sqrt(p^2 + w), p = (y - x) / 2
	double p = 0.5 * (y - x), q = p * p + w, z = sqrt(fabs(q));
	x += t;
	if (q >= 0) {
		// the root with |p + sign(p) z| first, the other from the product (no cancellation)
		z = p + (p >= 0 ? z : -z);
		re[0] = re[1] = x + z;
		if (z != 0)
			re[1] = x - w / z;
		im[0] = im[1] = 0;
	} else {
		re[0] = re[1] = x + p;
		im[0] = z;
		im[1] = -z;
	}
}

/* One Francis double-shift QR step on the active block rows l..hi of the
 * Hessenberg matrix, the shifts being the eigenvalues of its trailing
 * 2x2 block (sum of shifts: x + y, product: x y - w). Only the active
 * block is transformed: its eigenvalues are the matrix's, and no Schur
 * vectors are wanted. */
static void francis_step(int n, double *a, int l, int hi, double x, double y, double w)
{
	double p = 0, q = 0, r = 0, z, s;
	int m;
	// start where two consecutive subdiagonals are small enough that the
	// step's bulge can begin there without disturbing the rows above
	for (m = hi - 2; m >= l; m--) {
		z = A(m, m);
		double rr = x - z, ss = y - z;
		p = (rr * ss - w) / A(m + 1, m) + A(m, m + 1);
		q = A(m + 1, m + 1) - z - rr - ss;
		r = A(m + 2, m + 1);
		s = fabs(p) + fabs(q) + fabs(r);
		p /= s;
		q /= s;
		r /= s;
		if (m == l)
			break;
		double u = fabs(A(m, m - 1)) * (fabs(q) + fabs(r));
		double v = fabs(p) * (fabs(A(m - 1, m - 1)) + fabs(z) + fabs(A(m + 1, m + 1)));
		if (u <= DBL_EPSILON * v)
			break;
	}
	for (int i = m + 2; i <= hi; i++) {
		A(i, i - 2) = 0;
		if (i != m + 2)
			A(i, i - 3) = 0;
	}
	// chase the bulge down with 3-element reflectors (2 at the last row)
	for (int k = m; k <= hi - 1; k++) {
		bool last = k == hi - 1;
		if (k != m) {
			p = A(k, k - 1);
			q = A(k + 1, k - 1);
			r = last ? 0 : A(k + 2, k - 1);
			x = fabs(p) + fabs(q) + fabs(r);
			if (x != 0) {
				p /= x;
				q /= x;
				r /= x;
			}
		}
		s = sqrt(p * p + q * q + r * r);
		if (p < 0)
			s = -s;
		if (s == 0)
			continue;
		if (k == m) {
			if (l != m)
				A(k, k - 1) = -A(k, k - 1);
		} else {
			A(k, k - 1) = -s * x;
		}
		// reflector I - u u^T / (u_0) scaled so that it reads x, y, z below
		p += s;
		x = p / s;
		y = q / s;
		z = r / s;
		q /= p;
		r /= p;
		for (int j = k; j <= hi; j++) { /* rows k, k+1, k+2 */
			p = A(k, j) + q * A(k + 1, j);
			if (!last) {
				p += r * A(k + 2, j);
				A(k + 2, j) -= p * z;
			}
			A(k + 1, j) -= p * y;
			A(k, j) -= p * x;
		}
		int top = hi < k + 3 ? hi : k + 3;
		for (int i = l; i <= top; i++) { /* columns k, k+1, k+2 */
			p = x * A(i, k) + y * A(i, k + 1);
			if (!last) {
				p += z * A(i, k + 2);
				A(i, k + 2) -= p * r;
			}
			A(i, k + 1) -= p * q;
			A(i, k) -= p;
		}
	}
}

int linalg_eigenvalues(int n, double *a, double *re, double *im)
{
	if (n <= 0)
		return 0;
	double *v = malloc(sizeof(double) * (size_t)n);
	if (!v)
		return -1;
	for (int k = 0; k + 2 < n; k++)
		hessenberg_step(n, a, k, v);
	free(v);

	double norm = 0; /* for the deflation test where the diagonal is 0 */
	for (int i = 0; i < n; i++)
		for (int j = i > 0 ? i - 1 : 0; j < n; j++)
			norm += fabs(A(i, j));
	int hi = n - 1, its = 0;
	double t = 0; /* exceptional shifts taken so far, added back to each root */
	while (hi >= 0) {
		// the lowest l whose subdiagonal A(l, l-1) is negligible: rows l..hi are active
		int l;
		for (l = hi; l >= 1; l--) {
			double s = fabs(A(l - 1, l - 1)) + fabs(A(l, l));
			if (s == 0)
				s = norm;
			if (fabs(A(l, l - 1)) <= DBL_EPSILON * s) {
				A(l, l - 1) = 0;
				break;
			}
		}
		double x = A(hi, hi);
		if (l == hi) { /* a 1x1 block split off: one root */
			re[hi] = x + t;
			im[hi] = 0;
			hi--;
			its = 0;
			continue;
		}
		double y = A(hi - 1, hi - 1), w = A(hi, hi - 1) * A(hi - 1, hi);
		if (l == hi - 1) { /* a 2x2 block: two roots */
			two_by_two(x, y, w, t, re + hi - 1, im + hi - 1);
			hi -= 2;
			its = 0;
			continue;
		}
		if (its == 60)
			return -1;
		if (its > 0 && its % 10 == 0) {
			// stalled: an exceptional shift (EISPACK's) breaks the cycle
			t += x;
			for (int i = 0; i <= hi; i++)
				A(i, i) -= x;
			double s = fabs(A(hi, hi - 1)) + fabs(A(hi - 1, hi - 2));
			x = y = 0.75 * s;
			w = -0.4375 * s * s;
		}
		its++;
		francis_step(n, a, l, hi, x, y, w);
	}
	return 0;
}

#undef A

/* R (k, k) of a Householder QR of the (m, k) matrix b, m >= k; w is (m, k) work. */
static void qr_r(int m, int k, const double *b, int ldb, double *w, double *r)
{
	for (int i = 0; i < m; i++)
		memcpy(w + (size_t)i * k, b + (size_t)i * ldb, sizeof(double) * (size_t)k);
	memset(r, 0, sizeof(double) * (size_t)k * k);
	for (int j = 0; j < k; j++) {
		double norm = 0;
		for (int i = j; i < m; i++)
			norm += w[(size_t)i * k + j] * w[(size_t)i * k + j];
		norm = sqrt(norm);
		double x0 = w[(size_t)j * k + j], alpha = x0 > 0 ? -norm : norm;
		// v = x - alpha e_1 (stored over column j), then H = I - 2 v v^T / v^T v on columns j+1..
		w[(size_t)j * k + j] = x0 - alpha;
		double vv = 0;
		for (int i = j; i < m; i++)
			vv += w[(size_t)i * k + j] * w[(size_t)i * k + j];
		for (int c = j + 1; c < k && vv > 0; c++) {
			double s = 0;
			for (int i = j; i < m; i++)
				s += w[(size_t)i * k + j] * w[(size_t)i * k + c];
			s *= 2 / vv;
			for (int i = j; i < m; i++)
				w[(size_t)i * k + c] -= s * w[(size_t)i * k + j];
		}
		r[(size_t)j * k + j] = alpha;
		for (int c = j + 1; c < k; c++)
			r[(size_t)j * k + c] = w[(size_t)j * k + c];
	}
}

static int descending(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a < b) - (a > b);
}

/* The singular values of the (m, k) matrix x (overwritten), descending,
 * into s[0..k-1], by one-sided Jacobi: rotate column pairs until every
 * pair is orthogonal; then the column norms are the singular values.
 * 0, or -1 when 60 sweeps did not converge. */
static int jacobi_singular_values(int m, int k, double *x, double *s)
{
	int rc = -1;
	for (int sweep = 0; sweep < 60 && rc; sweep++) {
		bool rotated = false;
		for (int p = 0; p < k; p++)
			for (int q = p + 1; q < k; q++) {
				double al = 0, be = 0, ga = 0;
				for (int i = 0; i < m; i++) {
					double xp = x[(size_t)i * k + p], xq = x[(size_t)i * k + q];
					al += xp * xp;
					be += xq * xq;
					ga += xp * xq;
				}
				if (fabs(ga) <= DBL_EPSILON * sqrt(al * be) || ga == 0)
					continue;
				rotated = true;
				// (c^2 - s^2) / (c s) = (be - al) / ga zeroes the pair's inner product
				double zeta = (be - al) / (2 * ga);
				double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
				double c = 1 / sqrt(1 + t * t), sn = c * t;
				for (int i = 0; i < m; i++) {
					double xp = x[(size_t)i * k + p], xq = x[(size_t)i * k + q];
					x[(size_t)i * k + p] = c * xp - sn * xq;
					x[(size_t)i * k + q] = sn * xp + c * xq;
				}
			}
		if (!rotated)
			rc = 0;
	}
	for (int c = 0; c < k; c++) {
		double norm = 0;
		for (int i = 0; i < m; i++)
			norm += x[(size_t)i * k + c] * x[(size_t)i * k + c];
		s[c] = sqrt(norm);
	}
	qsort(s, (size_t)k, sizeof *s, descending);
	return rc;
}

int linalg_product_singular_values(int m, int k, const double *a, int lda, const double *b,
                                   int ldb, double *s)
{
	if (m < k) {
		// a head wider than the model: A B^T (m, m) itself, whose m singular
		// values are all there are; the other k - m are 0
		double *p = malloc(sizeof(double) * (size_t)m * m);
		if (!p)
			return -1;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < m; j++) {
				double acc = 0;
				for (int c = 0; c < k; c++)
					acc += a[(size_t)i * lda + c] * b[(size_t)j * ldb + c];
				p[(size_t)i * m + j] = acc;
			}
		int rc = jacobi_singular_values(m, m, p, s);
		for (int c = m; c < k; c++)
			s[c] = 0;
		free(p);
		return rc;
	}
	double *w = malloc(sizeof(double) * ((size_t)m * k * 2 + (size_t)k * k));
	if (!w)
		return -1;
	double *x = w + (size_t)m * k, *r = x + (size_t)m * k;
	qr_r(m, k, b, ldb, w, r);
	// X (m, k) = A R^T: X[i][c] = sum_j A[i][j] R[c][j]
	for (int i = 0; i < m; i++)
		for (int c = 0; c < k; c++) {
			double acc = 0;
			for (int j = c; j < k; j++)
				acc += a[(size_t)i * lda + j] * r[(size_t)c * k + j];
			x[(size_t)i * k + c] = acc;
		}
	int rc = jacobi_singular_values(m, k, x, s);
	free(w);
	return rc;
}
