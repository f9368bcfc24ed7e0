/*
 * test_stack_fixtures.c - positions, cross-attention and stacked layers
 * against the float64 references of tools/gen_stack_fixtures.py (numpy from
 * doc/FACTS.md, RoPE both as pairs and as complex numbers; gradients by
 * PyTorch's autograd on a second float64 forward, checked there by finite
 * differences; PyTorch's nn.MultiheadAttention's own output for the cross-
 * attention cases it can express), for each file in tests/fixtures/stack/:
 *  - mha_stack_forward and mha_stack_forward_naive, every tensor of every
 *    layer; mha_forward equals the stack's layer 0;
 *  - the engine's planned forward (teaching path) equals the core's;
 *  - mha_stack_backward_half_square, every input's gradient;
 *  - the decoder (one layer, causal or cross-attention): each step's rows.
 * The files are read here in C: running the tests needs no Python.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "fixture_read.h"
#include "engine.h"
#include "grad.h"
#include "mha.h"

/* Names as gen_stack_fixtures.py writes them: our own list, not the
 * core's table (the format must not depend on the code under test). */
static const struct {
	const char *name;
	enum mha_tensor t;
} per_layer[] = {
	{ "x_in", MHA_T_XIN }, { "Q", MHA_T_Q }, { "K", MHA_T_K }, { "V", MHA_T_V },
	{ "Q_rot", MHA_T_QROT }, { "K_rot", MHA_T_KROT }, { "scores", MHA_T_SCORES },
	{ "weights", MHA_T_WEIGHTS }, { "heads", MHA_T_HEADS }, { "concat", MHA_T_CONCAT },
	{ "Y", MHA_T_Y }, { "x_out", MHA_T_STREAM },
};
enum { NPER = sizeof per_layer / sizeof per_layer[0], REF_WEIGHTS = 7, REF_Y = 10 };
static const char *weight_names[] = { "W_Q", "W_K", "W_V", "W_O" };
static const char *bias_names[] = { "b_Q", "b_K", "b_V", "b_O" };

struct ref {
	double *v;
	size_t len;
};

struct fixture {
	const char *name;
	struct mha_config c;
	struct mha_weights w;
	struct ref pe, layer[MHA_MAX_LAYERS][NPER];
	/* gradients: X, X_kv, P_pos, then per layer W_Q..W_O, b_Q..b_O */
	struct ref gx, gxkv, gpos, gw[MHA_MAX_LAYERS][4], gb[MHA_MAX_LAYERS][4];
	struct ref torch_y, torch_p;
};

static void expect_key(FILE *f, const char *key)
{
	char buf[64];
	if (!fixture_token(f, buf, sizeof buf) || strcmp(buf, key) != 0)
		fail_msg("fixture config: expected '%s', got '%s'", key, buf);
}

/* The forward fixtures' config line, then pos, pos_offset, m, layers. */
static void read_config(FILE *f, struct mha_config *c)
{
	fixture_config(f, c);
	char pos[32];
	expect_key(f, "pos");
	if (!fixture_token(f, pos, sizeof pos) || mha_pos_by_name(pos) < 0)
		fail_msg("fixture: pos '%s' is not a kind of position", pos);
	c->pos = (enum mha_pos)mha_pos_by_name(pos);
	c->pos_offset = fixture_field(f, "pos_offset");
	c->m = fixture_field(f, "m");
	c->layers = fixture_field(f, "layers");
}

static void read_ref(FILE *f, struct ref *r, int count, int rows, int cols, const char *name)
{
	r->len = (size_t)count * rows * cols;
	r->v = calloc(r->len ? r->len : 1, sizeof *r->v);
	assert_non_null(r->v);
	for (size_t i = 0; i < r->len; i++)
		r->v[i] = fixture_number(f, name);
}

static void read_floats(FILE *f, float *dst, size_t len, const char *name)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = (float)fixture_number(f, name);
}

/* "Ll.REST" -> l and REST; -1 when the name has no layer. */
static int layer_of(const char *name, const char **rest)
{
	int l, used = 0;
	if (sscanf(name, "L%d.%n", &l, &used) == 1 && used > 0 && l >= 0 && l < MHA_MAX_LAYERS) {
		*rest = name + used;
		return l;
	}
	*rest = name;
	return -1;
}

static int index_of(const char *const *names, int count, const char *name)
{
	for (int k = 0; k < count; k++)
		if (!strcmp(names[k], name))
			return k;
	return -1;
}

/* One "matrix NAME COUNT ROWS COLS" block into its place. */
static void read_block(FILE *f, struct fixture *fx)
{
	char name[64];
	if (!fixture_token(f, name, sizeof name))
		fail_msg("%s: expected a matrix name", fx->name);
	int count = (int)fixture_number(f, "count"), rows = (int)fixture_number(f, "rows"), cols = (int)fixture_number(f, "cols");
	size_t len = (size_t)count * rows * cols;
	const bool grad = !strncmp(name, "grad.", 5);
	const char *rest, *base = grad ? name + 5 : name;
	int l = layer_of(base, &rest), k;
	if (!strcmp(name, "PE")) {
		read_ref(f, &fx->pe, count, rows, cols, name);
	} else if (!strcmp(name, "torch.Y")) {
		read_ref(f, &fx->torch_y, count, rows, cols, name);
	} else if (!strcmp(name, "torch.weights")) {
		read_ref(f, &fx->torch_p, count, rows, cols, name);
	} else if (l < 0) {
		/* X, X_kv, P_pos: inputs, or their gradients */
		enum mha_tensor t = !strcmp(rest, "X") ? MHA_T_X : !strcmp(rest, "X_kv") ? MHA_T_XKV : MHA_T_POS;
		if (strcmp(rest, "X") && strcmp(rest, "X_kv") && strcmp(rest, "P_pos"))
			fail_msg("%s: unknown matrix '%s'", fx->name, name);
		struct mha_shape s = mha_tensor_shape(&fx->c, t);
		if (rows != s.rows || cols != s.cols)
			fail_msg("%s: %s is %dx%d, the core's %dx%d", fx->name, name, rows, cols, s.rows, s.cols);
		if (grad)
			read_ref(f, t == MHA_T_X ? &fx->gx : t == MHA_T_XKV ? &fx->gxkv : &fx->gpos, count, rows, cols, name);
		else
			read_floats(f, mha_tensor_data(&fx->w, NULL, t), len, name);
	} else if ((k = index_of(weight_names, 4, rest)) >= 0) {
		enum mha_tensor t = (enum mha_tensor)(MHA_T_WQ + k);
		struct mha_shape s = mha_tensor_shape(&fx->c, t);
		if (rows != s.rows || cols != s.cols || l >= fx->c.layers)
			fail_msg("%s: %s is %dx%d, the core's %dx%d", fx->name, name, rows, cols, s.rows, s.cols);
		if (grad)
			read_ref(f, &fx->gw[l][k], count, rows, cols, name);
		else
			read_floats(f, mha_tensor_data_layer(&fx->w, NULL, l, t), len, name);
	} else if ((k = index_of(bias_names, 4, rest)) >= 0) {
		struct mha_bias b = mha_bias_layer(&fx->w, &fx->c, l, k);
		if ((int)len != b.len || !fx->c.bias)
			fail_msg("%s: %s has %zu values, the core's %d", fx->name, name, len, b.len);
		if (grad)
			read_ref(f, &fx->gb[l][k], count, rows, cols, name);
		else
			read_floats(f, b.p, len, name);
	} else {
		for (k = 0; k < NPER && strcmp(per_layer[k].name, rest); k++)
			;
		if (k == NPER || grad)
			fail_msg("%s: unknown matrix '%s'", fx->name, name);
		struct mha_shape s = mha_tensor_shape(&fx->c, per_layer[k].t);
		if (count != s.count || rows != s.rows || cols != s.cols)
			fail_msg("%s: %s is %dx%dx%d, the core's %dx%dx%d", fx->name, name, count, rows, cols,
			         s.count, s.rows, s.cols);
		read_ref(f, &fx->layer[l][k], count, rows, cols, name);
	}
}

static void fixture_load(struct fixture *fx, const char *name)
{
	FILE *f = fixture_open("stack", name);
	memset(fx, 0, sizeof *fx);
	fx->name = name;
	read_config(f, &fx->c);
	char msg[MHA_MSG_MAX];
	if (mha_config_check(&fx->c, msg, sizeof msg) != MHA_OK)
		fail_msg("%s: config refused: %s", name, msg);
	assert_int_equal(mha_weights_alloc(&fx->w, &fx->c), MHA_OK);
	mha_weights_default_labels(&fx->w, &fx->c);
	char buf[64];
	while (fixture_token(f, buf, sizeof buf) && strcmp(buf, "end") != 0) {
		if (strcmp(buf, "matrix") != 0)
			fail_msg("%s: expected 'matrix' or 'end', got '%s'", name, buf);
		read_block(f, fx);
	}
	fclose(f);
	if (strcmp(buf, "end") != 0)
		fail_msg("%s: no 'end': fixture truncated", name);
	assert_int_equal(mha_weights_check(&fx->w, &fx->c, msg, sizeof msg), MHA_OK);
	if (!fx->pe.v || !fx->gx.v)
		fail_msg("%s: no PE or no grad.X", name);
}

static void ref_free(struct ref *r)
{
	free(r->v);
}

static void fixture_free(struct fixture *fx)
{
	ref_free(&fx->pe);
	ref_free(&fx->gx);
	ref_free(&fx->gxkv);
	ref_free(&fx->gpos);
	ref_free(&fx->torch_y);
	ref_free(&fx->torch_p);
	for (int l = 0; l < MHA_MAX_LAYERS; l++)
		for (int k = 0; k < NPER || k < 4; k++) {
			if (k < NPER)
				ref_free(&fx->layer[l][k]);
			if (k < 4) {
				ref_free(&fx->gw[l][k]);
				ref_free(&fx->gb[l][k]);
			}
		}
	mha_weights_free(&fx->w);
}

/* 1e-5 of the reference's largest magnitude (at least 1e-5): about 100
 * float32 ulps; the stack's later layers read sums of the earlier ones. */
static double tolerance(const struct ref *r)
{
	double m = 1.0;
	for (size_t i = 0; i < r->len; i++)
		m = fmax(m, fabs(r->v[i]));
	return 1e-5 * m;
}

static void close_to(const float *got, const struct ref *want, const char *fx, const char *what,
                     const char *path)
{
	char label[160];
	snprintf(label, sizeof label, "%s: %s (%s)", fx, what, path);
	check_close_d(got, want->v, want->len, tolerance(want), label);
}

/* Every tensor of every layer of s against the fixture. */
static void compare_stack(const struct fixture *fx, const struct mha_stack *s, const char *path)
{
	close_to(s->layer[0].pe, &fx->pe, fx->name, "PE", path);
	for (int l = 0; l < fx->c.layers; l++) {
		const struct mha_acts *a = &s->layer[l];
		for (int k = 0; k < NPER; k++) {
			if (!mha_tensor_used(&fx->c, per_layer[k].t))
				continue;
			char what[64];
			snprintf(what, sizeof what, "L%d.%s", l, per_layer[k].name);
			if (!fx->layer[l][k].v)
				fail_msg("%s: fixture lacks %s", fx->name, what);
			close_to(mha_tensor_data_layer(&fx->w, a, l, per_layer[k].t), &fx->layer[l][k], fx->name,
			         what, path);
		}
		/* masked weights exactly 0; dead rows where the reference's row is 0 */
		const struct ref *p = &fx->layer[l][REF_WEIGHTS];
		const int nk = mha_keys(&fx->c);
		for (size_t i = 0; i < p->len; i++)
			if (p->v[i] == 0.0 && a->weights[i] != 0.0f)
				fail_msg("%s: L%d weights[%zu] = %g, masked so must be exactly 0 (%s)", fx->name, l, i,
				         (double)a->weights[i], path);
		for (int r = 0; r < fx->c.h * fx->c.n; r++) {
			bool zero = true;
			for (int j = 0; j < nk; j++)
				zero &= p->v[(size_t)r * nk + j] == 0.0;
			if (a->dead_row[r] != zero)
				fail_msg("%s: L%d head %d row %d: dead_row %d (%s)", fx->name, l, r / fx->c.n,
				         r % fx->c.n, a->dead_row[r], path);
		}
	}
}

static void check_forward(const struct fixture *fx)
{
	struct mha_stack s, sn;
	assert_int_equal(mha_stack_alloc(&s, &fx->c), MHA_OK);
	assert_int_equal(mha_stack_alloc(&sn, &fx->c), MHA_OK);
	mha_stack_forward(&fx->c, &fx->w, &s);
	mha_stack_forward_naive(&fx->c, &fx->w, &sn);
	compare_stack(fx, &s, "BLAS");
	compare_stack(fx, &sn, "naive");
	/* the one-layer API is layer 0 of the stack, bit for bit */
	struct mha_acts a;
	assert_int_equal(mha_acts_alloc(&a, &fx->c), MHA_OK);
	mha_forward(&fx->c, &fx->w, &a);
	for (enum mha_tensor t = MHA_T_Q; t < MHA_T_COUNT; t++) {
		if (t == MHA_T_XKV || t == MHA_T_POS || !mha_tensor_used(&fx->c, t))
			continue;
		struct mha_shape sh = mha_tensor_shape(&fx->c, t);
		if (memcmp(mha_tensor_data(NULL, &a, t), mha_tensor_data(NULL, &s.layer[0], t),
		           (size_t)sh.count * sh.rows * sh.cols * sizeof(float)) != 0)
			fail_msg("%s: mha_forward's %s differs from the stack's layer 0", fx->name,
			         mha_tensor_info(t)->name);
	}
	mha_acts_free(&a);
	/* the engine's planned forward at teaching sizes: the same pass */
	struct mha_plan *plan;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_plan_create(&plan, &fx->c, NULL, msg, sizeof msg), MHA_OK);
	assert_false(mha_plan_is_large(plan));
	mha_plan_forward(plan, &fx->w);
	assert_ptr_equal(mha_plan_acts(plan), &mha_plan_stack(plan)->layer[0]);
	compare_stack(fx, mha_plan_stack(plan), "engine plan");
	mha_plan_destroy(plan);
	/* PyTorch's nn.MultiheadAttention, where the generator ran it */
	if (fx->torch_y.v) {
		close_to(s.layer[0].y, &fx->torch_y, fx->name, "torch.Y", "BLAS");
		close_to(s.layer[0].weights, &fx->torch_p, fx->name, "torch.weights", "BLAS");
	}
	mha_stack_free(&s);
	mha_stack_free(&sn);
}

static void grad_close(const float *got, const struct ref *want, const char *fx, const char *what)
{
	if (!want->v)
		fail_msg("%s: fixture lacks grad.%s", fx, what);
	close_to(got, want, fx, what, "gradient");
}

static void check_gradients(const struct fixture *fx)
{
	const struct mha_config *c = &fx->c;
	struct mha_stack s;
	struct mha_stack_grads g;
	assert_int_equal(mha_stack_alloc(&s, c), MHA_OK);
	assert_int_equal(mha_stack_grads_alloc(&g, c), MHA_OK);
	mha_stack_forward(c, &fx->w, &s);
	mha_stack_backward_half_square(c, &fx->w, &s, &g);
	grad_close(g.x, &fx->gx, fx->name, "X");
	if (c->m > 0)
		grad_close(g.x_kv, &fx->gxkv, fx->name, "X_kv");
	if (c->pos == MHA_POS_LEARNED)
		grad_close(g.pos, &fx->gpos, fx->name, "P_pos");
	for (int l = 0; l < c->layers; l++) {
		const struct mha_grads *gl = &g.layer[l];
		const float *gw[4] = { gl->wq, gl->wk, gl->wv, gl->wo };
		const float *gb[4] = { gl->bq, gl->bk, gl->bv, gl->bo };
		for (int k = 0; k < 4; k++) {
			char what[32];
			snprintf(what, sizeof what, "L%d.%s", l, weight_names[k]);
			grad_close(gw[k], &fx->gw[l][k], fx->name, what);
			if (c->bias) {
				snprintf(what, sizeof what, "L%d.%s", l, bias_names[k]);
				grad_close(gb[k], &fx->gb[l][k], fx->name, what);
			}
		}
	}
	if (c->layers == 1) {
		/* one layer: the one-layer backward says the same */
		struct mha_grads g1;
		assert_int_equal(mha_grads_alloc(&g1, c), MHA_OK);
		mha_backward_half_square(c, &fx->w, &s.layer[0], &g1);
		grad_close(g1.x, &fx->gx, fx->name, "X (mha_backward)");
		grad_close(g1.wq, &fx->gw[0][0], fx->name, "W_Q (mha_backward)");
		if (c->m > 0)
			grad_close(g1.x_kv, &fx->gxkv, fx->name, "X_kv (mha_backward)");
		if (c->pos == MHA_POS_LEARNED)
			grad_close(g1.pos, &fx->gpos, fx->name, "P_pos (mha_backward)");
		mha_grads_free(&g1);
	}
	mha_stack_grads_free(&g);
	mha_stack_free(&s);
}

/* One layer, causal or cross-attention: decoding token by token gives each
 * row of the forward (the fixture's float64 rows). */
static void check_decode(const struct fixture *fx)
{
	const struct mha_config *c = &fx->c;
	if (c->layers != 1 || (!c->causal && c->m == 0))
		return;
	const int n = c->n, nk = mha_keys(c), d = c->d;
	struct mha_decoder dec;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_decoder_alloc(&dec, c), MHA_OK);
	for (int t = 0; t < n; t++) {
		assert_int_equal(t == 0 ? mha_decoder_prefill(&dec, c, &fx->w, 1, msg, sizeof msg)
		                        : mha_decoder_step(&dec, c, &fx->w), MHA_OK);
		struct ref y = { fx->layer[0][REF_Y].v + (size_t)t * d, (size_t)d };
		char what[48];
		snprintf(what, sizeof what, "decoded Y row %d", t);
		check_close_d(dec.y, y.v, y.len, tolerance(&fx->layer[0][REF_Y]), what);
		for (int i = 0; i < c->h; i++) {
			snprintf(what, sizeof what, "decoded P_%d row %d", i, t);
			check_close_d(dec.weights + (size_t)i * nk, fx->layer[0][REF_WEIGHTS].v + ((size_t)i * n + t) * nk,
			              (size_t)dec.keys, 1e-5, what);
		}
	}
	assert_int_equal(dec.keys, nk);
	mha_decoder_free(&dec);
}

static void check_fixture(const char *name)
{
	struct fixture fx;
	fixture_load(&fx, name);
	check_forward(&fx);
	check_gradients(&fx);
	check_decode(&fx);
	fixture_free(&fx);
}

#define FIXTURE_TEST(name) \
	static void test_##name##_matches_float64_reference(void **state) \
	{ (void)state; check_fixture(#name); }

FIXTURE_TEST(sinusoidal)
FIXTURE_TEST(sinusoidal_offset_causal)
FIXTURE_TEST(learned_bias_gqa)
FIXTURE_TEST(rope)
FIXTURE_TEST(rope_gqa_causal_topk_off)
FIXTURE_TEST(rope_offset_masks)
FIXTURE_TEST(rope_odd_d_model)
FIXTURE_TEST(cross)
FIXTURE_TEST(cross_masks)
FIXTURE_TEST(cross_bias_pad)
FIXTURE_TEST(cross_gqa_topk_off_bias)
FIXTURE_TEST(cross_rope)
FIXTURE_TEST(cross_mqa_sinusoidal_dead_row)
FIXTURE_TEST(cross_longer_source)
FIXTURE_TEST(cross_dead_row)
FIXTURE_TEST(layers2)
FIXTURE_TEST(layers3_rope_causal)
FIXTURE_TEST(layers4_learned_bias_topk_window)
FIXTURE_TEST(layers2_cross_sinusoidal)
FIXTURE_TEST(layers3_cross_rope_gqa)

#define ENTRY(name) cmocka_unit_test(test_##name##_matches_float64_reference)

int main(void)
{
	const struct CMUnitTest tests[] = {
		ENTRY(sinusoidal),
		ENTRY(sinusoidal_offset_causal),
		ENTRY(learned_bias_gqa),
		ENTRY(rope),
		ENTRY(rope_gqa_causal_topk_off),
		ENTRY(rope_offset_masks),
		ENTRY(rope_odd_d_model),
		ENTRY(cross),
		ENTRY(cross_masks),
		ENTRY(cross_bias_pad),
		ENTRY(cross_gqa_topk_off_bias),
		ENTRY(cross_rope),
		ENTRY(cross_mqa_sinusoidal_dead_row),
		ENTRY(cross_longer_source),
		ENTRY(cross_dead_row),
		ENTRY(layers2),
		ENTRY(layers3_rope_causal),
		ENTRY(layers4_learned_bias_topk_window),
		ENTRY(layers2_cross_sinusoidal),
		ENTRY(layers3_cross_rope_gqa),
	};
	return cmocka_run_group_tests_name("stack fixtures", tests, NULL, NULL);
}
