/*
 * term.c - opening and closing the terminal, and the signal discipline.
 * Every signal that would end the program is one of two kinds:
 *   - asked to stop (INT, QUIT, TERM, HUP, PIPE, USR1/2, ALRM, VTALRM,
 *     PROF, XCPU, POLL, PWR, the real-time ones): the handler only sets a
 *     flag; the loop saves the session and leaves cleanly;
 *   - a crash (SEGV, BUS, FPE, ILL, TRAP, SYS, ABRT): the handler restores
 *     the saved terminal modes with async-signal-safe calls, has a forked
 *     child write the autosave the caller registered (term_on_crash; the
 *     child may itself die on a broken heap: then nothing more is lost than
 *     without it), and re-raises, so the crash keeps its exit status.
 * SIGXFSZ is ignored: a write past the file size limit then fails with a
 * message (EFBIG) instead of killing the program mid-save. Flow control
 * (IXON / IXOFF) is off while the program runs, so Ctrl-S cannot freeze
 * the screen. LINES / COLUMNS in the environment do not override the size
 * the terminal reports. No SIGWINCH handler: ncurses reports resizes as
 * KEY_RESIZE. Mouse reports are turned on with the terminal (clicks and
 * the wheel); endwin turns them off, and so does the crash handler.
 * Not here: reading keys (input.c), what is saved (the caller's hook).
 *
 * The file-scope state below is what a signal handler may touch: the flag,
 * the terminal modes to restore, and the crash hook (a handler cannot be
 * passed a pointer).
 */
#include "term.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "theme.h"

static volatile sig_atomic_t pending_signal;
static struct termios saved_modes;
static volatile sig_atomic_t have_saved_modes;
static SCREEN *screen; /* not touched by handlers */
static int (*crash_hook)(void *);
static void *crash_ctx;
static char crash_note[TERM_CRASH_NOTES][1024]; /* note i said when the hook wrote its file i */

/* Signals that ask the program to stop: the loop saves, then leaves. */
static const int stop_signals[] = {
	SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};
/* Signals of a crash: the terminal restored, an autosave, the crash's status. */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
#define COUNT(a) (sizeof (a) / sizeof (a)[0])

static void on_quit_signal(int sig)
{
	pending_signal = sig;
}

/* Write s whole (async-signal-safe). */
static void put(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* The crash hook in a child of its own: the raw fork system call, since
 * glibc's fork() takes locks the crash may hold. The child's own crash or
 * a hang (a lock copied held) ends it: default handlers and a 20 s alarm.
 * The hook's answer (term.h: bit i for file i written, TERM_CRASH_LOST)
 * comes back as the child's exit status; a child that died lost it all. */
static int crash_save(void)
{
	if (!crash_hook)
		return 0;
	pid_t pid = (pid_t)syscall(SYS_fork);
	if (pid == 0) {
		for (size_t i = 0; i < COUNT(crash_signals); i++)
			signal(crash_signals[i], SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		alarm(20);
		_exit(crash_hook(crash_ctx) & (TERM_CRASH_LOST | ((1 << TERM_CRASH_NOTES) - 1)));
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return TERM_CRASH_LOST;
	return WEXITSTATUS(st);
}

/* Mouse reports off (every mode ncurses may have asked for: X10 / normal,
 * button-event, any-event, SGR encoding), bracketed paste and focus events
 * off, keypad (application cursor) mode off, leave the alternate screen,
 * show the cursor, restore the modes; then the autosave. */
static void on_crash(int sig)
{
	static const char reset[] = "\033[?1000l\033[?1002l\033[?1003l\033[?1006l\033[?2004l\033[?1004l"
	                            "\033[?1l\033>\033[?1049l\033[?25h\033[0m\r\n";
	if (have_saved_modes)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
	put(STDOUT_FILENO, reset, sizeof reset - 1);
	static const char lost[] = "mha-tui: crashed; the edits since the last save could not be written to "
	                           "the autosave\r\n";
	int saved = crash_save();
	for (int i = 0; i < TERM_CRASH_NOTES; i++)
		if (saved & (1 << i))
			put(STDERR_FILENO, crash_note[i], strlen(crash_note[i]));
	if (saved & TERM_CRASH_LOST) /* never silent about edits it could not keep */
		put(STDERR_FILENO, lost, sizeof lost - 1);
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

/* Back from Ctrl-Z (fg): ncurses redraws and asks for its mouse again;
 * the modes it does not know of are asked for again by term_resume. */
static volatile sig_atomic_t resumed;
static bool mouse_wanted;

static void on_continue(int sig)
{
	(void)sig;
	resumed = 1;
}

void term_resume(void)
{
	if (!resumed || !screen)
		return;
	resumed = 0;
	if (mouse_wanted) {
		char each[64];
		mouse_modes_each(true, each, sizeof each);
		ssize_t ignored = write(STDOUT_FILENO, each, strlen(each));
		(void)ignored;
	}
	input_paste_mode(true); /* a shell turns it off while it has the terminal */
}

void term_on_crash(int (*hook)(void *), void *ctx)
{
	crash_hook = NULL; /* never half-set when a crash comes in between */
	crash_ctx = ctx;
	crash_hook = hook;
}

void term_crash_note(int which, const char *note)
{
	if (which < 0 || which >= TERM_CRASH_NOTES)
		return;
	sigset_t all, was;
	sigemptyset(&all);
	for (size_t i = 0; i < COUNT(crash_signals); i++)
		sigaddset(&all, crash_signals[i]);
	sigprocmask(SIG_BLOCK, &all, &was);
	snprintf(crash_note[which], sizeof crash_note[which], "%s\r\n", note ? note : "");
	sigprocmask(SIG_SETMASK, &was, NULL);
}

void term_child_signals(void)
{
	/* the parent acts on a request to stop; this child finishes its file */
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		signal(stop_signals[i], SIG_IGN);
	/* its crash is its own: the learner's terminal is not reset for it */
	for (size_t i = 0; i < COUNT(crash_signals); i++)
		signal(crash_signals[i], SIG_DFL);
	/* ncurses' Ctrl-Z and resize handlers would redraw the child's stale
	 * copy of the screen after fg */
	signal(SIGTSTP, SIG_DFL);
	signal(SIGTTIN, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
}

/* Flow control off: Ctrl-S would otherwise stop all output (and with it
 * the loop that acts on signals) until Ctrl-Q. ncurses is told, so its
 * own mode switches (endwin, Ctrl-Z and fg) keep it. */
static void flow_control_off(void)
{
	struct termios t;
	if (tcgetattr(STDIN_FILENO, &t) != 0)
		return;
	t.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
		def_prog_mode();
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

/* From ncurses' <term.h>, which this folder's own term.h hides: the
 * terminal type looked up without opening a screen. */
struct term;
extern int setupterm(const char *term, int fd, int *err);
extern struct term *set_curterm(struct term *t);
extern int del_curterm(struct term *t);

static const char no_terminal_hint[] = "for output without a terminal use: mha-tui --dump json";

int term_check(char *msg, size_t len)
{
	const char *hint = no_terminal_hint;
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
	/* the terminal type looked up as newterm will (and freed again) */
	int err = 0;
	if (setupterm(term, STDOUT_FILENO, &err) != OK) {
		snprintf(msg, len, "TERM '%s' is not a terminal type this system knows; try TERM=xterm-256color, or %s",
		         term, hint);
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool moves = cup && cup != (char *)-1;
	del_curterm(set_curterm(NULL));
	if (!moves) {
		snprintf(msg, len, "TERM '%s' cannot move the cursor; try TERM=xterm-256color, or %s", term, hint);
		return -1;
	}
	return 0;
}

int term_open(bool no_color, bool no_mouse, char *msg, size_t len)
{
	const char *hint = no_terminal_hint;
	if (term_check(msg, len) != 0)
		return -1;
	const char *term = getenv("TERM");
	if (tcgetattr(STDIN_FILENO, &saved_modes) == 0)
		have_saved_modes = 1;
	/* handlers first: ncurses then leaves SIGINT / SIGTERM to us */
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		install(stop_signals[i], on_quit_signal, 0);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		install(sig, on_quit_signal, 0);
	for (size_t i = 0; i < COUNT(crash_signals); i++)
		install(crash_signals[i], on_crash, (int)SA_RESETHAND);
	signal(SIGXFSZ, SIG_IGN);
	install(SIGCONT, on_continue, SA_RESTART);
	/* the size the terminal reports, not LINES / COLUMNS inherited from
	 * another terminal (ncurses reads the environment only when the
	 * terminal cannot say) */
	use_env(TRUE);
	use_tioctl(TRUE);
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
	flow_control_off();
	keypad(stdscr, TRUE);
	timeout(INPUT_TICK_MS); /* wake up for resizes, signals and expiring messages */
	set_escdelay(25);
	curs_set(0);
	/* presses only: a click acts when the button goes down, and with no
	 * click interval nothing waits for the release */
	mouseinterval(0);
	mouse_wanted = !no_mouse && mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL) != 0;
	if (mouse_wanted) {
		char each[64];
		mouse_modes_each(true, each, sizeof each);
		ssize_t ignored = write(STDOUT_FILENO, each, strlen(each)); /* before or after ncurses' own: either way */
		(void)ignored;
	}
	input_paste_mode(true);
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
	input_paste_mode(false);
	delscreen(screen);
	screen = NULL;
}
