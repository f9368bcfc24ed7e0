/*
 * test_session_stack.c - sessions with positions, a source and layers
 * (doc/SESSION.md, "Optional lines"): they round trip, text and binary;
 * a session of the default kind is written as older versions wrote it, and
 * an old one loads as one layer with no positions and no source; a bad
 * new line is refused with its line number, and a rule across lines
 * points at the line at fault wherever it stands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check_config.h"
#include "mha.h"
#include "session.h"
#include "tmpdir.h"


static void expect_same_inputs(const struct mha_config *c, const struct mha_weights *a, const struct mha_weights *b)
{
	for (int l = 0; l < c->layers; l++) {
		for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++)
			if (mha_tensor_info(t)->input && mha_tensor_used(c, t))
				assert_memory_equal(mha_tensor_data_layer(a, NULL, l, t), mha_tensor_data_layer(b, NULL, l, t),
				                    check_tensor_len(c, t) * sizeof(float));
		for (int k = 0; c->bias && k < MHA_BIASES; k++)
			assert_memory_equal(mha_bias_layer(a, c, l, k).p, mha_bias_layer(b, c, l, k).p,
			                    (size_t)mha_bias_layer(a, c, l, k).len * sizeof(float));
	}
	for (int j = 0; j < c->m; j++)
		assert_string_equal(a->kv_labels[j], b->kv_labels[j]);
}

/* Does text (size bytes, binary values and NULs among them) hold s? */
static bool holds(const char *text, size_t size, const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i + len <= size; i++)
		if (memcmp(text + i, s, len) == 0)
			return true;
	return false;
}

static void test_session_round_trips_positions_source_and_layers(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 4; c.d = 300; c.h = 2; c.g = 1; c.dk = 128; c.m = 3; c.layers = 2; c.pos = MHA_POS_LEARNED;
	c.bias = true; c.pad = 4; c.window = 2;
	mha_mask_set(&c, 1, 2, true);
	struct mha_weights w, back;
	check_inputs_seeded(&w, &c, 3);
	snprintf(w.kv_labels[2], MHA_LABEL_MAX, "dort");
	char path[4096], msg[MHA_MSG_MAX + 4096];
	tmpdir_path(path, sizeof path, "stack.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	struct mha_config got;
	if (session_load(path, &got, &back, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_int_equal(got.pos, c.pos);
	assert_int_equal(got.m, 3);
	assert_int_equal(got.layers, 2);
	assert_true(got.pad == 4 && got.window == 2 && got.hide[1] == 4);
	expect_same_inputs(&c, &w, &back);
	/* W^Q is 300 x 256 > 65,536 values: binary, version 2 */
	size_t size;
	char *text = tmpdir_slurp(path, &size);
	assert_true(strncmp(text, "mha-tui-session 2\n", 18) == 0);
	assert_true(holds(text, size, "\nlayer 1\n"));
	assert_true(holds(text, size, "\nkv_labels the cat dort\n"));
	free(text);
	mha_weights_free(&back);
	/* rope with an offset, text */
	struct mha_config r = mha_config_default();
	r.pos = MHA_POS_ROPE;
	r.pos_offset = 12;
	r.layers = 4;
	struct mha_weights rw;
	check_inputs_seeded(&rw, &r, 0);
	assert_int_equal(session_save(path, &r, &rw, msg, sizeof msg), 0);
	if (session_load(path, &got, &back, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_true(got.pos == MHA_POS_ROPE && got.pos_offset == 12 && got.layers == 4 && got.m == 0);
	expect_same_inputs(&r, &rw, &back);
	mha_weights_free(&back);
	mha_weights_free(&rw);
	mha_weights_free(&w);
}

/* A session of the default kind is written as it always was, and an old
 * one (no new line) loads as one layer, no positions, no source. */
static void test_old_sessions_load_as_one_layer(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct mha_weights w, back;
	check_inputs_seeded(&w, &c, 0);
	char path[4096], msg[MHA_MSG_MAX + 4096];
	tmpdir_path(path, sizeof path, "old.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	size_t size;
	char *text = tmpdir_slurp(path, &size);
	static const char *added[] = { "\npos", "\nkv_tokens", "\nlayers", "\nlayer ", "\nkv_labels", "\nX_kv", "\nP_pos" };
	for (size_t k = 0; k < sizeof added / sizeof added[0]; k++)
		if (strstr(text, added[k]))
			fail_msg("a default session holds '%s': not as an older mha-tui wrote it", added[k] + 1);
	assert_true(strncmp(text, "mha-tui-session 1\n", 18) == 0);
	free(text);
	struct mha_config got;
	if (session_load(path, &got, &back, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_true(got.pos == MHA_POS_NONE && got.m == 0 && got.layers == 1 && got.pos_offset == 0);
	mha_weights_free(&back);
	mha_weights_free(&w);
}

static const char head[] = "mha-tui-session 1\ntokens 2\nd_model 2\nheads 1\nkv_heads 1\nd_k 2\ncausal 0\n"
	"top_k 0\nscale 1\nseed 7\nheads_off\n";
static const char mats[] = "X 2 2\n1 2\n3 4\nW_Q 2 2\n1 0\n0 1\nW_K 2 2\n1 0\n0 1\nW_V 2 2\n1 0\n0 1\n"
	"W_O 2 2\n1 0\n0 1\n";

static int parse(const char *opt, const char *labels, const char *more, char *msg, size_t len,
                 struct mha_config *c)
{
	char text[2048];
	snprintf(text, sizeof text, "%s%s%s%s%send\n", head, opt, labels, mats, more);
	struct mha_weights w;
	int rc = session_parse("s.txt", text, strlen(text), c, &w, msg, len);
	if (rc == 0)
		mha_weights_free(&w);
	return rc;
}

static void expect_parse_error(const char *opt, const char *labels, const char *more, const char *says)
{
	struct mha_config c;
	char msg[512];
	if (parse(opt, labels, more, msg, sizeof msg, &c) == 0)
		fail_msg("accepted: %s", opt);
	if (!strstr(msg, says))
		fail_msg("'%s' does not say '%s'", msg, says);
}

static void test_session_refuses_bad_lines_of_the_new_settings(void **state)
{
	(void)state;
	struct mha_config c;
	char msg[512];
	const char *l = "labels a b\n";
	assert_int_equal(parse("layers 2\npos rope\n", l, "layer 1\nW_Q 2 2\n1 0\n0 1\nW_K 2 2\n1 0\n0 1\n"
	                       "W_V 2 2\n1 0\n0 1\nW_O 2 2\n1 0\n0 1\n", msg, sizeof msg, &c), 0);
	assert_true(c.layers == 2 && c.pos == MHA_POS_ROPE);
	expect_parse_error("pos spiral\n", l, "", "s.txt:12: pos 'spiral' is not a kind of position");
	expect_parse_error("pos none\n", l, "", "leave the line out");
	expect_parse_error("layers 5\n", l, "", "s.txt:12: layers must be one whole number in 1..4");
	expect_parse_error("layers 2\n", l, "", "expected 'layer 1'");
	expect_parse_error("kv_tokens 0\n", l, "", "kv_tokens must be one whole number in 1..64");
	expect_parse_error("kv_tokens 2\n", l, "", "expected 'kv_labels'");
	expect_parse_error("kv_tokens 2\n", l, "", "s.txt:14:");
	expect_parse_error("kv_tokens 2\n", "labels a b\nkv_labels x\n", "X_kv 2 2\n1 2\n3 4\n",
	                   "1 labels given");
	expect_parse_error("kv_tokens 2\n", "labels a b\nkv_labels x y\n", "", "expected 'X_kv 2 2'");
	expect_parse_error("kv_tokens 2\ncausal_is_not_a_line 1\n", l, "", "expected 'labels'");
	/* rules across lines point at the line at fault, wherever it stands */
	expect_parse_error("kv_tokens 3\npad 3\n", l, "", "s.txt:13: pad: '3' is not a source token");
	expect_parse_error("pad 3\nkv_tokens 3\n", l, "", "s.txt:12: pad: '3' is not a source token");
	expect_parse_error("pos_offset 3\n", l, "", "s.txt:12: pos_offset 3 shifts positions");
	expect_parse_error("pos sinusoidal\npos_offset 70000\n", l, "", "s.txt:13: pos_offset must be");
	/* a source of 3 lets pad name its token 2 (the queries are only 2) */
	assert_int_equal(parse("pad 2\nkv_tokens 3\n", "labels a b\nkv_labels x y z\n",
	                       "X_kv 3 2\n1 2\n3 4\n5 6\n", msg, sizeof msg, &c), 0);
	assert_true(c.pad == 4 && c.m == 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_round_trips_positions_source_and_layers),
		cmocka_unit_test(test_old_sessions_load_as_one_layer),
		cmocka_unit_test(test_session_refuses_bad_lines_of_the_new_settings),
	};
	return cmocka_run_group_tests_name("session_stack", tests, tmpdir_make, tmpdir_remove);
}
