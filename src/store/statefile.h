/*
 * statefile.h - where the files the program keeps between runs live (the
 * session, the progress, the lesson benches): the state directory. They
 * are written through writefile.h, the one write path, included here for
 * the checked write's names (struct statefile_check, STATEFILE_CHANGED).
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "claim.h"
#include "writefile.h"

/* $XDG_STATE_HOME/mha-tui (an absolute XDG_STATE_HOME only, as the spec
 * says), else $HOME/.local/state/mha-tui; created (mode 0700) if missing.
 * Returns 0, or -1 with msg: one line saying which variable leads where,
 * and why that cannot be used (too long, a file in the way, ...). */
int statefile_dir(char *out, size_t outlen, char *msg, size_t len);

/* statefile_dir() + "/" + name: where a file the program keeps lives by
 * default (session.txt, progress.txt). Returns 0, or -1 with msg. */
int statefile_path(const char *name, char *out, size_t outlen, char *msg, size_t len);

#endif
