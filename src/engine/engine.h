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

/* The core's mha_forward (every intermediate in a, what mha_backward
 * reads) with the engine's vector softmax row in place of the reference
 * row and its product for small matrices (smallmm.c) in place of sgemm:
 * the same contract, the exp within 2 ulp of expf (doc/PERFORMANCE.md,
 * "The exp"), sums in another order. For many small forwards without a
 * plan: the trainer's. */
void mha_forward_vector(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);
/* The core's mha_backward with the same product for small matrices. */
struct mha_grads; /* grad.h */
void mha_backward_vector(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_acts *a, const float *dy, struct mha_grads *g);

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
 * tiles hold (the br x dk query tile, the bc x dk key and value tiles,
 * the br x bc score tile, the br x dk output so far, and m, l, alpha per
 * row). */
struct mha_flash_bytes {
	int64_t plain, tiled;
};
struct mha_flash_bytes mha_flash_bytes(int64_t n, int h, int br, int bc, int dk);

/*
 * Decoding at scale (kvdec.c): one new token's attention against a K/V
 * cache of up to cap tokens, the step a decoder repeats per token and
 * layer. Its cost is reading the cache, 2 g dk floats per cached token
 * (the core's mha_decoder keeps the same numbers at teaching sizes, with
 * plain loops). The layout is made for that read: each kv head's keys in
 * the kernels' panels (attn.h) and its values in rows, one kv head after
 * the other, so a step reads every kv head's cache once, front to back,
 * and the h / g query heads that share it use each key and value while it
 * is in registers or L1 (blocks of keys with the online softmax of
 * flash.h); dk not a multiple of 8 (or no AVX2) takes plain loops. The
 * step allocates nothing.
 *
 *     struct mha_kvdec *kv;
 *     if (mha_kvdec_create(&kv, h, g, dk, cap, msg, sizeof msg) != MHA_OK) ...
 *     mha_kvdec_append(kv, k_row, v_row);    // (g dk) each, per token
 *     mha_kvdec_attend(kv, q, scale, NULL, o); // q (h dk) -> o (h dk)
 *     // or, a whole layer on the core's config and weights:
 *     mha_kvdec_step(kv, &cfg, &w, y);       // row len of X -> y (d)
 *     mha_kvdec_destroy(kv);
 */
struct mha_kvdec;

/* h query heads, g kv heads (g divides h), head size dk, room for cap
 * tokens. MHA_EINVAL (msg) for a shape out of range, MHA_ENOMEM. */
enum mha_status mha_kvdec_create(struct mha_kvdec **out, int h, int g, int dk, int cap,
                                 char *msg, size_t len);
void mha_kvdec_destroy(struct mha_kvdec *kv);
/* Empty the cache (len 0). */
void mha_kvdec_reset(struct mha_kvdec *kv);
int mha_kvdec_len(const struct mha_kvdec *kv);
/* Append one token: k, v (g dk) each, kv head j in columns [j dk, (j+1) dk).
 * MHA_EINVAL when the cache is full. */
enum mha_status mha_kvdec_append(struct mha_kvdec *kv, const float *k, const float *v);
/* o (h dk) = for each query head i, softmax(scale q_i K_j^T) V_j over the
 * len cached tokens, j = i / (h / g) (o_i = 0 where head_off[i]; head_off
 * may be NULL; len 0 gives o = 0). q and o must not overlap. */
void mha_kvdec_attend(struct mha_kvdec *kv, const float *q, float scale, const bool *head_off,
                      float *o);
/* A decoder layer's step, as mha_decoder_step: token t = len's row of
 * w->x projected to q, k, v (with the biases when c->bias), k and v
 * appended, the attention as above (c->scale, c->head_off), and
 * y (c->d) = concat W^O (+ b^O). c must be causal with no other mask and
 * no top-k (the core's decoder has those), have the shape the cache was
 * made for, and hold row t in X (t < c->n, c->n up to MHA_PLAN_MAX_TOKENS):
 * MHA_EINVAL with msg otherwise. mha_kvdec_query / _concat give the
 * step's q and concat. */
enum mha_status mha_kvdec_step(struct mha_kvdec *kv, const struct mha_config *c,
                               const struct mha_weights *w, float *y, char *msg, size_t len);
const float *mha_kvdec_query(const struct mha_kvdec *kv);  /* (h dk) */
const float *mha_kvdec_concat(const struct mha_kvdec *kv); /* (h dk) */
/* Bytes of K and V one attend reads now: 2 g dk len 4. */
int64_t mha_kvdec_read_bytes(const struct mha_kvdec *kv);
/* Bytes the decoder holds (cache and scratch). */
size_t mha_kvdec_bytes(const struct mha_kvdec *kv);

/*
 * Decode speed on this machine, for the KV view and mha-bench --decode:
 * one decode step's attention (mha_kvdec_attend, one layer) against a
 * cache of `tokens` tokens, timed in rounds interleaved with a streaming
 * read of as many bytes (the same K and V, read front to back in vectors:
 * what a kernel that reads those bytes once could reach at best). As in a
 * model of many layers, each step reads the next of `layers` caches, so
 * the bytes come from memory, not from a cache that the last step left
 * warm: layers is chosen so that they hold at least 4x the L3 or 256 MiB,
 * whichever is less (or working_set bytes when given). Allocates them (layers x the cache:
 * 1 GiB at g dk = 4096, 32768 tokens), fills them, frees them.
 *
 *     struct mha_decode_speed s;
 *     struct mha_decode_options o = { .h = 32, .g = 8, .dk = 128, .tokens = 4096 };
 *     if (mha_decode_speed(&o, &s, msg, sizeof msg) == MHA_OK)
 *         printf("%.3f ms a token and layer\n", s.step_ms[1]);
 */
struct mha_decode_options {
	int h, g, dk, tokens;
	int rounds;          /* 0: 5 */
	double min_time;     /* seconds of steps per round, at least; 0: 0.2 */
	size_t working_set;  /* bytes the layers' caches hold at least; 0: 4x the L3,
	                      * at most 256 MiB */
};
struct mha_decode_speed {
	int h, g, dk, tokens, layers, rounds;
	double bytes;        /* K and V bytes one step reads (2 g dk tokens 4) */
	double working_set;  /* bytes the layers' caches hold: layers x bytes */
	double flops;        /* the step's attention FLOPs: 4 h dk tokens + 5 h tokens */
	/* [0] min, [1] median, [2] max over rounds of each round's median */
	double step_ms[3];
	double gbs[3];       /* bytes / step time, GB/s (1e9 bytes) */
	double stream_gbs[3];/* the streaming read of as many bytes, same rounds */
	double ratio[3];     /* each round's gbs / stream_gbs */
	/* the same by this thread's CPU time, which leaves out the waits for
	 * a core that other processes cause (not their share of memory) */
	double step_cpu_ms[3], ratio_cpu[3];
};
enum mha_status mha_decode_speed(const struct mha_decode_options *o, struct mha_decode_speed *out,
                                 char *msg, size_t len);

#endif
