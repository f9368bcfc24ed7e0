/*
 * actions.h - the one table of actions: key, name, help text, function.
 * It feeds the key bindings, the help overlay, the status-line hints and
 * every key a message names, so they can never disagree (doc/DESIGN.md).
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
	const char *id;             /* its name: messages ask actions_key_name for its key,
	                             * and lessons write {key:ID} (pane.h lists those) */
};

enum { ACTIONS_BAR_FREE = 1, ACTIONS_BAR_LESSON = 2, ACTIONS_BAR_BOTH = 3 };

/* The table, and its length. */
const struct action *actions_table(int *count);
/* The action bound to key, or NULL. */
const struct action *actions_lookup(int key);

/* The key bound to action id ("hint" -> "i"), as the help shows it; NULL
 * when no row has that id. Lesson text, messages, hints and the help all
 * take their keys from here. */
const char *actions_key_name(const char *id);

/* q: save the session and quit; when the save fails, a second q quits
 * anyway. APP_* flags. */
unsigned actions_quit(struct app *app);

/* Rule for what survives a change of shape, as the help overlay and the
 * man page state it. */
extern const char actions_keep_rule[];

#endif
