/*
 * session.h - the workbench saved as a versioned text file: configuration,
 * token labels and every input matrix. Format in doc/SESSION.md.
 * Written by session_write.c, read by session_read.c.
 * No terminal here; files only.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdio.h>

#include "mha.h"
#include "statefile.h"

/* Version 1: all text. Version 2: the same, and a matrix of more than 65,536
 * values as binary float32 (doc/SESSION.md); written only when needed. */
enum { SESSION_VERSION = 1, SESSION_VERSION_BINARY = 2 };

/* The first word of every session file, before its version. */
#define SESSION_MAGIC "mha-tui-session"

/* Write atomically (writefile_write): a temporary file in the same
 * directory, fsync, rename, fsync of the directory; never over a file that
 * is not a session, nor a read-only one. On failure the previous file is
 * intact. Returns 0, or -1 with msg ("path: reason"). */
int session_save(const char *path, const struct mha_config *c, const struct mha_weights *w,
                 char *msg, size_t len);

/* The same, never over a file changed since chk->expect, up to the rename
 * (writefile_write): then STATEFILE_CHANGED and nothing replaced;
 * chk also says what the save replaced (its hard links). chk may be NULL. */
int session_save_checked(const char *path, const struct mha_config *c, const struct mha_weights *w,
                         struct statefile_check *chk, char *msg, size_t len);

/* The session's text into f, for a file that holds one inside it (a
 * lesson bench). 0, or -1 with why (a label a load would not take back). */
int session_write_to(FILE *f, const struct mha_config *c, const struct mha_weights *w, char *why, size_t len);

/* Read a session: on success *c is its configuration and *w is allocated
 * (mha_weights_free) and filled. Returns 0, or -1 with msg as
 * "path:line: message"; *w is then left unallocated. Never changes the file. */
int session_load(const char *path, struct mha_config *c, struct mha_weights *w,
                 char *msg, size_t len);

/* The same from a buffer in memory; name is used in messages. */
int session_parse(const char *name, const char *text, size_t size,
                  struct mha_config *c, struct mha_weights *w, char *msg, size_t len);
/* The same for a session that is the rest of a longer file (a lesson
 * bench: lessonbench.h), after lines_before lines of it: messages count
 * the file's lines. */
int session_parse_within(const char *name, int lines_before, const char *text, size_t size,
                         struct mha_config *c, struct mha_weights *w, char *msg, size_t len);

/* Where the workbench is saved by default: $XDG_STATE_HOME/mha-tui/session.txt
 * (else ~/.local/state/mha-tui/session.txt). Creates the directory.
 * Returns 0, or -1 with msg. */
int session_default_path(char *out, size_t outlen, char *msg, size_t len);

#endif
