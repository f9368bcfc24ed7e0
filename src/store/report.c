/*
 * report.c - the one-line message the program leaves on stderr when it
 * stops or has something to say before its screen opens (report.h). It
 * only formats and writes; when to say it is the caller's.
 */
#include "report.h"

#include "mha.h"

int report_line(FILE *err, int status, const char *msg)
{
	char line[8192];
	snprintf(line, sizeof line, "%s", msg);
	mha_text_clean(line);
	fprintf(err, "mha-tui: %s\n", line);
	return status;
}
