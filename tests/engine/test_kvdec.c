/*
 * test_kvdec.c - the decode step at scale (mha_kvdec_*) gives the core's
 * plain decode: token by token against mha_decoder_step (y, the query and
 * the concat) on seeded configurations (MHA, GQA, MQA, head sizes on and
 * off the kernels' lanes, scaling off, heads switched off, biases), with
 * every kernel version this CPU has; long caches against attention
 * computed here in double, at lengths that straddle the key blocks, for
 * one, four and thirty-two query heads per kv head; a cache emptied and
 * refilled; what is refused; the bytes it reports; and the speed
 * measurement's bookkeeping (not its figures: those are mha-bench
 * --decode's). Small sizes: this suite runs under valgrind.
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
#include "engine.h"
#include "vexp.h"

/* the kernels against the core's double accumulators: relative to the
 * largest magnitude of the tensor compared */
#define REL_TOL 1e-5

/* splitmix64: this test's own stream */
static uint64_t rng_state = 0x6b76646563ULL;

static uint64_t next64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int pick(int lo, int hi)
{
	return lo + (int)(next64() % (uint64_t)(hi - lo + 1));
}

static float uniform(void)
{
	return (float)(next64() >> 40) / 8388608.0f - 1.0f;
}

static double max_abs(const float *v, size_t n)
{
	double big = 1e-30;
	for (size_t i = 0; i < n; i++)
		big = fmax(big, fabs((double)v[i]));
	return big;
}

/* the kernel versions this CPU has, widest first */
static int isas(enum vexp_isa *out)
{
	enum vexp_isa all[] = { VEXP_AVX512, VEXP_AVX2, VEXP_SCALAR };
	enum vexp_isa was = vexp_isa();
	int n = 0;
	for (int i = 0; i < 3; i++)
		if (vexp_use(all[i]))
			out[n++] = all[i];
	vexp_use(was);
	return n;
}

static struct mha_config random_config(int k)
{
	static const int dks[] = { 5, 8, 16, 24, 32, 64 };
	struct mha_config c = mha_config_default();
	c.n = pick(1, 40);
	c.h = pick(1, 8);
	int gs[4] = { c.h, 1, c.h % 2 == 0 ? c.h / 2 : c.h, c.h % 4 == 0 ? c.h / 4 : 1 };
	c.g = gs[k % 4];
	c.dk = dks[pick(0, 5)];
	c.d = pick(1, 48);
	c.causal = true;
	c.scale = k % 5 != 3;
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = pick(0, 6) == 0;
	c.bias = k % 4 == 2;
	return c;
}

static void check_steps_equal_core(enum vexp_isa isa)
{
	assert_true(vexp_use(isa));
	char msg[MHA_MSG_MAX];
	for (int k = 0; k < 24; k++) {
		struct mha_config c = random_config(k);
		assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
		struct mha_weights w;
		struct mha_decoder dec;
		struct mha_kvdec *kv;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, 900 + (uint64_t)k);
		mha_biases_init(&w, &c, 900 + (uint64_t)k);
		assert_int_equal(mha_decoder_alloc(&dec, &c), MHA_OK);
		assert_int_equal(mha_kvdec_create(&kv, c.h, c.g, c.dk, c.n, msg, sizeof msg), MHA_OK);
		float y[MHA_MAX_D_MODEL];
		const size_t hw = (size_t)c.h * c.dk;
		for (int t = 0; t < c.n; t++) {
			assert_int_equal(mha_decoder_step(&dec, &c, &w), MHA_OK);
			assert_int_equal(mha_kvdec_step(kv, &c, &w, y, msg, sizeof msg), MHA_OK);
			assert_int_equal(mha_kvdec_len(kv), t + 1);
			check_close(mha_kvdec_query(kv), dec.q, hw, REL_TOL * max_abs(dec.q, hw), "q");
			check_close(mha_kvdec_concat(kv), dec.concat, hw, REL_TOL * max_abs(dec.concat, hw),
			            "concat");
			check_close(y, dec.y, (size_t)c.d, REL_TOL * max_abs(dec.y, (size_t)c.d), "y");
			for (int i = 0; i < c.h; i++)
				if (c.head_off[i])
					for (int e = 0; e < c.dk; e++)
						assert_true(mha_kvdec_concat(kv)[(size_t)i * c.dk + e] == 0.0f);
		}
		/* full: one more token has no room */
		assert_int_equal(mha_kvdec_step(kv, &c, &w, y, msg, sizeof msg), MHA_EINVAL);
		mha_kvdec_destroy(kv);
		mha_decoder_free(&dec);
		mha_weights_free(&w);
	}
}

static void test_steps_equal_the_core_decoder_with_every_kernel(void **state)
{
	(void)state;
	enum vexp_isa was = vexp_isa(), have[3];
	int n = isas(have);
	for (int i = 0; i < n; i++)
		check_steps_equal_core(have[i]);
	vexp_use(was);
}

/* o (h dk) in double: softmax(scale q_i K_j^T) V_j over len tokens; k, v
 * (len, g dk) as appended */
static void attend_double(int h, int g, int dk, int len, const float *q, const float *k,
                          const float *v, double scale, double *o)
{
	double *s = malloc((size_t)len * sizeof *s);
	assert_non_null(s);
	for (int i = 0; i < h; i++) {
		const int j = i / (h / g);
		double m = -INFINITY, sum = 0.0;
		for (int t = 0; t < len; t++) {
			double acc = 0.0;
			for (int e = 0; e < dk; e++)
				acc += (double)q[(size_t)i * dk + e] * k[(size_t)t * g * dk + (size_t)j * dk + e];
			s[t] = acc * scale;
			m = fmax(m, s[t]);
		}
		for (int e = 0; e < dk; e++)
			o[(size_t)i * dk + e] = 0.0;
		for (int t = 0; t < len; t++) {
			double p = exp(s[t] - m);
			sum += p;
			for (int e = 0; e < dk; e++)
				o[(size_t)i * dk + e] += p * v[(size_t)t * g * dk + (size_t)j * dk + e];
		}
		for (int e = 0; e < dk; e++)
			o[(size_t)i * dk + e] /= sum;
	}
	free(s);
}

/* Append len random tokens to kv (keeping them in k, v) and compare one
 * attend with attend_double. Values in [-spread, spread] for q and k: a
 * wide spread makes peaked rows, where the online softmax's rescaling
 * matters. */
static void check_long(struct mha_kvdec *kv, int h, int g, int dk, int len, float spread)
{
	const size_t gw = (size_t)g * dk, hw = (size_t)h * dk;
	float *k = malloc((size_t)len * gw * sizeof *k), *v = malloc((size_t)len * gw * sizeof *v);
	float *q = malloc(hw * sizeof *q), *o = malloc(hw * sizeof *o);
	double *want = malloc(hw * sizeof *want);
	assert_true(k && v && q && o && want);
	mha_kvdec_reset(kv);
	for (int t = 0; t < len; t++) {
		for (size_t e = 0; e < gw; e++) {
			k[(size_t)t * gw + e] = spread * uniform();
			v[(size_t)t * gw + e] = uniform();
		}
		assert_int_equal(mha_kvdec_append(kv, k + (size_t)t * gw, v + (size_t)t * gw), MHA_OK);
	}
	for (size_t e = 0; e < hw; e++)
		q[e] = spread * uniform();
	float scale = 1.0f / sqrtf((float)dk);
	mha_kvdec_attend(kv, q, scale, NULL, o);
	attend_double(h, g, dk, len, q, k, v, scale, want);
	double big = 1e-30;
	for (size_t e = 0; e < hw; e++)
		big = fmax(big, fabs(want[e]));
	check_close_d(o, want, hw, REL_TOL * big, "o");
	assert_int_equal(mha_kvdec_read_bytes(kv), (int64_t)2 * g * dk * len * 4);
	free(k); free(v); free(q); free(o); free(want);
}

static void test_long_caches_equal_attention_in_double(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	enum vexp_isa was = vexp_isa(), have[3];
	int nisa = isas(have);
	/* h 32 with 32, 8 and 1 kv heads: groups of 1, 4 and 32 query heads,
	 * whose key blocks are 512, 512 and 128 keys; lengths either side of
	 * one and two blocks, and off the 16-key panels */
	static const int gs[] = { 32, 8, 1 }, lens[] = { 1, 17, 127, 128, 129, 511, 512, 513, 1041 };
	for (int i = 0; i < nisa; i++) {
		assert_true(vexp_use(have[i]));
		for (int a = 0; a < 3; a++) {
			struct mha_kvdec *kv;
			const int dk = a == 1 ? 24 : 16; /* 24: the AVX2 lanes only */
			assert_int_equal(mha_kvdec_create(&kv, 32, gs[a], dk, 1041, msg, sizeof msg), MHA_OK);
			for (int l = 0; l < 9; l++)
				check_long(kv, 32, gs[a], dk, lens[l], l % 2 ? 4.0f : 1.0f);
			mha_kvdec_destroy(kv);
		}
	}
	vexp_use(was);
}

static void test_a_refilled_cache_forgets_the_old_tokens(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_kvdec *kv;
	assert_int_equal(mha_kvdec_create(&kv, 4, 2, 16, 300, msg, sizeof msg), MHA_OK);
	check_long(kv, 4, 2, 16, 300, 1.0f);
	/* fewer tokens after the reset: the panels still hold old keys past len */
	check_long(kv, 4, 2, 16, 37, 3.0f);
	assert_int_equal(mha_kvdec_len(kv), 37);
	mha_kvdec_destroy(kv);
}

static void test_what_the_fast_step_refuses(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_kvdec *kv = NULL;
	assert_int_equal(mha_kvdec_create(&kv, 6, 4, 16, 10, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "kv heads dividing heads"));
	assert_null(kv);
	assert_int_equal(mha_kvdec_create(&kv, 4, 2, 16, 0, msg, sizeof msg), MHA_EINVAL);
	assert_int_equal(mha_kvdec_create(&kv, 64, 64, 128, 10, msg, sizeof msg), MHA_EINVAL);

	struct mha_config c = mha_config_default();
	c.causal = true;
	struct mha_weights w;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 3);
	assert_int_equal(mha_kvdec_create(&kv, c.h, c.g, c.dk, c.n, msg, sizeof msg), MHA_OK);
	float y[MHA_MAX_D_MODEL];
	struct mha_config bad = c;
	bad.causal = false;
	assert_int_equal(mha_kvdec_step(kv, &bad, &w, y, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "causal mask only"));
	bad = c;
	bad.top_k = 2;
	assert_int_equal(mha_kvdec_step(kv, &bad, &w, y, msg, sizeof msg), MHA_EINVAL);
	bad = c;
	bad.window = 2;
	assert_int_equal(mha_kvdec_step(kv, &bad, &w, y, msg, sizeof msg), MHA_EINVAL);
	bad = c;
	bad.g = 1;
	assert_int_equal(mha_kvdec_step(kv, &bad, &w, y, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "not the cache's"));
	assert_int_equal(mha_kvdec_len(kv), 0);
	for (int t = 0; t < c.n; t++)
		assert_int_equal(mha_kvdec_step(kv, &c, &w, y, msg, sizeof msg), MHA_OK);
	float row[MHA_MAX_DK * MHA_MAX_HEADS] = { 0 };
	assert_int_equal(mha_kvdec_append(kv, row, row), MHA_EINVAL);
	mha_kvdec_destroy(kv);
	mha_weights_free(&w);
}

static void test_the_speed_measurement_reports_what_it_measured(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX];
	struct mha_decode_speed s;
	struct mha_decode_options o = { .h = 4, .g = 2, .dk = 16, .tokens = 100, .rounds = 3,
	                                .min_time = 0.001, .working_set = 100 * 1024 };
	assert_int_equal(mha_decode_speed(&o, &s, msg, sizeof msg), MHA_OK);
	assert_int_equal(s.tokens, 100);
	assert_int_equal(s.rounds, 3);
	assert_true(s.bytes == 2.0 * 2 * 16 * 100 * 4);
	/* 25,600 bytes a layer: 4 layers make the 100 KiB asked */
	assert_int_equal(s.layers, 4);
	assert_true(s.working_set == 4 * s.bytes);
	assert_true(s.flops == 4.0 * 4 * 16 * 100 + 5.0 * 4 * 100);
	for (int i = 0; i < 3; i++) {
		assert_true(s.step_ms[i] > 0 && s.gbs[i] > 0 && s.stream_gbs[i] > 0 && s.ratio[i] > 0);
		assert_true(s.step_cpu_ms[i] >= 0 && s.ratio_cpu[i] >= 0);
		if (i)
			assert_true(s.step_ms[i] >= s.step_ms[i - 1] && s.ratio[i] >= s.ratio[i - 1]);
	}
	/* the bandwidth is the bytes over the time, round by round */
	assert_true(fabs(s.gbs[1] - s.bytes / (s.step_ms[1] * 1e-3) * 1e-9) < 1e-9 * s.gbs[1]);
	o.g = 3;
	assert_int_equal(mha_decode_speed(&o, &s, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "kv heads dividing heads"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_equal_the_core_decoder_with_every_kernel),
		cmocka_unit_test(test_long_caches_equal_attention_in_double),
		cmocka_unit_test(test_a_refilled_cache_forgets_the_old_tokens),
		cmocka_unit_test(test_what_the_fast_step_refuses),
		cmocka_unit_test(test_the_speed_measurement_reports_what_it_measured),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
