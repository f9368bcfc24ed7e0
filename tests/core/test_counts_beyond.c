/*
 * test_counts_beyond.c - the counts past the paper: the KV cache at model
 * scale (doc/FACTS.md's hand-computed LLaMA-2-70B figures, the paper's base
 * model, MHA / GQA / MQA side by side, fp32 / fp16 / int8), and what a
 * sparse kernel could skip with masks and top-k, worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"

static const struct mha_model *model(const char *prefix)
{
	for (const struct mha_model *m = mha_models; m->name; m++)
		if (strncmp(m->name, prefix, strlen(prefix)) == 0)
			return m;
	fail_msg("no preset named %s...", prefix);
	return NULL;
}

static void test_llama2_70b_cache_matches_the_facts(void **state)
{
	(void)state;
	const struct mha_model *m = model("LLaMA-2-70B");
	assert_int_equal(m->d, 8192);
	assert_int_equal(m->h, 64);
	assert_int_equal(m->g, 8);
	assert_int_equal(m->dk, 128);
	assert_int_equal(m->layers, 80);
	struct mha_kv_cache k = mha_kv_cache(m->g, m->dk, m->layers, MHA_FP16, 4096);
	/* 2 x 8 x 128 x 80 = 163,840 values a token */
	assert_int_equal(k.values_token, 163840);
	assert_int_equal(k.values_token_layer, 2048);
	/* x 2 bytes = 327,680 = 320 KiB */
	assert_int_equal(k.bytes_token, 320 * 1024);
	assert_int_equal(k.bytes_token_layer, 4096);
	/* x 4,096 tokens = 1.25 GiB */
	assert_int_equal(k.bytes_context, (int64_t)5 << 28);
	assert_int_equal(k.bytes_context_layer, (int64_t)4096 * 4096);
	/* plain MHA, 64 kv heads: 2.5 MiB a token, 10 GiB at 4,096 */
	struct mha_kv_cache mha = mha_kv_cache(m->h, m->dk, m->layers, MHA_FP16, 4096);
	assert_int_equal(mha.bytes_token, (int64_t)5 << 19);
	assert_int_equal(mha.bytes_context, (int64_t)10 << 30);
	/* MQA: one kv head, an eighth of GQA's */
	struct mha_kv_cache mqa = mha_kv_cache(1, m->dk, m->layers, MHA_FP16, 4096);
	assert_int_equal(mqa.bytes_token * 8, k.bytes_token);
}

static void test_dtypes_scale_the_bytes_not_the_values(void **state)
{
	(void)state;
	assert_int_equal(mha_dtype_bytes(MHA_FP32), 4);
	assert_int_equal(mha_dtype_bytes(MHA_FP16), 2);
	assert_int_equal(mha_dtype_bytes(MHA_INT8), 1);
	assert_string_equal(mha_dtype_name(MHA_INT8), "int8");
	struct mha_kv_cache a = mha_kv_cache(8, 128, 80, MHA_FP32, 4096);
	struct mha_kv_cache b = mha_kv_cache(8, 128, 80, MHA_INT8, 4096);
	assert_int_equal(a.values_token, b.values_token);
	assert_int_equal(a.bytes_context, 4 * b.bytes_context); /* 2.5 GiB vs 640 MiB */
	assert_int_equal(b.bytes_context, (int64_t)640 << 20);
}

static void test_paper_base_cache(void **state)
{
	(void)state;
	const struct mha_model *m = model("Transformer base");
	assert_int_equal(m->h * m->dk, m->d);
	/* 2 x 8 x 64 = 1,024 values a token and layer (the counts panel's figure), x 6 layers */
	struct mha_kv_cache k = mha_kv_cache(m->g, m->dk, m->layers, MHA_FP32, 512);
	assert_int_equal(k.values_token_layer, 1024);
	assert_int_equal(k.values_token, 6144);
	assert_int_equal(k.bytes_token, 24576);
	assert_int_equal(k.bytes_context, 12 << 20); /* 24 KiB x 512 = 12 MiB */
	struct mha_config c = mha_config_default();
	c.d = 512; c.h = 8; c.g = 8; c.dk = 64;
	assert_int_equal(mha_counts(&c).kv_cache_per_token, k.values_token_layer);
}

static void test_dense_flops_ignore_masks_sparse_counts_do_not(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(); /* n 6, h 4, dk 4 */
	struct mha_counts dense = mha_counts(&c);
	assert_int_equal(dense.pairs_visible, 36);
	assert_int_equal(dense.pairs_kept, 36);
	assert_int_equal(dense.flops_scores_masked, 0);
	assert_int_equal(dense.flops_weighted_skippable, 0);
	assert_int_equal(dense.flops_sparse_saving, 0);
	c.causal = true;
	c.window = 4;
	c.top_k = 2;
	struct mha_counts k = mha_counts(&c);
	assert_int_equal(k.flops_total, dense.flops_total);
	/* visible per row 1 2 3 4 4 4 = 18; kept 1 2 2 2 2 2 = 11 */
	assert_int_equal(k.pairs_visible, 18);
	assert_int_equal(k.pairs_kept, 11);
	/* 2 h dk = 32 FLOPs a cell */
	assert_int_equal(k.flops_scores_masked, 32 * 18);
	assert_int_equal(k.flops_weighted_skippable, 32 * 25);
	assert_int_equal(k.flops_sparse_saving, 64 * 7);
	assert_true(k.selector_break_even > 448.0 / 18 - 1e-9 && k.selector_break_even < 448.0 / 18 + 1e-9);
	c.pad = 1u << 2;
	c.top_k = 0;
	/* padding key 2 was visible to rows 2..5 (each sees its last 4): 18 - 4 */
	assert_int_equal(mha_counts(&c).pairs_visible, 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama2_70b_cache_matches_the_facts),
		cmocka_unit_test(test_dtypes_scale_the_bytes_not_the_values),
		cmocka_unit_test(test_paper_base_cache),
		cmocka_unit_test(test_dense_flops_ignore_masks_sparse_counts_do_not),
	};
	return cmocka_run_group_tests_name("counts_beyond", tests, NULL, NULL);
}
