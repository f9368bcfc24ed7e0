/*
 * recover_prompt.h - the question an autosave found at start asks
 * (recover_prompt.c): load it now, discard it, or later. The mode itself
 * is recover_prompt_mode (mode.h).
 */
#ifndef RECOVER_PROMPT_H
#define RECOVER_PROMPT_H

#include "app.h"

/* Ask about app->recover_path, from the workbench with the learner's own
 * bench only (in a lesson or the menu the status line names it instead).
 * true when the question is up. */
bool recover_prompt_open(struct app *app);

/* At exit, the autosave found at start and not loaded nor discarded, its
 * path whole (the status line may have shortened it): the line for
 * stderr into out; false when there is none. */
bool recover_prompt_exit_note(const struct app *app, char *out, size_t len);

#endif
