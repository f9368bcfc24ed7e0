/*
 * export_key.c - the workbench's export key (E): the current computation
 * as mha-tui-export.py (a numpy script that checks every stage, export.h)
 * and mha-tui-export.svg (the heads' heatmaps: the scores when the Scores
 * stage is focused, else the weights), beside the session file (where w
 * saves; the current directory when there is none), the same files as
 * mha-tui --export py|svg, and mha-tui-export.txt: the screen as the
 * learner sees it, read back from curses (vscreen_text). Written whole or
 * not at all: each goes to a temporary name first and is renamed into
 * place. No drawing here except for the headless --export txt, which
 * draws the workbench on a screen with no terminal (vscreen.h); the
 * status line says what happened.
 */
#include "export_key.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "export.h"
#include "vscreen.h"

enum export_kind { EXPORT_PY, EXPORT_SVG, EXPORT_TXT };

int export_key_text(FILE *f)
{
	size_t len = (size_t)LINES * ((size_t)COLS * 4 + 1) + 1;
	char *buf = malloc(len);
	if (!buf)
		return -1;
	size_t used = vscreen_text(buf, len);
	int rc = fwrite(buf, 1, used, f) == used ? 0 : -1;
	free(buf);
	return rc;
}

int export_key_headless(FILE *f, const struct mha_config *cfg, struct mha_weights *w, int stage,
                        int rows, int cols, char *msg, size_t len)
{
	struct app *app = calloc(1, sizeof *app);
	if (!app) {
		mha_weights_free(w);
		snprintf(msg, len, "out of memory for the workbench");
		return -1;
	}
	if (app_init(app, cfg, w, msg, len) != 0) {
		free(app);
		return -1;
	}
	if (stage >= 0)
		app->stage = (enum pipeline_stage)stage;
	int rc = vscreen_open(rows, cols, NULL, true);
	if (rc == 0) {
		draw_screen_hits(app, rows, cols, NULL);
		rc = export_key_text(f);
		snprintf(msg, len, "writing the screen failed");
	} else {
		snprintf(msg, len, "no curses screen to draw on (terminfo for xterm-256color?)");
	}
	vscreen_close();
	app_free(app);
	free(app);
	return rc;
}

/* path.tmp, filled by write, renamed to path; 0 or an errno. */
static int write_file(const char *path, const struct app *app, enum export_kind kind)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return errno ? errno : EIO;
	enum mha_tensor stage = app->stage == PIPELINE_SCORES ? MHA_T_SCORES : MHA_T_WEIGHTS;
	int rc = kind == EXPORT_PY  ? export_py(f, &app->cfg, &app->w, &app->a, 1)
	       : kind == EXPORT_SVG ? export_svg(f, &app->cfg, &app->w, &app->a, stage)
	                            : export_key_text(f);
	int err = rc != 0 ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err && rename(tmp, path) != 0)
		err = errno ? errno : EIO;
	if (err)
		remove(tmp);
	return err;
}

/* dir/name into out: dir is the session file's directory ("" when none). */
static void beside_session(const struct app *app, const char *name, char *out, size_t len)
{
	const char *s = app->session_path, *slash = s ? strrchr(s, '/') : NULL;
	if (slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - s), s, name);
	else
		snprintf(out, len, "%s", name);
}

unsigned export_key_run(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	char py[4096], svg[4096], txt[4096];
	beside_session(app, EXPORT_KEY_PY, py, sizeof py);
	beside_session(app, EXPORT_KEY_SVG, svg, sizeof svg);
	beside_session(app, EXPORT_KEY_TXT, txt, sizeof txt);
	errno = 0;
	int err = write_file(py, app, EXPORT_PY);
	if (!err)
		err = write_file(svg, app, EXPORT_SVG);
	if (!err)
		err = write_file(txt, app, EXPORT_TXT);
	if (err)
		app_message(app, true, "export failed: %s: %s", py, strerror(err));
	else
		app_message(app, false, "wrote %s, .svg and .txt (%s)", py,
		            app->stage == PIPELINE_SCORES ? "scores" : "weights");
	return APP_REDRAW;
}
