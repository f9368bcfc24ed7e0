/*
 * input.c - reading keys (input.h). getch() in keypad mode decodes the
 * keys terminfo knows; whatever else starts with Esc comes through byte by
 * byte, and is read here whole: the byte after Esc only if curses already
 * has it (it waited ESCDELAY for it), the rest of a sequence begun with a
 * short wait (a terminal writes a sequence at once):
 *   Esc alone                       -> Esc
 *   Esc [ ... final  (CSI)           -> dropped: focus in/out, mouse (SGR, and X10's
 *                                       three bytes after "[M"), cursor and device reports,
 *                                       unknown keys; "[200~" starts a bracketed paste
 *   Esc ] / P / _ / ^ / X ... ST     -> dropped: OSC (colour replies), DCS (DECRQSS), APC, PM, SOS
 *   Esc O x  (SS3)                   -> dropped (keys terminfo did not name)
 *   Esc key                          -> one key, INPUT_KEY_ALT + key (no action has Alt)
 *   raw C1 (0x80-0x9f) outside UTF-8 -> the same as Esc + (byte - 0x40), so "\x9b...m" is a CSI
 *   C1 encoded in UTF-8 (C2 80-9f)  -> the same as the raw C1: "\xc2\x9b5~" is a CSI, dropped
 * A paste's text is queued and handed out one byte per call while a
 * prompt is open. Does not know what keys do (keys.c, the modes' tables), nor draw.
 */
#include "input.h"

#include <curses.h>
#include <string.h>
#include <unistd.h>

enum {
	INTRO_WAIT_MS = 0,    /* after Esc: curses has waited ESCDELAY already, and what
	                       * came in that time is buffered; Esc then a key typed
	                       * later is Esc, then the key */
	SEQ_WAIT_MS = 50,     /* for the next byte of a sequence already begun */
	PASTE_WAIT_MS = 500,  /* for the next byte of a paste (a large one comes in pieces) */
	SEQ_MAX = 256,        /* a longer CSI / OSC / DCS is read on and dropped */
	PASTE_MAX = 4096,     /* pasted bytes kept for a prompt; the rest are dropped */
	PASTE_READ_MAX = 1 << 20, /* a paste with no end marker ends here */
};

static unsigned char queue[PASTE_MAX]; /* pasted text not handed out yet */
static size_t queue_at, queue_len;
static int utf8_left; /* continuation bytes still expected after a lead byte */

void input_paste_mode(bool on)
{
	const char *seq = on ? "\033[?2004h" : "\033[?2004l";
	ssize_t ignored = write(STDOUT_FILENO, seq, strlen(seq));
	(void)ignored;
}

/* The next byte within ms, or ERR. A key curses decoded (KEY_RESIZE
 * above all) is no byte of a sequence: it is left to be read next. */
static int next_within(int ms)
{
	timeout(ms);
	int c = getch();
	timeout(INPUT_TICK_MS);
	if (c > 0xff) {
		ungetch(c);
		return ERR;
	}
	return c;
}

/* Read on to the final byte of a CSI (0x40-0x7e), keeping its parameter
 * bytes in buf. Returns the final byte, or ERR when the sequence broke off. */
static int read_csi(char *buf, size_t len)
{
	size_t n = 0;
	for (int i = 0; i < SEQ_MAX; i++) {
		int c = next_within(SEQ_WAIT_MS);
		if (c == ERR)
			break;
		if (c >= 0x40 && c <= 0x7e) {
			buf[n] = '\0';
			return c;
		}
		if (n + 1 < len)
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return ERR;
}

/* Read on to the string terminator: BEL, Esc \, or C1 ST (0x9c). A
 * control that cannot be inside the string ends it and is read again as
 * what it is (Alt+] followed by Esc or Enter is not a reply). */
static void read_string(void)
{
	for (int i = 0; i < SEQ_MAX * 16; i++) {
		int c = next_within(SEQ_WAIT_MS);
		if (c == ERR || c == 0x07 || c == 0x9c)
			return;
		if (c == 27) {
			int d = next_within(SEQ_WAIT_MS);
			if (d == '\\')
				return; /* ST */
			if (d != ERR)
				ungetch(d);
			ungetch(27);
			return;
		}
		if (c < 0x20) {
			ungetch(c);
			return;
		}
	}
}

/* The rest of a mouse report that curses left after KEY_MOUSE while the
 * mouse is off. Where terminfo's kmous is "Esc [ M" (tmux, screen) it is
 * X10's three bytes (button, column, row: any values, ' ' 'M' '5' or 'q'
 * among them), read whole; where it is "Esc [ <" (xterm), SGR's
 * "0;30;2M", and anything else is read again. */
static void drop_mouse_report(void)
{
	const char *kmous = tigetstr("kmous");
	if (kmous && kmous != (char *)-1 && *kmous && kmous[strlen(kmous) - 1] == 'M') {
		for (int i = 0; i < 3 && next_within(SEQ_WAIT_MS) != ERR; i++)
			;
		return;
	}
	for (int i = 0; i < 32; i++) {
		int c = next_within(SEQ_WAIT_MS);
		if (c == 'M' || c == 'm' || c == ERR)
			return;
		if (!(c >= '0' && c <= '9') && c != ';') {
			ungetch(c);
			return;
		}
	}
}

/* A bracketed paste, after its "Esc [200~": read to "Esc [201~", queue
 * the printable bytes when typing (controls, Enter included, never act). */
static void read_paste(bool typing)
{
	static const char end[] = "\033[201~";
	size_t matched = 0;
	queue_at = queue_len = 0;
	for (long i = 0; i < PASTE_READ_MAX; i++) {
		int c = next_within(PASTE_WAIT_MS);
		if (c == ERR)
			return;
		if (c == (unsigned char)end[matched]) {
			if (++matched == sizeof end - 1)
				return;
			continue;
		}
		matched = c == 27;
		if (typing && c >= 0x20 && c <= 0xff && c != 0x7f && queue_len < sizeof queue)
			queue[queue_len++] = (unsigned char)c;
	}
}

/* After Esc (or the C1 byte standing for Esc + intro): the sequence, read
 * whole. Returns the key it stands for, or ERR when it is none. */
static int after_escape(int intro, bool typing)
{
	if (intro == '[') {
		char params[64];
		int final = read_csi(params, sizeof params);
		if (final == '~' && strcmp(params, "200") == 0) {
			read_paste(typing);
			return ERR; /* the queue, if anything, comes next */
		}
		if (final == 'M' && params[0] == '\0') /* X10 mouse: three bytes follow */
			for (int i = 0; i < 3; i++)
				next_within(SEQ_WAIT_MS);
		return ERR;
	}
	if (intro == ']' || intro == 'P' || intro == '_' || intro == '^' || intro == 'X') {
		read_string();
		return ERR;
	}
	if (intro == 'O') {
		next_within(SEQ_WAIT_MS);
		return ERR;
	}
	/* Alt + a key: one key, and no action has it; the loop says so */
	return intro > 32 && intro < 127 ? INPUT_KEY_ALT + intro : ERR;
}

/* A byte 0x80-0x9f that is not inside a UTF-8 character is a C1 control. */
static bool is_c1(int c)
{
	if (c < 0x80 || c > 0xff) {
		utf8_left = 0;
		return false;
	}
	if (c >= 0xc0) {
		utf8_left = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
		return false;
	}
	if (utf8_left > 0) { /* a continuation byte */
		utf8_left--;
		return false;
	}
	return c <= 0x9f;
}

int input_key(bool mouse_on, bool typing)
{
	if (queue_at < queue_len) {
		if (typing)
			return queue[queue_at++];
		queue_at = queue_len = 0; /* the prompt closed: the rest is not for commands */
	}
	int c = getch();
	if (c == KEY_MOUSE && !mouse_on) {
		MEVENT ev;
		getmouse(&ev); /* read and dropped */
		drop_mouse_report();
		return ERR;
	}
	if (is_c1(c))
		return after_escape(c - 0x40, typing);
	if (c == 0xc2) { /* U+0080..U+009F are the C1 controls, in UTF-8 */
		int d = next_within(SEQ_WAIT_MS);
		if (d >= 0x80 && d <= 0x9f) {
			utf8_left = 0;
			return after_escape(d - 0x40, typing);
		}
		if (d != ERR)
			ungetch(d);
		return c;
	}
	if (c != 27)
		return c;
	int intro = next_within(INTRO_WAIT_MS);
	if (intro == ERR)
		return 27; /* Esc alone */
	if (intro == 27) {
		ungetch(27); /* Esc twice: two Escs */
		return 27;
	}
	int key = after_escape(intro, typing);
	if (key == ERR && queue_at < queue_len && typing)
		return queue[queue_at++];
	return key;
}
