/*
 * prompt.c - a line typed into a fixed buffer, for the prompt modes
 * (prompt.h). No drawing, no parsing of what is typed.
 */
#include "prompt.h"

#include <curses.h>
#include <string.h>

#include "mode.h"

bool prompt_is_enter(int key)
{
	return key == '\n' || key == '\r' || key == KEY_ENTER;
}

bool prompt_is_backspace(int key)
{
	return key == KEY_BACKSPACE || key == PROMPT_DEL || key == PROMPT_CTRL_H;
}

/* A byte of the line: printable ASCII, or one of the bytes of a UTF-8
 * character (0x80-0xFF: getch gives a character's bytes one key each in
 * a UTF-8 locale; a label such as 日本 is checked whole on Enter). */
static bool typed_byte(int key)
{
	return (key >= 32 && key < 127) || (key >= 0x80 && key <= 0xff);
}

void prompt_type(char *buf, size_t size, bool *overflow, int key)
{
	size_t len = strlen(buf);
	if (prompt_is_backspace(key)) {
		/* a whole character: its continuation bytes (10xxxxxx), then its
		 * first byte (before, one byte went: "日本" became "日?") */
		while (len > 0 && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		buf[len] = '\0';
	} else if (typed_byte(key) && len + 1 < size) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
	} else if (typed_byte(key)) {
		*overflow = true;
	}
}

bool prompt_take(struct app *app, bool *overflow, size_t size)
{
	mode_leave(app);
	if (!*overflow)
		return true;
	*overflow = false;
	app_message(app, true, "not changed: more than %zu characters typed (the rest was dropped)", size - 1);
	return false;
}

unsigned prompt_cancel(struct app *app, const char *said)
{
	mode_leave(app);
	app_message(app, false, "%s", said);
	return APP_REDRAW;
}
