/*
 * fixture_read.h - reading the float64 fixtures of tools/gen_fixtures.py
 * and tools/gen_stack_fixtures.py (tests/fixtures/README.md): whitespace-
 * separated tokens with '#' comments, numbers, and the configuration line
 * both generators write. Our own reader, not the core's parsers: the
 * format must not depend on the code under test. Failures end the test.
 */
#ifndef FIXTURE_READ_H
#define FIXTURE_READ_H

#include <stddef.h>
#include <stdio.h>

#include "mha.h"

/* The next token into buf (cap bytes); 0 at the end of the file. */
int fixture_token(FILE *f, char *buf, size_t cap);
/* The next token as a number; what names it in a failure. */
double fixture_number(FILE *f, const char *what);
/* "key VALUE": the key must be next. */
int fixture_field(FILE *f, const char *key);
/* The config line up to and with "bias": n d h g dk causal top_k scale
 * heads_off, pad, window, hidden, bias; *c starts as mha_config_default(). */
void fixture_config(FILE *f, struct mha_config *c);
/* f opened on tests/fixtures/<dir>/<name>.txt under $MHA_SOURCE_ROOT. */
FILE *fixture_open(const char *dir, const char *name);

#endif
