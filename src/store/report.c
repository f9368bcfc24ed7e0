/*
 * report.c - the one-line message the program leaves on stderr when it
 * stops or has something to say before its screen opens (report.h), and
 * the quoting of a path in a command it suggests. It only formats and
 * writes; when to say it is the caller's.
 */
#include "report.h"

#include "mha.h"

#include <string.h>

int report_line(FILE *err, int status, const char *msg)
{
	char line[8192];
	snprintf(line, sizeof line, "%s", msg);
	mha_text_clean(line);
	fprintf(err, "mha-tui: %s\n", line);
	return status;
}

const char *report_shell_word(const char *path, char *out, size_t len)
{
	char clean[4096];
	size_t o = 0;
	if (len < 3) {
		if (len)
			out[0] = '\0';
		return out;
	}
	snprintf(clean, sizeof clean, "%s", path);
	mha_text_clean(clean);
	out[o++] = '\'';
	for (const char *p = clean; *p && o + 6 < len; p++) {
		if (*p == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else
			out[o++] = *p;
	}
	out[o++] = '\'';
	out[o] = '\0';
	return out;
}
