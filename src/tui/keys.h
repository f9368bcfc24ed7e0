/*
 * keys.h - where a key or a click goes (keys.c): a prompt, the help
 * overlay, the current mode's table, the workbench's. Every mode's keys
 * are rows of tables (mode.h); this is the one place that runs them.
 */
#ifndef KEYS_H
#define KEYS_H

#include "app.h"
#include "hit.h"
#include "mode.h"

/* One key pressed: the prompt being typed, the help overlay, or the
 * current mode (which may hand it on to the workbench's table). Returns
 * APP_* flags. */
unsigned app_key(struct app *app, int key);
/* The mouse at screen cell (y, x), by the hit regions of the last drawing
 * (app->hits): a click on a key hint is that key; anything else goes to
 * the mode as KEY_MOUSE with app->mouse set (the workbench: a stage label
 * jumps to it, a matrix cell takes the cursor, a heatmap cell selects that
 * head and cell, a lesson selects it; the wheel scrolls the help or the
 * lesson text where they scroll, else moves the cursor a row). Ignored
 * while a line is typed. Returns APP_* flags. */
unsigned app_mouse(struct app *app, int y, int x, enum hit_button button);
/* What key does on the workbench: the row of its table bound to it (a
 * `use` row as it stands) or a view's opener, and whose table it is in;
 * NULL when nothing. */
const struct action *keys_workbench(const struct app *app, int key, const struct mode_ops **owner);
/* Run row a of owner's table (owner may be NULL) for key: refused while
 * it would show what the open lesson step hides; a change of the inputs
 * counts toward the next autosave. APP_* flags. */
unsigned keys_run(struct app *app, const struct action *a, const struct mode_ops *owner, int key);

#endif
