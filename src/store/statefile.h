/*
 * statefile.h - files the program keeps between runs (progress, and fit
 * for the session too): the state directory, and writing a file
 * atomically so that a crash or a full disk leaves the old file whole.
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include <stddef.h>
#include <stdio.h>

/* $XDG_STATE_HOME/mha-tui (an absolute XDG_STATE_HOME only, as the spec
 * says), else $HOME/.local/state/mha-tui; created (mode 0700) if missing.
 * Returns 0, or -1 with msg. */
int statefile_dir(char *out, size_t outlen, char *msg, size_t len);

/* Write path atomically: write(f, ctx) fills a temporary file in the same
 * directory, which is flushed, fsync'ed and renamed over path; then the
 * directory is fsync'ed. On any failure the temporary file is removed,
 * path is untouched, and -1 comes back with msg ("path: reason"). */
int statefile_write(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                    char *msg, size_t len);

#endif
