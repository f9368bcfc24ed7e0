/*
 * mode.c - the table of screen modes (mode.h), the moves between them, and
 * where a key or a click goes: a prompt first, then the help overlay, then
 * the current mode, which may hand the key on to the action table; and
 * the one layout several views share. It neither draws nor knows what any
 * key does.
 */
#include "mode.h"

#include <curses.h>

#include "actions.h"
#include "analysis_view.h"
#include "decode_view.h"
#include "help.h"
#include "kv_view.h"
#include "label_prompt.h"
#include "mask_view.h"
#include "recover_prompt.h"

/* Adding a mode: its row here (and in enum app_mode, app.h). */
static const struct mode_ops *const modes[MODE_COUNT] = {
	[MODE_WORKBENCH] = &workbench_mode,
	[MODE_MENU] = &menu_mode,
	[MODE_VALUE] = &value_prompt_mode,
	[MODE_SCALE] = &scale_prompt_mode,
	[MODE_ANSWER] = &answer_prompt_mode,
	[MODE_TRAIN] = &train_mode,
	[MODE_KVCACHE] = &kv_view_mode,
	[MODE_FLASH] = &flash_mode,
	[MODE_DECODE] = &decode_view_mode,
	[MODE_MASK] = &mask_view_mode,
	[MODE_LABELS] = &label_prompt_mode,
	[MODE_ANALYSIS] = &analysis_view_mode,
	[MODE_RECOVER] = &recover_prompt_mode,
};

const struct mode_ops *mode_ops(enum app_mode m)
{
	return (unsigned)m < MODE_COUNT && modes[m] ? modes[m] : &workbench_mode;
}

struct body_layout mode_layout_wide(const struct app *app, const struct layout *l, int cols)
{
	(void)app;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.info.w = cols - l->body.x;
	b.body_h = l->body.h;
	return b;
}

bool mode_typing(const struct app *app)
{
	return mode_ops(app->mode)->prompt;
}

enum app_mode mode_base(const struct app *app)
{
	return mode_typing(app) ? app->mode_back : app->mode;
}

void mode_enter(struct app *app, enum app_mode m)
{
	if (mode_ops(m)->prompt)
		app->mode_back = mode_base(app);
	app->mode = m;
}

void mode_leave(struct app *app)
{
	app->mode = mode_typing(app) ? app->mode_back : MODE_WORKBENCH;
}

int mode_chain(const struct app *app, const struct mode_ops *out[3])
{
	int n = 0;
	out[n++] = mode_ops(app->mode);
	if (mode_typing(app) && app->mode_back != app->mode)
		out[n++] = mode_ops(app->mode_back);
	if (out[n - 1] != &workbench_mode)
		out[n++] = &workbench_mode;
	return n;
}

unsigned app_mouse(struct app *app, int y, int x, enum hit_button button)
{
	if (mode_typing(app))
		return 0; /* Enter or Esc first: a click never commits or drops what is typed */
	struct hit h = hit_at(&app->hits, y, x);
	int count;
	const struct action *t = actions_table(&count);
	if (button == HIT_CLICK && h.kind == HIT_ACTION && h.id >= 0 && h.id < count)
		return app_key(app, t[h.id].keys[0]); /* a key hint: as if its key were pressed */
	app->mouse.y = y;
	app->mouse.x = x;
	app->mouse.button = button;
	return app_key(app, KEY_MOUSE);
}

unsigned app_key(struct app *app, int key)
{
	if (key == KEY_RESIZE)
		return APP_REDRAW;
	const struct mode_ops *m = mode_ops(app->mode);
	if (key == KEY_MOUSE && m->prompt)
		return 0;
	if (app->notice && key != ERR) { /* read: the status line shows the cursor's cell again */
		app->notice = false;
		app->status_until_ms = 0;
	}
	if (!m->prompt && app->help_open)
		return help_key(app, key);
	const char *warned = app->learn.skip_warned;
	unsigned f = m->key(app, key);
	if (f & MODE_PASS)
		f = workbench_mode.key(app, key);
	/* "n again leaves it" holds for the very next key only: any other key
	 * in between (a hint, an edit, minutes of work) and n warns again */
	if (warned && app->learn.skip_warned == warned)
		app->learn.skip_warned = NULL;
	return f;
}
