/*
 * prompt.h - what the three prompts (a value, a factor, an answer) share:
 * a line typed into a fixed buffer, and the refusal of a line that lost
 * characters. The prompts themselves are modes (value_prompt.c,
 * scale_prompt.c, answer_prompt.c); this draws nothing.
 */
#ifndef PROMPT_H
#define PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Keys a prompt reads besides printable characters. */
enum { PROMPT_ESC = 27, PROMPT_DEL = 127, PROMPT_CTRL_H = 8 };

bool prompt_is_enter(int key);
bool prompt_is_backspace(int key);

/* A key into a line being typed: Backspace removes, a printable
 * character is added while there is room (else app->typed_overflow says
 * one was dropped, and Enter refuses the line); anything else is ignored. */
void prompt_type(struct app *app, char *buf, size_t size, int key);

/* Enter on a line that lost characters: true, the line refused and said why. */
bool prompt_refuse_overflow(struct app *app, size_t size);

#endif
