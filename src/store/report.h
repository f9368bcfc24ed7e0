/*
 * report.h - the program's one line on stderr (report.c), shared by main
 * and the workbench (which prints only once the terminal is restored).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

/* "mha-tui: MSG" and a newline on err, every control character of msg
 * printed as '?' (mha_text_clean): what the message quotes from a file or
 * the command line cannot drive the terminal. Returns status, so that a
 * caller can `return report_line(stderr, 1, msg);`. */
int report_line(FILE *err, int status, const char *msg);

#endif
