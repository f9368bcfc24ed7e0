/*
 * dump.h - the whole computation as one JSON object (mha-tui --dump json).
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdio.h>

#include "mha.h"

/* Write the JSON object and a newline. Returns 0, or -1 on a write error. */
int dump_json(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_acts *a);

#endif
