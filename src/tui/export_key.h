/*
 * export_key.h - mha-tui --export txt: the workbench drawn headless, as
 * text (export_key.c). The E key itself is the workbench's.
 */
#ifndef EXPORT_KEY_H
#define EXPORT_KEY_H

#include <stdio.h>

#include "mha.h"

/* mha-tui --export txt: the workbench with cfg and w (ownership of w
 * passes here, freed in every case) drawn at rows x cols on a screen with
 * no terminal, focused on stage (a pipeline_stage, or -1 for the
 * workbench's default), written to f as text, a line a row. 0, or -1
 * with msg. */
int export_key_headless(FILE *f, const struct mha_config *cfg, struct mha_weights *w, int stage,
                        int rows, int cols, char *msg, size_t len);

#endif
