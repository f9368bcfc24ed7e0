/*
 * term.c - opening and closing the terminal, and the signal discipline:
 * SIGINT / SIGTERM / SIGHUP only set a flag (the loop saves the session and
 * leaves cleanly); SIGSEGV / SIGABRT / SIGBUS / SIGFPE restore the saved
 * terminal modes with async-signal-safe calls and re-raise, so the shell
 * gets its terminal back and the crash keeps its exit status. No SIGWINCH
 * handler: ncurses reports resizes as KEY_RESIZE.
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

/* Leave the alternate screen, show the cursor, restore the modes. */
static void on_crash(int sig)
{
	static const char reset[] = "\033[?1049l\033[?25h\033[0m\r\n";
	if (have_saved_modes)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
	ssize_t ignored = write(STDOUT_FILENO, reset, sizeof reset - 1);
	(void)ignored;
	raise(sig); /* SA_RESETHAND: the default action now, with its exit status */
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

int term_open(bool no_color, char *msg, size_t len)
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
	theme_init(no_color);
	return 0;
}

void term_close(void)
{
	if (!screen)
		return;
	endwin();
	delscreen(screen);
	screen = NULL;
}
