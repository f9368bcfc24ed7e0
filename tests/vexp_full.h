/*
 * vexp_full.h - the tests' full-range vector exp (see vexp_full.c).
 */
#ifndef VEXP_FULL_H
#define VEXP_FULL_H

#include <stddef.h>

/* y_i = exp(x_i) with vexp.h's bound and special values, in the version
 * vexp_isa() names; y may equal x. */
void vexp(const float *x, float *y, size_t n);

#endif
