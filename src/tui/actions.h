/*
 * actions.h - the one table of actions: key, name, help text, function.
 * It feeds the key bindings, the help overlay and the status-line hints,
 * so the three can never disagree (STYLE.md).
 */
#ifndef ACTIONS_H
#define ACTIONS_H

#include <stdbool.h>

#include "app.h"

enum { ACTION_KEYS_MAX = 8 };

struct action {
	int keys[ACTION_KEYS_MAX];  /* curses key codes; 0 ends the list */
	const char *key_label;      /* as the help shows it: "Tab", "1-7", "Left h" */
	const char *name;           /* short, for the hint bar: "stage" */
	const char *help;           /* one line for the help overlay */
	const char *help_keys;      /* keys as the help's line shows them when this row
	                             * speaks for the rows after it ("] ["); those rows
	                             * have help_keys "" and no line of their own */
	const char *group;          /* help section: "Move", "Edit", "Shape", "Session" */
	unsigned bar;               /* in the hint bar: ACTIONS_BAR_FREE, _LESSON, both, or 0 */
	unsigned (*fn)(struct app *app, int arg, int key);
	int arg;
	const char *lesson_action;  /* the name lessons use for it in {key:ACTION}, or NULL */
};

enum { ACTIONS_BAR_FREE = 1, ACTIONS_BAR_LESSON = 2, ACTIONS_BAR_BOTH = 3 };

/* The table, and its length. */
const struct action *actions_table(int *count);
/* The action bound to key, or NULL. */
const struct action *actions_lookup(int key);

/* The key bound to a lesson action ("hint" -> "i"), as the help shows
 * it; NULL when no row has that action. Lesson text, hints and the help
 * all take their keys from here. */
const char *actions_key_name(const char *lesson_action);

/* The block of cells the * key works on, per app->scale_scope: rows
 * [r0, r1) x columns [c0, c1) of input t around the cursor, and its name
 * ("W^Q[*][4..7]"). false when the cursor is not on an input. */
struct scale_block {
	enum mha_tensor t;
	int r0, r1, c0, c1;
	char name[48];
};
bool actions_scale_block(const struct app *app, struct scale_block *b);

/* One key pressed: the value being typed, an answer being typed, the help
 * overlay, the lesson menu, or the table. Returns APP_* flags. */
unsigned app_key(struct app *app, int key);
/* The mouse at screen cell (y, x), by the hit regions of the last drawing
 * (app->hits): a click on a stage label jumps to it, on a matrix cell puts
 * the cursor there, on a heatmap cell selects that head and cell, on a
 * lesson selects it (on the selected one, opens it), on a key hint is that
 * key; the wheel scrolls the help or the lesson text where they scroll,
 * else moves the cursor a row. Ignored while a value or an answer is being
 * typed; a click elsewhere does nothing. Returns APP_* flags. */
unsigned app_mouse(struct app *app, int y, int x, enum hit_button button);

/* Rule for what survives a change of shape, as the help overlay and the
 * man page state it. */
extern const char actions_keep_rule[];

#endif
