/*
 * marks.c - which cells the last edit changed: before an edit every
 * tensor's values are copied aside (app_snapshot), and for
 * APP_CHANGED_MS after it a cell whose value differs is marked on screen.
 * No drawing; the copy is the app's (app->prev).
 */
#include "marks.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"

/* Floats of every tensor, in table order: the size of the prev snapshot. */
static size_t all_floats(const struct mha_config *c)
{
	size_t total = 0;
	for (int t = 0; t < MHA_T_COUNT; t++) {
		struct mha_shape s = mha_tensor_shape(c, (enum mha_tensor)t);
		total += (size_t)s.count * s.rows * s.cols;
	}
	return total;
}

static size_t tensor_offset(const struct mha_config *c, enum mha_tensor t)
{
	size_t off = 0;
	for (int k = 0; k < (int)t; k++) {
		struct mha_shape s = mha_tensor_shape(c, (enum mha_tensor)k);
		off += (size_t)s.count * s.rows * s.cols;
	}
	return off;
}

/* Copy every tensor's values before an edit, so the cells it changes can
 * be marked after the recompute. */
void app_snapshot(struct app *app)
{
	size_t need = all_floats(&app->cfg);
	if (need != app->prev_len) {
		free(app->prev);
		app->prev = malloc(need * sizeof *app->prev);
		app->prev_len = app->prev ? need : 0;
	}
	if (!app->prev)
		return;
	float *dst = app->prev;
	for (int t = 0; t < MHA_T_COUNT; t++) {
		struct mha_shape s = mha_tensor_shape(&app->cfg, (enum mha_tensor)t);
		size_t len = (size_t)s.count * s.rows * s.cols;
		memcpy(dst, mha_tensor_data(&app->w, &app->a, (enum mha_tensor)t), len * sizeof *dst);
		dst += len;
	}
	app->changed_until_ms = app->now_ms + APP_CHANGED_MS;
}

bool app_cell_changed(const struct app *app, enum mha_tensor t, int m, int r, int c)
{
	if (!app->prev || app->now_ms >= app->changed_until_ms)
		return false;
	struct mha_shape s = mha_tensor_shape(&app->cfg, t);
	size_t i = ((size_t)m * s.rows + r) * s.cols + c;
	const float *now = mha_tensor_data(&app->w, &app->a, t);
	return app->prev[tensor_offset(&app->cfg, t) + i] != now[i];
}
