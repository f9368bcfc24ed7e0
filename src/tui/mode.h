/*
 * mode.h - the screen modes and their table of operations (as tig's
 * struct view_ops, or htop's one Panel type per file). The app holds the
 * mode that has the keys (app->mode, enum app_mode in app.h); each mode
 * lives in one file that holds its keys and its drawing, and exports one
 * `const struct mode_ops`. The loop and the frame (draw.c) only call
 * through this table. doc/DESIGN.md says how to add a mode: a row in enum
 * app_mode, a file, and a row in mode.c's table.
 *
 * A prompt (a line being typed: a value, a factor, an answer) has every
 * key and ignores the mouse; it returns to the mode it was opened from,
 * which goes on drawing whatever the prompt does not (the lesson menu
 * stays on screen under a prompt opened from it). The help overlay is a
 * flag over any mode but a prompt (help.h).
 */
#ifndef MODE_H
#define MODE_H

#include <stdbool.h>

#include "app.h"
#include "hit.h"
#include "layout.h"

/* A mode's key function returns APP_* flags, or MODE_PASS: not its key,
 * the workbench's action table has it (the menu passes q, ?, n, ...). */
enum { MODE_PASS = 1 << 8 };

struct mode_ops {
	const char *name;  /* "value prompt", for tests and messages */
	bool prompt;       /* a line being typed: every key, no mouse, returns to mode_back */
	/* One key (curses code; KEY_MOUSE with app->mouse set). */
	unsigned (*key)(struct app *app, int key);
	/* The following may be NULL: the mode a prompt came from does it,
	 * else the workbench. */
	/* The status line in r; false: not drawn, the next in line draws it. */
	bool (*status)(const struct app *app, struct rect r);
	/* The body's rectangles for frame l (terminal cols wide), and the
	 * drawing of the body into them (not the side pane). */
	struct body_layout (*layout)(const struct app *app, const struct layout *l, int cols);
	void (*body)(const struct app *app, const struct body_layout *b, struct hit_map *hits);
	/* The side pane in r; returns how far its text scrolls. */
	int (*pane)(const struct app *app, struct rect r, struct hit_map *hits);
	/* The key hints on the bottom line; NULL all along the line: the
	 * action table's (draw.c), which every mode so far uses. */
	void (*hints)(const struct app *app, struct rect r, struct hit_map *hits);
};

/* The modes, one file each. */
extern const struct mode_ops workbench_mode;    /* workbench.c */
extern const struct mode_ops menu_mode;         /* menu.c */
extern const struct mode_ops value_prompt_mode; /* value_prompt.c */
extern const struct mode_ops scale_prompt_mode; /* scale_prompt.c */
extern const struct mode_ops answer_prompt_mode; /* answer_prompt.c */
extern const struct mode_ops train_mode;        /* train_view.c */
extern const struct mode_ops flash_mode;        /* flash_view.c */
extern const struct mode_ops recover_prompt_mode; /* recover_prompt.c */

const struct mode_ops *mode_ops(enum app_mode m);

/* A `layout` for a view whose body takes the whole width below the bar
 * (the side column, lesson pane and counts, gives way): the KV-cache,
 * decode, mask and analysis views use it as it is. */
struct body_layout mode_layout_wide(const struct app *app, const struct layout *l, int cols);

/* Enter mode m: a prompt remembers the mode it is opened from. */
void mode_enter(struct app *app, enum app_mode m);
/* Leave the current mode: a prompt for the mode it came from, any other
 * mode for the workbench. */
void mode_leave(struct app *app);
/* A line is being typed (the current mode is a prompt). */
bool mode_typing(const struct app *app);
/* The mode under a prompt, else the current one. */
enum app_mode mode_base(const struct app *app);

/* The modes that draw, in order: the current one, the one a prompt came
 * from, the workbench (no repeats). Returns how many (1..3). */
int mode_chain(const struct app *app, const struct mode_ops *out[3]);

/* One key pressed: the prompt being typed, the help overlay, or the
 * current mode (which may pass it on to the action table). Returns APP_*
 * flags. */
unsigned app_key(struct app *app, int key);
/* The mouse at screen cell (y, x), by the hit regions of the last drawing
 * (app->hits): a click on a stage label jumps to it, on a matrix cell puts
 * the cursor there, on a heatmap cell selects that head and cell, on a
 * lesson selects it (on the selected one, opens it), on a key hint is that
 * key; the wheel scrolls the help or the lesson text where they scroll,
 * else moves the cursor a row. Ignored while a line is typed; a click
 * elsewhere does nothing. Returns APP_* flags. */
unsigned app_mouse(struct app *app, int y, int x, enum hit_button button);

#endif
