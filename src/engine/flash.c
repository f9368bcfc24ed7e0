/*
 * flash.c - the tiled attention of flash.h: one query tile against the
 * key/value tiles in order, the online softmax's m, l and rescale per
 * row, the exp taken on the score tile while it is in L1, and the tile
 * sizes read from this machine's caches. Top-k needs each row's k-th
 * largest score before the first tile: a pre-pass computes the tile's
 * rows of scores once (R x n floats of scratch, only with top-k) and
 * keeps a threshold and a count of ties per row; the main pass makes the
 * same scores with the same code, so it compares bit for bit. Masks
 * beyond causal (padding, window, custom: mha_mask_row) are asked once
 * per row of a query tile, and key tiles no row sees are skipped (a
 * sliding window costs O(n w), not O(n^2)).
 * No allocation, no threads (plan.c runs tiles on its pool), no NaN rules:
 * the inputs are finite and bounded (MHA_VALUE_MAX), and so are the scores.
 */
#include "mha.h"
#include "flash.h"
#include "attn.h"
#include "softmax_fast.h"
#include "vexp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* scratch: S (br, bc), then m, l, alpha, thr, ties (br each), then with
 * top-k the pre-pass rows (br, n), then with masks the keep rows (br, n)
 * bytes */
size_t flash_scratch_floats(int n, int br, int bc, int top_k, bool masks)
{
	size_t rows = (size_t)br * n;
	return (size_t)br * bc + 5 * (size_t)br + (top_k > 0 ? rows : 0)
	       + (masks ? (rows + sizeof(float) - 1) / sizeof(float) : 0);
}

// S (R, C; stride lds) = scale Q[r0:r0+R] (R, dk) @ K[c0:c0+C]^T (dk, C)
static void tile_scores(const struct flash_head *hd, int r0, int R, int c0, int C,
                        float *s, int lds)
{
	const float *q = hd->q + (size_t)r0 * hd->ldq;
	if (hd->kp && hd->lanes && c0 % hd->lanes == 0) {
		const float *kp = hd->kp + (size_t)(c0 / hd->lanes) * hd->dk * hd->lanes;
		attn_scores(hd->lanes, q, hd->ldq, kp, R, C, hd->dk, hd->scale, s, lds);
		return;
	}
	for (int r = 0; r < R; r++)
		for (int j = 0; j < C; j++) {
			const float *qr = q + (size_t)r * hd->ldq, *kr = hd->k + (size_t)(c0 + j) * hd->ldk;
			float acc = 0.0f;
			for (int e = 0; e < hd->dk; e++)
				acc += qr[e] * kr[e];
			s[(size_t)r * lds + j] = acc * hd->scale;
		}
}

// O[r0:r0+R] (R, dk) = diag(alpha) O[r0:r0+R] + P (R, C; stride ldp) @ V[c0:c0+C] (C, dk)
static void tile_weighted(const struct flash_head *hd, int r0, int R, int c0, int C,
                          const float *p, int ldp, const float *alpha)
{
	float *o = hd->o + (size_t)r0 * hd->ldo;
	const float *v = hd->v + (size_t)c0 * hd->ldv;
	if (hd->lanes && hd->ldv == hd->dk) {
		attn_weighted_acc(hd->lanes, p, ldp, v, R, C, hd->dk, alpha, o, hd->ldo);
		return;
	}
	for (int r = 0; r < R; r++) {
		float *orow = o + (size_t)r * hd->ldo;
		for (int e = 0; e < hd->dk; e++)
			orow[e] *= alpha[r];
		for (int c = 0; c < C; c++) {
			float pc = p[(size_t)r * ldp + c];
			const float *vr = v + (size_t)c * hd->ldv;
			if (pc == 0.0f)
				continue; /* a masked key */
			for (int e = 0; e < hd->dk; e++)
				orow[e] += pc * vr[e];
		}
	}
}

/* One query tile's rows and its share of the scratch. */
struct tile {
	int r0, R;
	int begin, end;    /* the keys any row of the tile sees lie in [begin, end) */
	float *s, *m, *l, *alpha, *thr, *ties, *rows;
	unsigned char *keep; /* (R, n) mha_mask_row's verdicts, or NULL: causal only */
};

/* Does row r of the tile see key j (before top-k)? */
static bool sees(const struct flash_head *hd, const struct tile *t, int r, int j)
{
	if (t->keep)
		return t->keep[(size_t)r * hd->n + j];
	return !hd->causal || j <= t->r0 + r;
}

static struct tile tile_setup(const struct flash_head *hd, int r0, float *scratch)
{
	struct tile t = { .r0 = r0, .R = hd->n - r0 < hd->br ? hd->n - r0 : hd->br };
	const size_t br = (size_t)hd->br, rows = br * hd->n;
	t.s = scratch;
	t.m = t.s + br * hd->bc;
	t.l = t.m + br;
	t.alpha = t.l + br;
	t.thr = t.alpha + br;
	t.ties = t.thr + br;
	t.rows = t.ties + br;
	/* causal: no row of the tile sees a key past its last row */
	t.end = hd->causal ? r0 + t.R : hd->n;
	if (hd->masks) {
		t.keep = (unsigned char *)(t.rows + (hd->top_k > 0 ? rows : 0));
		int first = hd->n, last = -1;
		for (int r = 0; r < t.R; r++) {
			unsigned char *k = t.keep + (size_t)r * hd->n;
			mha_mask_row(hd->masks, r0 + r, NULL, k);
			for (int j = 0; j < hd->n; j++)
				if (k[j]) {
					first = j < first ? j : first;
					last = j > last ? j : last;
				}
		}
		t.begin = first;
		t.end = last + 1;
	}
	/* on the grid of key tiles, so that the kernels' panels line up */
	t.begin = t.begin / hd->bc * hd->bc;
	if (t.end <= t.begin)
		t.begin = t.end = 0;
	return t;
}

int flash_key_tiles(const struct flash_head *hd, int r0, float *scratch)
{
	struct tile t = tile_setup(hd, r0, scratch);
	return (t.end - t.begin + hd->bc - 1) / hd->bc;
}

/* Top-k pre-pass: thr[r] = the top_k-th largest score of row r over the
 * keys it sees, ties[r] = how many scores equal to it are kept (the
 * lowest-indexed ones, as the reference); thr = -inf keeps every key. */
static void topk_thresholds(const struct flash_head *hd, const struct tile *t)
{
	for (int c0 = t->begin; c0 < t->end; c0 += hd->bc) {
		int C = t->end - c0 < hd->bc ? t->end - c0 : hd->bc;
		tile_scores(hd, t->r0, t->R, c0, C, t->rows + c0, hd->n);
	}
	for (int r = 0; r < t->R; r++) {
		float *row = t->rows + (size_t)r * hd->n;
		int seen = 0;
		for (int j = 0; j < t->end; j++) {
			bool in = j >= t->begin && sees(hd, t, r, j);
			seen += in;
			if (!in)
				row[j] = -INFINITY;
		}
		t->thr[r] = -INFINITY;
		t->ties[r] = (float)hd->n;
		if (hd->top_k >= seen)
			continue;
		float v = softmax_select_desc(row, t->end, hd->top_k - 1);
		int above = 0;
		for (int j = 0; j < t->end; j++)
			above += row[j] > v;
		t->thr[r] = v;
		t->ties[r] = (float)(hd->top_k - above);
	}
}

/* Keys row r of the tile does not keep, among [c0, c0 + C), to -inf in
 * its tile row s: unseen, or below the top-k threshold (ties in key order). */
static void mask_row(const struct flash_head *hd, const struct tile *t, int r, float *s,
                     int c0, int C)
{
	for (int j = 0; j < C; j++)
		if (!sees(hd, t, r, c0 + j))
			s[j] = -INFINITY;
	if (t->thr[r] == -INFINITY)
		return;
	for (int j = 0; j < C; j++) {
		if (s[j] > t->thr[r] || s[j] == -INFINITY)
			continue;
		if (s[j] == t->thr[r] && t->ties[r] > 0.0f)
			t->ties[r] -= 1.0f;
		else
			s[j] = -INFINITY;
	}
}

void flash_online_row(float *s, int C, float *m, float *l, float *alpha)
{
	bool nan;
	float mt = vexp_max(s, (size_t)C, &nan);
	float mn = mt > *m ? mt : *m;
	if (mn == -INFINITY) {
		/* nothing kept yet: O and l stay 0 */
		memset(s, 0, (size_t)C * sizeof *s);
		*alpha = 0.0f;
		return;
	}
	*alpha = *m == -INFINITY ? 0.0f : expf(*m - mn);
	*l = *alpha * *l + vexp_shift_sum(s, mn, s, (size_t)C);
	*m = mn;
}

void flash_rows(const struct flash_head *hd, int r0, float *scratch,
                flash_record_fn *rec, void *ctx)
{
	const int bc = hd->bc;
	struct tile t = tile_setup(hd, r0, scratch);
	const int R = t.R;
	for (int r = 0; r < R; r++) {
		t.m[r] = -INFINITY;
		t.l[r] = 0.0f;
		t.thr[r] = -INFINITY;
		memset(hd->o + (size_t)(r0 + r) * hd->ldo, 0, (size_t)hd->dk * sizeof(float));
	}
	if (hd->top_k > 0)
		topk_thresholds(hd, &t);
	for (int c0 = t.begin; c0 < t.end; c0 += bc) {
		const int C = t.end - c0 < bc ? t.end - c0 : bc;
		// S (R, C) = Q_tile K_tile^T s, then exp(S - m') row by row, in L1
		tile_scores(hd, r0, R, c0, C, t.s, bc);
		for (int r = 0; r < R; r++) {
			float *sr = t.s + (size_t)r * bc;
			/* causal only and the whole tile seen: nothing to mask */
			if (t.keep || t.thr[r] != -INFINITY || (hd->causal && c0 + C > r0 + r + 1))
				mask_row(hd, &t, r, sr, c0, C);
			flash_online_row(sr, C, &t.m[r], &t.l[r], &t.alpha[r]);
		}
		// O = diag(alpha) O + P_tile V_tile
		tile_weighted(hd, r0, R, c0, C, t.s, bc, t.alpha);
		if (rec) {
			struct flash_step st = { r0, R, c0, C, t.m, t.l, t.alpha,
			                         hd->o + (size_t)r0 * hd->ldo, hd->ldo };
			rec(ctx, &st);
		}
	}
	// O_r /= l_r; l_r = 0: every key masked, the row stays 0
	for (int r = 0; r < R; r++) {
		float *orow = hd->o + (size_t)(r0 + r) * hd->ldo;
		float inv = t.l[r] > 0.0f ? 1.0f / t.l[r] : 0.0f;
		for (int e = 0; e < hd->dk; e++)
			orow[e] *= inv;
		if (hd->dead)
			hd->dead[r0 + r] = t.l[r] == 0.0f;
	}
}

/* "48K", "1024K", "32M" in a sysfs cache file, in bytes; 0 if unreadable */
static long sysfs_size(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = 0;
	char unit = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%ld%c", &v, &unit) < 1)
		v = 0;
	fclose(f);
	return unit == 'K' ? v * 1024 : unit == 'M' ? v * 1024 * 1024 : v;
}

/* Size of the level's data (or unified) cache of cpu0 from sysfs. */
static long sysfs_cache(int level)
{
	for (int i = 0; i < 8; i++) {
		char path[96], type[16] = "";
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (sysfs_size(path) != level)
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%15s", type) != 1)
			type[0] = 0;
		fclose(f);
		if (strcmp(type, "Instruction")) {
			snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
			return sysfs_size(path);
		}
	}
	return 0;
}

void flash_cache_sizes(long *l1d, long *l2, long *l3)
{
	/* sysfs first: per core, where glibc's L3 may count every slice */
	*l1d = sysfs_cache(1);
	*l2 = sysfs_cache(2);
	*l3 = sysfs_cache(3);
#ifdef _SC_LEVEL1_DCACHE_SIZE
	if (*l1d <= 0)
		*l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
	if (*l2 <= 0)
		*l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (*l3 <= 0)
		*l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
	*l1d = *l1d > 0 ? *l1d : 0;
	*l2 = *l2 > 0 ? *l2 : 0;
	*l3 = *l3 > 0 ? *l3 : 0;
}

void flash_tiles_auto(int n, int dk, int lanes, int *br, int *bc)
{
	long l1, l2, l3;
	flash_cache_sizes(&l1, &l2, &l3);
	if (l2 < 128 * 1024)
		l2 = 512 * 1024; /* unknown: a common size */
	int align = lanes > 0 ? lanes : 1;
	/* the key and value tiles, 2 bc dk floats, in a quarter of L2 (the
	 * rest: Q and O of the query tile, the score tile on its way, the
	 * other thread's share where L2 is shared); 256 keys at most, past
	 * which measured times stop improving */
	long c = l2 / 4 / (2 * (long)dk * (long)sizeof(float));
	c = c > 256 ? 256 : c;
	c = c / align * align;
	if (c < align)
		c = align;
	/* the score tile, br bc floats, in another quarter of L2: each query
	 * tile reads all of K and V from L3, so more rows per tile mean fewer
	 * passes (measured with AVX2: 96 rows beat 24 by 30% at n = 4096, 192
	 * beat 96 by 0-6%); br a multiple of 24, which the kernels' 6- and
	 * 8-row register tiles divide; at most 192 */
	long r = l2 / 4 / (c * (long)sizeof(float)) / 24 * 24;
	r = r < 24 ? 24 : r > 192 ? 192 : r;
	*bc = (int)(c < n ? c : n);
	*br = (int)(r < n ? r : n);
}
