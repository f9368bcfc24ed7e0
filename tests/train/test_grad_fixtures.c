/*
 * test_grad_fixtures.c - the gradients of L = 1/2 sum(Y^2) against the
 * independent float64 ones of tools/gen_grad_fixtures.py (numpy, checked
 * there by finite differences), for each file in tests/fixtures/grad/:
 *  - mha_backward_half_square after mha_forward (the core);
 *  - the "grad" object that `--dump json --grad` prints (dump_json_grad),
 *    read back from its text.
 * Tolerance: 1e-5 of each gradient's largest magnitude (at least 1e-5).
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
#include "dump.h"
#include "grad.h"
#include "mha.h"

static const char *cases[] = {
	"mha", "gqa", "mqa", "causal", "topk", "topk_causal", "noscale", "head_off",
	"gqa_causal_topk_off", "one_token", "wide",
};

/* The file's names, in its order: inputs first, then the gradients. */
static const char *names[10] = { "X", "W_Q", "W_K", "W_V", "W_O", "dX", "dW_Q", "dW_K", "dW_V", "dW_O" };

struct gfix {
	struct mha_config c;
	struct mha_weights w;
	double *want[5]; /* dX .. dW_O */
	size_t len[5];
};

static void expect_word(FILE *f, const char *word)
{
	char buf[64];
	if (fscanf(f, " %63s", buf) != 1 || strcmp(buf, word) != 0)
		fail_msg("grad fixture: expected '%s'", word);
}

static int read_int(FILE *f)
{
	int v;
	if (fscanf(f, "%d", &v) != 1)
		fail_msg("grad fixture: expected a whole number");
	return v;
}

static void gfix_load(struct gfix *g, const char *name)
{
	char path[4096];
	const char *root = getenv("MHA_SOURCE_ROOT");
	if (!root)
		fail_msg("MHA_SOURCE_ROOT is not set: run under meson test");
	snprintf(path, sizeof path, "%s/tests/fixtures/grad/%s.txt", root, name);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	memset(g, 0, sizeof *g);
	int ch;
	while ((ch = getc(f)) == '#') /* comment lines */
		while ((ch = getc(f)) != '\n' && ch != EOF)
			;
	ungetc(ch, f);
	g->c = mha_config_default();
	const char *keys[] = { "n", "d", "h", "g", "dk", "causal", "top_k", "scale", "heads_off" };
	int v[9];
	expect_word(f, "config");
	for (int k = 0; k < 9; k++) {
		expect_word(f, keys[k]);
		v[k] = read_int(f);
	}
	g->c.n = v[0]; g->c.d = v[1]; g->c.h = v[2]; g->c.g = v[3]; g->c.dk = v[4];
	g->c.causal = v[5]; g->c.top_k = v[6]; g->c.scale = v[7];
	for (int k = 0; k < v[8]; k++)
		g->c.head_off[read_int(f)] = true;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&g->c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_weights_alloc(&g->w, &g->c), MHA_OK);
	mha_weights_default_labels(&g->w, &g->c);
	float *in[5] = { g->w.x, g->w.wq, g->w.wk, g->w.wv, g->w.wo };
	for (int m = 0; m < 10; m++) {
		expect_word(f, "matrix");
		expect_word(f, names[m]);
		int count = read_int(f), rows = read_int(f), cols = read_int(f);
		struct mha_shape s = mha_tensor_shape(&g->c, (enum mha_tensor)(MHA_T_X + m % 5));
		if (count != 1 || rows != s.rows || cols != s.cols)
			fail_msg("%s: %s is %dx%d in the fixture, %dx%d in the core", name, names[m], rows, cols,
			         s.rows, s.cols);
		size_t len = (size_t)rows * cols;
		if (m >= 5) {
			g->want[m - 5] = calloc(len ? len : 1, sizeof(double));
			g->len[m - 5] = len;
		}
		for (size_t e = 0; e < len; e++) {
			double x;
			if (fscanf(f, "%lf", &x) != 1)
				fail_msg("%s: %s ends early", name, names[m]);
			if (m < 5)
				in[m][e] = (float)x;
			else
				g->want[m - 5][e] = x;
		}
	}
	expect_word(f, "end");
	fclose(f);
}

/* Load a fixture, run the forward and the backward of 1/2 sum(Y^2). */
static void gfix_run(struct gfix *g, const char *name, struct mha_acts *a, struct mha_grads *gr)
{
	gfix_load(g, name);
	assert_int_equal(mha_acts_alloc(a, &g->c), MHA_OK);
	assert_int_equal(mha_grads_alloc(gr, &g->c), MHA_OK);
	mha_forward(&g->c, &g->w, a);
	mha_backward_half_square(&g->c, &g->w, a, gr);
}

static void gfix_free(struct gfix *g, struct mha_acts *a, struct mha_grads *gr)
{
	mha_grads_free(gr);
	mha_acts_free(a);
	for (int m = 0; m < 5; m++)
		free(g->want[m]);
	mha_weights_free(&g->w);
}

static double tol_of(const double *v, size_t n)
{
	double mx = 0;
	for (size_t i = 0; i < n; i++)
		mx = fmax(mx, fabs(v[i]));
	return 1e-5 * fmax(1.0, mx);
}

static void test_backward_matches_numpy_gradients(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct gfix g;
		struct mha_acts a;
		struct mha_grads gr;
		gfix_run(&g, cases[k], &a, &gr);
		const float *got[5] = { gr.x, gr.wq, gr.wk, gr.wv, gr.wo };
		for (int m = 0; m < 5; m++) {
			char label[96];
			snprintf(label, sizeof label, "%s %s", cases[k], names[m + 5]);
			check_close_d(got[m], g.want[m], g.len[m], tol_of(g.want[m], g.len[m]), label);
		}
		gfix_free(&g, &a, &gr);
	}
}

/* The numbers after `"KEY": ` inside the "grad" object, in order. */
static void read_dump_matrix(const char *grad, const char *key, float *out, size_t len)
{
	char pat[32];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(grad, pat);
	if (!p)
		fail_msg("grad object has no key %s", key);
	p += strlen(pat);
	for (size_t e = 0; e < len; e++) {
		while (*p == '[' || *p == ',' || *p == ' ' || *p == '\n' || *p == ']')
			p++;
		char *end;
		out[e] = strtof(p, &end);
		if (end == p)
			fail_msg("grad %s: element %zu is not a number", key, e);
		p = end;
	}
}

static void test_dump_grad_object_holds_the_gradients(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct gfix g;
		struct mha_acts a;
		struct mha_grads gr;
		gfix_run(&g, cases[k], &a, &gr);
		/* the dump prints a stack's forward and gradients: one layer here */
		struct mha_stack s;
		struct mha_stack_grads sg;
		assert_int_equal(mha_stack_alloc(&s, &g.c), MHA_OK);
		assert_int_equal(mha_stack_grads_alloc(&sg, &g.c), MHA_OK);
		mha_stack_forward(&g.c, &g.w, &s);
		mha_stack_backward_half_square(&g.c, &g.w, &s, &sg);
		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);
		assert_int_equal(dump_json_grad(f, &g.c, &g.w, &s, &sg), 0);
		fclose(f);
		mha_stack_grads_free(&sg);
		mha_stack_free(&s);
		const char *grad = strstr(text, "\"grad\": {");
		assert_non_null(grad);
		/* the grad object is the dump's last key */
		assert_string_equal(text + size - 3, "}}\n");
		for (int m = 0; m < 5; m++) {
			float *got = calloc(g.len[m] ? g.len[m] : 1, sizeof(float));
			read_dump_matrix(grad, names[m], got, g.len[m]);
			char label[96];
			snprintf(label, sizeof label, "dump %s %s", cases[k], names[m]);
			check_close_d(got, g.want[m], g.len[m], tol_of(g.want[m], g.len[m]), label);
			free(got);
		}
		free(text);
		gfix_free(&g, &a, &gr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backward_matches_numpy_gradients),
		cmocka_unit_test(test_dump_grad_object_holds_the_gradients),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
