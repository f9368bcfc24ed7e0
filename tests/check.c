/*
 * check.c - tolerance checks that report the worst element, not just
 * pass or fail (after llm.c's check_tensor).
 */
#include "check.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

static void report(size_t n, size_t worst, double diff, double got, double want,
                   double tol, const char *label)
{
	if (!(diff <= tol)) {
		print_error("%s: worst element %zu of %zu: got %.9g, want %.9g, |diff| %.3g > tol %.3g\n",
		            label, worst, n, got, want, diff, tol);
		fail();
	}
}

void check_close_d(const float *got, const double *want, size_t n, double tol, const char *label)
{
	size_t worst = 0;
	double wd = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)got[i] - want[i]);
		if (isnan(d) || d > wd) {
			wd = isnan(d) ? INFINITY : d;
			worst = i;
		}
	}
	if (n)
		report(n, worst, wd, got[worst], want[worst], tol, label);
}

void check_close(const float *got, const float *want, size_t n, double tol, const char *label)
{
	size_t worst = 0;
	double wd = 0.0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)got[i] - (double)want[i]);
		if (isnan(d) || d > wd) {
			wd = isnan(d) ? INFINITY : d;
			worst = i;
		}
	}
	if (n)
		report(n, worst, wd, got[worst], want[worst], tol, label);
}
