/*
 * step_screen.c - a lesson step drawn headless, as text (step_screen.h):
 * the default workbench, the lessons attached (no progress file), the
 * step opened and computed (and an answer typed, when asked), the frame drawn on a vscreen and read back.
 * It judges nothing: the lesson library's screen check reads the text.
 */
#include "step_screen.h"

#include <stdlib.h>

#include "app.h"
#include "frame.h"
#include "keys.h"
#include "learn.h"
#include "modes.h"
#include "vscreen.h"

enum { STEP_ROWS = 24, STEP_COLS = 80 };

/* answer committed as the learner does: the prompt, its keys, Enter. */
static void type_answer(struct app *app, const char *answer)
{
	unsigned f = mode_open(app, &answer_prompt_mode) ? APP_REDRAW : 0;
	for (const char *p = answer; *p && app->mode == &answer_prompt_mode; p++)
		f |= app_key(app, (unsigned char)*p);
	if (app->mode == &answer_prompt_mode)
		f |= app_key(app, '\r');
	if (f & APP_RECOMPUTE)
		app_recompute(app);
}

int step_screen_text(void *ctx, const struct lesson_set *set, int li, int si, const char *answer,
                     char *out, size_t len)
{
	(void)ctx;
	char msg[MHA_MSG_MAX];
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	struct app *app = calloc(1, sizeof *app);
	if (!app || mha_weights_start(&w, &c) != MHA_OK) {
		free(app);
		return -1;
	}
	if (app_init(app, tui_modes, &c, &w, msg, sizeof msg) != 0) {
		free(app);
		return -1;
	}
	learn_attach(app, set, "", NULL);
	if (learn_open(app, li, si) & APP_RECOMPUTE)
		app_recompute(app);
	if (answer)
		type_answer(app, answer);
	int rc = vscreen_open(STEP_ROWS, STEP_COLS, NULL, true);
	if (rc == 0) {
		app->now_ms = 1000000; /* as long after start as the tests draw it */
		frame_draw(app, STEP_ROWS, STEP_COLS, NULL);
		vscreen_text(out, len);
	}
	vscreen_close();
	app_free(app);
	free(app);
	return rc;
}
