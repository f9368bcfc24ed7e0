/*
 * mode.c - the machinery every view shares (mode.h): the moves between
 * modes with their enter and leave hooks, each mode's private state, the
 * walks of the recompute, idle and lesson-step hooks over the app's
 * modes, and the key tables read by id. It neither draws nor knows what
 * any key does, and it names no view: the app's table of modes
 * (app->modes) is all it walks. Where a key goes is keys.c's.
 */
#include "mode.h"

#include <stdlib.h>
#include <string.h>

int action_count(const struct action *table)
{
	int n = 0;
	while (table && (table[n].keys[0] || table[n].use))
		n++;
	return n;
}

bool action_has_key(const struct action *a, int key)
{
	for (int k = 0; a && k < ACTION_KEYS_MAX && a->keys[k]; k++)
		if (a->keys[k] == key)
			return true;
	return false;
}

const struct action *action_lookup(const struct action *table, int key)
{
	for (int i = 0, n = action_count(table); i < n; i++)
		if (!table[i].use && action_has_key(&table[i], key))
			return &table[i];
	return NULL;
}

struct body_layout mode_layout_wide(const struct app *app, const struct frame *f, const struct layout *l, int cols)
{
	(void)f;
	(void)app;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.info.w = cols - l->body.x;
	b.body_h = l->body.h;
	return b;
}

const struct mode_ops *mode_workbench(const struct app *app)
{
	return app->modes[0];
}

bool mode_typing(const struct app *app)
{
	return app->mode->prompt;
}

const struct mode_ops *mode_base(const struct app *app)
{
	return mode_typing(app) ? app->mode_back : app->mode;
}

bool mode_is(const struct app *app, const char *id)
{
	const struct action *o = mode_base(app)->opener;
	return o && o->id && strcmp(o->id, id) == 0;
}

bool mode_open_id(struct app *app, const char *id)
{
	const struct mode_ops *m = NULL;
	const struct action *a = mode_action(app, id, &m);
	return a && m && a == m->opener && mode_open(app, m);
}

int mode_chain(const struct app *app, const struct mode_ops *out[3])
{
	int n = 0;
	out[n++] = app->mode;
	if (mode_typing(app) && app->mode_back != app->mode)
		out[n++] = app->mode_back;
	if (out[n - 1] != mode_workbench(app))
		out[n++] = mode_workbench(app);
	return n;
}

/* The view under any prompt gives up the keys: its leave hook, then the workbench. */
static void leave_view(struct app *app)
{
	const struct mode_ops *v = mode_base(app);
	if (v->leave)
		v->leave(app);
	app->mode = app->mode_back = mode_workbench(app);
}

bool mode_open(struct app *app, const struct mode_ops *m)
{
	if (m->prompt) {
		if (m->enter && !m->enter(app))
			return false;
		app->mode_back = mode_base(app);
		app->mode = m;
		return true;
	}
	if (m->enter && !m->enter(app))
		return false;
	const struct mode_ops *was = mode_base(app);
	if (was != m && was != mode_workbench(app) && m->back != was && was->leave)
		was->leave(app); /* another view had the keys (a page of it keeps them) */
	app->mode = app->mode_back = m;
	return true;
}

void mode_leave(struct app *app)
{
	const struct mode_ops *m = app->mode;
	if (m->leave)
		m->leave(app);
	if (m->prompt)
		app->mode = app->mode_back;
	else
		app->mode = app->mode_back = m->back ? m->back : mode_workbench(app);
}

void mode_close_all(struct app *app)
{
	if (mode_typing(app))
		mode_leave(app);
	while (app->mode != mode_workbench(app) && app->mode->back)
		mode_leave(app);
	if (app->mode != mode_workbench(app))
		leave_view(app);
}

unsigned mode_toggle(struct app *app, const struct mode_ops *m)
{
	if (mode_base(app) == m) {
		if (mode_typing(app))
			mode_leave(app);
		mode_leave(app);
	} else {
		mode_open(app, m);
	}
	return APP_REDRAW;
}

/* m's place in the app's table, or -1. */
static int mode_index(const struct app *app, const struct mode_ops *m)
{
	for (int i = 0; i < APP_MODES_MAX && app->modes[i]; i++)
		if (app->modes[i] == m)
			return i;
	return -1;
}

void *mode_state_if(const struct app *app, const struct mode_ops *m)
{
	int i = mode_index(app, m);
	return i >= 0 ? app->mode_state[i] : NULL;
}

void *mode_state(struct app *app, const struct mode_ops *m)
{
	int i = mode_index(app, m);
	if (i < 0 || m->state_size == 0)
		return NULL;
	if (!app->mode_state[i])
		app->mode_state[i] = calloc(1, m->state_size);
	return app->mode_state[i];
}

void mode_free_all(struct app *app)
{
	for (int i = 0; i < APP_MODES_MAX && app->modes && app->modes[i]; i++) {
		if (!app->mode_state[i])
			continue;
		if (app->modes[i]->done)
			app->modes[i]->done(app->mode_state[i]);
		free(app->mode_state[i]);
		app->mode_state[i] = NULL;
	}
}

void mode_recompute(struct app *app)
{
	for (int i = 0; i < APP_MODES_MAX && app->modes[i]; i++)
		if (app->modes[i]->recompute)
			app->modes[i]->recompute(app);
}

void mode_solve(struct app *app)
{
	for (int i = 0; i < APP_MODES_MAX && app->modes[i]; i++)
		if (app->modes[i]->solve)
			app->modes[i]->solve(app);
}

bool mode_idle(struct app *app)
{
	bool redraw = false;
	for (int i = 0; i < APP_MODES_MAX && app->modes[i]; i++)
		if (app->modes[i]->idle && app->modes[i]->idle(app))
			redraw = true;
	return redraw;
}

void mode_follow_step(struct app *app)
{
	const struct mode_ops *own = NULL;
	for (int i = 0; i < APP_MODES_MAX && app->modes[i] && !own; i++)
		if (app->modes[i]->owns_step && app->modes[i]->owns_step(app))
			own = app->modes[i];
	if (own && mode_open(app, own))
		return;
	/* the step it goes to may ask to predict what a view shows */
	const struct mode_ops *v = mode_base(app);
	if (v != mode_workbench(app) && ((v->opener && v->opener->shows) || v->owns_step ||
	                                 (v->back && v->back->opener && v->back->opener->shows)))
		mode_close_all(app);
}

/* The row with that id in table (not a `use` row), or NULL. */
static const struct action *by_id(const struct action *table, const char *id)
{
	for (int i = 0, n = action_count(table); i < n; i++)
		if (table[i].id && !table[i].use && strcmp(table[i].id, id) == 0)
			return &table[i];
	return NULL;
}

const struct action *mode_action(const struct app *app, const char *id, const struct mode_ops **owner)
{
	for (int i = 0; id && i < APP_MODES_MAX && app->modes[i]; i++) {
		const struct mode_ops *m = app->modes[i];
		const struct action *a = m->opener && m->opener->id && strcmp(m->opener->id, id) == 0 ? m->opener
		                       : by_id(m->keys, id);
		if (a) {
			if (owner)
				*owner = m;
			return a;
		}
	}
	return NULL;
}

const char *mode_key_name(const struct app *app, const char *id)
{
	const struct action *a = mode_action(app, id, NULL);
	return a ? a->label : NULL;
}

const char *mode_lesson_key(const char *id, const void *ctx)
{
	return mode_key_name(ctx, id);
}

const struct action *mode_target(const struct app *app, const struct action *row)
{
	return row && row->use ? mode_action(app, row->use, NULL) : row;
}

const struct action *mode_lookup(const struct app *app, const struct action *table, int key)
{
	for (int i = 0, n = action_count(table); i < n; i++)
		if (action_has_key(mode_target(app, &table[i]), key))
			return &table[i];
	return NULL;
}
