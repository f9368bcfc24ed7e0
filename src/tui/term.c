/*
 * term.c - opening and closing the terminal, and the signal discipline:
 * SIGINT / SIGTERM / SIGHUP only set a flag (the loop saves the session and
 * leaves cleanly); SIGSEGV / SIGABRT / SIGBUS / SIGFPE restore the saved
 * terminal modes with async-signal-safe calls and re-raise, so the shell
 * gets its terminal back and the crash keeps its exit status. No SIGWINCH
 * handler: ncurses reports resizes as KEY_RESIZE. Mouse reports are turned
 * on with the terminal (clicks and the wheel); endwin turns them off, and
 * so does the crash handler.
 *
 * The file-scope state below is what a signal handler may touch: the flag,
 * and the terminal modes to restore (a handler cannot be passed a pointer).
 */
#include "term.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "theme.h"

static volatile sig_atomic_t pending_signal;
static struct termios saved_modes;
static volatile sig_atomic_t have_saved_modes;
static SCREEN *screen; /* not touched by handlers */

static void on_quit_signal(int sig)
{
	pending_signal = sig;
}

/* Mouse reports off (every mode ncurses may have asked for: X10 / normal,
 * button-event, any-event, SGR encoding), leave the alternate screen, show
 * the cursor, restore the modes. */
static void on_crash(int sig)
{
	static const char reset[] = "\033[?1000l\033[?1002l\033[?1003l\033[?1006l"
	                            "\033[?1049l\033[?25h\033[0m\r\n";
	if (have_saved_modes)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
	ssize_t ignored = write(STDOUT_FILENO, reset, sizeof reset - 1);
	(void)ignored;
	raise(sig); /* SA_RESETHAND: the default action now, with its exit status */
}

/* The mouse modes of the terminal's XM string, each in a sequence of its
 * own, into out: "\033[?1006;1000h" gives "\033[?1006h\033[?1000h". ncurses
 * asks for the mouse with XM, and xterm's names two modes in one
 * sequence; emulators built on libvterm 0.1 (Debian 12's: neovim's
 * terminal, pangoterm, the pty tests) act on its first mode only, so they
 * would send no clicks, and would keep the mode they took after exit.
 * Terminals that read every mode (xterm, tmux, ...) see the same modes
 * twice. Empty when XM is missing or not of that form. */
static void mouse_modes_each(bool on, char *out, size_t len)
{
	out[0] = '\0';
	const char *xm = tigetstr("XM");
	if (!xm || xm == (char *)-1)
		return;
	const char *seq = tiparm(xm, on ? 1 : 0);
	if (!seq || strncmp(seq, "\033[?", 3) != 0)
		return;
	size_t n = strspn(seq + 3, "0123456789;");
	char final = seq[3 + n];
	if ((final != 'h' && final != 'l') || seq[4 + n] != '\0')
		return;
	size_t at = 0;
	for (const char *p = seq + 3; p < seq + 3 + n && at < len;) {
		size_t d = strspn(p, "0123456789");
		if (d > 0 && d < 8)
			at += (size_t)snprintf(out + at, len - at, "\033[?%.*s%c", (int)d, p, final);
		p += d + (p[d] == ';');
	}
	if (at >= len)
		out[0] = '\0'; /* cut: better none than half */
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int term_signal(void)
{
	return (int)pending_signal;
}

long long term_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int term_open(bool no_color, bool no_mouse, char *msg, size_t len)
{
	static const char hint[] = "for output without a terminal use: mha-tui --dump json";
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		snprintf(msg, len, "%s is not a terminal; %s", isatty(STDOUT_FILENO) ? "standard input" : "standard output",
		         hint);
		return -1;
	}
	const char *term = getenv("TERM");
	if (!term || !*term || strcmp(term, "dumb") == 0) {
		snprintf(msg, len, "TERM is %s%s%s: the workbench needs a terminal type such as xterm-256color; %s",
		         term ? "'" : "not set", term ? term : "", term ? "'" : "", hint);
		return -1;
	}
	if (tcgetattr(STDIN_FILENO, &saved_modes) == 0)
		have_saved_modes = 1;
	/* handlers first: ncurses then leaves SIGINT / SIGTERM to us */
	install(SIGINT, on_quit_signal, 0);
	install(SIGTERM, on_quit_signal, 0);
	install(SIGHUP, on_quit_signal, 0);
	install(SIGSEGV, on_crash, (int)SA_RESETHAND);
	install(SIGABRT, on_crash, (int)SA_RESETHAND);
	install(SIGBUS, on_crash, (int)SA_RESETHAND);
	install(SIGFPE, on_crash, (int)SA_RESETHAND);
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		snprintf(msg, len, "TERM '%s' is not a terminal type this system knows; try TERM=xterm-256color, or %s",
		         term, hint);
		return -1;
	}
	set_term(screen);
	if (!tigetstr("cup") || tigetstr("cup") == (char *)-1) {
		term_close();
		snprintf(msg, len, "TERM '%s' cannot move the cursor; try TERM=xterm-256color, or %s", term, hint);
		return -1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	timeout(100); /* wake up for resizes, signals and expiring messages */
	set_escdelay(25);
	curs_set(0);
	/* presses only: a click acts when the button goes down, and with no
	 * click interval nothing waits for the release */
	mouseinterval(0);
	if (!no_mouse && mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL) != 0) {
		char each[64];
		mouse_modes_each(true, each, sizeof each);
		ssize_t ignored = write(STDOUT_FILENO, each, strlen(each)); /* before or after ncurses' own: either way */
		(void)ignored;
	}
	theme_init(no_color);
	return 0;
}

void term_close(void)
{
	if (!screen)
		return;
	char each[64];
	mouse_modes_each(false, each, sizeof each);
	endwin(); /* mouse reports off, by XM; then each mode on its own */
	ssize_t ignored = write(STDOUT_FILENO, each, strlen(each));
	(void)ignored;
	delscreen(screen);
	screen = NULL;
}
