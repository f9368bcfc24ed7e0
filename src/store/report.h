/*
 * report.h - the program's one line on stderr (report.c), shared by main,
 * the headless commands and the workbench (which prints only once the
 * terminal is restored); and a path quoted for the commands those lines
 * suggest.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdio.h>

/* "mha-tui: MSG" and a newline on err, every control character of msg
 * printed as '?' (mha_text_clean): what the message quotes from a file or
 * the command line cannot drive the terminal. Returns status, so that a
 * caller can `return report_line(stderr, 1, msg);`. */
int report_line(FILE *err, int status, const char *msg);

/* path as one shell word a person can paste into a command: in single
 * quotes, each ' as '\'', control characters cleaned first ('?').
 * Returns out; a path cut to fit still ends its quotes. */
const char *report_shell_word(const char *path, char *out, size_t len);

#endif
