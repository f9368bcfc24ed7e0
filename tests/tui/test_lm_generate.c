/*
 * test_lm_generate.c - the language model's generation page (g in its
 * view), in process, on a virtual screen at 80x24 and 200x60, colour and
 * monochrome. Every number it shows is checked against the model run
 * another way: the full forward (lm_forward) over every token so far, not
 * the decoder the page uses.
 * - Greedy: the text on screen is the full forward's argmax, token after
 *   token; the "next:" top 5 are the full forward's last row; each head's
 *   heaviest key and weight are row t of that layer's P in the full pass;
 *   the caches' rows, values and bytes and the FLOPs are the core's
 *   (mha_decode_cost over the layers).
 * - Sampled at a temperature with a seed: each token is the one the
 *   full forward's probabilities, sharpened by the temperature, give at
 *   the seed's uniform; the temperature and seed are on screen.
 * - A head switched off in the view reaches the generation.
 * - At the trained context (64 tokens) Right is refused with the reason.
 * - The model W opens is --model's (app->lm_model) when given.
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lm.h"
#include "mode.h"
#include "tui_check.h"

extern const struct mode_ops lm_view_mode, lm_gen_mode;

enum { TOP = 5 };
static const char *screen;

/* The app on the sentence (N), its view (W), then the page (g). */
static struct app *open_page(const char *sentence, const char *view_keys)
{
	struct app *app = tui_check_open_sentence_model(sentence);
	tui_check_keys(app, view_keys);
	tui_check_keys(app, "g");
	assert_ptr_equal(app->mode, &lm_gen_mode);
	return app;
}

struct ref {
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	struct lm_batch bt;
};

static void ref_open(struct ref *r)
{
	char path[4200], msg[4400];
	tui_check_source_path(path, sizeof path, "assets/lm.model");
	if (lm_model_load(&r->m, &r->v, &r->meta, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_int_equal(lm_batch_alloc(&r->bt, &r->m, 1, 1), MHA_OK);
}

static void ref_close(struct ref *r)
{
	lm_batch_free(&r->bt);
	train_model_free(&r->m);
	lm_vocab_free(&r->v);
}

/* The full forward over ids: probabilities of the last row. */
static const float *ref_last(struct ref *r, const int *ids, int n)
{
	int none[MHA_MAX_TOKENS];
	for (int i = 0; i < n; i++)
		none[i] = -1;
	struct lm_result res;
	lm_forward(&r->m, &r->bt, ids, none, 1, n, 1, &res);
	return r->bt.logits + (size_t)(n - 1) * r->m.s.classes;
}

/* The most probable token of p (V of them; ties: the lower id). */
static int argmax(const float *p, int V)
{
	int best = 0;
	for (int k = 1; k < V; k++)
		if (p[k] > p[best])
			best = k;
	return best;
}

static void prob_text(char *out, size_t len, double p)
{
	char v[16];
	snprintf(v, sizeof v, "%.3f", p);
	snprintf(out, len, "%s", p < 1.0 && v[0] == '0' ? v + 1 : v);
}

static void render(struct app *app, int rows, int cols, bool mono)
{
	screen = tui_check_screen(app, rows, cols, mono);
}

static const char *need(const char *a, const char *b)
{
	const char *line = tui_check_line_with(screen, a, b, NULL);
	if (!line)
		fail_msg("no line with \"%s\"%s%s on:\n%s", a, b ? " and " : "", b ? b : "", screen);
	return line;
}

/* What the page must show for the tokens ids[0..n): checked on screen. */
static void check_screen(struct app *app, struct ref *r, const int *ids, int n, int prompt)
{
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	const float *p = ref_last(r, ids, n);
	int top[TOP];
	float tp[TOP];
	lm_top_k(p, r->m.s.classes, TOP, top, tp);
	char text[2048] = "", next[512] = "", item[64];
	for (int t = 0; t < n; t++) {
		snprintf(item, sizeof item, t == n - 1 ? "[%s]" : "%s ", r->v.word[ids[t]]);
		strcat(text, item);
	}
	for (int k = 0; k < TOP; k++) {
		char ps[16];
		prob_text(ps, sizeof ps, tp[k]);
		snprintf(item, sizeof item, "%s %s  ", r->v.word[top[k]], ps);
		strcat(next, item);
	}
	next[strlen(next) - 2] = '\0';
	/* the cost, from the core's per-layer figures */
	int64_t step = 0, recompute = 0;
	for (int l = 0; l < r->m.s.layers; l++) {
		struct mha_config c = train_layer_config(&r->m, l);
		struct mha_decode_cost k = mha_decode_cost(&c, n - 1);
		step += k.step_flops;
		recompute += k.recompute_flops;
	}
	char flops[128], cache[128], rowtxt[64], head[128];
	snprintf(flops, sizeof flops, "%" PRId64, step);
	snprintf(cache, sizeof cache, "K, V: %d rows x 64 x 2 = ", n);
	snprintf(rowtxt, sizeof rowtxt, "= row %d of the full forward over all %d tokens", n - 1, n);
	/* layer 1 head 3's heaviest key in the full pass: row n-1 of its P */
	const float *P = r->bt.acts[1 * r->bt.cap_b].weights + ((size_t)3 * n + (n - 1)) * n;
	int best = argmax(P, n);
	char ps[16];
	prob_text(ps, sizeof ps, P[best]);
	snprintf(head, sizeof head, "L1H3 %d:%.8s %s", best, r->v.word[ids[best]], ps);
	for (int s = 0; s < 2; s++)
		for (int mono = 0; mono < 2; mono++) {
			render(app, sizes[s][0], sizes[s][1], mono);
			if (n <= 12)
				need("text:", text);
			char newest[64];
			snprintf(newest, sizeof newest, " [%s]", r->v.word[ids[n - 1]]);
			need(newest, NULL); /* the newest token is always in view */
			need(n < 64 ? "next" : "context is full", n < 64 ? next : NULL);
			need(head, NULL);
			need("cache L0", cache);
			need("cache L1", cache);
			char grouped[64];
			int64_t v = step;
			/* the FLOPs with thousands separators */
			char digits[32];
			snprintf(digits, sizeof digits, "%" PRId64, v);
			size_t o = 0, nd = strlen(digits);
			for (size_t i = 0; i < nd; i++) {
				if (i > 0 && (nd - i) % 3 == 0)
					grouped[o++] = ',';
				grouped[o++] = digits[i];
			}
			grouped[o] = '\0';
			need("this step, layers:", grouped);
			(void)recompute;
			need(rowtxt, NULL);
		}
	(void)prompt;
	(void)flops;
}

static void test_greedy_text_and_every_number_are_the_full_forwards(void **state)
{
	(void)state;
	struct ref r;
	ref_open(&r);
	const char *sentence = "the dog saw the cat and";
	struct app *app = open_page(sentence, "");
	int ids[MHA_MAX_TOKENS];
	int n = lm_encode(&r.v, sentence, ids, NULL, 64);
	check_screen(app, &r, ids, n, n);
	render(app, 24, 80, false);
	need("rule: greedy", NULL);
	for (int step = 0; step < 6; step++) {
		/* the full forward's most probable next token */
		ids[n] = argmax(ref_last(&r, ids, n), r.m.s.classes);
		n++;
		tui_check_keys(app, "l");
		check_screen(app, &r, ids, n, 6);
	}
	need("the most probable", NULL);
	/* Left: one back; 0: the prompt */
	tui_check_press(app, KEY_LEFT);
	check_screen(app, &r, ids, n - 1, 6);
	tui_check_keys(app, "0");
	check_screen(app, &r, ids, 6, 6);
	/* g goes back to the view */
	tui_check_keys(app, "g");
	assert_ptr_equal(app->mode, &lm_view_mode);
	tui_check_close(app);
	ref_close(&r);
}

static void test_sampling_follows_the_temperature_and_seed(void **state)
{
	(void)state;
	struct ref r;
	ref_open(&r);
	const char *sentence = "a dog is";
	struct app *app = open_page(sentence, "");
	tui_check_keys(app, "m++s"); /* sampled, temperature 1.0, seed 2 */
	render(app, 24, 80, true);
	need("rule: sampled at temperature 1.0, seed 2", NULL);
	int ids[MHA_MAX_TOKENS];
	int n = lm_encode(&r.v, sentence, ids, NULL, 64);
	int greedy_same = 0;
	for (int step = 0; step < 8; step++) {
		const float *p = ref_last(&r, ids, n);
		/* T = 1: the model's own distribution, cut at the seed's uniform */
		double u = lm_sample_uniform(2, n), acc = 0;
		int pick = r.m.s.classes - 1, best = argmax(p, r.m.s.classes);
		for (int k = 0; k < r.m.s.classes; k++) {
			acc += p[k];
			if (u < acc) {
				pick = k;
				break;
			}
		}
		greedy_same += pick == best;
		ids[n++] = pick;
		tui_check_keys(app, " ");
		check_screen(app, &r, ids, n, 3);
	}
	assert_true(greedy_same < 8); /* sampling is not greedy here */
	need("drawn at the temperature", NULL);
	tui_check_close(app);
	ref_close(&r);
}

static void test_a_head_off_reaches_generation_and_the_context_ends(void **state)
{
	(void)state;
	struct ref r;
	ref_open(&r);
	const char *sentence = "the dog saw the cat and";
	struct app *app = open_page(sentence, "x"); /* layer 0 head 0 off in the view */
	r.m.head_off[0][0] = true;
	render(app, 24, 80, true);
	need("L0H0 off", NULL);
	int ids[MHA_MAX_TOKENS];
	int n = lm_encode(&r.v, sentence, ids, NULL, 64);
	check_screen(app, &r, ids, n, n);
	while (n < 64) {
		ids[n] = argmax(ref_last(&r, ids, n), r.m.s.classes);
		n++;
		tui_check_keys(app, "l");
	}
	check_screen(app, &r, ids, 64, 6);
	tui_check_keys(app, "l");
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "trained on 64 tokens of context"));
	app->now_ms = app->status_until_ms + 1; /* the message gone: the page's own status line */
	render(app, 24, 80, true);
	need("generate: 64 of 64 tokens", NULL);
	tui_check_keys(app, "\033");
	assert_ptr_equal(app->mode, &lm_view_mode);
	tui_check_close(app);
	ref_close(&r);
}

/* --model FILE (app->lm_model) is the model W opens, not $MHA_TUI_MODEL's */
static void test_the_model_given_is_the_one_opened(void **state)
{
	(void)state;
	char model[4200];
	tui_check_source_path(model, sizeof model, "assets/lm.model");
	setenv("MHA_TUI_MODEL", "/nonexistent/lm.model", 1);
	struct app *app = tui_check_open(NULL);
	app->lm_model = model;
	tui_check_keys(app, "W");
	assert_ptr_equal(app->mode, &lm_view_mode);
	tui_check_close(app);
	setenv("MHA_TUI_MODEL", model, 1);
	app = tui_check_open(NULL);
	app->lm_model = "/nonexistent/given.model";
	tui_check_keys(app, "W");
	assert_ptr_not_equal(app->mode, &lm_view_mode);
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "/nonexistent/given.model"));
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_greedy_text_and_every_number_are_the_full_forwards),
		cmocka_unit_test(test_sampling_follows_the_temperature_and_seed),
		cmocka_unit_test(test_a_head_off_reaches_generation_and_the_context_ends),
		cmocka_unit_test(test_the_model_given_is_the_one_opened),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
