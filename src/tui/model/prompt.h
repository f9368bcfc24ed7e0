/*
 * prompt.h - what the prompts (a value, a factor, an answer, a sentence)
 * share: a line typed into a fixed buffer of the prompt's own state, and
 * the refusal of a line that lost characters. The prompts themselves are
 * modes (value_prompt.c, scale_prompt.c, answer_prompt.c,
 * label_prompt.c); this draws nothing.
 */
#ifndef PROMPT_H
#define PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Keys a prompt reads besides printable characters. */
enum { PROMPT_ESC = 27, PROMPT_DEL = 127, PROMPT_CTRL_H = 8, PROMPT_CTRL_U = 21 /* clears the line */ };

bool prompt_is_enter(int key);
bool prompt_is_backspace(int key);

/* A key into a line being typed (buf, size bytes): Backspace removes a
 * whole (UTF-8) character, a printable byte (ASCII, or a byte of a UTF-8
 * character) is added while there is room (else *overflow says one was
 * dropped, and Enter refuses the line); anything else is ignored. */
void prompt_type(char *buf, size_t size, bool *overflow, int key);

/* Enter: the prompt gives the keys back (mode_leave); true when the line
 * can be taken, false when it lost characters (refused, said why, and
 * *overflow cleared). */
bool prompt_take(struct app *app, bool *overflow, size_t size);
/* Esc: the prompt gives the keys back, the status line says so (said).
 * APP_* flags. */
unsigned prompt_cancel(struct app *app, const char *said);

#endif
