/*
 * draw.c - the text every screen is drawn with (draw.h): a string put in
 * at most a width, its display width, its short form that ends before a
 * clause, and a message with an ellipsis when it is cut. It knows no app
 * and no mode; the frame is frame.c's.
 */
#include "draw.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "theme.h"

int draw_put(int y, int x, int width, const char *s, attr_t a)
{
	return width > 0 ? theme_addstr(stdscr, y, x, width, s, a) : 0;
}

int draw_width(const char *s)
{
	char buf[512];
	return theme_cut(buf, sizeof buf, s, (int)sizeof buf, false);
}

/* Where s may end in a short form: before "  ", ", ", ": ", "; " or " ("
 * outside parentheses, so that a clause goes whole; before " (" only when
 * the parenthesis ends s or a clause ("heads off (x) give zero blocks"
 * cut there would read as a state). */
static bool clause_end(const char *s, size_t i)
{
	if (!s[i] || !s[i + 1])
		return false;
	if (s[i] == ' ' && s[i + 1] == '(') {
		const char *close = strchr(s + i, ')');
		return close && (!close[1] || clause_end(close, 1) || close[1] == ',' || close[1] == ';' ||
		                 close[1] == ':');
	}
	return (s[i] == ' ' && s[i + 1] == ' ') || ((s[i] == ',' || s[i] == ':' || s[i] == ';') && s[i + 1] == ' ');
}

int draw_short(char *out, size_t len, const char *s, int width)
{
	if (!out || len == 0)
		return 0;
	out[0] = '\0';
	if (!s || width <= 0)
		return 0;
	int w = draw_width(s);
	if (w <= width) {
		snprintf(out, len, "%s", s);
		return w;
	}
	size_t best = 0;
	int depth = 0;
	for (size_t i = 1; s[i] && i < len; i++) {
		depth += s[i] == '(' ? 0 : s[i] == ')' ? -1 : 0;
		if (depth == 0 && clause_end(s, i)) {
			snprintf(out, len, "%.*s", (int)i, s);
			if (draw_width(out) > width)
				break;
			best = i;
		}
		depth += s[i] == '(';
	}
	snprintf(out, len, "%.*s", (int)best, s);
	return best ? draw_width(out) : 0;
}

int draw_fit(int y, int x, int width, const char *s, attr_t a)
{
	char buf[512];
	return draw_short(buf, sizeof buf, s, width) > 0 ? draw_put(y, x, width, buf, a) : 0;
}

int draw_message(int y, int x, int width, const char *s, attr_t a)
{
	if (width <= 0 || !s)
		return 0;
	if (draw_width(s) <= width)
		return draw_put(y, x, width, s, a);
	const char *dots = theme_utf8() ? "\u2026" : "...";
	int room = width - draw_width(dots);
	char buf[512];
	if (draw_short(buf, sizeof buf, s, room) == 0) { /* no clause fits: the words that do */
		theme_cut(buf, sizeof buf, s, room > 0 ? room : 0, false);
		size_t n = strlen(buf);
		if (s[n] != ' ')
			while (n > 0 && buf[n - 1] != ' ')
				n--;
		buf[n] = '\0';
	}
	size_t n = strlen(buf);
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == ',' || buf[n - 1] == ':' || buf[n - 1] == ';'))
		n--;
	snprintf(buf + n, sizeof buf - n, "%s", dots);
	return draw_put(y, x, width, buf, a);
}
