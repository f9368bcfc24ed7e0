/*
 * test_flash.c - FlashAttention, tile by tile, gives the plain result:
 * the recording of each head against mha_forward_naive's O = P V over
 * seeded configurations (tile sizes from 1 up and not dividing n, causal,
 * GQA, MQA, top-k, heads off, padding, windows, custom masks), its final m and l against the row max and
 * the sum of exponentials computed here from the scores, the steps' own
 * rules (alpha = exp(m_before - m), a first tile with no kept key), and the
 * planned forward's tiled path against the plain loops for tile shapes the
 * cache rule would never pick, and its one fused Q|K|V product against
 * three separate ones and the plain loops (weights changed in place
 * between forwards included). Small sizes: this suite runs under valgrind.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "check_config.h"
#include "engine.h"

/* the fast paths' bound against the plain loops, relative to the largest
 * magnitude of the tensor compared */
#define REL_TOL 1e-5

static double max_abs(const float *v, size_t n)
{
	double big = 1e-30;
	for (size_t i = 0; i < n; i++)
		big = fmax(big, fabs((double)v[i]));
	return big;
}

static void make(struct mha_config *c, struct mha_weights *w, int n, int d, int h, int g,
                 uint64_t seed)
{
	*c = mha_config_default();
	c->n = n; c->d = d; c->h = h; c->g = g; c->dk = d / h;
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	mha_weights_init(w, c, seed);
}

/* Is key j kept for query q: seen under the structural mask (the core's
 * mha_mask_row: causal, window, padding, custom) and, with top-k, among
 * the top_k largest seen scores of the row (ties to the lower index),
 * ranked here apart from the core's rule. */
static bool kept(const struct mha_config *c, const float *srow, int q, int j)
{
	unsigned char seen[MHA_MAX_TOKENS];
	int count = mha_mask_row(c, q, NULL, seen);
	if (!seen[j])
		return false;
	if (c->top_k <= 0 || c->top_k >= count)
		return true;
	int above = 0;
	for (int t = 0; t < c->n; t++)
		above += seen[t] && (srow[t] > srow[j] || (srow[t] == srow[j] && t < j));
	return above < c->top_k;
}

/* The recording of every head with these tiles against the plain forward. */
static void check_record(const struct mha_config *c, const struct mha_acts *plain, int br, int bc)
{
	char msg[MHA_MSG_MAX];
	const int n = c->n, dk = c->dk;
	for (int i = 0; i < c->h; i++) {
		struct mha_flash_record r;
		assert_int_equal(mha_flash_record(&r, c, plain, i, br, bc, msg, sizeof msg), MHA_OK);
		const float *want = plain->heads + (size_t)i * n * dk;
		check_close(r.out, want, (size_t)n * dk, REL_TOL * max_abs(want, (size_t)n * dk),
		            "tiled O against P V");
		assert_memory_equal(r.dead, plain->dead_row + (size_t)i * n, (size_t)n);
		for (int q = 0; q < n; q++) {
			const float *srow = plain->scores + ((size_t)i * n + q) * n;
			double m = -INFINITY, l = 0.0;
			for (int j = 0; j < n; j++)
				if (kept(c, srow, q, j))
					m = fmax(m, srow[j]);
			for (int j = 0; j < n; j++)
				if (kept(c, srow, q, j))
					l += exp(srow[j] - m);
			if (isinf(m)) {
				assert_true(isinf(r.m[q]) && r.l[q] == 0.0f);
				continue;
			}
			assert_true(fabs(r.m[q] - m) <= 1e-5 * fmax(1.0, fabs(m)));
			assert_true(fabs(r.l[q] - l) <= 1e-5 * l);
		}
		mha_flash_record_free(&r);
	}
}

static void test_tiles_give_the_plain_result_for_every_variant(void **state)
{
	(void)state;
	/* n, d, h, g: MHA, GQA, MQA, one token, a full screen */
	const int shapes[][4] = { { 1, 8, 2, 2 }, { 7, 16, 4, 2 }, { 13, 24, 3, 1 },
	                          { 33, 32, 4, 4 }, { 64, 64, 4, 2 } };
	const int tiles[][2] = { { 1, 1 }, { 1, 5 }, { 2, 3 }, { 3, 7 }, { 5, 2 }, { 8, 8 },
	                         { 16, 11 }, { 64, 64 } };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct mha_config c;
		struct mha_weights w;
		make(&c, &w, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], 100 + s);
		for (int v = 0; v < 8; v++) {
			check_vary(&c, v);
			struct mha_acts plain;
			assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
			mha_forward_naive(&c, &w, &plain);
			for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
				if (c.n >= 33 ? t % 2 == 1 || t == 0 : true) /* fewer at larger n */
					check_record(&c, &plain, tiles[t][0], tiles[t][1]);
			mha_acts_free(&plain);
		}
		mha_weights_free(&w);
	}
}

/* Masks beyond causal: padding, a sliding window (causal and a band), a
 * custom mask with a row that sees nothing, each with top-k and GQA. */
static void mask_variant(struct mha_config *c, int v)
{
	check_vary(c, v & 3);
	c->pad = v == 0 || v == 5 ? (1u << 2) | (1u << (c->n - 1)) : 0;
	c->window = v == 1 || v == 2 || v == 5 ? 3 : 0;
	memset(c->hide, 0, sizeof c->hide);
	if (v >= 3)
		for (int j = 0; j < c->n; j++) {
			mha_mask_set(c, 1, j, true);          /* row 1 sees nothing */
			mha_mask_set(c, j, (j * 5 + 1) % c->n, true);
		}
}

static void test_tiles_apply_every_mask_the_core_has(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	const int tiles[][2] = { { 1, 1 }, { 2, 3 }, { 4, 8 }, { 7, 5 }, { 16, 16 } };
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 21, 64, 4, 2, 5);
	for (int v = 0; v < 6; v++) {
		mask_variant(&c, v);
		assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
		struct mha_acts plain;
		assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
		mha_forward_naive(&c, &w, &plain);
		for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
			check_record(&c, &plain, tiles[t][0], tiles[t][1]);
			struct mha_plan *p;
			struct mha_plan_options o = { .threads = 1, .block_rows = tiles[t][0],
			                              .block_cols = tiles[t][1], .large = true };
			assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
			mha_plan_forward(p, &w);
			size_t nh = (size_t)c.n * c.h * c.dk;
			check_close(mha_plan_acts(p)->concat, plain.concat, nh,
			            REL_TOL * max_abs(plain.concat, nh), "tiled concat with masks");
			assert_memory_equal(mha_plan_acts(p)->dead_row, plain.dead_row, (size_t)c.h * c.n);
			mha_plan_destroy(p);
		}
		mha_acts_free(&plain);
	}
	mha_weights_free(&w);
}

static void test_each_step_rescales_by_exp_of_the_max_growth(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 10, 16, 2, 2, 7);
	c.causal = true;
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward_naive(&c, &w, &a);
	struct mha_flash_record r;
	assert_int_equal(mha_flash_record(&r, &c, &a, 1, 4, 3, msg, sizeof msg), MHA_OK);
	assert_int_equal(r.br, 4);
	assert_int_equal(r.bc, 3);
	/* query tiles [0,4) [4,8) [8,10), causal: 2 + 3 + 4 key tiles */
	assert_int_equal(r.steps, 9);
	float prev_m[MHA_MAX_TOKENS];
	for (int s = 0; s < r.steps; s++) {
		const struct mha_flash_step *st = &r.step[s];
		assert_int_equal(st->r0, 4 * st->qt);
		assert_int_equal(st->c0, 3 * st->kt);
		for (int q = 0; q < st->rows; q++) {
			if (st->kt == 0) {
				/* query 0 sees key 0 only; every row of the first tile has one */
				assert_true(st->alpha[q] == 0.0f);
			} else {
				float want = expf(prev_m[q] - st->m[q]);
				assert_true(fabsf(st->alpha[q] - want) <= 1e-6f);
				assert_true(st->m[q] >= prev_m[q] && st->alpha[q] <= 1.0f);
			}
			prev_m[q] = st->m[q];
		}
	}
	mha_flash_record_free(&r);
	mha_acts_free(&a);
	mha_weights_free(&w);
}

static void test_a_first_tile_with_no_kept_key_leaves_the_row_empty(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 12, 16, 2, 1, 3);
	c.top_k = 1; /* one key per row: most rows' first key tiles hold none */
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward_naive(&c, &w, &a);
	check_record(&c, &a, 3, 2);
	struct mha_flash_record r;
	assert_int_equal(mha_flash_record(&r, &c, &a, 0, 3, 2, msg, sizeof msg), MHA_OK);
	int empty = 0;
	for (int s = 0; s < r.steps; s++) {
		const struct mha_flash_step *st = &r.step[s];
		if (st->kt != 0)
			continue;
		for (int q = 0; q < st->rows; q++) {
			if (!isinf(st->m[q]))
				continue;
			empty++;
			assert_true(st->m[q] < 0.0f && st->l[q] == 0.0f && st->alpha[q] == 0.0f);
			for (int e = 0; e < r.dk; e++)
				assert_true(st->o[(size_t)q * r.dk + e] == 0.0f);
		}
	}
	assert_true(empty > 0);
	mha_flash_record_free(&r);
	mha_acts_free(&a);
	mha_weights_free(&w);
}

static void test_recording_refuses_what_it_cannot_show(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 6, 16, 4, 4, 1);
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	struct mha_flash_record r;
	assert_int_equal(mha_flash_record(&r, &c, &a, 4, 2, 2, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "head"));
	assert_null(r.mem);
	/* tile sizes are clamped to 1..n: one query tile of 6 rows meets 6 key tiles */
	assert_int_equal(mha_flash_record(&r, &c, &a, 0, 100, 0, msg, sizeof msg), MHA_OK);
	assert_int_equal(r.br, 6);
	assert_int_equal(r.bc, 1);
	assert_int_equal(r.steps, 6);
	mha_flash_record_free(&r);
	mha_acts_free(&a);
	mha_weights_free(&w);
}

static void test_the_memory_meter_counts_the_n_squared_it_saves(void **state)
{
	(void)state;
	/* the paper's base model: h 8, d_k 64; 4096 tokens, 64 x 128 tiles */
	struct mha_flash_bytes b = mha_flash_bytes(4096, 8, 64, 128, 64);
	assert_true(b.plain == 2LL * 8 * 4096 * 4096 * 4); /* 1 GiB of S and P */
	/* every tile a thread holds, not the score tile alone: Q's B_r x d_k,
	 * K's and V's B_c x d_k, S's B_r x B_c, o's B_r x d_k, m, l, alpha */
	assert_true(b.tiled == (64LL * 64 + 2 * 128 * 64 + 64 * 128 + 64 * 64 + 3 * 64) * 4);
}

/* The planned forward's tiled path against the plain loops, with tiles
 * that straddle n and key tiles off the kernels' panels. */
static void test_large_path_tiles_of_any_shape_give_the_plain_result(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	const int tiles[][2] = { { 1, 1 }, { 3, 7 }, { 5, 16 }, { 17, 32 }, { 40, 24 } };
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 45, 64, 4, 2, 11);
	for (int v = 0; v < 8; v++) {
		check_vary(&c, v);
		struct mha_acts plain;
		assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
		mha_forward_naive(&c, &w, &plain);
		for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
			struct mha_plan *p;
			struct mha_plan_options o = { .threads = 1, .block_rows = tiles[t][0],
			                              .block_cols = tiles[t][1], .large = true };
			assert_int_equal(mha_plan_create(&p, &c, &o, msg, sizeof msg), MHA_OK);
			int br, bc;
			mha_plan_tiles(p, &br, &bc);
			assert_int_equal(br, tiles[t][0]);
			assert_int_equal(bc, tiles[t][1]);
			mha_plan_forward(p, &w);
			const struct mha_acts *got = mha_plan_acts(p);
			size_t nh = (size_t)c.n * c.h * c.dk;
			check_close(got->concat, plain.concat, nh, REL_TOL * max_abs(plain.concat, nh),
			            "tiled concat");
			assert_memory_equal(got->dead_row, plain.dead_row, (size_t)c.h * c.n);
			mha_plan_destroy(p);
		}
		mha_acts_free(&plain);
	}
	mha_weights_free(&w);
}

/* Column block [at, at + cols) of the plan's fused rows against want (n, cols). */
static void check_fused_block(const float *qkv, int ld, int at, const float *want, int n, int cols,
                              const char *what)
{
	float *got = malloc((size_t)n * cols * sizeof *got);
	assert_non_null(got);
	for (int r = 0; r < n; r++)
		memcpy(got + (size_t)r * cols, qkv + (size_t)r * ld + at, (size_t)cols * sizeof *got);
	check_close(got, want, (size_t)n * cols, REL_TOL * max_abs(want, (size_t)n * cols), what);
	free(got);
}

static void test_one_fused_qkv_product_equals_three_and_the_plain_loops(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	/* dk 16 (the AVX-512 projection kernel), 8, 8 */
	const int shapes[][4] = { { 45, 64, 4, 2 }, { 70, 48, 6, 6 }, { 33, 40, 5, 1 } };
	for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
		struct mha_config c;
		struct mha_weights w;
		make(&c, &w, shapes[sh][0], shapes[sh][1], shapes[sh][2], shapes[sh][3], 5 + sh);
		const int n = c.n, hw = c.h * c.dk, gw = c.g * c.dk;
		for (int threads = 1; threads <= 2; threads++) {
			/* 0: the default (the engine's kernel with AVX-512 and dk % 16 == 0,
			 * else one sgemm), 1: three sgemms, 2: one sgemm */
			struct mha_plan *p[3];
			for (int sep = 0; sep < 3; sep++) {
				struct mha_plan_options o = { .threads = threads, .large = true,
				                              .separate_qkv = sep == 1, .blas_products = sep == 2 };
				assert_int_equal(mha_plan_create(&p[sep], &c, &o, msg, sizeof msg), MHA_OK);
			}
			/* twice, W^K changed in place in between: the fused path packs
			 * the weights each forward, never a stale copy */
			for (int pass = 0; pass < 2; pass++) {
				if (pass)
					for (size_t t = 0; t < (size_t)c.d * gw; t++)
						w.wk[t] = -0.5f * w.wk[t];
				struct mha_acts plain;
				assert_int_equal(mha_acts_alloc(&plain, &c), MHA_OK);
				mha_forward_naive(&c, &w, &plain);
				const float *rows[3];
				for (int sep = 0; sep < 3; sep++) {
					mha_plan_forward(p[sep], &w);
					int ld;
					rows[sep] = mha_plan_qkv(p[sep], &ld);
					assert_non_null(rows[sep]);
					assert_int_equal(ld, hw + 2 * gw);
					assert_null(mha_plan_acts(p[sep])->q);
					check_fused_block(rows[sep], ld, 0, plain.q, n, hw, "Q");
					check_fused_block(rows[sep], ld, hw, plain.k, n, gw, "K");
					check_fused_block(rows[sep], ld, hw + gw, plain.v, n, gw, "V");
					const float *y = mha_plan_acts(p[sep])->y;
					check_close(y, plain.y, (size_t)n * c.d,
					            REL_TOL * max_abs(plain.y, (size_t)n * c.d), "Y");
				}
				/* fused and separate: the same products, within rounding */
				check_fused_block(rows[0], hw + 2 * gw, 0, rows[1], n, hw + 2 * gw,
				                  "fused Q|K|V against three products");
				check_fused_block(rows[2], hw + 2 * gw, 0, rows[1], n, hw + 2 * gw,
				                  "one sgemm against three");
				mha_acts_free(&plain);
			}
			for (int sep = 0; sep < 3; sep++)
				mha_plan_destroy(p[sep]);
		}
		mha_weights_free(&w);
	}
}

/* Teaching sizes keep Q, K, V in the plan's activations: no fused rows. */
static void test_teaching_size_plan_has_no_fused_rows(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	make(&c, &w, 8, 16, 4, 4, 3);
	struct mha_plan *p;
	assert_int_equal(mha_plan_create(&p, &c, NULL, msg, sizeof msg), MHA_OK);
	mha_plan_forward(p, &w);
	int ld = -1;
	assert_null(mha_plan_qkv(p, &ld));
	assert_int_equal(ld, 0);
	assert_non_null(mha_plan_acts(p)->q);
	mha_plan_destroy(p);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiles_give_the_plain_result_for_every_variant),
		cmocka_unit_test(test_tiles_apply_every_mask_the_core_has),
		cmocka_unit_test(test_each_step_rescales_by_exp_of_the_max_growth),
		cmocka_unit_test(test_a_first_tile_with_no_kept_key_leaves_the_row_empty),
		cmocka_unit_test(test_recording_refuses_what_it_cannot_show),
		cmocka_unit_test(test_the_memory_meter_counts_the_n_squared_it_saves),
		cmocka_unit_test(test_large_path_tiles_of_any_shape_give_the_plain_result),
		cmocka_unit_test(test_one_fused_qkv_product_equals_three_and_the_plain_loops),
		cmocka_unit_test(test_teaching_size_plan_has_no_fused_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
