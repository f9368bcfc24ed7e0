/*
 * flash_record.c - mha_flash_record (engine.h): the tiled kernel of
 * flash.c on one head of a teaching-size forward, with a recorder that
 * copies m, l, alpha and the partial output rows after every step. Plain
 * loops inside (any tile size, 1 included); the large path runs the same
 * flash_rows with the vector kernels. Allocates once per recording.
 */
#include "engine.h"
#include "flash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct recorder {
	struct mha_flash_record *r;
	float *next;  /* where the next step's numbers go */
	int qt;
};

static void record_step(void *ctx, const struct flash_step *st)
{
	struct recorder *rc = ctx;
	struct mha_flash_record *r = rc->r;
	struct mha_flash_step *out = &r->step[r->steps++];
	const size_t rows = (size_t)st->rows, dk = (size_t)r->dk;
	float *f = rc->next;
	*out = (struct mha_flash_step){ rc->qt, st->c0 / r->bc, st->r0, st->rows, st->c0, st->cols,
	                                f, f + rows, f + 2 * rows, f + 3 * rows };
	memcpy(f, st->m, rows * sizeof *f);
	memcpy(f + rows, st->l, rows * sizeof *f);
	memcpy(f + 2 * rows, st->alpha, rows * sizeof *f);
	for (size_t i = 0; i < rows; i++)
		memcpy(f + 3 * rows + i * dk, st->o + i * (size_t)st->ldo, dk * sizeof *f);
	/* the last step of the tile leaves the final m and l */
	memcpy(r->m + st->r0, st->m, rows * sizeof *f);
	memcpy(r->l + st->r0, st->l, rows * sizeof *f);
	rc->next = f + 3 * rows + rows * dk;
}

enum mha_status mha_flash_record(struct mha_flash_record *r, const struct mha_config *c,
                                 const struct mha_acts *a, int head, int br, int bc,
                                 char *msg, size_t len)
{
	memset(r, 0, sizeof *r);
	if (c->n > MHA_MAX_TOKENS || head < 0 || head >= c->h) {
		snprintf(msg, len, "a recording is of one head 0..%d at up to %d tokens (asked: head %d, "
		         "%d tokens)", c->h - 1, MHA_MAX_TOKENS, head, c->n);
		return MHA_EINVAL;
	}
	if (c->m > 0) {
		snprintf(msg, len, "a recording is of self-attention: the tiles here are n x n, "
		         "cross-attention's %d x %d", c->n, c->m);
		return MHA_EINVAL;
	}
	/* what the scores read: the rotated Q and K with RoPE */
	const float *qs = c->pos == MHA_POS_ROPE ? a->q_rot : a->q;
	const float *ks = c->pos == MHA_POS_ROPE ? a->k_rot : a->k;
	const int n = c->n, dk = c->dk, hw = c->h * dk, gw = c->g * dk, j = mha_kv_head(c, head);
	br = br < 1 ? 1 : br > n ? n : br;
	bc = bc < 1 ? 1 : bc > n ? n : bc;
	struct flash_head hd = {
		.n = n, .dk = dk, .causal = c->causal, .top_k = c->top_k,
		.scale = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f,
		.q = qs + (size_t)head * dk, .ldq = hw,
		.k = ks + (size_t)j * dk, .ldk = gw,
		.v = a->v + (size_t)j * dk, .ldv = gw,
		.ldo = dk, .br = br, .bc = bc,
		.masks = mha_mask_extra(c) ? c : NULL,
	};
	size_t scratch = flash_scratch_floats(n, br, bc, c->top_k, hd.masks != NULL);
	float *work = malloc(scratch * sizeof *work);
	if (!work)
		goto nomem;
	int steps = 0;
	for (int r0 = 0; r0 < n; r0 += br)
		steps += flash_key_tiles(&hd, r0, work);
	size_t step_floats = (size_t)steps * br * (3 + (size_t)dk);
	size_t floats = step_floats + (size_t)n * dk + 2 * (size_t)n;
	char *mem = calloc(1, (size_t)steps * sizeof *r->step + floats * sizeof(float) + (size_t)n);
	if (!mem)
		goto nomem;
	*r = (struct mha_flash_record){ .head = head, .n = n, .dk = dk, .br = br, .bc = bc,
	                                .step = (struct mha_flash_step *)mem, .mem = mem };
	float *steps_mem = (float *)(mem + (size_t)steps * sizeof *r->step);
	r->out = steps_mem + step_floats;
	r->m = r->out + (size_t)n * dk;
	r->l = r->m + n;
	r->dead = (unsigned char *)(r->l + n);
	hd.o = r->out;
	hd.dead = r->dead;
	for (int q = 0; q < n; q++)
		r->m[q] = -INFINITY; /* a row no key tile reaches keeps m = -inf, l = 0 */
	struct recorder rc = { r, steps_mem, 0 };
	for (int r0 = 0; r0 < n; r0 += br, rc.qt++)
		flash_rows(&hd, r0, work, record_step, &rc);
	free(work);
	return MHA_OK;
nomem:
	free(work);
	snprintf(msg, len, "out of memory for a recording of %d tokens", c->n);
	return MHA_ENOMEM;
}

void mha_flash_record_free(struct mha_flash_record *r)
{
	free(r->mem);
	memset(r, 0, sizeof *r);
}

struct mha_flash_bytes mha_flash_bytes(int64_t n, int h, int br, int bc, int dk)
{
	struct mha_flash_bytes b;
	b.plain = 2 * (int64_t)h * n * n * (int64_t)sizeof(float);
	/* Q_i, K_j, V_j, S_ij, o_i, then m, l, alpha: one thread's working set */
	b.tiled = ((int64_t)br * dk + 2 * (int64_t)bc * dk + (int64_t)br * bc + (int64_t)br * dk + 3 * (int64_t)br) *
	          (int64_t)sizeof(float);
	return b;
}
