/*
 * test_deps.c - the trace: each cell's sources are the rows and columns
 * its formula reads, with the GQA head mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline.h"
#include "stage.h"

static struct mha_config cfg(int h, int g)
{
	struct mha_config c = mha_config_default();
	c.h = h;
	c.g = g;
	return c;
}

static void test_a_q_cell_comes_from_a_row_of_x_and_a_column_of_wq(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 4);
	struct cell q = { MHA_T_Q, 0, 2, 5 };
	assert_true(pipeline_is_source(&c, &q, MHA_T_X, 0, 2, 0));
	assert_true(pipeline_is_source(&c, &q, MHA_T_X, 0, 2, 15));
	assert_false(pipeline_is_source(&c, &q, MHA_T_X, 0, 3, 0));
	assert_true(pipeline_is_source(&c, &q, MHA_T_WQ, 0, 9, 5));
	assert_false(pipeline_is_source(&c, &q, MHA_T_WQ, 0, 9, 4));
	assert_false(pipeline_is_source(&c, &q, MHA_T_WK, 0, 9, 5));
}

static void test_a_score_cell_reads_row_i_of_q_i_and_row_j_of_the_shared_k(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 2); /* heads 2, 3 read kv head 1 */
	struct cell s = { MHA_T_SCORES, 3, 1, 4 };
	struct cell_rect r;
	assert_true(pipeline_deps_rect(&c, &s, MHA_T_Q, &r));
	assert_int_equal(r.r0, 1);
	assert_int_equal(r.c0, 12);
	assert_int_equal(r.c1, 16);
	assert_true(pipeline_deps_rect(&c, &s, MHA_T_K, &r));
	assert_int_equal(r.r0, 4);
	assert_int_equal(r.c0, 4);
	assert_int_equal(r.c1, 8);
}

static void test_an_output_cell_reads_its_concat_row_and_wo_column(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 4);
	struct cell y = { MHA_T_Y, 0, 3, 7 };
	assert_true(pipeline_is_source(&c, &y, MHA_T_CONCAT, 0, 3, 15));
	assert_false(pipeline_is_source(&c, &y, MHA_T_CONCAT, 0, 2, 15));
	assert_true(pipeline_is_source(&c, &y, MHA_T_WO, 0, 0, 7));
	assert_false(pipeline_is_source(&c, &y, MHA_T_WO, 0, 0, 6));
}

static void test_weights_heads_and_concat_follow_their_formulas(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 1); /* MQA: every head reads kv head 0 */
	struct cell p = { MHA_T_WEIGHTS, 2, 3, 1 };
	assert_true(pipeline_is_source(&c, &p, MHA_T_SCORES, 2, 3, 5));
	assert_false(pipeline_is_source(&c, &p, MHA_T_SCORES, 1, 3, 5));
	struct cell o = { MHA_T_HEADS, 3, 0, 2 };
	assert_true(pipeline_is_source(&c, &o, MHA_T_V, 0, 5, 2));
	assert_true(pipeline_is_source(&c, &o, MHA_T_WEIGHTS, 3, 0, 4));
	struct cell k = { MHA_T_CONCAT, 0, 1, 9 };
	assert_true(pipeline_is_source(&c, &k, MHA_T_HEADS, 2, 1, 1));
	struct cell x = { MHA_T_X, 0, 0, 0 };
	struct cell_rect r;
	for (int t = 0; t < MHA_T_COUNT; t++)
		assert_false(pipeline_deps_rect(&c, &x, (enum mha_tensor)t, &r));
}

/* Reshape's note says in words which query heads share each kv head: a
 * short form of at most 26 characters (before " ("), so it fits beside
 * the lesson pane at 80 columns, then the rule ("MHA: kv i <- q i" was
 * never explained). */
static void test_the_gqa_groups_note_is_compact(void **state)
{
	(void)state;
	struct stage_view v;
	struct mha_config c = cfg(4, 2);
	stage_view(PIPELINE_RESHAPE, &c, 0, PROJ_K, &v);
	assert_string_equal(v.note, "GQA: 2 heads per K,V (query head i reads kv head i/2)");
	c = cfg(4, 4);
	stage_view(PIPELINE_RESHAPE, &c, 0, PROJ_K, &v);
	assert_string_equal(v.note, "MHA: K,V per head (query head i reads kv head i)");
	c = cfg(16, 1);
	stage_view(PIPELINE_RESHAPE, &c, 0, PROJ_K, &v);
	assert_string_equal(v.note, "MQA: 1 K,V for all (every query head reads kv head 0)");
	for (int h = 1; h <= 64; h++)
		for (int g = 1; g <= h; g++)
			if (h % g == 0) {
				c = cfg(h, g);
				stage_view(PIPELINE_RESHAPE, &c, 0, PROJ_Q, &v);
				const char *rule = strstr(v.note, " (");
				assert_non_null(rule);
				assert_true(rule - v.note <= 26);
			}
}

/* W^O's panel names the current head's rows (its title had no head). */
static void test_wo_names_the_current_heads_rows(void **state)
{
	(void)state;
	struct stage_view v;
	struct mha_config c = cfg(4, 4);
	stage_view(PIPELINE_OUTPUT, &c, 2, PROJ_Q, &v);
	assert_int_equal(v.p[1].t, MHA_T_WO);
	assert_string_equal(v.p[1].tag, "h2: rows 8-11");
	assert_int_equal(v.p[1].tag_head, 2);
}

static bool reads(const struct pipeline_stage_info *si, enum mha_tensor t)
{
	for (int i = 0; si->reads[i] != MHA_T_COUNT; i++)
		if (si->reads[i] == t)
			return true;
	return false;
}

/* The stage table's "reads" says what the dependency map says: every
 * source of a cell a stage computes is one of its reads, and every read
 * is the source of some cell (the first and the last of each head). */
/* The Scores and Softmax headers name every mask that is on (causal,
 * window, padding, a custom one), not the causal one alone; where a row
 * keeps no key its P is 0, and the header says so beside "each sums to 1". */
static void test_the_mask_note_names_every_mask_and_an_empty_row(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 4);
	struct stage_view v;
	c.causal = true;
	stage_view(PIPELINE_SOFTMAX, &c, 0, PROJ_Q, &v);
	assert_non_null(strstr(v.note, "causal"));
	assert_null(strstr(v.note, "window"));
	assert_null(strstr(v.formula, "no key"));
	c.window = 2;
	c.pad = 1u << 5;
	stage_view(PIPELINE_SOFTMAX, &c, 0, PROJ_Q, &v);
	assert_non_null(strstr(v.note, "causal"));
	assert_non_null(strstr(v.note, "window 2"));
	assert_non_null(strstr(v.note, "padding 5"));
	assert_null(strstr(v.formula, "no key")); /* every query still sees a key */
	stage_view(PIPELINE_SCORES, &c, 0, PROJ_Q, &v);
	assert_non_null(strstr(v.note, "padding 5"));
	c.pad = 1u << 0 | 1u << 3; /* query 0 sees only key 0, padding */
	c.window = 0;
	stage_view(PIPELINE_SOFTMAX, &c, 0, PROJ_Q, &v);
	assert_non_null(strstr(v.note, "padding 0,3"));
	assert_non_null(strstr(v.formula, "each sums to 1"));
	assert_non_null(strstr(v.formula, "a row with no key: 0"));
	c = cfg(4, 4);
	mha_mask_set(&c, 1, 2, true);
	stage_view(PIPELINE_SOFTMAX, &c, 0, PROJ_Q, &v);
	assert_non_null(strstr(v.note, "custom"));
}

/* With one head the panels still carry the head the formula names: "S₀
 * 4x4" under "S₀ 4x4 = Q₀ . K₀^T", never a bare "S 4x4". */
static void test_one_head_titles_match_the_formula(void **state)
{
	(void)state;
	struct mha_config c = cfg(1, 1);
	c.dk = c.d;
	const enum pipeline_stage st[] = { PIPELINE_SCORES, PIPELINE_SOFTMAX, PIPELINE_WEIGHTED_SUM };
	for (int k = 0; k < 3; k++) {
		struct stage_view v;
		stage_view(st[k], &c, 0, PROJ_Q, &v);
		/* the formula's first word, the tensor the stage writes */
		char name[32];
		snprintf(name, sizeof name, "%.*s ", (int)strcspn(v.formula, " "), v.formula);
		bool found = false;
		for (int i = 0; i < v.count; i++)
			found = found || !strncmp(v.p[i].title, name, strlen(name));
		if (!found)
			fail_msg("stage %d: no panel titled '%s' under '%s'", (int)st[k], name, v.formula);
	}
}

static void test_each_stage_reads_what_its_cells_are_computed_from(void **state)
{
	(void)state;
	struct mha_config c = cfg(4, 2); /* GQA: query heads 2, 3 read kv head 1 */
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
		const struct pipeline_stage_info *si = pipeline_stage_info((enum pipeline_stage)s);
		if (s == PIPELINE_RESHAPE)
			continue; /* a view of Q: nothing computed */
		enum mha_tensor out[3] = { si->writes, si->writes, si->writes };
		if (s == PIPELINE_PROJECTION) {
			out[1] = MHA_T_K;
			out[2] = MHA_T_V;
		}
		bool used[MHA_T_COUNT] = { false };
		for (int o = 0; o < 3; o++) {
			struct mha_shape sh = mha_tensor_shape(&c, out[o]);
			for (int m = 0; m < sh.count; m++)
				for (int corner = 0; corner < 2; corner++) {
					struct cell t = { out[o], m, corner ? sh.rows - 1 : 0, corner ? sh.cols - 1 : 0 };
					for (int src = 0; src < MHA_T_COUNT; src++) {
						struct cell_rect r;
						if (!pipeline_deps_rect(&c, &t, (enum mha_tensor)src, &r))
							continue;
						if (!reads(si, (enum mha_tensor)src))
							fail_msg("%s: %s is computed from %s, not in its reads", si->label,
							         mha_tensor_info(out[o])->name, mha_tensor_info((enum mha_tensor)src)->name);
						used[src] = true;
					}
				}
		}
		for (int i = 0; si->reads[i] != MHA_T_COUNT; i++)
			if (!used[si->reads[i]])
				fail_msg("%s reads %s, but no cell it computes comes from it", si->label,
				         mha_tensor_info(si->reads[i])->name);
	}
}

/* The mask the screen marks is the core's rule (mha_mask_row): a window
 * masks far keys without causality too; a weight that only underflowed to
 * 0 (a score 105 below the row's max) is no masked cell; with top-k the
 * keys top-k dropped are. */
static void test_masked_cells_follow_the_core_mask_not_zero_weights(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	struct mha_acts a;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_weights_init(&w, &c, 0); /* the wired workbench: head 0's row 0 underflows */
	mha_forward(&c, &w, &a);
	bool zero = false;
	for (int k = 0; k < c.n; k++)
		zero |= a.weights[k] == 0.0f;
	assert_true(zero); /* the premise: some weight of head 0, row 0 is exactly 0 */
	for (int k = 0; k < c.n; k++)
		assert_false(pipeline_masked(&c, &a, 0, 0, k));
	c.window = 2; /* a band: |q - k| < 2 */
	mha_forward(&c, &w, &a);
	assert_false(pipeline_masked(&c, &a, 1, 3, 2));
	assert_false(pipeline_masked(&c, &a, 1, 3, 4));
	assert_true(pipeline_masked(&c, &a, 1, 3, 1));
	assert_true(pipeline_masked(&c, &a, 1, 3, 5));
	c.window = 0;
	c.top_k = 2;
	mha_forward(&c, &w, &a);
	for (int h = 0; h < c.h; h++)
		for (int q = 0; q < c.n; q++) {
			int masked = 0;
			for (int k = 0; k < c.n; k++)
				masked += pipeline_masked(&c, &a, h, q, k);
			assert_int_equal(masked, c.n - 2);
		}
	mha_acts_free(&a);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_q_cell_comes_from_a_row_of_x_and_a_column_of_wq),
		cmocka_unit_test(test_a_score_cell_reads_row_i_of_q_i_and_row_j_of_the_shared_k),
		cmocka_unit_test(test_an_output_cell_reads_its_concat_row_and_wo_column),
		cmocka_unit_test(test_weights_heads_and_concat_follow_their_formulas),
		cmocka_unit_test(test_the_gqa_groups_note_is_compact),
		cmocka_unit_test(test_wo_names_the_current_heads_rows),
		cmocka_unit_test(test_the_mask_note_names_every_mask_and_an_empty_row),
		cmocka_unit_test(test_one_head_titles_match_the_formula),
		cmocka_unit_test(test_each_stage_reads_what_its_cells_are_computed_from),
		cmocka_unit_test(test_masked_cells_follow_the_core_mask_not_zero_weights),
	};
	return cmocka_run_group_tests_name("deps", tests, NULL, NULL);
}
