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
 *  - large (n > MHA_MAX_TOKENS, or .large): the n x n scores never exist
 *    whole. Each thread owns one (rows, n) block, reused: for a block of
 *    query rows of one head it makes S, turns it into P in place, and
 *    multiplies by V straight into the concat. Q, K, V, concat, Y and
 *    dead_row are kept in mha_plan_acts; scores, weights, heads are NULL.
 *    The projections are BLAS products; S = Q K^T and P V use the core's
 *    own AVX-512 / AVX2 kernels where dk is a multiple of 8 (BLAS else).
 *    Work is split over the plan's threads (rows of the projections,
 *    (head, row block) pairs of the attention), and BLAS runs single-
 *    threaded inside them: mha_plan_forward sets OpenBLAS to 1 thread for
 *    its duration and puts the caller's count back before returning, so
 *    OPENBLAS_NUM_THREADS never multiplies the plan's own threads.
 * doc/PERFORMANCE.md has the figures and what bounds them.
 */
enum { MHA_PLAN_MAX_TOKENS = 16384 };

struct mha_plan_options {
	int threads;    /* worker threads including the caller; 0 or 1: one */
	int block_rows; /* query rows per block on the large path; 0: chosen from n */
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
/* Profiling: on, each forward adds every thread's time per phase (two
 * clock reads per phase and block, so leave it off when timing the whole).
 * seconds[MHA_PHASE_COUNT] receives the sums since it was switched on. */
void mha_plan_profile(struct mha_plan *p, bool on);
void mha_plan_phase_seconds(const struct mha_plan *p, double *seconds);
const char *mha_phase_name(enum mha_phase ph);

#endif
