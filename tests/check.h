/*
 * check.h - helpers shared by the cmocka tests.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>

/* Fail the current test unless |got[i] - want[i]| <= tol for every i;
 * the message names the worst index and its difference. */
void check_close(const float *got, const float *want, size_t n, double tol, const char *label);
/* The same against a double reference. */
void check_close_d(const float *got, const double *want, size_t n, double tol, const char *label);

#endif
