/*
 * prompt.c - a line typed into a fixed buffer, for the prompt modes
 * (prompt.h). No drawing, no parsing of what is typed.
 */
#include "prompt.h"

#include <curses.h>
#include <string.h>

bool prompt_is_enter(int key)
{
	return key == '\n' || key == '\r' || key == KEY_ENTER;
}

bool prompt_is_backspace(int key)
{
	return key == KEY_BACKSPACE || key == PROMPT_DEL || key == PROMPT_CTRL_H;
}

void prompt_type(struct app *app, char *buf, size_t size, int key)
{
	size_t len = strlen(buf);
	if (prompt_is_backspace(key)) {
		if (len > 0)
			buf[len - 1] = '\0';
	} else if (key >= 32 && key < 127 && len + 1 < size) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
	} else if (key >= 32 && key < 127) {
		app->typed_overflow = true;
	}
}

bool prompt_refuse_overflow(struct app *app, size_t size)
{
	if (!app->typed_overflow)
		return false;
	app->typed_overflow = false;
	app_message(app, true, "not changed: more than %zu characters typed (the rest was dropped)", size - 1);
	return true;
}
