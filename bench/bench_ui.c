/*
 * bench_ui.c - the edit -> recompute -> draw loop of the workbench, timed
 * (bench_ui.h). It drives the same app, actions and drawing code as the
 * program, only with a virtual screen and no key reading; it does not
 * print anything.
 */
#include "bench_ui.h"

#include <curses.h>
#include <stdlib.h>
#include <time.h>

#include "app.h"
#include "frame.h"
#include "keys.h"
#include "modes.h"
#include "vscreen.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int bench_ui_measure(int n, int d, int h, int reps, double *median_ms, double *p90_ms)
{
	enum { SCREEN_ROWS = 50, SCREEN_COLS = 160 };
	char msg[MHA_MSG_MAX];
	struct mha_config c = mha_config_default();
	c.n = n;
	c.d = d;
	c.h = c.g = h;
	c.dk = h > 0 ? d / h : 0;
	if (reps < 1 || h < 1 || d % h != 0 || mha_config_check(&c, msg, sizeof msg) != MHA_OK)
		return -1;
	struct mha_weights w;
	if (mha_weights_alloc(&w, &c) != MHA_OK)
		return -1;
	mha_weights_init(&w, &c, c.seed);
	mha_weights_default_labels(&w, &c);
	struct app *app = calloc(1, sizeof *app);
	double *t = calloc((size_t)reps, sizeof *t);
	if (!app || !t || app_init(app, tui_modes, &c, &w, msg, sizeof msg) != 0) {
		if (!app || !t)
			mha_weights_free(&w);
		free(app);
		free(t);
		return -1;
	}
	if (vscreen_open(SCREEN_ROWS, SCREEN_COLS, "xterm-256color", false) != 0) {
		vscreen_close();
		app_free(app);
		free(app);
		free(t);
		return -1;
	}
	for (int i = 0; i < reps; i++) {
		double t0 = now_ms();
		/* the edit: nudge X[0][0] up, then back down, on the Projection stage */
		app->stage = PIPELINE_PROJECTION;
		unsigned f = app_key(app, i % 2 ? '-' : '+');
		if (f & APP_RECOMPUTE)
			app_recompute(app);
		/* the redraw: the stage with the most on screen */
		app->stage = PIPELINE_SOFTMAX;
		frame_draw(app, SCREEN_ROWS, SCREEN_COLS, NULL);
		wnoutrefresh(stdscr);
		doupdate();
		t[i] = now_ms() - t0;
	}
	qsort(t, (size_t)reps, sizeof *t, cmp_double);
	*median_ms = t[reps / 2];
	*p90_ms = t[(int)((double)(reps - 1) * 0.9)];
	vscreen_close();
	app_free(app);
	free(app);
	free(t);
	return 0;
}
