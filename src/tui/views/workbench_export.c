/*
 * workbench_export.c - the workbench's export key (E): the current
 * computation as mha-tui-export.py (a numpy script that checks every
 * stage, export.h) and mha-tui-export.svg (the heads' heatmaps: the
 * scores when the Scores stage is focused, else the weights), beside the
 * session file (where w saves; the current directory when there is
 * none), the same files as mha-tui --export py|svg, and mha-tui-export.txt:
 * the screen as the learner sees it, read back from curses
 * (vscreen_write). Written whole or not at all: each goes to a temporary
 * name first and is renamed into place. The status line says what
 * happened.
 */
#include "workbench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "vscreen.h"

enum export_kind { EXPORT_PY, EXPORT_SVG, EXPORT_TXT };

/* path.tmp, filled by write, renamed to path; 0 or an errno. */
static int write_file(const char *path, const struct app *app, enum export_kind kind)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return errno ? errno : EIO;
	enum mha_tensor stage = app->stage == PIPELINE_SCORES ? MHA_T_SCORES : MHA_T_WEIGHTS;
	int rc = kind == EXPORT_PY  ? export_py(f, &app->cfg, &app->w, app->stack.layer, app->stack.layers)
	       : kind == EXPORT_SVG ? export_svg(f, &app->cfg, &app->w, &app->stack.layer[0], stage)
	                            : vscreen_write(f);
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
	const char *s = app->save.session_path, *slash = s ? strrchr(s, '/') : NULL;
	if (slash)
		snprintf(out, len, "%.*s/%s", (int)(slash - s), s, name);
	else
		snprintf(out, len, "%s", name);
}

unsigned workbench_export(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	char py[4096], svg[4096], txt[4096];
	beside_session(app, WORKBENCH_EXPORT_PY, py, sizeof py);
	beside_session(app, WORKBENCH_EXPORT_SVG, svg, sizeof svg);
	beside_session(app, WORKBENCH_EXPORT_TXT, txt, sizeof txt);
	errno = 0;
	int err = write_file(py, app, EXPORT_PY);
	if (!err)
		err = write_file(svg, app, EXPORT_SVG);
	if (!err)
		err = write_file(txt, app, EXPORT_TXT);
	if (err)
		app_message(app, true, "export failed: %s: %s", py, strerror(err));
	else
		app_message(app, false, "wrote %s (numpy), .svg (%s), .txt (screen)", py,
		            app->stage == PIPELINE_SCORES ? "scores" : "weights"); /* each file, what it holds */
	return APP_REDRAW;
}
