/*
 * lm_model.c - the language model's forward and backward over a batch of
 * sequences at once: embeddings and learned positions, the core's
 * mha_forward / mha_backward per layer and sequence, the read-out to the
 * vocabulary and its gradient as GEMMs over the whole batch (cut into
 * fixed blocks of rows or columns), softmax cross-entropy (the engine's
 * vector exp), and the next-token top-k. The sequences and the blocks run
 * on the batch's pool of threads, started once (pool.h): the read-out is
 * most of a step's FLOPs at the shipped size, so it must be shared too.
 * The model is train.h's (classes = vocabulary). AdamW and the batches' text are in
 * lm_trainer.c; evaluation over a stream in lm_eval.c.
 *
 * Determinism: every sequence's layer gradients go to a slot of their
 * own and are summed in sequence order, and the embedding gradient is
 * gathered in (sequence, position) order, and the read-out's blocks are
 * the same whatever the thread count, so the thread count changes no bit.
 * BLAS runs single-threaded inside (gemm_threads_set(1)).
 */
#include "gemm.h"
#include "lm.h"
#include "pool.h"
#include "vexp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The read-out's blocks: rows of logits (forward, dx_L) or columns of dU
 * (backward), fixed sizes so that the products do not depend on threads. */
enum { READOUT_ROWS = 128, READOUT_COLS = 512 };

static size_t layer_floats(const struct train_shape *s)
{
	return 4 * (size_t)s->d * s->h * s->dk;
}

size_t lm_slot_floats(const struct train_model *m)
{
	return (size_t)m->s.layers * layer_floats(&m->s);
}

void lm_batch_free(struct lm_batch *bt)
{
	if (bt->acts)
		for (int k = 0; k < TRAIN_MAX_LAYERS * bt->cap_b; k++)
			if (bt->acts[k].mem)
				mha_acts_free(&bt->acts[k]);
	for (int t = 0; t < LM_MAX_THREADS; t++)
		if (bt->grads[t].mem)
			mha_grads_free(&bt->grads[t]);
	free(bt->acts);
	free(bt->mem);
	pool_destroy(bt->pool);
	memset(bt, 0, sizeof *bt);
}

enum mha_status lm_batch_alloc(struct lm_batch *bt, const struct train_model *m, int cap_b, int threads)
{
	memset(bt, 0, sizeof *bt);
	const struct train_shape *s = &m->s;
	struct mha_config c = train_layer_config(m, 0);
	bt->cap_b = cap_b;
	bt->n_max = s->n;
	size_t rows = (size_t)cap_b * s->n;
	bt->mem = malloc(((size_t)(s->layers + 2) * rows * s->d + rows * s->classes) * sizeof(float));
	bt->acts = calloc((size_t)TRAIN_MAX_LAYERS * cap_b, sizeof *bt->acts);
	if (!bt->mem || !bt->acts)
		goto fail;
	bt->x = bt->mem;
	bt->dx = bt->x + (size_t)(s->layers + 1) * rows * s->d;
	bt->logits = bt->dx + rows * s->d;
	for (int k = 0; k < s->layers * cap_b; k++)
		if (mha_acts_alloc(&bt->acts[k], &c) != MHA_OK)
			goto fail;
	if (threads > LM_MAX_THREADS)
		threads = LM_MAX_THREADS;
	bt->pool = pool_create(threads);
	if (!bt->pool) /* no thread to be had: the caller alone */
		bt->pool = pool_create(1);
	if (!bt->pool)
		goto fail;
	for (int t = 0; t < pool_threads(bt->pool); t++)
		if (mha_grads_alloc(&bt->grads[t], &c) != MHA_OK)
			goto fail;
	return MHA_OK;
fail:
	lm_batch_free(bt);
	return MHA_ENOMEM;
}

void lm_embed(const struct train_model *m, const int *tokens, int n, float *x0)
{
	const int d = m->s.d;
	// x_0[i] = E[t_i] + P[i]: the token's row and the learned position's
	for (int i = 0; i < n; i++)
		for (int e = 0; e < d; e++)
			x0[(size_t)i * d + e] = m->emb[(size_t)tokens[i] * d + e] + m->pos[(size_t)i * d + e];
}

/* ---- running per-sequence work on the pool ---- */

struct par {
	void (*fn)(struct par *p, int item, int thread);
	int items, threads;    /* threads: 1 runs here, in order; more: the whole pool */
	const struct train_model *m;
	struct lm_batch *bt;
	const int *tokens, *targets;
	int from;              /* the first layer the forward runs (0: from the embedding) */
	float scale, *slots;
	struct train_model *g; /* the backward's gradient */
	struct lm_result *res; /* (items) per sequence */
};

static void par_task(void *ctx, int item, int thread)
{
	struct par *p = ctx;
	p->fn(p, item, thread);
}

/* Items 0..items-1 of fn, on the pool when more than one thread is asked
 * for (thread: the pool's id, 0 the caller), else in order here. Every
 * item writes only its own outputs, so the schedule changes nothing. */
static void par_run(struct par *p, int items)
{
	if (p->threads > 1)
		pool_run(p->bt->pool, par_task, p, items);
	else
		for (int i = 0; i < items; i++)
			p->fn(p, i, 0);
}

/* How many blocks of READOUT_ROWS the b n rows make. */
static int row_blocks(const struct par *p)
{
	const int rows = p->items * p->bt->n;
	return (rows + READOUT_ROWS - 1) / READOUT_ROWS;
}

/* Block blk's rows [r0, r1) of the b n. */
static void block_rows(const struct par *p, int blk, int *r0, int *r1)
{
	const int rows = p->items * p->bt->n;
	*r0 = blk * READOUT_ROWS;
	*r1 = *r0 + READOUT_ROWS < rows ? *r0 + READOUT_ROWS : rows;
}

/* logits[r0..r1) (rows, V) = x_L[r0..r1) (rows, d) @ U (d, V) */
static void logits_block(struct par *p, int blk, int thread)
{
	(void)thread;
	const struct train_model *m = p->m;
	const struct lm_batch *bt = p->bt;
	const int d = m->s.d, V = m->s.classes;
	const size_t block = (size_t)bt->cap_b * bt->n_max * d;
	int r0, r1;
	block_rows(p, blk, &r0, &r1);
	const size_t rows = (size_t)(r1 - r0);
	gemm_rm(false, false, (int)rows, V, d, 1.0f, bt->x + m->s.layers * block + (size_t)r0 * d, d, rows * d,
	        m->unemb, V, (size_t)d * V, bt->logits + (size_t)r0 * V, V, rows * V);
}

float *lm_stream_at(const struct train_model *m, const struct lm_batch *bt, int l, int j)
{
	size_t block = (size_t)bt->cap_b * bt->n_max * m->s.d;
	return bt->x + l * block + (size_t)j * bt->n * m->s.d;
}

/* Layer l's inputs for sequence j: X is the residual stream x_l. */
static struct mha_weights layer_view(const struct train_model *m, const struct lm_batch *bt, int l, int j)
{
	struct mha_weights v = { 0 };
	v.x = lm_stream_at(m, bt, l, j);
	v.wq = m->wq[l]; v.wk = m->wk[l]; v.wv = m->wv[l]; v.wo = m->wo[l];
	return v;
}

struct mha_weights lm_layer_weights(const struct train_model *m, const struct lm_batch *bt, int l, int j)
{
	return layer_view(m, bt, l, j);
}


static struct mha_config layer_config(const struct train_model *m, int l, int n)
{
	struct mha_config c = train_layer_config(m, l);
	c.n = n;
	return c;
}

/* x_0 of sequence j, then x_{l+1} = x_l + MHA_l(x_l) for every layer
 * (from p->from on, with no tokens: the streams up to it are the caller's) */
static void forward_sequence(struct par *p, int j, int thread)
{
	(void)thread;
	const struct train_model *m = p->m;
	struct lm_batch *bt = p->bt;
	const int n = bt->n, d = m->s.d;
	const size_t block = (size_t)bt->cap_b * bt->n_max * d, nd = (size_t)n * d;
	if (p->tokens) /* else the caller's stream x_from */
		lm_embed(m, p->tokens + (size_t)j * n, n, bt->x + (size_t)j * nd);
	for (int l = p->from; l < m->s.layers; l++) {
		struct mha_config c = layer_config(m, l, n);
		struct mha_weights v = layer_view(m, bt, l, j);
		struct mha_acts *a = &bt->acts[l * bt->cap_b + j];
		mha_forward(&c, &v, a);
		float *xn = bt->x + (l + 1) * block + (size_t)j * nd;
		for (size_t e = 0; e < nd; e++)
			xn[e] = v.x[e] + a->y[e];
	}
}

/* Row by row softmax of sequence j's logits, in place, and its loss,
 * with the engine's vector exp (vexp.h: relative error under 4e-7) */
static void softmax_sequence(struct par *p, int j, int thread)
{
	(void)thread;
	const int n = p->bt->n, V = p->m->s.classes;
	struct lm_result *r = &p->res[j];
	memset(r, 0, sizeof *r);
	for (int i = 0; i < n; i++) {
		float *z = p->bt->logits + ((size_t)j * n + i) * V;
		bool nan;
		const float mx = vexp_max(z, (size_t)V, &nan);
		const int t = p->targets[(size_t)j * n + i];
		const float zt = t >= 0 ? z[t] : 0.0f;
		// p_k = exp(z_k - max) / sum_k' exp(z_k' - max): stable softmax
		const float sum = vexp_shift_sum(z, mx, z, (size_t)V);
		if (t >= 0) {
			// cross-entropy = -log p_t = log sum - (z_t - max); right when z_t is the max
			r->loss += log((double)sum) - ((double)zt - mx);
			r->counted++;
			r->correct += zt == mx;
		}
		vexp_scale(z, (size_t)V, 1.0f / sum);
	}
}

/* The layers from p->from on, then the read-out of every sequence:
 * probabilities in bt->logits, the loss of the counted targets in r. */
static void forward_run(struct par *p, struct lm_result *r)
{
	const int b = p->items;
	struct lm_result res[256];
	struct lm_result *rs = b <= 256 ? res : calloc((size_t)b, sizeof *rs);
	p->res = rs;
	int had = gemm_threads_set(1);
	p->fn = forward_sequence;
	par_run(p, b);
	// logits (b n, V) = x_L (b n, d) @ U (d, V): the whole batch, in blocks of rows
	p->fn = logits_block;
	par_run(p, row_blocks(p));
	memset(r, 0, sizeof *r);
	if (rs) {
		p->fn = softmax_sequence;
		par_run(p, b);
		for (int j = 0; j < b; j++) { /* in order: the same sum for any thread count */
			r->loss += rs[j].loss;
			r->counted += rs[j].counted;
			r->correct += rs[j].correct;
		}
	}
	gemm_threads_set(had);
	if (rs != res)
		free(rs);
}

void lm_forward(const struct train_model *m, struct lm_batch *bt, const int *tokens,
                const int *targets, int b, int n, int threads, struct lm_result *r)
{
	bt->b = b;
	bt->n = n;
	struct par p = { .items = b, .threads = threads, .m = m, .bt = bt, .tokens = tokens, .targets = targets };
	forward_run(&p, r);
}

void lm_forward_from(const struct train_model *m, struct lm_batch *bt, int from, int n, const float *x)
{
	int none[MHA_MAX_TOKENS]; /* no targets: nothing counted */
	for (int i = 0; i < n; i++)
		none[i] = -1;
	bt->b = 1;
	bt->n = n;
	float *xl = lm_stream_at(m, bt, from, 0);
	if (xl != x)
		memmove(xl, x, sizeof(float) * (size_t)n * m->s.d);
	struct par p = { .items = 1, .threads = 1, .m = m, .bt = bt, .targets = none, .from = from };
	struct lm_result r;
	forward_run(&p, &r);
}

void lm_forward_after(const struct train_model *m, struct lm_batch *bt, int l, int n, const float *x,
                      const float *y)
{
	bt->b = 1;
	bt->n = n;
	const size_t nd = (size_t)n * m->s.d;
	float *xl = lm_stream_at(m, bt, l, 0), *xn = lm_stream_at(m, bt, l + 1, 0);
	memmove(xl, x, sizeof(float) * nd);
	// x_{l+1} = x_l + Y_l: the residual stream after the layer the caller ran
	for (size_t e = 0; e < nd; e++)
		xn[e] = xl[e] + y[e];
	lm_forward_from(m, bt, l + 1, n, xn);
}

/* Sequence j down through the layers: dx_l = dx_{l+1} + MHA_l's dX, its
 * layer gradients into its own slot */
static void backward_sequence(struct par *p, int j, int thread)
{
	const struct train_model *m = p->m;
	struct lm_batch *bt = p->bt;
	const int n = bt->n, d = m->s.d, hw = m->s.h * m->s.dk;
	const size_t nd = (size_t)n * d, wsz = (size_t)d * hw;
	float *dx = bt->dx + (size_t)j * nd;
	float *slot = p->slots + (size_t)j * lm_slot_floats(m);
	struct mha_grads *gr = &bt->grads[thread];
	for (int l = m->s.layers - 1; l >= 0; l--) {
		struct mha_config c = layer_config(m, l, n);
		struct mha_weights v = layer_view(m, bt, l, j);
		mha_backward(&c, &v, &bt->acts[l * bt->cap_b + j], dx, gr);
		float *o = slot + l * layer_floats(&m->s);
		memcpy(o, gr->wq, wsz * sizeof *o);
		memcpy(o + wsz, gr->wk, wsz * sizeof *o);
		memcpy(o + 2 * wsz, gr->wv, wsz * sizeof *o);
		memcpy(o + 3 * wsz, gr->wo, wsz * sizeof *o);
		vexp_add(dx, gr->x, nd);
	}
}

/* Rows [r0, r1) of the read-out's gradient: dlogits = (p - onehot(target))
 * * scale on counted rows, 0 on the rest (in place), then
 * dx_L[r0..r1) (rows, d) = dlogits[r0..r1) (rows, V) @ U^T (V, d). */
static void dlogits_block(struct par *p, int blk, int thread)
{
	(void)thread;
	const struct train_model *m = p->m;
	struct lm_batch *bt = p->bt;
	const int d = m->s.d, V = m->s.classes;
	int r0, r1;
	block_rows(p, blk, &r0, &r1);
	for (int i = r0; i < r1; i++) {
		float *z = bt->logits + (size_t)i * V;
		if (p->targets[i] < 0) {
			memset(z, 0, (size_t)V * sizeof *z);
			continue;
		}
		z[p->targets[i]] -= 1.0f;
		for (int k = 0; k < V; k++)
			z[k] *= p->scale;
	}
	const size_t rows = (size_t)(r1 - r0);
	gemm_rm(false, true, (int)rows, d, V, 1.0f, bt->logits + (size_t)r0 * V, V, rows * V, m->unemb, V,
	        (size_t)d * V, bt->dx + (size_t)r0 * d, d, rows * d);
}

/* Columns [c0, c1) of dU (d, V) = x_L^T (d, b n) @ dlogits (b n, V), into
 * p->g: each column a sum over every row of the batch. */
static void dunemb_block(struct par *p, int blk, int thread)
{
	(void)thread;
	const struct train_model *m = p->m;
	const struct lm_batch *bt = p->bt;
	const int d = m->s.d, V = m->s.classes;
	const size_t rows = (size_t)p->items * bt->n, block = (size_t)bt->cap_b * bt->n_max * d;
	const int c0 = blk * READOUT_COLS, c1 = c0 + READOUT_COLS < V ? c0 + READOUT_COLS : V;
	gemm_rm(true, false, d, c1 - c0, (int)rows, 1.0f, bt->x + m->s.layers * block, d, rows * d,
	        bt->logits + c0, V, rows * V - (size_t)c0, p->g->unemb + c0, V, (size_t)d * V - (size_t)c0);
}

void lm_backward(const struct train_model *m, struct lm_batch *bt, const int *tokens,
                 const int *targets, float scale, int threads, float *slots, struct train_model *g)
{
	const int b = bt->b, n = bt->n, d = m->s.d, V = m->s.classes;
	struct par p = { .items = b, .threads = threads, .m = m, .bt = bt, .tokens = tokens,
	                 .targets = targets, .scale = scale, .slots = slots, .g = g };
	int had = gemm_threads_set(1);
	p.fn = dlogits_block;
	par_run(&p, row_blocks(&p));
	p.fn = dunemb_block;
	par_run(&p, (V + READOUT_COLS - 1) / READOUT_COLS);
	p.fn = backward_sequence;
	par_run(&p, b);
	gemm_threads_set(had);
	// the layers' gradients: the slots summed in sequence order
	const size_t ns = lm_slot_floats(m);
	float *gl = g->wq[0]; /* the layers' tensors lie one after another in this order */
	memcpy(gl, slots, ns * sizeof *gl);
	for (int j = 1; j < b; j++)
		vexp_add(gl, slots + (size_t)j * ns, ns);
	// dP[i] = sum over sequences of dx_0[i]; dE[t] += dx_0[i] for each token t at i
	memset(g->pos, 0, (size_t)m->s.n * d * sizeof *g->pos);
	memset(g->emb, 0, (size_t)m->s.vocab * d * sizeof *g->emb);
	for (int j = 0; j < b; j++)
		for (int i = 0; i < n; i++) {
			const float *row = bt->dx + ((size_t)j * n + i) * d;
			float *pe = g->pos + (size_t)i * d, *ee = g->emb + (size_t)tokens[(size_t)j * n + i] * d;
			for (int e = 0; e < d; e++) {
				pe[e] += row[e];
				ee[e] += row[e];
			}
		}
}

void lm_top_k(const float *p, int V, int k, int *ids, float *probs)
{
	/* insertion into a sorted list of k: most probable first, ties by lower id */
	int have = 0;
	for (int t = 0; t < V; t++) {
		if (have == k && p[t] <= probs[k - 1])
			continue;
		int at = have < k ? have++ : k - 1;
		while (at > 0 && probs[at - 1] < p[t]) {
			probs[at] = probs[at - 1];
			ids[at] = ids[at - 1];
			at--;
		}
		probs[at] = p[t];
		ids[at] = t;
	}
}

int lm_next(const struct train_model *m, const int *tokens, int n, int k, int *ids, float *probs)
{
	struct lm_batch bt;
	if (n < 1 || n > m->s.n || k < 1 || k > m->s.classes || lm_batch_alloc(&bt, m, 1, 1) != MHA_OK)
		return -1;
	int targets[MHA_MAX_TOKENS];
	for (int i = 0; i < n; i++)
		targets[i] = -1;
	struct lm_result r;
	lm_forward(m, &bt, tokens, targets, 1, n, 1, &r);
	for (int i = 0; i < n; i++)
		lm_top_k(bt.logits + (size_t)i * m->s.classes, m->s.classes, k, ids + (size_t)i * k, probs + (size_t)i * k);
	lm_batch_free(&bt);
	return 0;
}
