/*
 * input.h - the key-reading step of the main loop: keys only from the
 * keyboard. What the terminal sends by itself (mouse reports while the
 * mouse is off, focus events, replies to queries: OSC, DCS, DECRQSS, DA,
 * cursor reports; raw C1 controls) is read whole and dropped; Alt+key
 * (Esc and a key together) is one key, never an Esc that cancels and then
 * a command; a bracketed paste is text: typed into a prompt, and never
 * run as commands.
 */
#ifndef INPUT_H
#define INPUT_H

#include <stdbool.h>

enum { INPUT_TICK_MS = 100 }; /* getch's timeout: the loop wakes this often */
/* Alt+x (ESC x, x printable) comes back as INPUT_KEY_ALT + x: no action
 * has it, and the loop says so instead of running Esc and then x. */
enum { INPUT_KEY_ALT = 0x100000 };

/* Bracketed paste on (at start) and off (at exit): the terminal then marks
 * pasted text. Written straight to the terminal, no curses. */
void input_paste_mode(bool on);

/* The next key as getch() gives it (ERR when none came within
 * INPUT_TICK_MS, or when what came was not a key). mouse_on: mouse
 * reports are asked for (KEY_MOUSE passes); typing: a prompt is open, so
 * pasted text is typed into it, character by character (line ends and
 * other controls dropped); otherwise a paste is dropped whole. */
int input_key(bool mouse_on, bool typing);

#endif
