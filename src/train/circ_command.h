/*
 * circ_command.h - `mha-tui --circuits MODEL [--json] [--position P]`
 * (doc/CIRCUITS.md): every circuit figure of a saved model, as tables for
 * a person or as one JSON object; main.c only dispatches.
 */
#ifndef TRAIN_CIRC_COMMAND_H
#define TRAIN_CIRC_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

/* position: the logit lens's, -1 for the default. Returns 0; 1 when the
 * model cannot be read (or memory runs out); 2 when the position is
 * outside the model's context. Messages on err, one line each. */
int circ_command(const char *path, bool json, int position, FILE *out, FILE *err);

#endif
