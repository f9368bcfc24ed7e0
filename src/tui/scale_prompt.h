/*
 * scale_prompt.h - the * key's prompt (scale_prompt.c): which block of
 * cells it works on. The mode itself is scale_prompt_mode (mode.h).
 */
#ifndef SCALE_PROMPT_H
#define SCALE_PROMPT_H

#include <stdbool.h>

#include "app.h"

/* Open it on the cursor's input cell (else say where the inputs are). */
unsigned scale_prompt_open(struct app *app);

/* The block of cells the * key works on, per app->scale_scope: rows
 * [r0, r1) x columns [c0, c1) of input t around the cursor, and its name
 * ("W^Q[*,4..7]"). false when the cursor is not on an input. */
struct scale_block {
	enum mha_tensor t;
	int r0, r1, c0, c1;
	char name[48];
};
bool scale_prompt_block(const struct app *app, struct scale_block *b);

#endif
