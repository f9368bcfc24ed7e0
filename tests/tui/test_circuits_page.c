/*
 * test_circuits_page.c - the training screen's circuits page (k), on the
 * trained induction model of tests/fixtures/circuits/induction.model put
 * into the training screen's model: every page drawn at 80x24 and 200x60,
 * colour and monochrome, with the numbers of a circ_report made here from
 * the same model (the library's, held to numpy by test_circuits_fixtures):
 * the heads' copying and prefix matching and the induction call, the
 * circuit page's ranks "of d_k 16 (not 32)", the composition table and its
 * baseline, the path ablation, the patching's named path (K), the lens at
 * the default position and after moving it; each page's legend; k goes
 * back. The model changed (a head switched off) makes the page new.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "circuits.h"
#include "train.h"
#include "train_view.h"
#include "train_view_int.h"
#include "tui_check.h"

static const char *screen;

/* The line holding a and b (NULL when none). */
static const char *line_with(const char *a, const char *b)
{
	return tui_check_line_with(screen, a, b, NULL);
}

static void want(const char *a, const char *b, const char *where)
{
	if (!line_with(a, b))
		fail_msg("%s: no line with '%s'%s%s:\n%s", where, a, b ? " and " : "", b ? b : "", screen);
}

/* The app on the training screen with the fixture's trained model in it. */
static struct app *open_trained(void)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G");
	assert_ptr_equal(app->mode, &train_mode);
	struct train_view *v = mode_state(app, &train_mode);
	char path[1024], msg[MHA_MSG_MAX];
	const char *root = getenv("MHA_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/fixtures/circuits/induction.model", root ? root : ".");
	struct train_model m;
	const struct train_task *t;
	if (train_model_load(&m, &t, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_ptr_equal(t, v->task);
	assert_int_equal(m.nparams, v->m.nparams);
	memcpy(v->m.params, m.params, m.nparams * sizeof *m.params);
	train_model_free(&m);
	return app;
}

static void test_every_page_shows_the_librarys_numbers(void **state)
{
	(void)state;
	struct app *app = open_trained();
	const struct train_view *v = train_view_now(app);
	struct circ_report r;
	char msg[MHA_MSG_MAX], a[96], b[96];
	assert_int_equal(circ_report_make(&r, &v->m, v->task, NULL, msg, sizeof msg), MHA_OK);
	tui_check_keys(app, "k");
	assert_ptr_equal(app->mode, &train_circuits_mode);
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	for (int s = 0; s < 2; s++)
		for (int mono = 0; mono < 2; mono++) {
			char where[64];
			snprintf(where, sizeof where, "%dx%d%s", sizes[s][1], sizes[s][0], mono ? " mono" : "");
			tui_check_keys(app, "1");
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			for (int k = 0; k < 4; k++) {
				const struct circ_head *hd = &r.heads[k];
				snprintf(a, sizeof a, "L%dH%d  %d %d %+6.3f", k / 2, k % 2, hd->qk.rank, hd->ov.rank, hd->copying);
				snprintf(b, sizeof b, "%4.2f %4.2f", hd->prefix[0], hd->prefix[1]);
				want(a, b, where);
				if (hd->induction != (line_with(a, "induction") != NULL))
					fail_msg("%s: L%dH%d's call is not the library's:\n%s", where, k / 2, k % 2, screen);
			}
			assert_true(r.heads[2].induction && r.heads[3].induction && !r.heads[0].induction);
			want("copy: copying score", NULL, where);
			want("induction: prefix matching", NULL, where);

			tui_check_keys(app, "2"); /* L0H0's circuits */
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			snprintf(a, sizeof a, "rank %d of d_k 16 (not 32), |.|_F %.3f", r.heads[0].qk.rank, r.heads[0].qk.norm);
			want("W_QK = Q_i K_i^T  32x32", a, where);
			snprintf(a, sizeof a, "rank %d of d_k 16 (not 32), |.|_F %.3f", r.heads[0].ov.rank, r.heads[0].ov.norm);
			want("W_OV = V_i O_i  32x32", a, where);
			want("E: embeddings, P: position embeddings, U: read-out", NULL, where);

			tui_check_keys(app, "3");
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			const struct circ_composition *c = &r.comp[0];
			snprintf(a, sizeof a, "K %.3f+-%.3f", c->baseline.mean[CIRC_K], c->baseline.sd[CIRC_K]);
			want("random heads (256 draws)", a, where);
			snprintf(a, sizeof a, "L0H1 L1H0   %.3f   %.3f+", c->score[CIRC_Q][1 * 2 + 0], c->score[CIRC_K][1 * 2 + 0]);
			want(a, NULL, where);
			want("+: above random by more than 2 sd", NULL, where);

			tui_check_keys(app, "4");
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			const struct train_stats *pk = &r.ablation.path[((1) * CIRC_INPUTS + CIRC_K) * CIRC_ABLATIONS];
			snprintf(a, sizeof a, "%.3f  %.3f  %.3f", pk[0].accuracy, pk[1].accuracy, pk[2].accuracy);
			want("L0H1 -> L1 through K", a, where);
			want("resample: its value on another sequence", NULL, where);

			tui_check_keys(app, "5");
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			snprintf(a, sizeof a, "(%.3f of the clean answer back)", r.patching.named_restored);
			want("the path: L0H1 -> layer 1 through K", a, where);
			snprintf(a, sizeof a, "L0H1 %+.3f", r.patching.head[1].restored);
			want("head's clean output restores:", a, where);

			tui_check_keys(app, "6");
			screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			snprintf(a, sizeof a, "logit lens at position %d (token %d, answer %d)", r.lens.position,
			         r.lens.tokens[r.lens.position], r.lens.target);
			want(a, NULL, where);
			snprintf(a, sizeof a, "%8.3f %4d", r.lens.resid[2].target_logit, r.lens.resid[2].target_rank);
			want("after layer 1", a, where);
			snprintf(a, sizeof a, "%8.3f %4d", r.lens.head[2].target_logit, r.lens.head[2].target_rank);
			want("L1H0's write", a, where);
		}
	/* the lens a position earlier: the library's lens there */
	int pos = r.lens.position - 1;
	circ_report_free(&r);
	tui_check_keys(app, ",");
	struct circ_options o = CIRC_OPTIONS_DEFAULT;
	o.position = pos;
	assert_int_equal(circ_report_make(&r, &v->m, v->task, &o, msg, sizeof msg), MHA_OK);
	screen = tui_check_screen(app, 24, 80, false);
	snprintf(a, sizeof a, "logit lens at position %d (token %d", pos, r.lens.tokens[pos]);
	want(a, NULL, "after ,");
	snprintf(a, sizeof a, "%4d", r.lens.resid[2].target_rank);
	want("after layer 1", r.lens.target >= 0 ? a : "-", "after ,");
	circ_report_free(&r);
	tui_check_keys(app, "k");
	assert_ptr_equal(app->mode, &train_mode);
	tui_check_close(app);
}

/* A head switched off on the training screen: the page is made again,
 * and says so (its row starred, its path gone from the patching). */
static void test_a_changed_model_is_measured_again(void **state)
{
	(void)state;
	struct app *app = open_trained();
	tui_check_keys(app, "k1");
	screen = tui_check_screen(app, 24, 80, true);
	want("L0H1  16 16", NULL, "before");
	tui_check_keys(app, "k");   /* back */
	tui_check_keys(app, "hx");  /* L0H1 off */
	tui_check_keys(app, "k1");
	screen = tui_check_screen(app, 24, 80, true);
	want("L0H1* 16 16", NULL, "after x");
	tui_check_keys(app, "5");
	screen = tui_check_screen(app, 24, 80, true);
	if (line_with("the path: L0H1", NULL))
		fail_msg("a head switched off is still named as the path:\n%s", screen);
	tui_check_close(app);
}

/* An untrained model: patching's restored is undefined (clean and corrupt
 * hardly differ), and no page prints nan or inf (the monkey found "nan"). */
static void test_an_untrained_model_shows_no_nan(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "Gxhxhxhxk"); /* every head off: clean and corrupt runs alike */
	assert_ptr_equal(app->mode, &train_circuits_mode);
	for (int k = 0; k < 6; k++) {
		char key[2] = { (char)('1' + k), 0 };
		tui_check_keys(app, key);
		screen = tui_check_screen(app, 24, 80, true);
		if (strstr(screen, "nan") || strstr(screen, "inf"))
			fail_msg("page %d prints nan or inf:\n%s", k + 1, screen);
		if (k == 4)
			want("clean and corrupt answers hardly differ yet", NULL, "page 5");
	}
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_untrained_model_shows_no_nan),
		cmocka_unit_test(test_every_page_shows_the_librarys_numbers),
		cmocka_unit_test(test_a_changed_model_is_measured_again),
	};
	return cmocka_run_group_tests_name("circuits page", tests, NULL, NULL);
}
