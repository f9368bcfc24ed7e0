/*
 * answer_prompt.h - the answer prompt (answer_prompt.c): the a key on a
 * step that asks a question. The mode itself is answer_prompt_mode (mode.h).
 */
#ifndef ANSWER_PROMPT_H
#define ANSWER_PROMPT_H

#include "app.h"

/* Start typing an answer (or say why not). APP_* flags. */
unsigned answer_prompt_open(struct app *app);

#endif
