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

void prompt_type(char *buf, size_t size, bool *overflow, int key)
{
	size_t len = strlen(buf);
	if (key == PROMPT_CTRL_U) { /* as in a shell: the whole line goes */
		buf[0] = '\0';
		*overflow = false;
	} else if (prompt_is_backspace(key)) {
		if (len > 0)
			buf[len - 1] = '\0';
	} else if (key >= 32 && key < 127 && len + 1 < size) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
	} else if (key >= 32 && key < 127) {
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
