/*
 * lesson_menu.h - the list of lessons in the side pane (lesson_menu.c):
 * drawn by the lesson pane when no lesson is open and by the menu mode
 * while it has the keys.
 */
#ifndef LESSON_MENU_H
#define LESSON_MENU_H

#include "app.h"
#include "hit.h"
#include "layout.h"

/* The lessons listed in r, the selection highlighted while the menu has
 * the keys; the heading says the keys that lead back (also drawn, without
 * a selection, when no lesson is open). Records HIT_MENU in hits. */
void lesson_menu_draw(const struct app *app, struct rect r, struct hit_map *hits);

/* What the workbench's short forms mean (n d h h_kv d_k, H), one
 * paragraph: the menu's foot when it has room, else the counts' place
 * while the menu has the keys. */
const char *lesson_menu_legend(void);
/* Does the menu drawn in r hold the legend in its foot? (Then the counts'
 * place does not repeat it.) */
bool lesson_menu_legend_shown(const struct app *app, struct rect r);

#endif
