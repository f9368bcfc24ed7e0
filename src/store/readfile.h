/*
 * readfile.h - read a whole file the program was pointed at (a session,
 * the progress, a lesson, an asset) without ever hanging on it: opened
 * with O_NONBLOCK (a FIFO with no writer cannot block the open), checked
 * to be a regular file before a byte is read, bounded in size.
 */
#ifndef READFILE_H
#define READFILE_H

#include <stddef.h>
#include <stdio.h>

/* Read path into a new NUL-terminated buffer (*text, free() it; *size
 * bytes before the NUL). Refused, with the reason in why (no path:
 * callers name the file their own way) and -1: cannot open (errno kept:
 * ENOENT for a missing file), a directory, not a regular file (FIFO,
 * device, socket), more than max bytes, a read error, out of memory. */
int readfile_all(const char *path, size_t max, char **text, size_t *size, char *why, size_t len);

/* The same checks, for a reader that streams (a session can be hundreds
 * of megabytes): a FILE open for reading on a regular file, or NULL with
 * why and errno as above. */
FILE *readfile_open(const char *path, char *why, size_t len);

#endif
