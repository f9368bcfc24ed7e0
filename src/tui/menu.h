/*
 * menu.h - the lesson menu (menu.c): in the side pane, Up/Down or a
 * lesson's number, Enter opens it. The mode itself is menu_mode (mode.h);
 * these are its entry points for the action table and the mouse.
 */
#ifndef MENU_H
#define MENU_H

#include "app.h"
#include "hit.h"
#include "layout.h"

/* M: open or close it. APP_* flags. */
unsigned menu_toggle(struct app *app);
/* The first run (no session, no progress): the menu takes the keys with
 * the first lesson not done selected, and the status line says Enter
 * starts it, Esc leads to the free workbench. Nothing when a lesson is
 * open or there are no lessons. APP_* flags. */
unsigned menu_welcome(struct app *app);
/* Move the selection (the wheel), dir lessons down. */
unsigned menu_move(struct app *app, int dir);
/* A click on lesson i: selects it (the menu takes the keys); a click on
 * the one selected opens it, as Enter does. */
unsigned menu_pick(struct app *app, int i);

/* The lessons listed in r, the selection highlighted while the menu has
 * the keys; the heading says the keys that lead back (also drawn, without
 * a selection, when no lesson is open). Records HIT_MENU in hits. */
void menu_draw(const struct app *app, struct rect r, struct hit_map *hits);

/* What the workbench's short forms mean (n d h h_kv d_k, H), one
 * paragraph: the menu's foot when it has room, else the counts' place
 * while the menu has the keys. */
const char *menu_legend(void);

#endif
