/*
 * learn.h - lessons on the workbench: the menu, opening a lesson, stepping
 * with n / p, hints, the solution, answering a question, leaving for the
 * free workbench and coming back, and saving progress and place as the
 * learner goes. The state is app->learn (app.h); no curses here, so the
 * tests drive it through app_key without a screen. The lesson library
 * (lesson.h, run.h, nav.h, and the store's progress.h) does the lesson
 * work: this module only wires it to the app's benches, modes and status
 * line. learn_attach is how the lessons join an app.
 */
#ifndef LEARN_H
#define LEARN_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "stage.h"

/* Turn the lessons on: set is what was found (NULL: none, `why` says
 * why); progress is read from progress_path (NULL: kept in memory only;
 * a corrupt file is left untouched, never saved over, and said so). */
void learn_attach(struct app *app, const struct lesson_set *set, const char *why,
                  const char *progress_path);
/* mha-tui with no arguments: back into the lesson the learner was in, or
 * the free workbench with the menu beside it (first run, or out of one);
 * the free workbench at the stage, matrix, cursor and layout it was left
 * at (learn_free records them). */
void learn_resume(struct app *app);
/* --lesson ID: by number or name, where the learner left it
 * (learn_open_where_left). 0; or with msg, 2
 * when no lesson has that ID (a usage error), 1 when there are no lessons
 * or it cannot be set up. */
int learn_open_id(struct app *app, const char *id, char *msg, size_t len);
/* Open lesson li of the set at step si, set up afresh. APP_* flags. */
unsigned learn_open(struct app *app, int li, int si);

/* Open lesson li where the learner left it (lesson_where_left): at the
 * saved place with its edits, cursor, hints and wrong answer as they were,
 * else at its first step not done. The menu and --lesson ID open this way. */
unsigned learn_open_where_left(struct app *app, int li);
void learn_free(struct app *app);
/* At quit: the place, the progress and the open lesson's bench saved;
 * each failure said by say (one line: tui_run prints it on stderr once
 * the terminal is closed). Returns how many failed. Once: learn_free
 * saves only when this was not called. */
int learn_quit(struct app *app, void (*say)(const char *line, void *ctx), void *ctx);

/* Actions (APP_* flags). */
unsigned learn_step(struct app *app, int dir);       /* n / p */
unsigned learn_hint(struct app *app);
unsigned learn_solve(struct app *app);
unsigned learn_leave(struct app *app);               /* to the free workbench, or back */
unsigned learn_scroll(struct app *app, int lines);
unsigned learn_counts_toggle(struct app *app);
/* The reading layout on / off (app_learn.reading). */
unsigned learn_read_toggle(struct app *app);
/* Does the action with this id keep the reading layout (the lesson's
 * own keys, the help, quitting)? Every other key works on the matrices
 * and brings them back. */
bool learn_read_keeps(const char *id);
/* A lesson key with no lesson open: says how to open one. */
unsigned learn_no_lesson(struct app *app);

/* The lesson menu's selection (app->learn.menu_sel; the menu mode, menu.c,
 * has the keys): move it dir lessons down (the wheel too); open the
 * selected lesson where it was left (Enter); a click on lesson i selects
 * it, the menu taking the keys, and on the one selected opens it. APP_*
 * flags. */
unsigned learn_menu_move(struct app *app, int dir);
unsigned learn_menu_choose(struct app *app);
unsigned learn_menu_pick(struct app *app, int i);
/* The first run (no session, no progress): the menu takes the keys with
 * the first lesson not done selected, and the status line says Enter
 * starts it, Esc leads to the free workbench. Nothing when a lesson is
 * open or there are no lessons. APP_* flags. */
unsigned learn_menu_welcome(struct app *app);

enum { LEARN_SCROLL_END = 1 << 29 }; /* app->learn.scroll: the pane's end (clamped when drawn) */

/* After every mha_forward (app_recompute): check the open lesson's goal;
 * the moment it holds, say so and record the step as done. */
void learn_evaluate(struct app *app);

/* What the screen shows of the open lesson (all false when none is). */
const struct lesson *learn_lesson(const struct app *app); /* active lesson, or NULL */
bool learn_hidden(const struct app *app, enum mha_tensor t, int m, int r, int c);
bool learn_stage_hidden(const struct app *app, enum pipeline_stage s);
bool learn_counts_hidden(const struct app *app);
/* Does the open step hide any of what `shows` says (MODE_SHOWS_*: stages,
 * the counts)? A key that shows it is refused until the answer. */
bool learn_shows_hidden(const struct app *app, unsigned shows);
/* The step whose unanswered question the view of key action `action`
 * waits for (@wait: that step or a later one of the open lesson, neither
 * answered right nor shown), or NULL when the view may open. */
const struct lesson_step *learn_view_waits(const struct app *app, const char *action);
bool learn_marked(const struct app *app, enum mha_tensor t, int m, int r, int c);
bool learn_head_marked(const struct app *app, int h);
/* The lesson and step the learner left for the free workbench, to name
 * them ("lesson 3, step 2"); false when there is none to return to. */
bool learn_return_place(const struct app *app, int *lesson, int *step);

#endif
