/*
 * mode.h - a screen mode is the whole of a view (as tig's struct
 * view_ops, with its keymap and its private state): one `const struct
 * mode_ops` in one file holds its key table, the size of its private
 * state, its hooks and its drawing. The app runs with a table of them
 * (app->modes, handed to app_init; the first is the workbench, the mode
 * every other one returns to), holds a pointer to the one that has the
 * keys (app->mode) and each one's state; nothing else names a mode.
 *
 * A key table is a list of actions (struct action): the keys, their
 * label and help, and what they do. It feeds the key dispatch (keys.c),
 * the help overlay, the hint line, clickable hints and every key a
 * message names (mode_key_name), so none of them can disagree. A view's
 * opener (the key that opens it from the workbench, and closes it again)
 * is an action too.
 *
 * A prompt (a line being typed: a value, a factor, an answer) has every
 * key and ignores the mouse; it returns to the mode it was opened from,
 * which goes on drawing whatever the prompt does not. The help overlay
 * is a flag over any mode but a prompt (help.h).
 *
 * This file knows no view by name: views register through the table.
 */
#ifndef MODE_H
#define MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "stage.h"
#include "wrap.h"

/* A key function's answer besides the APP_* flags: not its key, the next
 * in line takes it (the workbench's table). */
enum { MODE_PASS = 1 << 8 };

/* What an action or a view shows that a lesson step may hide until its
 * question is answered right (action.shows): the numbers of stage s
 * (MODE_SHOWS_STAGE), of every stage, the counts. A key with any of
 * these is refused while the open step hides them. */
#define MODE_SHOWS_STAGE(s) (1u << (s))
enum {
	MODE_SHOWS_STAGES = (1u << PIPELINE_STAGE_COUNT) - 1,
	MODE_SHOWS_COUNTS = 1u << PIPELINE_STAGE_COUNT,
	MODE_SHOWS_ALL = MODE_SHOWS_STAGES | MODE_SHOWS_COUNTS,
};

enum { ACTION_KEYS_MAX = 10 };

/* What the parts of one frame draw from, worked out once a frame by the
 * frame (frame.c) before any mode draws, and handed to every drawing
 * hook: the focused stage's view, the cell under the cursor in it, and
 * the open lesson step's pane text at the width the frame measured it. */
struct frame {
	struct stage_view view;       /* the focused stage's panels, formula, note (stage.h) */
	bool has_cursor;              /* the stage shows a cell under the cursor: */
	struct cell cursor;           /*   that cell, */
	const struct panel *cursor_panel; /* in this panel of view */
	struct lesson_text pane;      /* the open step's pane at pane_width (count 0: none made) */
	int pane_width;
};

/* Where an action shows on the hint line: the free workbench's, a
 * lesson's, both; MORE: a view's second line of hints (its status line
 * while no message shows). */
enum { ACTION_BAR_FREE = 1, ACTION_BAR_LESSON = 2, ACTION_BAR_BOTH = 3, ACTION_BAR_MORE = 4 };

/* One row of a key table; a table ends at a row with neither keys nor
 * `use`. What a row does is one of fn, call, call_arg. A row with `use`
 * stands for the action of that id in another table (its keys, its label,
 * what it does): the workbench's table places the views' openers so in
 * its help and hint line, and a view lists the workbench's keys that
 * still work in it; its name, help and bar, when set, are its own words. */
struct action {
	int keys[ACTION_KEYS_MAX];  /* curses key codes; 0 ends the list */
	const char *label;          /* as the help shows it: "Tab", "1-7", "Left h" */
	const char *name;           /* short, for the hint line: "stage" */
	const char *help;           /* one line for the help overlay */
	const char *help_keys;      /* keys as the help's line and the hint line show them
	                             * when this row speaks for the rows after it ("] ["):
	                             * those rows have help_keys "" and no line of their own */
	const char *bar_keys;       /* keys as the hint line shows them when not the label ("[ ]") */
	const char *group;          /* help section: "Move", "Edit"; a view's rows: its name */
	unsigned bar;               /* on the hint line: ACTION_BAR_*, or 0 */
	unsigned shows;             /* MODE_SHOWS_*: refused while a lesson step hides it */
	const char *id;             /* its name: mode_key_name gives its key, lessons
	                             * write {key:ID} (pane.h lists those) */
	const char *use;            /* the workbench action's id this row stands for */
	unsigned (*fn)(struct app *app, int arg, int key);
	unsigned (*call)(struct app *app);
	unsigned (*call_arg)(struct app *app, int arg);
	int arg;
};

/* The rows of a table. */
int action_count(const struct action *table);
/* Is key one of a's keys (a NULL: no)? */
bool action_has_key(const struct action *a, int key);
/* The row of table bound to key, or NULL (`use` rows are mode_lookup's). */
const struct action *action_lookup(const struct action *table, int key);

/* A word a view's screen uses and what it means: the help lists them
 * under the view's keys (mode_ops.glossary, ended by a row whose word is
 * NULL). */
struct mode_word {
	const char *word, *meaning;
};

struct mode_ops {
	const char *name;     /* "KV cache": the help's heading, tests, messages */
	bool prompt;          /* a line being typed: every key, no mouse, returns to where it came from */
	const struct action *opener; /* its key on the workbench (again, or Esc, closes it); NULL:
	                              * opened by other means (a prompt, the recover question) */
	const struct action *keys;   /* its own keys (NULL: none); a prompt's Enter and Esc too */
	bool closed;          /* only its own keys work in it (and ? q w, the mouse); else the
	                       * workbench's keys it does not take act under it */
	const struct mode_ops *back; /* where Esc returns (NULL: the workbench): a page of another view */
	const struct mode_word *glossary; /* its screen's words, for the help; then the help lists
	                                   * only the keys that pass through, not the workbench's */
	size_t state_size;    /* its private state, zeroed on first use (mode_state), freed with the app */

	/* hooks; any may be NULL */
	/* About to take the keys (its opener, a lesson step it owns, ...):
	 * false refuses, having said why on the status line. */
	bool (*enter)(struct app *app);
	/* It gives up the keys (Esc, its opener again, another view opened). */
	void (*leave)(struct app *app);
	/* Free what its state holds (not the state itself): app_free. */
	void (*done)(void *state);
	/* After every forward pass (app_recompute), whatever the mode. */
	void (*recompute)(struct app *app);
	/* The loop's pause (no key within its timeout): work a slice; true: redraw. */
	bool (*idle)(struct app *app);
	/* The open lesson step opens this view itself (@flash): it then takes
	 * the keys when the step opens, and what the step hides is its to keep. */
	bool (*owns_step)(const struct app *app);
	/* The open step's solution was applied to the bench (S): apply its
	 * edits that are this view's (a lesson's "model head KIND off"). */
	void (*solve)(struct app *app);
	/* A prompt: a key that is not in its table (a character typed). */
	unsigned (*type)(struct app *app, int key);

	/* drawing; any may be NULL: the mode it came from (a prompt) or the
	 * workbench draws it */
	/* The status line in r; false: not drawn, the next in line draws it. */
	bool (*status)(const struct app *app, const struct frame *f, struct rect r);
	/* The body's rectangles for frame l (terminal cols wide), and the
	 * drawing of the body into them (not the side pane). */
	struct body_layout (*layout)(const struct app *app, const struct frame *f, const struct layout *l, int cols);
	void (*body)(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits);
	/* The side pane in r; returns how far its text scrolls. */
	int (*pane)(const struct app *app, const struct frame *f, struct rect r, struct hit_map *hits);
};

/* A `layout` for a view whose body takes the whole width below the bar
 * (the side column, lesson pane and counts, gives way). */
struct body_layout mode_layout_wide(const struct app *app, const struct frame *f, const struct layout *l,
                                    int cols);

/* The workbench: the first of the app's modes, where every other returns. */
const struct mode_ops *mode_workbench(const struct app *app);
/* A line is being typed (the current mode is a prompt). */
bool mode_typing(const struct app *app);
/* The mode under a prompt, else the current one. */
const struct mode_ops *mode_base(const struct app *app);
/* The mode under any prompt is the view its opener of that id opens
 * ("menu"): how a file asks after a view without naming it. */
bool mode_is(const struct app *app, const char *id);
/* Open the mode whose opener has that id (mode_open); false when there
 * is none or it refuses. */
bool mode_open_id(struct app *app, const char *id);
/* The modes that draw, in order: the current one, the one a prompt came
 * from, the workbench (no repeats). Returns how many (1..3). */
int mode_chain(const struct app *app, const struct mode_ops *out[3]);

/* Open m: the view that had the keys is left (its leave hook), m's
 * enter hook may refuse (false); a prompt remembers where it came from. */
bool mode_open(struct app *app, const struct mode_ops *m);
/* Leave the current mode (its leave hook): a prompt for the mode it came
 * from, a view for its `back` or the workbench. */
void mode_leave(struct app *app);
/* Back to the workbench from any mode. */
void mode_close_all(struct app *app);
/* m's opener pressed: leave m when it has the keys, else open it. APP_* flags. */
unsigned mode_toggle(struct app *app, const struct mode_ops *m);

/* m's private state (state_size bytes, zeroed the first time): NULL when
 * memory runs out. mode_state_if: NULL until it was made. */
void *mode_state(struct app *app, const struct mode_ops *m);
void *mode_state_if(const struct app *app, const struct mode_ops *m);
/* Every state made, through its mode's done hook, then freed (app_free). */
void mode_free_all(struct app *app);

/* Walk the app's modes: every recompute hook (app_recompute); every idle
 * hook (the loop's pause; true: redraw). */
void mode_recompute(struct app *app);
/* Every solve hook (S in a lesson step, after the bench's edits). */
void mode_solve(struct app *app);
bool mode_idle(struct app *app);
/* A lesson step was opened, or the lesson left: a view that owns the
 * open step takes the keys; a view that shows what a step may hide
 * gives them up. */
void mode_follow_step(struct app *app);

/* The action of that id in any table of the app's modes (the workbench's,
 * each view's opener and keys) and the mode whose it is (may be NULL):
 * NULL when none. A row with `use` is never the answer. */
const struct action *mode_action(const struct app *app, const char *id, const struct mode_ops **owner);
/* Its key as the help shows it ("undo" -> "u"); NULL when no row has
 * that id. Lesson text, messages, hints and the help take their keys from
 * here. */
const char *mode_key_name(const struct app *app, const char *id);
/* The action a row stands for: the row itself, or its `use` (NULL when
 * the app has no action of that id). */
const struct action *mode_target(const struct app *app, const struct action *row);
/* The row of table bound to key, a `use` row by its target's keys. */
const struct action *mode_lookup(const struct app *app, const struct action *table, int key);
/* The lessons' {key:ID}, through mode_key_name (ctx: the app). */
const char *mode_lesson_key(const char *id, const void *ctx);

#endif
