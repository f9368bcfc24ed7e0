/*
 * value_prompt.h - the value prompt (value_prompt.c): Enter on an input
 * cell. The mode itself is value_prompt_mode (mode.h).
 */
#ifndef VALUE_PROMPT_H
#define VALUE_PROMPT_H

#include "app.h"

/* Open it on the cursor's input cell (else say where the inputs are). APP_* flags. */
unsigned value_prompt_open(struct app *app);

#endif
