/*
 * test_head_writes.c - the W^O screen's heads adding into Y, on a virtual
 * screen at 80x24 and 200x60, colour and monochrome: head i's write C_i
 * (O_i times W^O's rows of head i) is shown beside Y with the values of
 * the circuits library's circ_bench (an implementation of its own, in
 * src/train); the proof line says the writes add up to Y, and stops saying
 * so when one head's write is perturbed; the status line on a cell of Y
 * names each head's share, which add up to the cell. The QK/OV view (W):
 * each head's W_QK and W_OV with circ_bench's rank "of d_k", norm and
 * singular values, following L and an edit.
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
#include "pipeline.h"
#include "tui_check.h"

/* The number after "|diff| " on the proof line (-1: no proof line). */
static double proof_diff(const char *screen)
{
	const char *p = strstr(screen, "Y = C");
	p = p ? strstr(p, "|diff| ") : NULL;
	return p ? strtod(p + strlen("|diff| "), NULL) : -1.0;
}

static void test_the_writes_add_up_to_y_and_a_perturbed_one_does_not(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "7");
	const int sizes[][2] = { { 24, 80 }, { 60, 200 } };
	for (int s = 0; s < 2; s++)
		for (int mono = 0; mono < 2; mono++) {
			const char *screen = tui_check_screen(app, sizes[s][0], sizes[s][1], mono);
			double d = proof_diff(screen);
			if (!strstr(screen, "Y = C") || d < 0 || d > 1e-5)
				fail_msg("at %dx%d the proof is missing or fails (%g):\n%s", sizes[s][1], sizes[s][0], d, screen);
			if (!strstr(screen, "W^O rows 0-3"))
				fail_msg("at %dx%d no C_0 panel:\n%s", sizes[s][1], sizes[s][0], screen);
		}
	/* head 1's write perturbed (its block of Concat, which Y was computed from) */
	app->a.concat[1 * app->cfg.dk + 2] += 0.5f;
	double d = proof_diff(tui_check_screen(app, 24, 80, false));
	if (d < 0.01)
		fail_msg("a perturbed head's write still proves the sum: |diff| %g", d);
	app_recompute(app);
	assert_true(proof_diff(tui_check_screen(app, 24, 80, false)) < 1e-5);
	tui_check_close(app);
}

/* The C_i panel's cells (drawn at 200x60, 3 decimals) are circ_bench's
 * write of head i, for every head (L moves the head). */
static void test_the_write_panel_shows_the_circuits_library_numbers(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "7");
	struct circ_bench b;
	assert_int_equal(circ_bench_make(&app->cfg, &app->w, &app->a, &b), MHA_OK);
	const int n = app->cfg.n, d = app->cfg.d;
	for (int i = 0; i < app->cfg.h; i++) {
		struct stage_view v;
		app_view(app, &v);
		assert_int_equal(v.count, 4);
		assert_true(v.p[3].write);
		assert_int_equal(v.p[3].write_head, i);
		for (int r = 0; r < n; r++)
			for (int c = 0; c < d; c++) {
				double want = b.write[((size_t)i * n + r) * d + c];
				double got = app_panel_value(app, &v.p[3], r, c);
				if (fabs(got - want) > 1e-5 * (1 + fabs(want)))
					fail_msg("C_%d[%d,%d]: screen %g, circ_bench %g", i, r, c, got, want);
			}
		/* the title names the head and its rows of W^O */
		const char *screen = tui_check_screen(app, 60, 200, true);
		char want[64];
		snprintf(want, sizeof want, "C_%d 6x16 = O_%d . W^O rows %d-%d", i, i, i * app->cfg.dk, (i + 1) * app->cfg.dk - 1);
		if (!strstr(screen, want))
			fail_msg("no '%s' on screen:\n%s", want, screen);
		tui_check_keys(app, "L");
	}
	circ_bench_free(&b);
	tui_check_close(app);
}

/* The status line on Y[r,c] reads "= C_0 a + C_1 b + ...": each share is
 * circ_bench's, and they add up to the cell. */
static void test_the_status_line_names_each_heads_share(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "7");
	struct stage_view v;
	app_view(app, &v);
	app->cur[app->stage] = (struct app_cursor){ 2, 3, 5 }; /* Y[3,5] */
	struct circ_bench b;
	assert_int_equal(circ_bench_make(&app->cfg, &app->w, &app->a, &b), MHA_OK);
	const char *screen = tui_check_screen(app, 60, 200, true);
	const char *line = strstr(screen, "Y[3 on, 5] = ");
	if (!line)
		fail_msg("no status line on Y[3,5]:\n%s", screen);
	double sum = 0.0;
	for (int i = 0; i < app->cfg.h; i++) {
		char name[16];
		snprintf(name, sizeof name, "C_%d ", i);
		const char *p = strstr(line, name);
		if (!p)
			fail_msg("the status line lacks %s: %.200s", name, line);
		double got = strtod(p + strlen(name), NULL);
		double want = b.write[((size_t)i * app->cfg.n + 3) * app->cfg.d + 5];
		if (fabs(got - want) > 1e-3 * (1 + fabs(want)))
			fail_msg("%s: status %g, circ_bench %g", name, got, want);
		sum += got;
	}
	double y = strtod(line + strlen("Y[3 on, 5] = "), NULL);
	assert_true(fabs(sum - y) < 1e-3 * (1 + fabs(y)));
	/* on C_1's cell: the cell of Y it is a share of */
	tui_check_keys(app, "L");
	app->cur[app->stage] = (struct app_cursor){ 3, 3, 5 };
	screen = tui_check_screen(app, 60, 200, true);
	if (!strstr(screen, "C_1[3 on, 5] = ") || !strstr(screen, " of Y[3,5] = "))
		fail_msg("no status line on C_1[3,5]:\n%s", screen);
	circ_bench_free(&b);
	tui_check_close(app);
}

/* The line of the screen holding a (NULL when none). */
static const char *line_of(const char *screen, const char *a)
{
	static char line[512];
	for (const char *p = screen; *p;) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, p);
		if (strstr(line, a))
			return line;
		p += len + (p[len] == '\n');
	}
	return NULL;
}

static void check_qkov(struct app *app, int rows, int cols, bool mono)
{
	struct circ_bench b;
	assert_int_equal(circ_bench_make(&app->cfg, &app->w, &app->a, &b), MHA_OK);
	const char *screen = tui_check_screen(app, rows, cols, mono);
	int i = app->head;
	const struct circ_rank *rk[2] = { &b.qk[i], &b.ov[i] };
	const char *what[2] = { "W_QK = W^Q_i (W^K_j)^T", "W_OV = W^V_j W^O_i" };
	for (int k = 0; k < 2; k++) {
		char want[128];
		snprintf(want, sizeof want, "%dx%d, rank %d of d_k %d, |.|_F %.3g; sv: %.3g", app->cfg.d, app->cfg.d,
		         rk[k]->rank, app->cfg.dk, rk[k]->norm, rk[k]->sv[0]);
		const char *l = line_of(screen, what[k]);
		if (!l || !strstr(l, want))
			fail_msg("%dx%d head %d: no '%s %s':\n%s", cols, rows, i, what[k], want, screen);
	}
	char head[32];
	snprintf(head, sizeof head, "Head %d (kv head", i);
	assert_non_null(line_of(screen, head));
	circ_bench_free(&b);
}

static void test_the_qkov_view_shows_each_heads_circuits(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "Q");
	assert_ptr_equal(app->mode, &qkov_view_mode);
	for (int i = 0; i < app->cfg.h; i++) {
		check_qkov(app, 24, 80, false);
		check_qkov(app, 60, 200, true);
		tui_check_keys(app, "L");
	}
	/* the wired head 0 reads at rank 2 (below d_k 4); an edit follows */
	assert_non_null(strstr(tui_check_screen(app, 24, 80, false), "rank 2 of d_k 4"));
	app->w.wq[0] += 3.0f;
	app_recompute(app);
	check_qkov(app, 24, 80, false);
	tui_check_keys(app, "Q");
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_qkov_view_shows_each_heads_circuits),
		cmocka_unit_test(test_the_writes_add_up_to_y_and_a_perturbed_one_does_not),
		cmocka_unit_test(test_the_write_panel_shows_the_circuits_library_numbers),
		cmocka_unit_test(test_the_status_line_names_each_heads_share),
	};
	return cmocka_run_group_tests_name("head writes", tests, NULL, NULL);
}
