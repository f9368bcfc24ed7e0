/*
 * modes.c - the table of screen modes the program runs with (modes.h),
 * and the one start-up step that opens a mode by name: the recover
 * question. It is the only file besides the tests that names every mode;
 * nothing below it (the model, the views) includes it.
 */
#include "modes.h"

#define TUI_MODE_ROW(m) &m,
const struct mode_ops *const tui_modes[] = { TUI_MODES(TUI_MODE_ROW) NULL };
#undef TUI_MODE_ROW

bool modes_recover_check(struct app *app)
{
	if (!app_autosave_check(app))
		return false;
	if (app->save.recover_path[0] && !mode_open(app, &recover_prompt_mode))
		app_recover_say(app);
	return true;
}
