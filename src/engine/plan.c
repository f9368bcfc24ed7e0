/*
 * plan.c - the planned forward (mha_plan_* in engine.h): every allocation
 * and the threads made once, then forwards that allocate nothing. At
 * teaching sizes it is the core's forward pass on the plan's own
 * activations, with the vector softmax row. At large n it is tiled
 * attention with the online softmax (flash.h): a task is one head and one
 * tile of query rows, which meets the key/value tiles in turn and writes
 * its rows of the concat straight away; no n x n matrix, and no block of
 * n scores either. K is packed once per forward into the kernels' panels
 * and V laid out one kv head after the other, while the projection's rows
 * are in cache. Q, K and V come from one sgemm, X (n, d) times the
 * weights packed side by side [W^Q W^K W^V] (d, h dk + 2 g dk), into one
 * buffer of fused rows (mha_plan_qkv); the packing is redone every forward,
 * since the caller may have changed the weights in place. With AVX-512 the
 * two projections (Q|K|V and Y = Concat W^O) run on the engine's own score
 * kernel (attn.h), the weights packed into its panels: OpenBLAS 0.3.21
 * picks its AVX2 kernels on CPUs it does not know, at half the speed
 * (doc/PERFORMANCE.md). The numbers are the reference's; only the order
 * differs.
 */
#include "engine.h"
#include "clock.h"
#include "attn.h"
#include "flash.h"
#include "forward.h"
#include "gemm.h"
#include "pool.h"
#include "smallmm.h"
#include "softmax_fast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-thread phase clocks, a cache line each so threads do not share one. */
struct clocks {
	double seconds[MHA_PHASE_COUNT];
	char pad[64 - (MHA_PHASE_COUNT * sizeof(double)) % 64];
};

struct mha_plan {
	struct mha_config c;
	bool large;
	int br, bc;               /* query rows, keys per tile (flash.h) */
	int nb;                   /* query tiles per head: ceil(n / br) */
	int chunk;                /* rows per projection task */
	struct pool *pool;
	struct mha_acts a;        /* large: concat y dead_row */
	struct mha_stack stack;   /* teaching sizes: every layer's intermediates */
	float *qkv;               /* (n, wd) Q|K|V rows (large): Q in columns [0, hw), K in
	                           * [hw, hw + gw), V in [hw + gw, wd), wd = hw + 2 gw */
	float *wqkv;              /* (d, wd) [W^Q W^K W^V], packed each forward: rows for
	                           * sgemm, or the kernel's panels (proj_lanes) */
	float *wo_panels;         /* (hw, d) W^O in the kernel's panels (proj_lanes) */
	int wd;
	int proj_lanes;           /* the projections on attn_scores (16), or 0: sgemm */
	bool separate_qkv;        /* three sgemms into qkv instead of one */
	bool masks;               /* padding, window or custom masks (mha_mask_extra) */
	int lanes;                /* attn.h kernels' width, or 0: plain loops (flash.c) */
	float *vh;                /* (g, n, dk) V again, one kv head after the other:
	                           * the kernels read a tile of it contiguously */
	float *kp;                /* (g, packed) K in attn_pack_k's panels (lanes > 0) */
	size_t kp_len;            /* floats of one kv head in kp */
	float *blocks;            /* (threads, block_floats): each thread's tile scratch */
	size_t block_floats;      /* flash_scratch_floats */
	size_t bytes;
	bool profile;
	struct clocks *clocks;    /* (threads) */
	double wall[MHA_PHASE_COUNT]; /* each phase's wall time, start to end (large path) */
	const struct mha_weights *w; /* during a forward */
};

/* Time since *t0 goes to phase ph of this thread; *t0 moves on. */
static void lap(struct mha_plan *p, int thread, enum mha_phase ph, double *t0)
{
	phase_lap(p->profile ? p->clocks[thread].seconds : NULL, ph, t0);
}

/* The vector row for the teaching-size forward (forward.h's softmax_fn). */
static bool softmax_vector(const float *s, float *p, int n, int limit, int top_k, float *work)
{
	return softmax_row_fast(s, p, n, limit, top_k, work, NULL);
}

void mha_forward_vector(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	forward_run(c, w, a, small_gemm, softmax_vector, NULL);
}

void mha_backward_vector(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_acts *a, const float *dy, struct mha_grads *g)
{
	backward_run(c, w, a, dy, g, small_gemm);
}

enum mha_status mha_plan_check(const struct mha_config *c, char *msg, size_t len)
{
	return mha_config_check_limit(c, MHA_PLAN_MAX_TOKENS, msg, len);
}

/* Zeroed memory on a 64-byte boundary (free() releases it): the kernels'
 * 64-byte loads then never straddle two cache lines, and two threads
 * writing neighbouring heads of the concat never share one. */
static void *calloc64(size_t count, size_t size)
{
	size_t bytes = (count * size + 63) / 64 * 64;
	void *m = aligned_alloc(64, bytes ? bytes : 64);
	if (m)
		memset(m, 0, bytes);
	return m;
}

/* floats rounded up to whole 64-byte lines */
static size_t line_floats(size_t floats)
{
	return (floats + 15) / 16 * 16;
}

static enum mha_status alloc_large(struct mha_plan *p, int threads)
{
	const struct mha_config *c = &p->c;
	size_t n = (size_t)c->n, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	p->wd = (int)(hw + 2 * gw);
	/* qkv, wqkv, wo_panels, vh, concat, y: each on its own lines */
	size_t len[6] = { n * p->wd, (size_t)c->d * p->wd, p->proj_lanes ? hw * c->d : 0, n * gw,
	                  n * hw, n * (size_t)c->d };
	size_t floats = 0;
	for (int i = 0; i < 6; i++)
		floats += line_floats(len[i]);
	p->kp_len = attn_packed_len(c->n, c->dk, p->lanes);
	if (p->lanes) {
		/* zero padding set here, once */
		p->kp = calloc64((size_t)c->g * p->kp_len, sizeof(float));
		if (!p->kp)
			return MHA_ENOMEM;
	}
	size_t act_bytes = floats * sizeof(float) + (size_t)c->h * n;
	char *mem = calloc64(1, act_bytes);
	/* each thread's scratch on its own cache lines */
	p->block_floats = line_floats(flash_scratch_floats(c->n, p->br, p->bc, c->top_k,
	                                                   mha_mask_extra(c)));
	p->blocks = calloc64((size_t)threads * p->block_floats, sizeof(float));
	if (!mem || !p->blocks) {
		free(mem);
		return MHA_ENOMEM;
	}
	float *f = (float *)mem, **seg[6] = { &p->qkv, &p->wqkv, &p->wo_panels, &p->vh, &p->a.concat,
	                                      &p->a.y };
	for (int i = 0; i < 6; i++) {
		*seg[i] = f;
		f += line_floats(len[i]);
	}
	p->a.dead_row = (unsigned char *)f;
	p->a.mem = mem;
	p->bytes = act_bytes + (size_t)threads * p->block_floats * sizeof(float)
	           + (size_t)c->g * p->kp_len * sizeof(float);
	return MHA_OK;
}

enum mha_status mha_plan_create(struct mha_plan **out, const struct mha_config *c,
                                const struct mha_plan_options *o, char *msg, size_t len)
{
	*out = NULL;
	enum mha_status st = mha_plan_check(c, msg, len);
	if (st != MHA_OK)
		return st;
	struct mha_plan_options opt = { 0 };
	if (o)
		opt = *o;
	int threads = opt.threads < 1 ? 1 : opt.threads;
	struct mha_plan *p = calloc(1, sizeof *p);
	if (!p)
		goto nomem;
	p->c = *c;
	p->large = opt.large || c->n > MHA_MAX_TOKENS;
	if (p->large && c->bias) {
		snprintf(msg, len, "biases need n <= %d: the large path (%d tokens) has none",
		         MHA_MAX_TOKENS, c->n);
		free(p);
		return MHA_EINVAL;
	}
	if (p->large && (c->pos != MHA_POS_NONE || c->m > 0 || c->layers > 1)) {
		/* the tiles compute one self-attention layer without positions; the core's pass,
		 * which the teaching sizes run, has the rest */
		snprintf(msg, len, "positions, cross-attention and layers need n <= %d: the large path "
		         "(%d tokens) computes one self-attention layer without them", MHA_MAX_TOKENS, c->n);
		free(p);
		return MHA_EINVAL;
	}
	if (!p->large)
		threads = 1; /* a few microseconds of work: waking a thread costs more */
	p->masks = mha_mask_extra(c);
	p->lanes = attn_lanes(c->dk);
	p->separate_qkv = opt.separate_qkv;
	/* measured: the AVX-512 kernel at twice OpenBLAS's AVX2 sgemm, the
	 * AVX2 one level with it (so sgemm stays there) */
	p->proj_lanes = p->lanes == 16 && c->d % 16 == 0 && !opt.separate_qkv && !opt.blas_products
	                ? 16 : 0;
	flash_tiles_auto(c->n, c->dk, p->lanes, &p->br, &p->bc);
	if (opt.block_rows > 0)
		p->br = opt.block_rows < c->n ? opt.block_rows : c->n;
	if (opt.block_cols > 0)
		p->bc = opt.block_cols < c->n ? opt.block_cols : c->n;
	p->nb = (c->n + p->br - 1) / p->br;
	/* projection tasks: several per thread so that a thread slowed by
	 * another process does not hold the others up; at least 32 rows */
	int tasks = threads == 1 ? 1 : 4 * threads;
	p->chunk = (c->n + tasks - 1) / tasks;
	if (p->chunk < 32)
		p->chunk = 32;
	p->clocks = calloc64((size_t)threads, sizeof *p->clocks);
	p->pool = pool_create(threads);
	if (!p->clocks || !p->pool)
		goto nomem;
	if (p->large) {
		if (alloc_large(p, threads) != MHA_OK)
			goto nomem;
	} else {
		if (mha_stack_alloc(&p->stack, c) != MHA_OK)
			goto nomem;
		/* as mha_acts_alloc lays them out, per layer */
		size_t n = (size_t)c->n, nk = (size_t)mha_keys(c), d = (size_t)c->d;
		size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
		size_t floats = 4 * n * d + 3 * n * hw + 3 * nk * gw + 2 * (size_t)c->h * n * nk
		                + (size_t)c->h * n * c->dk;
		p->bytes = (size_t)p->stack.layers * (floats * sizeof(float) + (size_t)c->h * n
		           + (size_t)c->h * n * MHA_KEPT_WORDS(nk) * sizeof(uint64_t));
	}
	*out = p;
	return MHA_OK;
nomem:
	mha_plan_destroy(p);
	snprintf(msg, len, "out of memory for a plan of %d tokens", c->n);
	return MHA_ENOMEM;
}

void mha_plan_destroy(struct mha_plan *p)
{
	if (!p)
		return;
	pool_destroy(p->pool);
	free(p->a.mem);
	mha_stack_free(&p->stack);
	free(p->blocks);
	free(p->kp);
	free(p->clocks);
	free(p);
}

const struct mha_acts *mha_plan_acts(const struct mha_plan *p)
{
	return p->large ? &p->a : &p->stack.layer[0];
}

const struct mha_stack *mha_plan_stack(const struct mha_plan *p)
{
	return p->large ? NULL : &p->stack;
}

const float *mha_plan_qkv(const struct mha_plan *p, int *ld)
{
	*ld = p->large ? p->wd : 0;
	return p->large ? p->qkv : NULL;
}
int mha_plan_threads(const struct mha_plan *p) { return pool_threads(p->pool); }
bool mha_plan_is_large(const struct mha_plan *p) { return p->large; }
size_t mha_plan_bytes(const struct mha_plan *p) { return p->bytes; }

void mha_plan_tiles(const struct mha_plan *p, int *block_rows, int *block_cols)
{
	*block_rows = p->br;
	*block_cols = p->bc;
}

void mha_cache_sizes(long *l1d, long *l2, long *l3)
{
	flash_cache_sizes(l1d, l2, l3);
}

void mha_plan_profile(struct mha_plan *p, bool on)
{
	p->profile = on;
	memset(p->clocks, 0, (size_t)pool_threads(p->pool) * sizeof *p->clocks);
	memset(p->wall, 0, sizeof p->wall);
}

void mha_plan_phase_wall(const struct mha_plan *p, double *seconds)
{
	memcpy(seconds, p->wall, sizeof p->wall);
}

void mha_plan_phase_seconds(const struct mha_plan *p, double *seconds)
{
	for (int s = 0; s < MHA_PHASE_COUNT; s++) {
		seconds[s] = 0.0;
		for (int t = 0; t < pool_threads(p->pool); t++)
			seconds[s] += p->clocks[t].seconds[s];
	}
}

const char *mha_phase_name(enum mha_phase ph)
{
	static const char *names[MHA_PHASE_COUNT] = {
		"project", "scores", "softmax", "weighted", "output",
	};
	return (unsigned)ph < MHA_PHASE_COUNT ? names[ph] : "?";
}

/* Rows [e0, e1) of B (k, cols; row stride ldb) into the kernels' panels
 * of L columns (cols % L == 0): dst[(P k + e) L + l] = B[e][P L + l], the
 * layout attn_scores reads its K^T from. */
static void pack_panels(int L, const float *b, int ldb, int k, int e0, int e1, int cols, float *dst)
{
	for (int P = 0; P * L < cols; P++)
		for (int e = e0; e < e1; e++)
			memcpy(dst + ((size_t)P * k + e) * L, b + (size_t)e * ldb + (size_t)P * L,
			       (size_t)L * sizeof(float));
}

// [W^Q W^K W^V] (d, wd) side by side: rows for sgemm, or the kernel's panels, and W^O's
// panels; task t of `threads` packs its share of the rows
static void pack_weights_task(void *ctx, int task, int thread)
{
	struct mha_plan *p = ctx;
	const struct mha_config *c = &p->c;
	double t0 = p->profile ? clock_wall() : 0.0;
	const int hw = c->h * c->dk, gw = c->g * c->dk, d = c->d, L = p->proj_lanes;
	const int T = pool_threads(p->pool), r0 = d * task / T, r1 = d * (task + 1) / T;
	const struct mha_weights *w = p->w;
	if (L) {
		pack_panels(L, w->wq, hw, d, r0, r1, hw, p->wqkv);
		pack_panels(L, w->wk, gw, d, r0, r1, gw, p->wqkv + (size_t)hw * d);
		pack_panels(L, w->wv, gw, d, r0, r1, gw, p->wqkv + (size_t)(hw + gw) * d);
		pack_panels(L, w->wo, d, hw, hw * task / T, hw * (task + 1) / T, d, p->wo_panels);
	} else {
		for (int r = r0; r < r1; r++) {
			float *row = p->wqkv + (size_t)r * p->wd;
			memcpy(row, w->wq + (size_t)r * hw, (size_t)hw * sizeof(float));
			memcpy(row + hw, w->wk + (size_t)r * gw, (size_t)gw * sizeof(float));
			memcpy(row + hw + gw, w->wv + (size_t)r * gw, (size_t)gw * sizeof(float));
		}
	}
	lap(p, thread, MHA_PHASE_PROJECT, &t0);
}

// Q|K|V [rows] (r, wd) = X [rows] (r, d) @ [W^Q W^K W^V] (d, wd): one product, on the
// kernel or sgemm (or three sgemms, separate_qkv, into the same columns)
static void project_task(void *ctx, int task, int thread)
{
	struct mha_plan *p = ctx;
	const struct mha_config *c = &p->c;
	const struct mha_weights *w = p->w;
	double t0 = p->profile ? clock_wall() : 0.0;
	const int d = c->d, hw = c->h * c->dk, gw = c->g * c->dk, wd = p->wd;
	int r0 = task * p->chunk, rows = c->n - r0 < p->chunk ? c->n - r0 : p->chunk;
	size_t left = (size_t)(c->n - r0);
	const float *x = w->x + (size_t)r0 * d;
	float *out = p->qkv + (size_t)r0 * wd;
	if (p->separate_qkv) {
		const float *wm[3] = { w->wq, w->wk, w->wv };
		const int cols[3] = { hw, gw, gw }, at[3] = { 0, hw, hw + gw };
		for (int m = 0; m < 3; m++)
			gemm_rm(false, false, rows, cols[m], d, 1.0f, x, d, left * d, wm[m], cols[m],
			        (size_t)d * cols[m], out + at[m], wd, left * wd - at[m]);
	} else if (p->proj_lanes) {
		attn_scores(p->proj_lanes, x, d, p->wqkv, rows, wd, d, 1.0f, out, wd);
	} else {
		gemm_rm(false, false, rows, wd, d, 1.0f, x, d, left * d, p->wqkv, wd, (size_t)d * wd,
		        out, wd, left * wd);
	}
	// Vh[j][r] = V[r, j*dk:(j+1)*dk], and K into its panels: while the rows are in cache
	const size_t dk = (size_t)c->dk;
	for (int j = 0; j < c->g; j++) {
		if (p->lanes)
			attn_pack_k(p->lanes, p->qkv + hw + j * dk, wd, r0, r0 + rows, c->dk,
			            p->kp + j * p->kp_len);
		for (int r = r0; r < r0 + rows; r++)
			memcpy(p->vh + ((size_t)j * c->n + r) * dk, p->qkv + (size_t)r * wd + hw + gw + j * dk,
			       dk * sizeof(float));
	}
	lap(p, thread, MHA_PHASE_PROJECT, &t0);
}

// one head, one tile of query rows: flash_rows into the concat
static void attend_task(void *ctx, int task, int thread)
{
	struct mha_plan *p = ctx;
	const struct mha_config *c = &p->c;
	double t0 = p->profile ? clock_wall() : 0.0;
	const int n = c->n, dk = c->dk, hw = c->h * dk, gw = c->g * dk, wd = p->wd;
	const int i = task % c->h, r0 = (p->nb - 1 - task / c->h) * p->br;
	const int rows = n - r0 < p->br ? n - r0 : p->br;
	float *out = p->a.concat + (size_t)r0 * hw + (size_t)i * dk;
	if (c->head_off[i]) {
		/* a head switched off contributes a zero block, as in mha_forward */
		for (int r = 0; r < rows; r++)
			memset(out + (size_t)r * hw, 0, (size_t)dk * sizeof *out);
		memset(p->a.dead_row + (size_t)i * n + r0, 0, (size_t)rows);
		return;
	}
	const int j = mha_kv_head(c, i);
	struct flash_head hd = {
		.n = n, .dk = dk, .causal = c->causal, .top_k = c->top_k,
		.scale = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f,
		.q = p->qkv + (size_t)i * dk, .ldq = wd,
		.k = p->qkv + hw + (size_t)j * dk, .ldk = wd,
		.kp = p->lanes ? p->kp + (size_t)j * p->kp_len : NULL, .lanes = p->lanes,
		.v = p->lanes ? p->vh + (size_t)j * n * dk : p->qkv + hw + gw + (size_t)j * dk,
		.ldv = p->lanes ? dk : wd,
		.o = p->a.concat + (size_t)i * dk, .ldo = hw,
		.dead = p->a.dead_row + (size_t)i * n,
		.br = p->br, .bc = p->bc, .masks = p->masks ? c : NULL,
	};
	flash_rows(&hd, r0, p->blocks + (size_t)thread * p->block_floats, NULL, NULL);
	/* one clock for the fused scores, softmax and weighted sum */
	lap(p, thread, MHA_PHASE_WEIGHTED, &t0);
}

// Y [rows] (r,d) = Concat [rows] (r,h*dk) @ W^O (h*dk,d)
static void output_task(void *ctx, int task, int thread)
{
	struct mha_plan *p = ctx;
	const struct mha_config *c = &p->c;
	double t0 = p->profile ? clock_wall() : 0.0;
	const int d = c->d, hw = c->h * c->dk;
	int r0 = task * p->chunk, rows = c->n - r0 < p->chunk ? c->n - r0 : p->chunk;
	size_t left = (size_t)(c->n - r0);
	const float *concat = p->a.concat + (size_t)r0 * hw;
	if (p->proj_lanes)
		attn_scores(p->proj_lanes, concat, hw, p->wo_panels, rows, d, hw, 1.0f,
		            p->a.y + (size_t)r0 * d, d);
	else
		gemm_rm(false, false, rows, d, hw, 1.0f, concat, hw, left * hw, p->w->wo, d,
		        (size_t)hw * d, p->a.y + (size_t)r0 * d, d, left * d);
	lap(p, thread, MHA_PHASE_OUTPUT, &t0);
}

void mha_plan_forward(struct mha_plan *p, const struct mha_weights *w)
{
	if (!p->large) {
		stack_run(&p->c, w, &p->stack, gemm_rm, softmax_vector,
		          p->profile ? p->clocks[0].seconds : NULL);
		return;
	}
	p->w = w;
	double *wall = p->profile ? p->wall : NULL, t0 = wall ? clock_wall() : 0.0;
	int had = gemm_threads_set(1);
	int chunks = (p->c.n + p->chunk - 1) / p->chunk;
	if (!p->separate_qkv)
		pool_run(p->pool, pack_weights_task, p, pool_threads(p->pool));
	pool_run(p->pool, project_task, p, chunks);
	phase_lap(wall, MHA_PHASE_PROJECT, &t0);
	/* the last query tiles first, heads inner: with causal they are the
	 * longest, and the short ones fill in at the end */
	pool_run(p->pool, attend_task, p, p->c.h * p->nb);
	phase_lap(wall, MHA_PHASE_WEIGHTED, &t0);
	pool_run(p->pool, output_task, p, chunks);
	gemm_threads_set(had);
	phase_lap(wall, MHA_PHASE_OUTPUT, &t0);
	p->w = NULL;
}
