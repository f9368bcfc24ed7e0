/*
 * attn.h - the two products inside one head's attention, written for it
 * (internal to the engine): S = Q K^T with K packed once per head, and
 * O = diag(inv) P V. They replace sgemm on the planned forward's large
 * path, where BLAS, re-packing K and V for every block of rows and having
 * only k = dk = 64 to amortise it, runs well below its own peak.
 * AVX-512 (16 lanes) and AVX2+FMA (8 lanes), chosen with vexp's version;
 * 0 lanes: no kernel, the caller uses gemm_rm.
 */
#ifndef ATTN_H
#define ATTN_H

#include <stddef.h>

/* Lanes of the kernels for this dk: 16, 8, or 0 (none fits, or the CPU
 * has neither AVX2 nor AVX-512). The kernels need dk % lanes == 0. */
int attn_lanes(int dk);
/* Floats of a packed K for n keys: panels of `lanes` keys, zero-padded. */
size_t attn_packed_len(int n, int dk, int lanes);
/* Pack keys [r0, r1) of K (row stride ldk, dk columns) into kp, laid out
 * (n / lanes panels, dk, lanes): kp[(P dk + e) lanes + l] = K[P lanes + l][e]. */
void attn_pack_k(int lanes, const float *k, int ldk, int r0, int r1, int dk, float *kp);
// S (rows,cols; row stride lds) = alpha Q (rows,dk; stride ldq) @ K^T, K packed
void attn_scores(int lanes, const float *q, int ldq, const float *kp, int rows, int cols,
                 int dk, float alpha, float *s, int lds);
// O (rows,dk; stride ldo) = diag(inv) P (rows,cols; stride ldp) @ V (cols,dk; contiguous)
void attn_weighted(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                   int dk, const float *inv, float *o, int ldo);

// O (rows,dk; stride ldo) = diag(alpha) O + P (rows,cols; stride ldp) @ V (cols,dk):
// FlashAttention's update of the partial output (flash.c)
void attn_weighted_acc(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                       int dk, const float *alpha, float *o, int ldo);

/* The decode step's products (kvdec.c), for the rows = the G query heads
 * of one kv head (Q and O rows of stride dk): tiles fitted to few rows,
 * and the cache prefetched ahead of them (never past what the caller
 * says is there).
 * S (rows, cols; stride lds) = alpha Q (rows, dk) @ K^T, K in panels, cols
 * a multiple of lanes; next: the panels that follow (next_cols keys, a
 * multiple of lanes), or NULL. */
void attn_dec_scores(int lanes, const float *q, int rows, const float *kp, int cols, int dk,
                     float alpha, float *s, int lds, const float *next, int next_cols);
// O (rows, dk) = diag(alpha) O + P (rows, cols; stride ldp) @ V (cols, dk; contiguous);
// v_rows >= cols: the rows from v on that exist (prefetched ahead)
void attn_dec_weighted(int lanes, const float *p, int ldp, const float *v, int rows, int cols,
                       int dk, const float *alpha, float *o, int v_rows);

#endif
