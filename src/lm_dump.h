/*
 * lm_dump.h - `mha-tui --dump json --text "WORDS" --model [FILE]`: the
 * sentence through the language model as one JSON object (with
 * --generate N, N tokens generated after it) (doc/DUMP.md,
 * "The language model's dump").
 */
#ifndef LM_DUMP_H
#define LM_DUMP_H

#include <stdio.h>

/* model: the file, or NULL for the shipped one; generate: tokens to
 * generate greedily after the text (0: none). The JSON on out; 0, or 1
 * with one line on err (no model, a text with no token or more than the
 * model's context, more to generate than the context has room for, a
 * write error). */
int lm_dump_command(const char *model, const char *text, int generate, FILE *out, FILE *err);

#endif
