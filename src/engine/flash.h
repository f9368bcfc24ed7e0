/*
 * flash.h - tiled attention with the online softmax (FlashAttention-2,
 * Dao 2023) for one head, internal to the engine. One kernel, two users:
 * the planned forward's large path (plan.c, lean: nothing kept but the
 * output) and the recording for the screen (flash_record.c: a callback
 * after every tile step). The public side is in engine.h.
 *
 * For a tile of query rows [r0, r0 + R) and the key/value tiles
 * [c0, c0 + C) in order, each row r keeps
 *   m_r  the largest kept score so far (-inf: none yet),
 *   l_r  sum over kept keys so far of exp(s_j - m_r),
 *   O_r  sum over kept keys so far of exp(s_j - m_r) v_j   (dk values),
 * and a new tile updates them with m' = max(m, max_j s_j),
 *   alpha = exp(m - m')  (0 while m = -inf: there is nothing to rescale),
 *   l' = alpha l + sum_j exp(s_j - m'),  O' = alpha O + sum_j exp(s_j - m') v_j;
 * at the end O_r / l_r is row r of P V, and l_r = 0 marks a dead row
 * (every key masked), whose output is 0 as in the reference.
 * The n x n scores never exist: a tile of R x C scores at a time.
 */
#ifndef FLASH_H
#define FLASH_H

#include <stdbool.h>
#include <stddef.h>

struct mha_config;

/* One head's operands. Rows of Q, K, V and O have strides; the vector
 * kernels (attn.h) run when lanes > 0, kp holds K in their panels, v is
 * contiguous (ldv == dk) and a key tile starts on a panel; plain loops
 * otherwise (the recording's odd tile sizes). */
struct flash_head {
	int n, dk;
	bool causal;      /* query q sees keys j <= q */
	int top_k;        /* keep each query's top_k largest kept scores; 0: off */
	float scale;      /* s = scale * q . k */
	const float *q;  int ldq;  /* Q_i (n, dk) */
	const float *k;  int ldk;  /* K_j (n, dk): the plain loops' operand */
	const float *kp;           /* K_j in attn_pack_k's panels, or NULL */
	int lanes;                 /* attn_lanes(dk), or 0: plain loops */
	const float *v;  int ldv;  /* V_j (n, dk) */
	float *o;        int ldo;  /* O_i (n, dk), written */
	unsigned char *dead;       /* (n) 1 where no key is kept, or NULL */
	int br, bc;                /* query rows per tile, keys per tile */
	/* masks beyond causal (padding, window, custom: mha_mask_row asked
	 * for each row), or NULL when the configuration has none */
	const struct mha_config *masks;
};

/* What a recorder sees after each key/value tile of one query tile. */
struct flash_step {
	int r0, rows, c0, cols;
	const float *m, *l, *alpha; /* (rows) after the step */
	const float *o; int ldo;    /* (rows, dk) O, not yet divided by l */
};
typedef void flash_record_fn(void *ctx, const struct flash_step *st);

/* Floats of scratch one call of flash_rows needs. */
size_t flash_scratch_floats(int n, int br, int bc, int top_k, bool masks);
/* How many key tiles the query tile at r0 meets (the steps flash_rows
 * will record for it); scratch as for flash_rows. */
int flash_key_tiles(const struct flash_head *hd, int r0, float *scratch);
/* Rows [r0, r0 + br) (fewer at the end) of O_i, and dead. scratch:
 * flash_scratch_floats floats. rec: called after every step, or NULL. */
void flash_rows(const struct flash_head *hd, int r0, float *scratch,
                flash_record_fn *rec, void *ctx);

/* One row's online-softmax step on its tile row s (C scores, masked ones
 * -inf): m, l, alpha updated as above, s turned into exp(s - m') in place.
 * Also the decode step's (kvdec.c), whose rows are the query heads that
 * share a kv head. */
void flash_online_row(float *s, int C, float *m, float *l, float *alpha);

/* Tile sizes for the lean path from the cache sizes of this machine
 * (/sys/devices/system/cpu/cpu0/cache, else sysconf): the key and value
 * tiles in a quarter of L2, the br x bc score tile in another quarter. bc
 * is a multiple of lanes (when lanes > 0), br of 24 (24..192). */
void flash_tiles_auto(int n, int dk, int lanes, int *br, int *bc);
/* The cache sizes read (bytes; 0 when unknown), for the benchmark. */
void flash_cache_sizes(long *l1d, long *l2, long *l3);

#endif
