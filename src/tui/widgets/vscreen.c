/*
 * vscreen.c - a headless screen: curses on /dev/null, read back with
 * mvwinnstr. Used by the tests and the benchmark, and by the product for
 * mha-tui --export txt (export_key.c); vscreen_text and vscreen_write
 * also read the real screen for the export key. It keeps its screen and
 * files in file-scope variables because there is one such screen per
 * process. It does not draw anything itself.
 */
#include "vscreen.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"

static SCREEN *vs;
static FILE *vs_in, *vs_out;

int vscreen_open(int rows, int cols, const char *term, bool no_color)
{
	unsetenv("LINES");
	unsetenv("COLUMNS");
	vs_in = fopen("/dev/null", "r");
	vs_out = fopen("/dev/null", "w");
	if (!vs_in || !vs_out)
		return -1;
	vs = newterm(term ? term : "xterm-256color", vs_out, vs_in);
	if (!vs)
		return -1;
	set_term(vs);
	resize_term(rows, cols);
	theme_init(no_color);
	return 0;
}

void vscreen_resize(int rows, int cols)
{
	resize_term(rows, cols);
}

void vscreen_close(void)
{
	if (vs) {
		endwin();
		delscreen(vs);
		vs = NULL;
	}
	if (vs_in)
		fclose(vs_in);
	if (vs_out)
		fclose(vs_out);
	vs_in = vs_out = NULL;
}

size_t vscreen_text(char *out, size_t len)
{
	size_t used = 0;
	char line[1024 * 4];
	if (len == 0)
		return 0;
	out[0] = '\0';
	for (int y = 0; y < LINES; y++) {
		int n = (int)sizeof line - 1; /* bytes: a cell may take several in UTF-8 */
		line[0] = '\0';
		if (mvwinnstr(stdscr, y, 0, line, n) == ERR)
			line[0] = '\0';
		size_t l = strlen(line);
		while (l > 0 && line[l - 1] == ' ')
			line[--l] = '\0';
		if (used + l + 2 > len)
			break;
		memcpy(out + used, line, l);
		used += l;
		out[used++] = '\n';
		out[used] = '\0';
	}
	return used;
}

int vscreen_write(FILE *f)
{
	size_t len = (size_t)LINES * ((size_t)COLS * 4 + 1) + 1;
	char *buf = malloc(len);
	if (!buf)
		return -1;
	size_t used = vscreen_text(buf, len);
	int rc = fwrite(buf, 1, used, f) == used ? 0 : -1;
	free(buf);
	return rc;
}
