/*
 * engine.h - the fast path of the compute core: the planned forward, with
 * its threads, its vector softmax and its attention kernels. It gives the
 * numbers of the core's reference forward (mha.h) for a caller that runs
 * one shape many times (the benchmark) or n beyond the screen's
 * MHA_MAX_TOKENS. Nothing here is needed to read how attention works:
 * that is src/core/. Like the core, it never prints, exits or touches a
 * terminal or a file.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include "mha.h"

/*
 * The planned forward: the same pass for a caller that runs one shape many
 * times (the benchmark) and for n beyond the screen's MHA_MAX_TOKENS, up to
 * MHA_PLAN_MAX_TOKENS. mha_plan_create makes every allocation and starts
 * the threads once; mha_plan_forward then allocates nothing and starts no
 * thread.
 *
 *     struct mha_plan_options o = { .threads = 2 };
 *     struct mha_plan *p;
 *     if (mha_plan_create(&p, &cfg, &o, msg, sizeof msg) != MHA_OK) ...
 *     mha_plan_forward(p, &w);               // w made for the same cfg
 *     const float *y = mha_plan_acts(p)->y;  // Y (n,d)
 *     mha_plan_destroy(p);
 *
 * Two paths, one result (within 1e-5 relative of mha_forward_naive):
 *  - teaching sizes (n <= MHA_MAX_TOKENS): the core's pass on the plan's
 *    own activations (mha_stack_forward: every layer of cfg.layers, with
 *    positions and cross-attention), every intermediate kept as documented
 *    there, the vector softmax row; one thread. mha_plan_acts is layer 0,
 *    mha_plan_stack every layer.
 *  - the large path computes one self-attention layer without positions:
 *    mha_plan_create refuses pos, kv tokens (m) and layers > 1 there
 *    (MHA_EINVAL, with the message saying so).
 *  - large (n > MHA_MAX_TOKENS, or .large): tiled attention with the
 *    online softmax (FlashAttention-2): for one head and a tile of
 *    block_rows query rows, the key/value tiles of block_cols keys in
 *    turn, a running max and sum per row and the partial output rescaled
 *    when the max grows; no n x n matrix exists, nor a row of n scores
 *    (but with top-k: a (block_rows, n) pre-pass finds each row's
 *    threshold). Tile sizes come from this machine's cache sizes unless
 *    given. Concat, Y and dead_row are kept in mha_plan_acts; q, k, v,
 *    scores, weights, heads and kept are NULL: Q, K and V are one
 *    product, X times [W^Q W^K W^V] (packed every forward), whose rows
 *    mha_plan_qkv gives. The projections (Q|K|V and Y = Concat W^O) run
 *    on the engine's score kernel with AVX-512 (twice OpenBLAS 0.3.21's
 *    AVX2 sgemm on CPUs it does not know), on BLAS otherwise;
 *    S = Q K^T and P V use the engine's own AVX-512 / AVX2 kernels where
 *    dk is a multiple of 8 (plain loops else). Memory is linear in n.
 *    Work is split over the plan's threads (rows of the projections,
 *    (head, query tile) pairs of the attention), and BLAS runs single-
 *    threaded inside them: mha_plan_forward sets OpenBLAS to 1 thread for
 *    its duration and puts the caller's count back before returning, so
 *    OPENBLAS_NUM_THREADS never multiplies the plan's own threads.
 * doc/PERFORMANCE.md has the figures and what bounds them.
 */
enum { MHA_PLAN_MAX_TOKENS = 16384 };

struct mha_plan_options {
	int threads;    /* worker threads including the caller; 0 or 1: one */
	int block_rows; /* query rows per tile (B_r) on the large path; 0: from the caches */
	int block_cols; /* keys per tile (B_c) on the large path; 0: from the caches */
	bool large;     /* take the large path even at n <= MHA_MAX_TOKENS (tests) */
	bool separate_qkv; /* large path: Q, K, V by three sgemms, not one fused
	                    * product (the same numbers, to compare) */
	bool blas_products; /* large path: the projections by sgemm even where the
	                     * engine's AVX-512 kernel would run them */
};

struct mha_plan;

/* As mha_config_check, but n may go up to MHA_PLAN_MAX_TOKENS. */
enum mha_status mha_plan_check(const struct mha_config *c, char *msg, size_t len);
/* o may be NULL (one thread, automatic blocks). */
enum mha_status mha_plan_create(struct mha_plan **out, const struct mha_config *c,
                                const struct mha_plan_options *o, char *msg, size_t len);
void mha_plan_destroy(struct mha_plan *p);
void mha_plan_forward(struct mha_plan *p, const struct mha_weights *w);
const struct mha_acts *mha_plan_acts(const struct mha_plan *p);
/* Every layer's activations (teaching sizes); NULL on the large path. */
const struct mha_stack *mha_plan_stack(const struct mha_plan *p);
/* The large path's Q, K and V, one fused row per token (n, *ld), *ld =
 * h dk + 2 g dk: Q in columns [0, h dk), K in [h dk, h dk + g dk), V in
 * the last g dk. NULL (and *ld 0) on teaching sizes, where mha_plan_acts
 * has q, k, v. */
const float *mha_plan_qkv(const struct mha_plan *p, int *ld);
int mha_plan_threads(const struct mha_plan *p);
bool mha_plan_is_large(const struct mha_plan *p);
/* Bytes the plan holds (activations and per-thread blocks). */
size_t mha_plan_bytes(const struct mha_plan *p);
/* The large path's tile sizes B_r, B_c (as chosen or given). */
void mha_plan_tiles(const struct mha_plan *p, int *block_rows, int *block_cols);
/* This machine's data cache sizes in bytes as the engine read them
 * (sysfs, else sysconf); 0 where unknown. */
void mha_cache_sizes(long *l1d, long *l2, long *l3);
/* Profiling: on, each forward adds every thread's time per phase (two
 * clock reads per phase and block, so leave it off when timing the whole).
 * seconds[MHA_PHASE_COUNT] receives the sums since it was switched on. */
void mha_plan_profile(struct mha_plan *p, bool on);
void mha_plan_phase_seconds(const struct mha_plan *p, double *seconds);
/* The large path's wall time per phase since profiling was switched on,
 * from the start to the end of each parallel phase (its threads' time
 * over the wall time shows how busy they were); 0 on teaching sizes. */
void mha_plan_phase_wall(const struct mha_plan *p, double *seconds);
const char *mha_phase_name(enum mha_phase ph);

/*
 * FlashAttention recorded, for the screen: the large path's tiled kernel
 * (flash.h) run on one head of a teaching-size forward, every step kept.
 * A step is one tile of query rows meeting one tile of keys; after it,
 * each of the tile's rows has
 *   m      the largest kept score so far (-inf: no key kept yet),
 *   l      sum over the kept keys so far of exp(s_j - m),
 *   alpha  exp(m_before - m): what the partial output was multiplied by
 *          (1: m did not grow; 0: the first kept key or none yet),
 *   o      sum over the kept keys so far of exp(s_j - m) v_j (dk values),
 * so that o / l after the last step is the row of P V (the head's O).
 *
 *     struct mha_flash_record r;
 *     if (mha_flash_record(&r, &cfg, &acts, head, 2, 3, msg, sizeof msg) != MHA_OK) ...
 *     for (int s = 0; s < r.steps; s++) ... r.step[s].m[0] ...
 *     mha_flash_record_free(&r);
 */
struct mha_flash_step {
	int qt, kt;        /* query tile, key/value tile (from 0) */
	int r0, rows;      /* query rows [r0, r0 + rows) */
	int c0, cols;      /* keys [c0, c0 + cols) */
	const float *m;    /* (rows) after the step */
	const float *l;    /* (rows) */
	const float *alpha;/* (rows) */
	const float *o;    /* (rows, dk) not yet divided by l */
};

struct mha_flash_record {
	int head, n, dk;
	int br, bc;        /* tile sizes used (clamped to 1..n) */
	int steps;
	struct mha_flash_step *step; /* (steps) in the order computed */
	float *out;        /* (n, dk) the head's O = P V, from the tiles */
	float *m, *l;      /* (n) each row's final m and l */
	unsigned char *dead; /* (n) 1 where every key is masked (out row 0) */
	void *mem;
};

/* Record head `head` of the forward in a (q, k, v of c, or q_rot, k_rot
 * with RoPE; c valid, n <= MHA_MAX_TOKENS) with br query rows and bc keys
 * per tile. Causal, top-k and GQA as in c; a head switched off is recorded
 * all the same (its block of the concat is 0, its O is not). MHA_EINVAL
 * with a message for a head or n out of range or cross-attention (m > 0),
 * MHA_ENOMEM. */
enum mha_status mha_flash_record(struct mha_flash_record *r, const struct mha_config *c,
                                 const struct mha_acts *a, int head, int br, int bc,
                                 char *msg, size_t len);
void mha_flash_record_free(struct mha_flash_record *r);

/* The memory meter: bytes the plain path materialises for the scores
 * and weights (S and P, h n^2 floats each) against bytes one thread's
 * tiles hold (the br x bc score tile, and m, l, alpha per row). */
struct mha_flash_bytes {
	int64_t plain, tiled;
};
struct mha_flash_bytes mha_flash_bytes(int64_t n, int h, int br, int bc);

#endif
