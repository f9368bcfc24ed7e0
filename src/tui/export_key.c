/*
 * export_key.c - mha-tui --export txt (export_key.h): the workbench with
 * the given configuration and inputs drawn on a screen with no terminal
 * (vscreen.h), as the learner would see it, written as text. The E key's
 * files are the workbench's (workbench_export.c).
 */
#include "export_key.h"

#include <stdio.h>
#include <stdlib.h>

#include "frame.h"
#include "modes.h"
#include "vscreen.h"

int export_key_headless(FILE *f, const struct mha_config *cfg, struct mha_weights *w, int stage,
                        int rows, int cols, char *msg, size_t len)
{
	struct app *app = calloc(1, sizeof *app);
	if (!app) {
		mha_weights_free(w);
		snprintf(msg, len, "out of memory for the workbench");
		return -1;
	}
	if (app_init(app, tui_modes, cfg, w, msg, len) != 0) {
		free(app);
		return -1;
	}
	if (stage >= 0)
		app->stage = (enum pipeline_stage)stage;
	int rc = vscreen_open(rows, cols, NULL, true);
	if (rc == 0) {
		frame_draw(app, rows, cols, NULL);
		rc = vscreen_write(f);
		snprintf(msg, len, "writing the screen failed");
	} else {
		snprintf(msg, len, "no curses screen to draw on (terminfo for xterm-256color?)");
	}
	vscreen_close();
	app_free(app);
	free(app);
	return rc;
}
