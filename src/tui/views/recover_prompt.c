/*
 * recover_prompt.c - the recover question, a prompt mode: an autosave a
 * run left unsaved was found at start (app_autosave_check), and the
 * status line asks until it is answered: Enter loads it now (its edits
 * go to this run's session at the next save, which then removes it), d
 * discards it (moved aside to a numbered "<session>.autosave.discarded.~N~",
 * never deleted), Esc leaves it for later (kept, asked again at the next
 * start). Other keys do nothing meanwhile. The files are save.c's
 * (app_recover_load, app_recover_discard); this only asks. A path too
 * long for the line loses the middle of its directory, never the file
 * name; the path whole goes to stderr at exit when it was not answered
 * (save.c's exit notes). It is opened at start (modes.c), never by a key.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

/* Asked from the workbench with the learner's own bench only (in a lesson
 * or the menu the status line names the autosave instead). */
static bool recover_enter(struct app *app)
{
	return app->save.recover_path[0] && !app->learn.active && app->mode == mode_workbench(app);
}

static unsigned recover_load(struct app *app)
{
	mode_leave(app);
	return app_recover_load(app) | APP_REDRAW;
}

static unsigned recover_discard(struct app *app)
{
	mode_leave(app);
	app_recover_discard(app);
	return APP_REDRAW;
}

static unsigned recover_later(struct app *app)
{
	mode_leave(app);
	app_message(app, false, "kept for later: %s (asked again at the next start)", app->save.recover_path);
	return APP_REDRAW;
}

static unsigned recover_type(struct app *app, int key)
{
	(void)app;
	(void)key;
	return APP_REDRAW; /* the question stays until answered */
}

/* The start of s that fits in width columns, cut between characters
 * (never inside a UTF-8 sequence): its length in bytes. */
static size_t fitting_start(const char *s, size_t n, int width)
{
	char buf[512];
	size_t best = 0;
	for (size_t i = 1; i <= n && i < sizeof buf; i++) {
		if (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			continue; /* inside a character */
		memcpy(buf, s, i);
		buf[i] = '\0';
		if (draw_width(buf) > width)
			break;
		best = i;
	}
	return best;
}

/* path in width columns: whole when it fits, else the start of its
 * directory, an ellipsis, and "/" with the file name whole
 * ("/tmp/very/long/state/mha-tui/session.txt.autosave.~1~" ->
 * "/tmp/ve.../session.txt.autosave.~1~"); a name too long alone keeps its
 * end after the ellipsis. */
static void path_middle(char *out, size_t len, const char *path, int width)
{
	const char *dots = theme_utf8() ? "\u2026" : "...";
	int dots_w = theme_utf8() ? 1 : 3;
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(path);
	if (n < 512 && draw_width(path) <= width) {
		snprintf(out, len, "%s", path);
		return;
	}
	int name_w = strlen(name) < 512 ? draw_width(name) + 1 : width + 1; /* with its "/" */
	if (slash && name_w + dots_w <= width) {
		size_t keep = fitting_start(path, (size_t)(slash - path), width - name_w - dots_w);
		snprintf(out, len, "%.*s%s/%s", (int)keep, path, dots, name);
		return;
	}
	const char *tail = path + n; /* the end of the name that fits */
	while (tail > path && draw_width(tail - 1) <= width - dots_w && path + n - tail < 500)
		tail--;
	while (((unsigned char)*tail & 0xc0) == 0x80)
		tail++;
	snprintf(out, len, "%s%s", dots, tail);
}

/* "recover a run's unsaved edits? Enter loads, d discards, Esc later:
 * PATH" when the path fits whole; else the short question and the path
 * with its middle left out (the keys first: they must survive an
 * 80-column line). */
static bool recover_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	static const char *const asks[] = { "recover a run's unsaved edits? Enter loads, d discards, Esc later: ",
		                            "recover? Enter loads, d discards, Esc later: " };
	char line[APP_STATUS_MAX + 4300], path[4300];
	for (size_t i = 0; i < 2; i++) {
		int room = r.w - (int)strlen(asks[i]);
		path_middle(path, sizeof path, app->save.recover_path, room > 8 ? room : 8);
		snprintf(line, sizeof line, "%s%s", asks[i], path);
		if (strcmp(path, app->save.recover_path) == 0)
			break; /* whole */
	}
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

static const struct action recover_keys[] = {
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "load",
	  .help = "load the edits (the next save writes them to the session)", .call = recover_load,
	  .id = "recover-load" },
	{ .keys = { 'd', 'D' }, .label = "d", .name = "discard", .help = "move it aside (never deleted)",
	  .call = recover_discard, .id = "recover-discard" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "later", .help = "keep it, ask again at the next start",
	  .call = recover_later, .id = "recover-later" },
	{ .keys = { 0 } },
};

const struct mode_ops recover_prompt_mode = {
	.name = "recover prompt",
	.prompt = true,
	.keys = recover_keys,
	.enter = recover_enter,
	.type = recover_type,
	.status = recover_status,
};
