/*
 * flash_view.h - the FlashAttention view (flash_view.c): one head's
 * attention computed tile by tile, stepped forwards and back. The mode
 * itself is flash_mode (mode.h); these are its entry points for the
 * action table, the lessons and the app. Its state is a struct
 * flash_view the app owns (app->flash), made on first use.
 */
#ifndef FLASH_VIEW_H
#define FLASH_VIEW_H

#include "app.h"

/* F on Scores or Softmax: record the current head tile by tile (the
 * engine's mha_flash_record) and open the view. APP_* flags. */
unsigned flash_view_open(struct app *app, int arg, int key);

/* A lesson step was opened (learn_focus.c, learn.c): a step with @flash
 * opens the view at its tiles and step (in the predict state when it
 * says so); any other step closes the view if it is open. */
void flash_view_follow_step(struct app *app);

/* After every forward pass (app_recompute): record again while the view
 * is open or the lesson step uses it, and hand the lesson's live question
 * its numbers (lesson_run.live). */
void flash_view_recompute(struct app *app);

/* The step shown (0-based) and the one hidden by the predict state (-1:
 * none), for the tests. */
int flash_view_step(const struct app *app);
int flash_view_hidden_step(const struct app *app);

void flash_view_free(struct app *app);

#endif
