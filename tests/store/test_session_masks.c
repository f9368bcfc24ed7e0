/*
 * test_session_masks.c - the session's optional lines (pad, window,
 * hidden, bias and the bias vectors; doc/SESSION.md): saved only when set,
 * read back exactly, in any order, and refused with file:line when they
 * name a token that is not there. The rest of the format is
 * test_session.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"
#include "session.h"
#include "tmpdir.h"

static void round_trip(const struct mha_config *c, struct mha_config *back, char *text, size_t cap)
{
	struct mha_weights w, w2;
	char path[4096], msg[512];
	assert_int_equal(mha_weights_alloc(&w, c), MHA_OK);
	struct mha_config cc = *c;
	mha_weights_init(&w, &cc, 4);
	mha_weights_default_labels(&w, c);
	mha_biases_init(&w, c, 4);
	tmpdir_path(path, sizeof path, "masks.txt");
	assert_int_equal(session_save(path, c, &w, msg, sizeof msg), 0);
	assert_int_equal(session_load(path, back, &w2, msg, sizeof msg), 0);
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		struct mha_bias a = mha_bias(&w, c, k), b = mha_bias(&w2, back, k);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.p, b.p, (size_t)a.len * sizeof(float));
	}
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t got = fread(text, 1, cap - 1, f);
	text[got] = '\0';
	fclose(f);
	mha_weights_free(&w);
	mha_weights_free(&w2);
}

static void test_masks_survive_save_and_load(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(), back;
	c.causal = true;
	c.pad = (1u << 0) | (1u << 4);
	c.window = 3;
	mha_mask_set(&c, 5, 1, true);
	mha_mask_set(&c, 2, 2, true);
	char text[8192];
	round_trip(&c, &back, text, sizeof text);
	assert_non_null(strstr(text, "\npad 0 4\nwindow 3\nhidden 2 2 5 1\nlabels "));
	assert_int_equal(back.pad, c.pad);
	assert_int_equal(back.window, 3);
	assert_memory_equal(back.hide, c.hide, sizeof c.hide);
}

static void test_biases_survive_save_and_load(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(), back;
	c.g = 2;
	c.bias = true;
	char text[16384];
	round_trip(&c, &back, text, sizeof text);
	assert_true(back.bias);
	assert_non_null(strstr(text, "\nbias 1\nlabels "));
	assert_non_null(strstr(text, "\nb_Q 1 16\n"));
	assert_non_null(strstr(text, "\nb_K 1 8\n"));
	assert_non_null(strstr(text, "\nb_O 1 16\n"));
}

/* A copy of the same shape keeps every bias; more heads keep the old heads' blocks. */
static void test_biases_follow_a_shape_change(void **state)
{
	(void)state;
	struct mha_config a = mha_config_default(), b = a; /* h 4, dk 4 */
	struct mha_weights wa, wb, wc;
	a.bias = b.bias = true;
	assert_int_equal(mha_weights_alloc(&wa, &a), MHA_OK);
	mha_biases_init(&wa, &a, 9);
	assert_int_equal(mha_weights_alloc(&wb, &b), MHA_OK);
	mha_weights_carry(&wb, &b, &wa, &a);
	for (int k = 0; k < MHA_BIASES; k++)
		assert_memory_equal(mha_bias(&wb, &b, k).p, mha_bias(&wa, &a, k).p,
		                    (size_t)mha_bias(&wa, &a, k).len * sizeof(float));
	struct mha_config c = a;
	c.h = c.g = 8; /* 8 heads of 4: the first 4 heads' blocks carried */
	assert_int_equal(mha_weights_alloc(&wc, &c), MHA_OK);
	mha_weights_carry(&wc, &c, &wa, &a);
	assert_memory_equal(wc.bq, wa.bq, 16 * sizeof(float));
	assert_memory_equal(wc.bo, wa.bo, 16 * sizeof(float));
	assert_true(wc.bq[16] == 0.0f);
	mha_weights_free(&wa);
	mha_weights_free(&wb);
	mha_weights_free(&wc);
}

static void test_no_mask_lines_when_none_is_set(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(), back;
	char text[8192];
	round_trip(&c, &back, text, sizeof text);
	assert_null(strstr(text, "pad"));
	assert_null(strstr(text, "window"));
	assert_null(strstr(text, "hidden"));
	assert_null(strstr(text, "bias"));
	assert_false(mha_mask_extra(&back));
}

static const char head[] =
	"mha-tui-session 1\ntokens 2\nd_model 1\nheads 1\nkv_heads 1\nd_k 1\ncausal 0\n"
	"top_k 0\nscale 1\nseed 7\nheads_off\n";
static const char tail[] =
	"labels a b\nX 2 1\n1\n2\nW_Q 1 1\n1\nW_K 1 1\n1\nW_V 1 1\n1\nW_O 1 1\n1\nend\n";

static int parse_with(const char *lines, struct mha_config *c, char *msg, size_t len)
{
	char text[1024];
	snprintf(text, sizeof text, "%s%s%s", head, lines, tail);
	struct mha_weights w;
	int rc = session_parse("s.txt", text, strlen(text), c, &w, msg, len);
	if (rc == 0)
		mha_weights_free(&w);
	return rc;
}

static void test_mask_lines_in_any_order_and_refused_when_wrong(void **state)
{
	(void)state;
	struct mha_config c;
	char msg[512];
	assert_int_equal(parse_with("hidden 1 0\npad 1\n", &c, msg, sizeof msg), 0);
	assert_int_equal(c.pad, 2);
	assert_true(c.hide[1] == 1);
	assert_int_equal(parse_with("pad 2\n", &c, msg, sizeof msg), -1);
	assert_string_equal(msg, "s.txt:12: pad: '2' is not a token: tokens are 0..1");
	assert_int_equal(parse_with("hidden 1\n", &c, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "s.txt:12: hidden: pairs"));
	assert_int_equal(parse_with("window 1 2\n", &c, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "s.txt:12: window"));
	assert_int_equal(parse_with("window x\n", &c, msg, sizeof msg), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masks_survive_save_and_load),
		cmocka_unit_test(test_biases_survive_save_and_load),
		cmocka_unit_test(test_biases_follow_a_shape_change),
		cmocka_unit_test(test_no_mask_lines_when_none_is_set),
		cmocka_unit_test(test_mask_lines_in_any_order_and_refused_when_wrong),
	};
	return cmocka_run_group_tests_name("session_masks", tests, tmpdir_make, tmpdir_remove);
}
