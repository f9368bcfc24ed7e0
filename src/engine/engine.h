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
 *  - teaching sizes (n <= MHA_MAX_TOKENS): mha_forward on the plan's own
 *    mha_acts, every intermediate kept as documented there; one thread.
 *  - large (n > MHA_MAX_TOKENS, or .large): tiled attention with the
 *    online softmax (FlashAttention-2): for one head and a tile of
 *    block_rows query rows, the key/value tiles of block_cols keys in
 *    turn, a running max and sum per row and the partial output rescaled
 *    when the max grows; no n x n matrix exists, nor a row of n scores
 *    (but with top-k: a (block_rows, n) pre-pass finds each row's
 *    threshold). Tile sizes come from this machine's cache sizes unless
 *    given. Q, K, V, concat, Y and dead_row are kept in mha_plan_acts;
 *    scores, weights, heads are NULL. The projections are BLAS products;
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
const char *mha_phase_name(enum mha_phase ph);

#endif
