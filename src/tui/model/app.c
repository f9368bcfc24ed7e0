/*
 * app.c - the workbench's model operations: edit a cell, change the
 * configuration (keeping what fits), draw new inputs, undo. Each
 * records what it needs to be undone and says, in APP_* flags, what the
 * loop must redo. No curses here, and no attention arithmetic: the core's
 * stack forward computes everything, every layer; only the Reshape proof multiplies X by one block of
 * W here, because showing that product done a second way is its point.
 * Saving and autosaving are save.c; the marks of changed cells, marks.c.
 */
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"
#include "notation.h"
#include "theme.h"

bool app_same_shape(const struct mha_config *a, const struct mha_config *b)
{
	/* and the same second sequence and layers: X_kv's rows, the stack's */
	int la = a->layers > 1 ? a->layers : 1, lb = b->layers > 1 ? b->layers : 1;
	return a->n == b->n && a->d == b->d && a->h == b->h && a->g == b->g && a->dk == b->dk && a->m == b->m &&
	       la == lb;
}

static int copy_weights(struct mha_weights *dst, const struct mha_weights *src, const struct mha_config *c)
{
	if (mha_weights_alloc(dst, c) != MHA_OK)
		return -1;
	mha_weights_carry(dst, c, src, c); /* same shape: every cell and label */
	return 0;
}

int app_init(struct app *app, const struct mode_ops *const *modes, const struct mha_config *cfg,
             struct mha_weights *w, char *msg, size_t len)
{
	memset(app, 0, sizeof *app);
	app->modes = modes;
	app->mode = app->mode_back = modes[0];
	app->cfg = *cfg;
	app->w = *w;
	memset(w, 0, sizeof *w);
	if (mha_stack_alloc(&app->stack, &app->cfg) != MHA_OK) {
		snprintf(msg, len, "out of memory for the activations");
		mha_weights_free(&app->w);
		return -1;
	}
	app->a = app->stack.layer[0];
	app->stage = PIPELINE_PROJECTION;
	/* Softmax's cursor starts on P, the stage's result: where room is
	 * short S (the stage before's) gives way, and the cursor's matrix must
	 * be the one on screen, as the heatmap readout's is */
	app->cur[PIPELINE_SOFTMAX].panel = 1;
	app->forward = mha_stack_forward;
	app_recompute(app);
	return 0;
}

static void undo_entry_free(struct undo_entry *e)
{
	if (e->kind == UNDO_ALL)
		mha_weights_free(&e->w);
	memset(e, 0, sizeof *e);
}

static void undo_clear(struct undo_entry *undo, int *top, int *count)
{
	while (*count > 0) {
		*top = (*top + APP_UNDO_MAX - 1) % APP_UNDO_MAX;
		undo_entry_free(&undo[*top]);
		(*count)--;
	}
	*top = 0;
}

void app_free(struct app *app)
{
	app_autosave_wait(app);
	if (app->learn.release)
		app->learn.release(app);
	mode_free_all(app);
	undo_clear(app->undo, &app->undo_top, &app->undo_count);
	mha_stack_free(&app->stack);
	mha_weights_free(&app->w);
	free(app->prev);
	app->prev = NULL;
}

/* The new stack of activations (shape changed): the old one freed, the
 * viewed layer kept where it still exists. */
static void stack_take(struct app *app, struct mha_stack *ns)
{
	mha_stack_free(&app->stack);
	app->stack = *ns;
	if (app->layer >= app->stack.layers)
		app->layer = app->stack.layers - 1;
	app->a = app->stack.layer[app->layer];
}

unsigned app_layer_set(struct app *app, int layer)
{
	int layers = app->stack.layers > 0 ? app->stack.layers : 1;
	int to = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
	if (to == app->layer)
		return 0;
	app->layer = to;
	app->a = app->stack.layer[to];
	app_clamp(app);
	return APP_REDRAW;
}

float *app_tensor(const struct app *app, enum mha_tensor t)
{
	return mha_tensor_data_layer(&app->w, &app->a, app->layer, t);
}

void app_recompute(struct app *app)
{
	app->forward(&app->cfg, &app->w, &app->stack);
	app->a = app->stack.layer[app->layer];
	if (!app->learn.active)
		app->save.session_dirty = true; /* the learner's bench changed: the next save writes */
	mode_recompute(app); /* the views' own numbers follow the inputs (FlashAttention's tiles) */
	if (app->learn.evaluate)
		app->learn.evaluate(app); /* a lesson's goal is checked after every edit */
}

/* ---- benches ---- */

static void swap_bytes(void *a, void *b, size_t n)
{
	unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++) {
		unsigned char t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

void app_bench_swap(struct app *app, struct bench *b)
{
	if (!app->learn.active)
		app_autosave_idle(app, true); /* what it owes is the free bench's, leaving now */
	swap_bytes(&app->bench, b, sizeof *b);
}

void app_bench_free(struct bench *b)
{
	undo_clear(b->undo, &b->undo_top, &b->undo_count);
	mha_stack_free(&b->stack);
	mha_weights_free(&b->w);
	free(b->prev);
	memset(b, 0, sizeof *b);
}

int app_bench_reset(struct app *app, const struct mha_config *cfg, struct mha_weights *w,
                    char *msg, size_t len)
{
	struct mha_stack ns;
	if (mha_stack_alloc(&ns, cfg) != MHA_OK) {
		snprintf(msg, len, "out of memory for the activations");
		mha_weights_free(w);
		return -1;
	}
	undo_clear(app->undo, &app->undo_top, &app->undo_count);
	app->layer = 0;
	stack_take(app, &ns);
	mha_weights_free(&app->w);
	app->w = *w;
	memset(w, 0, sizeof *w);
	app->cfg = *cfg;
	app->changed_until_ms = 0;
	app_clamp(app);
	return 0;
}

int app_copy_weights(const struct app *app, struct mha_weights *out)
{
	return copy_weights(out, &app->w, &app->cfg);
}

void app_message(struct app *app, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->status, sizeof app->status, fmt, ap);
	va_end(ap);
	if (!theme_utf8()) /* a lesson's words may hold cells: P\u2080 reads P_0 */
		notation_ascii(app->status);
	app->status_error = error;
	app->status_until_ms = app->now_ms + APP_STATUS_MS;
}

void app_view(const struct app *app, struct stage_view *v)
{
	stage_view_layer(app->stage, &app->cfg, app->layer, app->head, app->proj, v);
}

void app_clamp(struct app *app)
{
	if (app->head >= app->cfg.h)
		app->head = app->cfg.h - 1;
	if (app->head < 0)
		app->head = 0;
	struct stage_view v;
	app_view(app, &v);
	struct app_cursor *cu = &app->cur[app->stage];
	if (cu->panel >= v.count)
		cu->panel = v.count - 1;
	if (cu->panel < 0)
		cu->panel = 0;
	const struct panel *p = &v.p[cu->panel];
	if (cu->row >= p->rows)
		cu->row = p->rows - 1;
	if (cu->col >= p->cols)
		cu->col = p->cols - 1;
	if (cu->row < 0)
		cu->row = 0;
	if (cu->col < 0)
		cu->col = 0;
}

bool app_cursor_cell(const struct app *app, struct cell *out, const struct panel **panel,
                     struct stage_view *v)
{
	app_view(app, v);
	return app_view_cursor(app, v, out, panel);
}

bool app_view_cursor(const struct app *app, const struct stage_view *v, struct cell *out,
                     const struct panel **panel)
{
	const struct app_cursor *cu = &app->cur[app->stage];
	if (v->count == 0 || cu->panel >= v->count)
		return false;
	const struct panel *p = &v->p[cu->panel];
	*out = (struct cell){ p->t, p->m, cu->row, p->col0 + cu->col };
	if (panel)
		*panel = p;
	return true;
}

float app_panel_value(const struct app *app, const struct panel *p, int r, int c)
{
	const struct mha_config *cf = &app->cfg;
	if (p->proof) /* the head block computed again from the layer's input */
		return (float)pipeline_projection_again_layer(cf, &app->w, &app->a, app->layer, p->t, r,
		                                              p->col0 + c);
	if (p->write) /* head i's write into Y: its block of Concat times its rows of W^O */
		return (float)pipeline_head_write(cf, &app->w, &app->a, app->layer, p->write_head, r, p->col0 + c);
	struct mha_shape s = mha_tensor_shape(cf, p->t);
	const float *m = app_tensor(app, p->t);
	return m[((size_t)p->m * s.rows + r) * s.cols + p->col0 + c];
}

/* ---- undo ---- */

static struct undo_entry *undo_push(struct app *app)
{
	struct undo_entry *e = &app->undo[app->undo_top];
	if (app->undo_count == APP_UNDO_MAX)
		undo_entry_free(e); /* the oldest level goes */
	else
		app->undo_count++;
	app->undo_top = (app->undo_top + 1) % APP_UNDO_MAX;
	memset(e, 0, sizeof *e);
	return e;
}

/* Bytes of the inputs (X, X_kv, P_pos, every layer's W^Q .. W^O) of
 * configuration c. */
static size_t inputs_bytes(const struct mha_config *c)
{
	size_t total = 0;
	for (int t = 0; t < MHA_T_COUNT; t++)
		if (mha_tensor_info((enum mha_tensor)t)->input) {
			struct mha_shape s = mha_tensor_shape(c, (enum mha_tensor)t);
			bool per_layer = t == MHA_T_WQ || t == MHA_T_WK || t == MHA_T_WV || t == MHA_T_WO;
			total += (size_t)s.count * s.rows * s.cols * sizeof(float) *
			         (per_layer && c->layers > 1 ? (size_t)c->layers : 1);
		}
	return total;
}

/* After an UNDO_ALL level is pushed: the oldest levels go while the
 * inputs they hold pass APP_UNDO_BYTES (the newest always stays). */
static void undo_trim(struct app *app)
{
	size_t total = 0;
	for (int i = 0; i < app->undo_count; i++) {
		const struct undo_entry *e = &app->undo[(app->undo_top - 1 - i + 2 * APP_UNDO_MAX) % APP_UNDO_MAX];
		if (e->kind == UNDO_ALL)
			total += inputs_bytes(&e->cfg);
	}
	while (total > (size_t)APP_UNDO_BYTES && app->undo_count > 1) {
		struct undo_entry *e = &app->undo[(app->undo_top - app->undo_count + APP_UNDO_MAX) % APP_UNDO_MAX];
		if (e->kind == UNDO_ALL)
			total -= inputs_bytes(&e->cfg);
		undo_entry_free(e);
		app->undo_count--;
	}
}

bool app_cursor_input(const struct app *app, struct cell *out)
{
	struct stage_view v;
	const struct panel *p;
	return app_cursor_cell(app, out, &p, &v) && mha_tensor_info(out->t)->input && !p->proof;
}

bool app_cursor_editable(struct app *app, struct cell *out)
{
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	if (!app_cursor_cell(app, &c, &p, &v))
		return false;
	if (mha_tensor_info(c.t)->input && !p->proof) {
		if (out)
			*out = c;
		return true;
	}
	/* within 80 columns: the formula names the matrix */
	app_message(app, true, "%s is computed: edit X or W^Q/K/V/O (%s: next matrix)", mha_tensor_info(c.t)->formula,
	            mode_key_name(app, "matrix-next"));
	return false;
}

unsigned app_set_cell(struct app *app, float v)
{
	struct cell cell;
	if (!app_cursor_input(app, &cell))
		return APP_REDRAW;
	return app_set_input(app, &cell, v);
}

unsigned app_set_input(struct app *app, const struct cell *c, float v)
{
	const struct cell cell = *c;
	struct mha_shape s = mha_tensor_shape(&app->cfg, cell.t);
	float *m = mha_tensor_data_layer(&app->w, NULL, app->layer, cell.t);
	size_t i = (size_t)cell.r * s.cols + cell.c;
	if (m[i] == v)
		return APP_REDRAW;
	struct undo_entry *e = undo_push(app);
	e->kind = UNDO_CELL;
	e->t = cell.t;
	e->layer = app->layer;
	e->index = i;
	e->old = m[i];
	app_snapshot(app);
	m[i] = v;
	return APP_RECOMPUTE | APP_REDRAW;
}

/* Swap in a new configuration and inputs; the old ones go to an undo level. */
static unsigned replace_all(struct app *app, const struct mha_config *next, struct mha_weights *nw)
{
	struct mha_stack ns;
	if (mha_stack_alloc(&ns, next) != MHA_OK) {
		mha_weights_free(nw);
		app_message(app, true, "out of memory for that configuration; nothing changed");
		return APP_REDRAW;
	}
	struct undo_entry *e = undo_push(app);
	e->kind = UNDO_ALL;
	e->cfg = app->cfg;
	e->w = app->w;
	undo_trim(app);
	stack_take(app, &ns);
	app->w = *nw;
	app->cfg = *next;
	app->changed_until_ms = 0; /* another shape: no marks */
	app_clamp(app);
	return APP_RECOMPUTE | APP_REDRAW;
}

unsigned app_replace(struct app *app, const struct mha_config *cfg, struct mha_weights *w)
{
	return replace_all(app, cfg, w);
}

unsigned app_change_config(struct app *app, const struct mha_config *next_in, const char *what)
{
	char msg[MHA_MSG_MAX];
	struct mha_config next = *next_in;
	for (int i = next.h; i < MHA_MAX_HEADS; i++)
		next.head_off[i] = false;
	if (mha_config_check(&next, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "not changed: %s", msg);
		return APP_REDRAW;
	}
	if (app_same_shape(&next, &app->cfg)) {
		struct undo_entry *e = undo_push(app);
		e->kind = UNDO_CONFIG;
		e->cfg = app->cfg;
		app_snapshot(app);
		app->cfg = next;
		app_message(app, false, "%s", what);
		return APP_RECOMPUTE | APP_REDRAW;
	}
	/* keep what fits: the new shape drawn from the same seed, then every
	 * cell that exists in both shapes carried over (mha_weights_carry) */
	struct mha_weights nw;
	if (mha_weights_alloc(&nw, &next) != MHA_OK) {
		app_message(app, true, "out of memory for that configuration; nothing changed");
		return APP_REDRAW;
	}
	mha_weights_init(&nw, &next, app->cfg.seed);
	mha_weights_default_labels(&nw, &next);
	mha_weights_carry(&nw, &next, &app->w, &app->cfg);
	unsigned f = replace_all(app, &next, &nw);
	if (f & APP_RECOMPUTE)
		app_message(app, false, "%s", what);
	return f;
}

unsigned app_reseed(struct app *app, unsigned long long seed, const char *what)
{
	struct mha_weights nw;
	if (copy_weights(&nw, &app->w, &app->cfg) != 0) {
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	struct undo_entry *e = undo_push(app);
	e->kind = UNDO_ALL;
	e->cfg = app->cfg;
	e->w = nw; /* the copy is the undo level; the inputs are redrawn in place */
	undo_trim(app);
	app_snapshot(app);
	mha_weights_init(&app->w, &app->cfg, seed);
	app_message(app, false, "%s", what);
	return APP_RECOMPUTE | APP_REDRAW;
}

unsigned app_undo(struct app *app)
{
	if (app->undo_count == 0) {
		app_message(app, false, "nothing to undo");
		return APP_REDRAW;
	}
	app->undo_top = (app->undo_top + APP_UNDO_MAX - 1) % APP_UNDO_MAX;
	app->undo_count--;
	struct undo_entry *e = &app->undo[app->undo_top];
	switch (e->kind) {
	case UNDO_CELL:
		app_snapshot(app);
		mha_tensor_data_layer(&app->w, NULL, e->layer, e->t)[e->index] = e->old;
		if (app->cfg.layers > 1)
			app_message(app, false, "undone: %s cell of layer %d restored", mha_tensor_info(e->t)->name,
			            e->layer);
		else
			app_message(app, false, "undone: %s cell restored", mha_tensor_info(e->t)->name);
		break;
	case UNDO_CONFIG:
		app_snapshot(app);
		app->cfg = e->cfg;
		app_message(app, false, "undone: setting restored");
		break;
	case UNDO_ALL:
		if (app_same_shape(&e->cfg, &app->cfg)) {
			app_snapshot(app);
			mha_weights_free(&app->w);
			app->w = e->w;
			app->cfg = e->cfg;
		} else {
			struct mha_stack ns;
			if (mha_stack_alloc(&ns, &e->cfg) != MHA_OK) {
				app->undo_top = (app->undo_top + 1) % APP_UNDO_MAX;
				app->undo_count++;
				app_message(app, true, "out of memory: cannot undo");
				return APP_REDRAW;
			}
			stack_take(app, &ns);
			mha_weights_free(&app->w);
			app->w = e->w;
			app->cfg = e->cfg;
			app->changed_until_ms = 0; /* another shape: no marks */
		}
		memset(&e->w, 0, sizeof e->w);
		app_message(app, false, "undone: inputs and shape restored");
		break;
	}
	memset(e, 0, sizeof *e);
	app_clamp(app);
	return APP_RECOMPUTE | APP_REDRAW;
}

unsigned app_scale_cells(struct app *app, enum mha_tensor t, int r0, int r1, int c0, int c1,
                         float f, bool set, const char *what)
{
	struct mha_shape s = mha_tensor_shape(&app->cfg, t);
	const float *m = mha_tensor_data_layer(&app->w, NULL, app->layer, t);
	for (int r = r0; r < r1 && !set; r++)
		for (int c = c0; c < c1; c++) {
			double v = (double)m[(size_t)r * s.cols + c] * f;
			if (v > MHA_VALUE_MAX || v < -MHA_VALUE_MAX) {
				app_message(app, true, "not changed: %s would pass +-1e6", what);
				return APP_REDRAW;
			}
		}
	struct mha_weights nw;
	if (copy_weights(&nw, &app->w, &app->cfg) != 0) {
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	float *n = mha_tensor_data_layer(&nw, NULL, app->layer, t);
	for (int r = r0; r < r1; r++)
		for (int c = c0; c < c1; c++)
			n[(size_t)r * s.cols + c] = set ? f : n[(size_t)r * s.cols + c] * f;
	struct mha_config cfg = app->cfg;
	app_snapshot(app); /* the cells it changes are marked, as for one edit */
	long long until = app->changed_until_ms;
	unsigned fl = replace_all(app, &cfg, &nw);
	app->changed_until_ms = until; /* same shape: the marks still match */
	if (fl & APP_RECOMPUTE)
		app_message(app, false, "%s; everything downstream recomputed (%s undoes)", what,
		            mode_key_name(app, "undo"));
	return fl;
}
