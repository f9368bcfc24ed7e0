/*
 * test_stack.c - positions, cross-attention and the layer stack in the
 * core, on seeded random configurations drawn here: the rules of the
 * configuration; seeds keep every number they gave before; the carry and
 * the storage of the source, P and every layer; and properties of the forward:
 * BLAS against plain loops, rows of P summing to 1 with masked weights
 * exactly 0, GQA as MHA with repeated kv heads, permuting the tokens with no
 * positions, shifting every position under RoPE, the engine's planned pass
 * against the core's, the decoder against the pass, and the stack's
 * gradients against finite differences. The float64 references are
 * test_stack_fixtures.c's; sessions are tests/store/test_session_stack.c's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "engine.h"
#include "grad.h"
#include "check_config.h"
#include "mha.h"
#include "pick.h"
#include "pipeline.h"

enum { RANDOM_CONFIGS = 24 };

static uint64_t pick_state = 0x5EED21C0DEull;

/* A random valid configuration with positions, perhaps a source, perhaps layers. */
static struct mha_config random_config(void)
{
	struct mha_config c = mha_config_default();
	c.n = pick_int(&pick_state, 1, 9);
	c.h = pick_int(&pick_state, 1, 4);
	int divisors[4], nd = 0;
	for (int g = 1; g <= c.h; g++)
		if (c.h % g == 0)
			divisors[nd++] = g;
	c.g = divisors[pick_int(&pick_state, 0, nd - 1)];
	c.pos = (enum mha_pos)pick_int(&pick_state, 0, MHA_POS_COUNT - 1);
	c.dk = c.pos == MHA_POS_ROPE ? 2 * pick_int(&pick_state, 1, 3) : pick_int(&pick_state, 1, 5);
	c.d = pick_int(&pick_state, 1, 12);
	c.m = pick_int(&pick_state, 0, 1) ? pick_int(&pick_state, 1, 8) : 0;
	c.causal = c.m == 0 && pick_int(&pick_state, 0, 1);
	c.layers = pick_int(&pick_state, 1, MHA_MAX_LAYERS);
	c.bias = pick_int(&pick_state, 0, 2) == 0;
	c.top_k = pick_int(&pick_state, 0, 2) ? 0 : pick_int(&pick_state, 1, mha_keys(&c));
	c.window = pick_int(&pick_state, 0, 3) ? 0 : pick_int(&pick_state, 1, 4);
	if (pick_int(&pick_state, 0, 3) == 0)
		c.pad = (uint64_t)1 << pick_int(&pick_state, 0, mha_keys(&c) - 1);
	if (c.pos == MHA_POS_SINUSOIDAL || c.pos == MHA_POS_ROPE)
		c.pos_offset = pick_int(&pick_state, 0, 1) ? pick_int(&pick_state, 1, 500) : 0;
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = pick_int(&pick_state, 0, 5) == 0;
	return c;
}

static void describe(char *buf, size_t len, const struct mha_config *c, const char *what)
{
	snprintf(buf, len, "%s (n %d m %d d %d h %d g %d dk %d pos %s+%d layers %d causal %d top-k %d "
	         "window %d pad %llx bias %d)", what, c->n, c->m, c->d, c->h, c->g, c->dk, mha_pos_name(c->pos),
	         c->pos_offset, c->layers, c->causal, c->top_k, c->window, (unsigned long long)c->pad, c->bias);
}


static double largest(const float *v, size_t n)
{
	double m = 1.0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs(v[i]));
	return m;
}

/* ---- the configuration ---- */

static void expect_refused(struct mha_config c, const char *says)
{
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_EINVAL);
	if (!strstr(msg, says))
		fail_msg("refused with '%s', which does not say '%s'", msg, says);
}

static void test_config_rules_of_positions_source_and_layers(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	assert_int_equal(c.pos, MHA_POS_NONE);
	assert_int_equal(c.m, 0);
	assert_int_equal(c.layers, 1);
	assert_int_equal(c.pos_offset, 0);
	struct mha_config r = c;
	r.pos = MHA_POS_ROPE;
	r.dk = 3;
	r.d = 12;
	expect_refused(r, "d_k must be even");
	r.dk = 4;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&r, msg, sizeof msg), MHA_OK);
	r = c;
	r.m = 3;
	r.causal = true;
	expect_refused(r, "no causal mask");
	r.causal = false;
	r.top_k = 4;
	expect_refused(r, "top-k 4 is out of range: allowed 0..3");
	r.top_k = 3;
	assert_int_equal(mha_config_check(&r, msg, sizeof msg), MHA_OK);
	r.m = MHA_MAX_KV_TOKENS + 1;
	expect_refused(r, "kv-tokens");
	r = c;
	r.layers = 0;
	expect_refused(r, "layers 0 is out of range: allowed 1..4");
	r.layers = MHA_MAX_LAYERS + 1;
	expect_refused(r, "layers 5");
	r = c;
	r.pos_offset = 3;
	expect_refused(r, "pos-offset 3");
	r.pos = MHA_POS_LEARNED;
	expect_refused(r, "one row per token");
	r.pos = MHA_POS_SINUSOIDAL;
	assert_int_equal(mha_config_check(&r, msg, sizeof msg), MHA_OK);
	r.pos_offset = MHA_MAX_POS_OFFSET + 1;
	expect_refused(r, "pos-offset");
	r = c;
	r.pos = MHA_POS_COUNT;
	expect_refused(r, "not a kind of position");
	for (int p = 0; p < MHA_POS_COUNT; p++)
		assert_int_equal(mha_pos_by_name(mha_pos_name((enum mha_pos)p)), p);
	assert_int_equal(mha_pos_by_name("Rope"), -1);
}

/* A seed gives X and layer 0's W's and biases what it gave before
 * positions, sources and layers existed: their streams are apart. */
static void test_added_settings_leave_a_seeds_numbers_alone(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 3; seed++) {
		struct mha_config plain = mha_config_default(), more = plain;
		more.pos = MHA_POS_LEARNED;
		more.m = 5;
		more.layers = 3;
		struct mha_weights a, b;
		check_inputs_seeded(&a, &plain, seed);
		check_inputs_seeded(&b, &more, seed);
		for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++)
			assert_memory_equal(mha_tensor_data(&a, NULL, t), mha_tensor_data(&b, NULL, t),
			                    check_tensor_len(&plain, t) * sizeof(float));
		for (int k = 0; k < MHA_BIASES; k++)
			assert_memory_equal(mha_bias(&a, &plain, k).p, mha_bias(&b, &more, k).p,
			                    (size_t)mha_bias(&a, &plain, k).len * sizeof(float));
		/* the later layers are not copies of layer 0 */
		assert_memory_not_equal(b.wq, mha_weights_layer(&b, 1).wq, check_tensor_len(&more, MHA_T_WQ) * sizeof(float));
		assert_memory_not_equal(mha_weights_layer(&b, 1).wq, mha_weights_layer(&b, 2).wq,
		                        check_tensor_len(&more, MHA_T_WQ) * sizeof(float));
		assert_string_equal(b.kv_labels[0], "the");
		mha_weights_free(&a);
		mha_weights_free(&b);
	}
}

/* Every tensor of every layer, the source and P own their cells. */
static void test_tensors_of_every_layer_do_not_overlap(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 5; c.d = 6; c.h = 4; c.g = 2; c.dk = 2; c.m = 3; c.layers = 3;
	struct mha_weights w;
	struct mha_stack s;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
	unsigned char mark = 1;
	for (int pass = 0; pass < 2; pass++) {
		mark = 1;
		for (int l = 0; l < c.layers; l++)
			for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++, mark++) {
				bool shared = t == MHA_T_X || t == MHA_T_XKV || t == MHA_T_POS;
				if (shared && l > 0)
					continue;
				unsigned char *p = (unsigned char *)mha_tensor_data_layer(&w, &s.layer[l], l, t);
				size_t bytes = check_tensor_len(&c, t) * sizeof(float);
				for (size_t b = 0; b < bytes; b++) {
					if (pass == 0)
						p[b] = mark;
					else if (p[b] != mark)
						fail_msg("layer %d %s byte %zu was overwritten", l, mha_tensor_info(t)->name, b);
				}
			}
		for (int l = 0; l < c.layers; l++)
			for (int k = 0; k < MHA_BIASES; k++, mark++) {
				struct mha_bias b = mha_bias_layer(&w, &c, l, k);
				for (int e = 0; e < b.len; e++) {
					if (pass == 0)
						memset(&b.p[e], mark, sizeof b.p[e]);
					else if (((unsigned char *)&b.p[e])[0] != mark)
						fail_msg("layer %d %s[%d] was overwritten", l, b.name, e);
				}
			}
	}
	mha_stack_free(&s);
	mha_weights_free(&w);
}

/* The carry keeps every cell both shapes have, layer by layer, and the
 * source's and P's overlap. */
static void test_carry_keeps_layers_source_and_positions(void **state)
{
	(void)state;
	struct mha_config a = mha_config_default(), b = a;
	a.n = 4; a.d = 6; a.h = 2; a.g = 2; a.dk = 3; a.m = 5; a.layers = 3; a.pos = MHA_POS_LEARNED;
	b.n = 6; b.d = 4; b.h = 2; b.g = 1; b.dk = 3; b.m = 2; b.layers = 4;
	struct mha_weights src, dst;
	check_inputs_seeded(&src, &a, 7);
	check_inputs_seeded(&dst, &b, 8);
	snprintf(src.kv_labels[1], MHA_LABEL_MAX, "kept");
	struct mha_weights before;
	check_inputs_seeded(&before, &b, 8);
	mha_weights_carry(&dst, &b, &src, &a);
	for (int l = 0; l < b.layers; l++) {
		const float *dq = mha_weights_layer(&dst, l).wq, *sq = mha_weights_layer(&src, l).wq;
		const float *bq = mha_weights_layer(&before, l).wq;
		for (int r = 0; r < b.d; r++)
			for (int col = 0; col < b.h * b.dk; col++) {
				float want = l < a.layers && r < a.d ? sq[r * a.h * a.dk + col] : bq[r * b.h * b.dk + col];
				if (dq[r * b.h * b.dk + col] != want)
					fail_msg("layer %d W^Q[%d][%d] not carried", l, r, col);
			}
	}
	for (int j = 0; j < b.m; j++)
		for (int e = 0; e < b.d; e++)
			assert_true(dst.x_kv[j * b.d + e] == src.x_kv[j * a.d + e]);
	for (int t = 0; t < b.n; t++)
		for (int e = 0; e < b.d; e++)
			assert_true(dst.pos[t * b.d + e] == (t < a.n ? src.pos[t * a.d + e] : before.pos[t * b.d + e]));
	assert_string_equal(dst.kv_labels[1], "kept");
	mha_weights_free(&src);
	mha_weights_free(&dst);
	mha_weights_free(&before);
}

/* ---- the forward's properties ---- */

/* Both stacks of r agree within float rounding; rows of P sum to 1 (0 for
 * dead rows), masked keys exactly 0. */
static void check_stack_properties(const struct mha_config *c, const struct mha_stack *s,
                                   const struct mha_stack *ref)
{
	const int n = c->n, nk = mha_keys(c);
	unsigned char keep[MHA_MAX_TOKENS];
	char label[300];
	for (int l = 0; l < c->layers; l++) {
		for (enum mha_tensor t = MHA_T_Q; t < MHA_T_COUNT; t++) {
			if (!mha_tensor_used(c, t) || t == MHA_T_XKV || t == MHA_T_POS)
				continue;
			const float *want = mha_tensor_data(NULL, &ref->layer[l], t);
			size_t len = check_tensor_len(c, t);
			describe(label, sizeof label, c, mha_tensor_info(t)->name);
			check_close(mha_tensor_data(NULL, &s->layer[l], t), want, len, 2e-5 * largest(want, len), label);
		}
		const struct mha_acts *a = &s->layer[l];
		for (int i = 0; i < c->h; i++)
			for (int r = 0; r < n; r++) {
				mha_mask_row(c, r, NULL, keep);
				const float *p = a->weights + ((size_t)i * n + r) * nk;
				double sum = 0.0;
				for (int j = 0; j < nk; j++) {
					sum += p[j];
					if (!keep[j] && p[j] != 0.0f)
						fail_msg("layer %d head %d row %d: masked key %d has weight %g", l, i, r, j, (double)p[j]);
				}
				if (fabs(sum - (a->dead_row[i * n + r] ? 0.0 : 1.0)) > 1e-5)
					fail_msg("layer %d head %d row %d sums to %.9g", l, i, r, sum);
			}
	}
}

static void test_blas_plain_loops_and_engine_agree_with_every_setting(void **state)
{
	(void)state;
	for (int k = 0; k < RANDOM_CONFIGS; k++) {
		struct mha_config c = random_config();
		struct mha_weights w;
		check_inputs_seeded(&w, &c, 100 + (uint64_t)k);
		struct mha_stack s, naive;
		assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
		assert_int_equal(mha_stack_alloc(&naive, &c), MHA_OK);
		mha_stack_forward(&c, &w, &s);
		mha_stack_forward_naive(&c, &w, &naive);
		check_stack_properties(&c, &s, &naive);
		/* the planned forward (teaching path) is the same pass */
		struct mha_plan *p;
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_plan_create(&p, &c, NULL, msg, sizeof msg), MHA_OK);
		mha_plan_forward(p, &w);
		check_stack_properties(&c, mha_plan_stack(p), &naive);
		mha_plan_destroy(p);
		mha_stack_free(&s);
		mha_stack_free(&naive);
		mha_weights_free(&w);
	}
}

/* The large path computes plain self-attention: the rest is refused, said. */
static void test_engine_large_path_refuses_what_it_cannot_compute(void **state)
{
	(void)state;
	struct mha_config base = mha_config_default();
	base.n = 100;
	struct mha_config cs[3] = { base, base, base };
	cs[0].pos = MHA_POS_ROPE;
	cs[1].layers = 2;
	cs[2].n = 10;
	cs[2].m = 4;
	for (int k = 0; k < 3; k++) {
		struct mha_plan *p = NULL;
		char msg[MHA_MSG_MAX];
		struct mha_plan_options o = { .large = true };
		assert_int_equal(mha_plan_create(&p, &cs[k], &o, msg, sizeof msg), MHA_EINVAL);
		assert_null(p);
		assert_non_null(strstr(msg, "positions, cross-attention and layers need n <= 64"));
	}
}

static void copy_col_block(float *dst, int dld, int db, const float *src, int sld, int sb, int rows, int dk)
{
	for (int r = 0; r < rows; r++)
		memcpy(dst + (size_t)r * dld + (size_t)db * dk, src + (size_t)r * sld + (size_t)sb * dk,
		       (size_t)dk * sizeof(float));
}

/* GQA equals MHA whose K/V heads repeat the shared ones, with RoPE, a
 * source and layers too: every layer's K/V blocks copied. */
static void test_gqa_equals_mha_with_repeated_kv_heads_in_every_setting(void **state)
{
	(void)state;
	static const struct { int h, g, m, layers; enum mha_pos pos; } cs[] = {
		{ 4, 2, 0, 2, MHA_POS_ROPE }, { 6, 3, 5, 1, MHA_POS_SINUSOIDAL }, { 4, 1, 3, 3, MHA_POS_ROPE },
		{ 4, 4, 4, 2, MHA_POS_LEARNED },
	};
	for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		struct mha_config c = mha_config_default();
		c.n = 5; c.d = 8; c.h = cs[k].h; c.g = cs[k].g; c.dk = 2; c.m = cs[k].m;
		c.layers = cs[k].layers; c.pos = cs[k].pos; c.bias = true;
		struct mha_config mc = c;
		mc.g = c.h;
		struct mha_weights gw, mw;
		check_inputs_seeded(&gw, &c, 40 + k);
		check_inputs_seeded(&mw, &mc, 41 + k);
		int hw = c.h * c.dk, kw = c.g * c.dk;
		memcpy(mw.x, gw.x, (size_t)c.n * c.d * sizeof(float));
		memcpy(mw.x_kv, gw.x_kv, (size_t)c.m * c.d * sizeof(float));
		memcpy(mw.pos, gw.pos, (size_t)c.n * c.d * sizeof(float));
		for (int l = 0; l < c.layers; l++) {
			struct mha_layer_weights g = mha_weights_layer(&gw, l), m = mha_weights_layer(&mw, l);
			memcpy(m.wq, g.wq, (size_t)c.d * hw * sizeof(float));
			memcpy(m.wo, g.wo, (size_t)hw * c.d * sizeof(float));
			memcpy(m.bq, g.bq, (size_t)hw * sizeof(float));
			memcpy(m.bo, g.bo, (size_t)c.d * sizeof(float));
			for (int hd = 0; hd < c.h; hd++) {
				int j = hd / (c.h / c.g); /* doc/FACTS.md (GQA), not mha_kv_head */
				copy_col_block(m.wk, hw, hd, g.wk, kw, j, c.d, c.dk);
				copy_col_block(m.wv, hw, hd, g.wv, kw, j, c.d, c.dk);
				copy_col_block(m.bk, hw, hd, g.bk, kw, j, 1, c.dk);
				copy_col_block(m.bv, hw, hd, g.bv, kw, j, 1, c.dk);
			}
		}
		struct mha_stack gs, ms;
		assert_int_equal(mha_stack_alloc(&gs, &c), MHA_OK);
		assert_int_equal(mha_stack_alloc(&ms, &mc), MHA_OK);
		mha_stack_forward(&c, &gw, &gs);
		mha_stack_forward(&mc, &mw, &ms);
		for (int l = 0; l < c.layers; l++)
			for (enum mha_tensor t = MHA_T_SCORES; t <= MHA_T_Y; t++) {
				char label[300];
				describe(label, sizeof label, &c, mha_tensor_info(t)->name);
				check_close(mha_tensor_data(NULL, &gs.layer[l], t), mha_tensor_data(NULL, &ms.layer[l], t),
				            check_tensor_len(&c, t), 1e-5 * largest(ms.layer[l].y, check_tensor_len(&c, MHA_T_Y)), label);
			}
		mha_stack_free(&gs);
		mha_stack_free(&ms);
		mha_weights_free(&gw);
		mha_weights_free(&mw);
	}
}

/* With no positions, permuting the query tokens permutes Y's rows (every
 * layer's, the stream's too) and nothing else; permuting the source's
 * tokens changes no Y at all (its P's columns move with them). */
static void test_no_positions_permuting_tokens_permutes_rows_only(void **state)
{
	(void)state;
	for (int k = 0; k < 6; k++) {
		struct mha_config c = mha_config_default();
		c.n = 6; c.d = 8; c.h = 2; c.g = 1 + k % 2; c.dk = 4; c.layers = 1 + k % 3;
		c.m = k >= 3 ? 5 : 0;
		c.top_k = k == 2 ? 3 : 0;
		c.bias = k % 2;
		static const int perm[6] = { 3, 0, 5, 1, 4, 2 }, sperm[5] = { 4, 2, 0, 3, 1 };
		struct mha_weights w, pw;
		check_inputs_seeded(&w, &c, 60 + (uint64_t)k);
		check_inputs_seeded(&pw, &c, 60 + (uint64_t)k);
		for (int r = 0; r < c.n; r++)
			memcpy(pw.x + r * c.d, w.x + perm[r] * c.d, (size_t)c.d * sizeof(float));
		for (int j = 0; j < c.m; j++)
			memcpy(pw.x_kv + j * c.d, w.x_kv + sperm[j] * c.d, (size_t)c.d * sizeof(float));
		struct mha_stack s, ps;
		assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
		assert_int_equal(mha_stack_alloc(&ps, &c), MHA_OK);
		mha_stack_forward_naive(&c, &w, &s);
		mha_stack_forward_naive(&c, &pw, &ps);
		const int nk = mha_keys(&c);
		for (int l = 0; l < c.layers; l++) {
			const struct mha_acts *a = &s.layer[l], *b = &ps.layer[l];
			double tol = 1e-5 * largest(a->stream, (size_t)c.n * c.d);
			for (int r = 0; r < c.n; r++)
				for (int e = 0; e < c.d; e++)
					if (fabs(b->stream[r * c.d + e] - a->stream[perm[r] * c.d + e]) > tol)
						fail_msg("case %d layer %d: stream row %d is not row %d of the unpermuted", k, l, r, perm[r]);
			for (int i = 0; i < c.h; i++)
				for (int r = 0; r < c.n; r++)
					for (int j = 0; j < nk; j++) {
						int src = c.m ? sperm[j] : perm[j];
						float want = a->weights[((size_t)i * c.n + perm[r]) * nk + src];
						if (fabsf(b->weights[((size_t)i * c.n + r) * nk + j] - want) > 1e-6f)
							fail_msg("case %d layer %d: P_%d[%d][%d] is not the permuted P", k, l, i, r, j);
					}
		}
		mha_stack_free(&s);
		mha_stack_free(&ps);
		mha_weights_free(&w);
		mha_weights_free(&pw);
	}
}

/* RoPE: a score depends on the positions only through their difference,
 * so every score of every layer (and Y) stays put when every position
 * shifts by the same amount; sinusoidal PE moves them. */
static void test_rope_shift_leaves_every_score_unchanged(void **state)
{
	(void)state;
	for (int k = 0; k < 8; k++) {
		struct mha_config c = random_config();
		c.pos = k < 6 ? MHA_POS_ROPE : MHA_POS_SINUSOIDAL;
		c.dk = 2 * (1 + k % 3);
		c.d = 8;
		c.n = c.n < 3 ? 3 : c.n;
		c.top_k = 0;
		c.pos_offset = 0;
		struct mha_config shifted = c;
		shifted.pos_offset = 1 + 97 * k;
		struct mha_weights w;
		check_inputs_seeded(&w, &c, 80 + (uint64_t)k);
		struct mha_stack s, ss;
		assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
		assert_int_equal(mha_stack_alloc(&ss, &c), MHA_OK);
		mha_stack_forward_naive(&c, &w, &s);
		mha_stack_forward_naive(&shifted, &w, &ss);
		double worst = 0.0, big = 1.0;
		size_t len = check_tensor_len(&c, MHA_T_SCORES);
		for (int l = 0; l < c.layers; l++)
			for (size_t e = 0; e < len; e++) {
				worst = fmax(worst, fabs(s.layer[l].scores[e] - ss.layer[l].scores[e]));
				big = fmax(big, fabs(s.layer[l].scores[e]));
			}
		char label[300];
		describe(label, sizeof label, &shifted, "scores after the shift");
		if (c.pos == MHA_POS_ROPE && worst > 1e-5 * big)
			fail_msg("%s moved by %g", label, worst);
		if (c.pos == MHA_POS_SINUSOIDAL && worst < 1e-4 * big)
			fail_msg("%s: sinusoidal PE, yet no score moved (%g)", label, worst);
		mha_stack_free(&s);
		mha_stack_free(&ss);
		mha_weights_free(&w);
	}
}

/* RoPE turns pairs: |q_rot| = |q| row by head, and Q_rot at position 0 is Q. */
static void test_rope_is_a_rotation_per_pair(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.pos = MHA_POS_ROPE;
	struct mha_weights w;
	check_inputs_seeded(&w, &c, 5);
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	const int hw = c.h * c.dk;
	for (int e = 0; e < hw; e++)
		assert_true(a.q_rot[e] == a.q[e]);
	for (int r = 0; r < c.n; r++)
		for (int col = 0; col < hw; col += 2) {
			const float *q = a.q + r * hw + col, *qr = a.q_rot + r * hw + col;
			double before = (double)q[0] * q[0] + (double)q[1] * q[1];
			double after = (double)qr[0] * qr[0] + (double)qr[1] * qr[1];
			if (fabs(before - after) > 1e-5 * fmax(1.0, before))
				fail_msg("row %d pair %d: length %g turned into %g", r, col / 2, before, after);
		}
	/* the inverse turns it back */
	float back[64 * 16];
	memcpy(back, a.q_rot, (size_t)c.n * hw * sizeof(float));
	mha_rope_rows(&c, back, c.n, 0, c.h, hw, true);
	check_close(back, a.q, (size_t)c.n * hw, 1e-5 * largest(a.q, (size_t)c.n * hw), "RoPE turned back");
	mha_acts_free(&a);
	mha_weights_free(&w);
}

/* ---- gradients against finite differences of the float pass ---- */

/* L = sum(C . Y_last) for a fixed C (so dL/dY = C): smooth in every input. */
static double loss_of(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s,
                      const float *cw)
{
	mha_stack_forward_naive(c, w, s);
	const float *y = s->layer[c->layers - 1].y;
	double l = 0.0;
	for (int e = 0; e < c->n * c->d; e++)
		l += (double)cw[e] * y[e];
	return l;
}

struct probe {
	const char *name;
	float *x;        /* an input */
	const float *dx; /* its gradient */
	size_t len;
};

static void test_stack_gradients_match_finite_differences(void **state)
{
	(void)state;
	for (int k = 0; k < 10; k++) {
		struct mha_config c = random_config();
		c.top_k = 0; /* piecewise constant: a step may cross a tie */
		c.d = c.d < 3 ? 3 : c.d;
		struct mha_weights w;
		check_inputs_seeded(&w, &c, 200 + (uint64_t)k);
		struct mha_stack s;
		struct mha_stack_grads g;
		assert_int_equal(mha_stack_alloc(&s, &c), MHA_OK);
		assert_int_equal(mha_stack_grads_alloc(&g, &c), MHA_OK);
		float cw[64 * 16];
		uint64_t st = 99 + (uint64_t)k;
		for (int e = 0; e < c.n * c.d; e++)
			cw[e] = (float)pick_int(&st, -100, 100) / 100.0f;
		mha_stack_forward(&c, &w, &s);
		mha_stack_backward(&c, &w, &s, cw, &g);
		/* (input, its gradient, length) to probe */
		struct probe probe[3 + 2 * MHA_MAX_LAYERS];
		int np = 0;
		probe[np++] = (struct probe){ "X", w.x, g.x, check_tensor_len(&c, MHA_T_X) };
		if (c.m)
			probe[np++] = (struct probe){ "X_kv", w.x_kv, g.x_kv, check_tensor_len(&c, MHA_T_XKV) };
		if (c.pos == MHA_POS_LEARNED)
			probe[np++] = (struct probe){ "P_pos", w.pos, g.pos, check_tensor_len(&c, MHA_T_POS) };
		for (int l = 0; l < c.layers; l++) {
			probe[np++] = (struct probe){ "W_Q", mha_weights_layer(&w, l).wq, g.layer[l].wq,
			                              check_tensor_len(&c, MHA_T_WQ) };
			probe[np++] = (struct probe){ "W_K", mha_weights_layer(&w, l).wk, g.layer[l].wk,
			                              check_tensor_len(&c, MHA_T_WK) };
		}
		struct mha_stack scratch;
		assert_int_equal(mha_stack_alloc(&scratch, &c), MHA_OK);
		for (int p = 0; p < np; p++) {
			double scale = largest(probe[p].dx, probe[p].len);
			for (size_t e = 0; e < probe[p].len; e += 1 + probe[p].len / 7) {
				float keep = probe[p].x[e], h = 1e-2f * fmaxf(1.0f, fabsf(keep));
				probe[p].x[e] = keep + h;
				double lp = loss_of(&c, &w, &scratch, cw);
				probe[p].x[e] = keep - h;
				double lm = loss_of(&c, &w, &scratch, cw);
				probe[p].x[e] = keep;
				double fd = (lp - lm) / (2.0 * h);
				char label[300];
				describe(label, sizeof label, &c, probe[p].name);
				if (fabs(fd - probe[p].dx[e]) > 2e-2 * scale)
					fail_msg("%s[%zu]: backward %g, finite difference %g", label, e, (double)probe[p].dx[e], fd);
			}
		}
		mha_stack_free(&scratch);
		mha_stack_grads_free(&g);
		mha_stack_free(&s);
		mha_weights_free(&w);
	}
}

/* ---- decode, counts, the pipeline's vocabulary ---- */

static void test_decoder_follows_the_pass_with_positions_and_a_source(void **state)
{
	(void)state;
	for (int k = 0; k < 8; k++) {
		struct mha_config c = random_config();
		c.layers = 1;
		if (c.m == 0)
			c.causal = true;
		struct mha_weights w;
		check_inputs_seeded(&w, &c, 300 + (uint64_t)k);
		struct mha_acts a;
		assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
		mha_forward_naive(&c, &w, &a);
		struct mha_decoder dec;
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_decoder_alloc(&dec, &c), MHA_OK);
		int first = 1 + k % c.n;
		assert_int_equal(mha_decoder_prefill(&dec, &c, &w, first, msg, sizeof msg), MHA_OK);
		for (int t = first - 1; t < c.n; t++) {
			if (t > first - 1)
				assert_int_equal(mha_decoder_step(&dec, &c, &w), MHA_OK);
			/* the same plain loops: bit for bit */
			char label[300];
			describe(label, sizeof label, &c, "decoded Y row");
			assert_memory_equal(dec.y, a.y + (size_t)t * c.d, (size_t)c.d * sizeof(float));
		}
		mha_decoder_free(&dec);
		mha_acts_free(&a);
		mha_weights_free(&w);
	}
	/* a stack is refused, said */
	struct mha_config c = mha_config_default();
	c.causal = true;
	c.layers = 2;
	struct mha_weights w;
	check_inputs_seeded(&w, &c, 1);
	struct mha_decoder dec;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_decoder_alloc(&dec, &c), MHA_OK);
	assert_int_equal(mha_decoder_prefill(&dec, &c, &w, 1, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "one layer"));
	mha_decoder_free(&dec);
	mha_weights_free(&w);
}

static void test_counts_of_a_source_positions_and_layers(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 6; c.d = 16; c.h = 4; c.g = 2; c.dk = 4; c.m = 10; c.layers = 3; c.pos = MHA_POS_ROPE;
	struct mha_counts k = mha_counts(&c);
	/* worked out by hand: Q 2*6*16*16, K and V 2*10*16*8 each */
	assert_int_equal(k.flops_projection, 3072 + 5120);
	assert_int_equal(k.flops_scores, 4 * 2 * 6 * 10 * 4);
	assert_int_equal(k.flops_softmax, 4 * 5 * 6 * 10);
	assert_int_equal(k.flops_position, 3 * (6 * 16 + 10 * 8));
	assert_int_equal(k.params_stack, 3 * k.params_total);
	assert_int_equal(k.flops_stack, 3 * k.flops_total + 3 * 6 * 16);
	c.pos = MHA_POS_SINUSOIDAL;
	k = mha_counts(&c);
	assert_int_equal(k.flops_position, 6 * 16);
	assert_int_equal(k.flops_stack, 3 * (k.flops_total - 96) + 96 + 3 * 96);
	/* the default is as it was */
	struct mha_config d = mha_config_default();
	struct mha_counts kd = mha_counts(&d);
	assert_int_equal(kd.flops_position, 0);
	assert_int_equal(kd.flops_projection, 2 * 6 * 16 * (4 + 8) * 4);
}

static void test_pipeline_knows_the_new_tensors(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.pos = MHA_POS_ROPE;
	c.m = 5;
	struct cell_rect r;
	/* K of cross-attention comes from X_kv, not X */
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_K, 0, 3, 2 }, MHA_T_XKV, &r));
	assert_true(r.r0 == 3 && r.r1 == 4 && r.c0 == 0 && r.c1 == c.d);
	assert_false(pipeline_deps_rect(&c, &(struct cell){ MHA_T_K, 0, 3, 2 }, MHA_T_X, &r));
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_Q, 0, 3, 2 }, MHA_T_X, &r));
	/* RoPE: S reads the turned Q and K; a turned cell its pair */
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_SCORES, 1, 2, 4 }, MHA_T_KROT, &r));
	assert_true(r.r0 == 4 && r.c0 == 4 && r.c1 == 8);
	assert_false(pipeline_deps_rect(&c, &(struct cell){ MHA_T_SCORES, 1, 2, 4 }, MHA_T_K, &r));
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_QROT, 0, 1, 5 }, MHA_T_Q, &r));
	assert_true(r.c0 == 4 && r.c1 == 6);
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_WEIGHTS, 0, 1, 0 }, MHA_T_SCORES, &r));
	assert_int_equal(r.c1, 5);
	/* the stream: x_l+1 = x_l + Y */
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_STREAM, 0, 2, 3 }, MHA_T_Y, &r));
	assert_true(pipeline_deps_rect(&c, &(struct cell){ MHA_T_STREAM, 0, 2, 3 }, MHA_T_XIN, &r));
	assert_int_equal(pipeline_stage_of(MHA_T_STREAM), PIPELINE_OUTPUT);
	/* the Reshape's proof recomputes Q from X + PE, K from X_kv */
	c.pos = MHA_POS_SINUSOIDAL;
	struct mha_weights w;
	check_inputs_seeded(&w, &c, 9);
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward_naive(&c, &w, &a);
	const int hw = c.h * c.dk, gw = c.g * c.dk;
	for (int row = 0; row < c.n; row++)
		for (int col = 0; col < hw; col++)
			assert_true(fabs(pipeline_projection_again(&c, &w, MHA_T_Q, row, col) - a.q[row * hw + col]) < 1e-5);
	for (int row = 0; row < c.m; row++)
		for (int col = 0; col < gw; col++)
			assert_true(fabs(pipeline_projection_again(&c, &w, MHA_T_K, row, col) - a.k[row * gw + col]) < 1e-5);
	/* a masked source key reads as masked; the last key is c.m - 1 */
	c.pad = 1u << 4;
	mha_forward_naive(&c, &w, &a);
	assert_true(pipeline_masked(&c, &a, 0, 0, 4));
	assert_false(pipeline_masked(&c, &a, 0, 0, 3));
	mha_acts_free(&a);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_rules_of_positions_source_and_layers),
		cmocka_unit_test(test_added_settings_leave_a_seeds_numbers_alone),
		cmocka_unit_test(test_tensors_of_every_layer_do_not_overlap),
		cmocka_unit_test(test_carry_keeps_layers_source_and_positions),
		cmocka_unit_test(test_blas_plain_loops_and_engine_agree_with_every_setting),
		cmocka_unit_test(test_engine_large_path_refuses_what_it_cannot_compute),
		cmocka_unit_test(test_gqa_equals_mha_with_repeated_kv_heads_in_every_setting),
		cmocka_unit_test(test_no_positions_permuting_tokens_permutes_rows_only),
		cmocka_unit_test(test_rope_shift_leaves_every_score_unchanged),
		cmocka_unit_test(test_rope_is_a_rotation_per_pair),
		cmocka_unit_test(test_stack_gradients_match_finite_differences),
		cmocka_unit_test(test_decoder_follows_the_pass_with_positions_and_a_source),
		cmocka_unit_test(test_counts_of_a_source_positions_and_layers),
		cmocka_unit_test(test_pipeline_knows_the_new_tensors),
	};
	return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}
