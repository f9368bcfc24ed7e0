/*
 * marks.c - which cells the last edit changed: before an edit every
 * tensor's values of every layer are copied aside (app_snapshot: an edit
 * in layer 0 marks what it moved in layer 1 too), and for
 * APP_CHANGED_MS after it a cell whose value differs is marked on screen.
 * No drawing; the copy is the app's (app->prev).
 */
#include "marks.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"

/* Floats of every tensor of one layer, in table order: prev holds one
 * such block per layer. */
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
	int layers = app->stack.layers > 0 ? app->stack.layers : 1;
	size_t need = all_floats(&app->cfg) * (size_t)layers;
	if (need != app->prev_len) {
		free(app->prev);
		app->prev = malloc(need * sizeof *app->prev);
		app->prev_len = app->prev ? need : 0;
	}
	if (!app->prev)
		return;
	float *dst = app->prev;
	for (int l = 0; l < layers; l++)
		for (int t = 0; t < MHA_T_COUNT; t++) {
			struct mha_shape s = mha_tensor_shape(&app->cfg, (enum mha_tensor)t);
			size_t len = (size_t)s.count * s.rows * s.cols;
			const float *src = mha_tensor_data_layer(&app->w, &app->stack.layer[l], l, (enum mha_tensor)t);
			if (len > 0 && src)
				memcpy(dst, src, len * sizeof *dst);
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
	const float *now = app_tensor(app, t);
	size_t base = all_floats(&app->cfg) * (size_t)app->layer;
	if (!now || base + tensor_offset(&app->cfg, t) + i >= app->prev_len)
		return false;
	return app->prev[base + tensor_offset(&app->cfg, t) + i] != now[i];
}
