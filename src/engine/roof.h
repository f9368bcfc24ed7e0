/*
 * roof.h - this machine's own ceilings, measured in the same run as what
 * is compared with them (internal to the engine; the bench includes it):
 * a streaming read of memory, the most a kernel that reads those bytes
 * once could reach, and a loop of independent fused multiply-adds, the
 * most arithmetic one core can do. Both in the widest vectors the CPU has
 * (vexp_isa's choice: AVX-512, AVX2+FMA, or plain C).
 */
#ifndef ROOF_H
#define ROOF_H

#include <stddef.h>

/* Reads p[0..n) once, front to back, summing in vector registers; returns
 * the sum (so the reads cannot be left out). p on a 64-byte boundary is
 * fastest; any p works. */
float roof_stream_sum(const float *p, size_t n);
/* iters rounds of ROOF_CHAINS independent vector multiply-adds (no loads);
 * returns their sum. roof_fma_flops gives the FLOPs that was (a multiply-
 * add is 2). */
enum { ROOF_CHAINS = 12 };
float roof_fma(long iters);
double roof_fma_flops(long iters);

#endif
