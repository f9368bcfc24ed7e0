/*
 * keys.c - where a key goes (keys.h): a prompt first (its table, then
 * its typing hook), then the help overlay, then the current mode's own
 * table, its opener or Esc to leave it, then (unless the mode is closed)
 * the workbench's table and every view's opener. One function runs a
 * row, whichever table it is in: it refuses a row that would show what
 * the open lesson step hides (action.shows) or a question still to come
 * waits for (@wait), and counts a change of the inputs toward the next
 * autosave. A click on a key hint is that key; any
 * other click goes to the modes as KEY_MOUSE. It knows no view by name
 * and draws nothing.
 */
#include "keys.h"

#include <curses.h>
#include <string.h>

#include "help.h"
#include "learn.h"
#include "mode.h"
#include "prompt.h"

/* Is key one of the keys of the action with that id? */
static bool key_is(const struct app *app, const char *id, int key)
{
	const struct action *a = mode_action(app, id, NULL);
	return action_has_key(a, key);
}

/* Keys every mode but a prompt lets through to the workbench: the help,
 * quitting, saving, the mouse. */
static bool always_passes(const struct app *app, int key)
{
	return key == KEY_MOUSE || key_is(app, "help", key) || key_is(app, "quit", key) || key_is(app, "save", key);
}

/* Would running a show what the open lesson step hides? Not when the
 * step is the view's own (it keeps its answer hidden itself). */
static bool hides(const struct app *app, const struct action *a, const struct mode_ops *owner)
{
	if (!a->shows || !learn_shows_hidden(app, a->shows))
		return false;
	return !(owner && owner->owns_step && owner->owns_step(app));
}

unsigned keys_run(struct app *app, const struct action *a, const struct mode_ops *owner, int key)
{
	if (a->use) { /* a view's row standing for the workbench's action */
		const struct mode_ops *o = NULL;
		const struct action *w = mode_action(app, a->use, &o);
		return w ? keys_run(app, w, o, key) : APP_REDRAW;
	}
	if (hides(app, a, owner)) {
		app_message(app, false, "%s: not until the question is answered right (it would show the answer)",
		            a->name);
		return APP_REDRAW;
	}
	const struct lesson_step *waits = learn_view_waits(app, a->id);
	if (waits && !(owner && owner->owns_step && owner->owns_step(app))) {
		app_message(app, false, "%s: not until \"%s\" is answered (it shows that answer)", a->name,
		            waits->title[0] ? waits->title : waits->id);
		return APP_REDRAW;
	}
	struct mha_config before = app->cfg;
	unsigned f = owner && a == owner->opener ? mode_toggle(app, owner)
	           : a->fn                       ? a->fn(app, a->arg, key)
	           : a->call_arg                 ? a->call_arg(app, a->arg)
	           : a->call                     ? a->call(app)
	                                         : APP_REDRAW;
	if (f & APP_RECOMPUTE)
		app_edited(app, &before); /* counts toward the next autosave */
	/* a key that works on the matrices brings them back from the
	 * reading layout (a prompt's typing does not) */
	if (app->learn.reading && !(owner && owner->prompt) && !learn_read_keeps(a->id)) {
		app->learn.reading = false;
		app->learn.scroll = 0; /* the instruction on top, beside the matrices it is about */
		f |= APP_REDRAW;
	}
	return f;
}

const struct action *keys_workbench(const struct app *app, int key, const struct mode_ops **owner)
{
	const struct mode_ops *w = mode_workbench(app);
	const struct action *a = mode_lookup(app, w->keys, key);
	*owner = w;
	for (int i = 1; !a && i < APP_MODES_MAX && app->modes[i]; i++)
		if (action_has_key(app->modes[i]->opener, key)) {
			a = app->modes[i]->opener;
			*owner = app->modes[i];
		}
	return a;
}

/* A key in the current mode (not the help, not a prompt). */
static unsigned mode_key(struct app *app, int key)
{
	const struct mode_ops *m = app->mode, *owner;
	const struct action *a = mode_lookup(app, m->keys, key);
	if (a) {
		unsigned f = keys_run(app, a, m, key);
		if (!(f & MODE_PASS))
			return f; /* else the row hands the key on */
	}
	if (m != mode_workbench(app) && (key == PROMPT_ESC || action_has_key(m->opener, key))) {
		mode_leave(app); /* its opener again, or Esc: back */
		return APP_REDRAW;
	}
	if (m->closed && !always_passes(app, key)) {
		if (key == ERR)
			return 0;
		app_message(app, false, "%s: that key does nothing here (%s lists this view's keys)", m->name,
		            mode_key_name(app, "help"));
		return APP_REDRAW;
	}
	if (!key_is(app, "quit", key))
		app->quit_armed = false;
	a = keys_workbench(app, key, &owner);
	if (!a) {
		if (key == ERR)
			return 0;
		app_message(app, false, "key not bound; %s lists the keys", mode_key_name(app, "help"));
		return APP_REDRAW;
	}
	return keys_run(app, a, owner, key) & ~(unsigned)MODE_PASS;
}

/* A key while a line is typed: the prompt's own keys, else its typing. */
static unsigned prompt_key(struct app *app, int key)
{
	const struct mode_ops *m = app->mode;
	const struct action *a = mode_lookup(app, m->keys, key);
	if (a)
		return keys_run(app, a, m, key);
	return m->type ? m->type(app, key) : APP_REDRAW;
}

unsigned app_key(struct app *app, int key)
{
	if (key == KEY_RESIZE) {
		/* a message may be about the old size ("at this width ..."):
		 * the new frame starts with the status line's own */
		app->notice = false;
		app->status_until_ms = 0;
		return APP_REDRAW;
	}
	if (key == KEY_MOUSE && mode_typing(app))
		return 0;
	unsigned f = 0;
	if (app->notice && key != ERR) { /* read: the status line shows the cursor's cell again */
		app->notice = false;
		app->status_until_ms = 0;
		f = APP_REDRAW;
	}
	if (mode_typing(app))
		return f | prompt_key(app, key);
	if (app->help_open)
		return f | help_key(app, key);
	const char *warned = app->learn.skip_warned;
	f |= mode_key(app, key);
	/* "n again leaves it" holds for the very next key only: any other key
	 * in between (a hint, an edit, minutes of work) and n warns again */
	if (warned && app->learn.skip_warned == warned)
		app->learn.skip_warned = NULL;
	return f;
}

unsigned app_mouse(struct app *app, int y, int x, enum hit_button button)
{
	if (mode_typing(app))
		return 0; /* Enter or Esc first: a click never commits or drops what is typed */
	struct hit h = hit_at(&app->hits, y, x);
	if (button == HIT_CLICK && h.kind == HIT_KEY)
		return app_key(app, h.id); /* a key hint: as if its key were pressed */
	app->mouse.y = y;
	app->mouse.x = x;
	app->mouse.button = button;
	return app_key(app, KEY_MOUSE);
}
