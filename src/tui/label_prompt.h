/*
 * label_prompt.h - N in the workbench: type your own sentence, one token a
 * word (label_prompt.c).
 */
#ifndef LABEL_PROMPT_H
#define LABEL_PROMPT_H

#include "app.h"

/* N: open the prompt with the current labels to edit. */
unsigned label_prompt_open(struct app *app, int arg, int key);

extern const struct mode_ops label_prompt_mode;

#endif
