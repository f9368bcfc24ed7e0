/*
 * harness.c - a pseudo-terminal with libvterm as the terminal emulator, for
 * tests that run the real mha-tui binary (doc/TESTING.md, layer 2). It does what
 * a terminal does: it starts the program on the slave side, turns keys into
 * bytes with libvterm's own encoder (so a keypad-mode arrow arrives as one
 * key), emulates whatever the program writes, and keeps reading after the
 * program exits until the kernel says EIO, so that the last frames (leaving
 * the alternate screen) are not missed. It does not assert or print: the
 * tests decide what is right.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <utmp.h>

struct pty {
	int fd;              /* master side; non-blocking */
	pid_t pid;           /* the program; 0 once reaped */
	int status;          /* its wait status, once reaped */
	bool eof;            /* read said EIO: no slave is open any more */
	int rows, cols;
	VTerm *vt;
	VTermScreen *screen;
	struct termios start; /* line discipline before the program ran */
	bool alt, cursor_visible;
	int alt_entries, mouse;
	char *out;           /* everything the program wrote */
	size_t out_len, out_cap;
	char *text;          /* pty_screen / pty_row result */
	size_t text_cap;
};

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* ---- what the emulator tells us ---- */

static int on_termprop(VTermProp prop, VTermValue *val, void *user)
{
	struct pty *p = user;
	if (prop == VTERM_PROP_ALTSCREEN) {
		if (val->boolean && !p->alt)
			p->alt_entries++;
		p->alt = val->boolean;
	} else if (prop == VTERM_PROP_CURSORVISIBLE) {
		p->cursor_visible = val->boolean;
	} else if (prop == VTERM_PROP_MOUSE) {
		p->mouse = val->number;
	}
	return 1;
}

static const VTermScreenCallbacks screen_callbacks = { .settermprop = on_termprop };

/* Write all of buf to the master, waiting (bounded) while the kernel's
 * buffer is full. Used for key bytes, which are few. */
static void write_all(struct pty *p, const char *buf, size_t len)
{
	long deadline = now_ms() + 2000;
	while (len > 0 && now_ms() < deadline) {
		ssize_t w = write(p->fd, buf, len);
		if (w > 0) {
			buf += w;
			len -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			return;
		} else {
			struct pollfd pf = { p->fd, POLLOUT, 0 };
			poll(&pf, 1, 10);
		}
	}
}

/* Bytes libvterm produces (encoded keys, answers to queries) go straight
 * to the program, as from a real terminal. */
static void on_output(const char *s, size_t len, void *user)
{
	write_all(user, s, len);
}

/* ---- reading ---- */

static void keep_output(struct pty *p, const char *buf, size_t n)
{
	if (p->out_len + n + 1 > p->out_cap) {
		size_t cap = p->out_cap ? p->out_cap : 65536;
		while (cap < p->out_len + n + 1)
			cap *= 2;
		char *bigger = realloc(p->out, cap);
		if (!bigger)
			return;
		p->out = bigger;
		p->out_cap = cap;
	}
	memcpy(p->out + p->out_len, buf, n);
	p->out_len += n;
	p->out[p->out_len] = '\0';
}

/* Wait up to timeout_ms for output, then read all there is and feed it to
 * the emulator. Returns the bytes read (0 when none came). */
static size_t pump(struct pty *p, int timeout_ms)
{
	if (p->eof)
		return 0;
	struct pollfd pf = { p->fd, POLLIN, 0 };
	if (poll(&pf, 1, timeout_ms) <= 0)
		return 0;
	size_t total = 0;
	char buf[8192];
	for (;;) {
		ssize_t r = read(p->fd, buf, sizeof buf);
		if (r > 0) {
			vterm_input_write(p->vt, buf, (size_t)r);
			keep_output(p, buf, (size_t)r);
			total += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || errno == EIO)
			p->eof = true; /* every slave descriptor is closed */
		return total;
	}
}

static void reap(struct pty *p, int flags)
{
	int st;
	if (p->pid > 0 && waitpid(p->pid, &st, flags) == p->pid) {
		p->status = st;
		p->pid = 0;
	}
}

/* ---- starting ---- */

/* What a job-control shell does for a foreground job: the program in a
 * process group of its own, given the terminal, this process (the session
 * leader) waiting in another group of the same session, so that Ctrl-Z
 * stops the program (the kernel ignores stop signals in a process group
 * with no parent outside it in the session: an orphaned group). Its stops
 * are left alone (the test continues it, as fg would); its end becomes
 * this process's end. Never returns. */
static void run_as_job(const char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGTTOU, SIG_IGN); /* a background group taking the terminal */
		tcsetpgrp(STDIN_FILENO, getpid());
		signal(SIGTTOU, SIG_DFL);
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	if (pid < 0)
		_exit(126);
	setpgid(pid, pid); /* whichever of the two runs first */
	int st;
	while (waitpid(pid, &st, 0) != pid)
		if (errno != EINTR)
			_exit(126);
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
}

static void child_exec(int slave, const char *const argv[], const char *const env[], bool job)
{
	if (login_tty(slave) != 0) /* new session, slave as 0, 1, 2 and controlling tty */
		_exit(126);
	unsetenv("LINES");   /* they would pin the size (doc/TESTING.md) */
	unsetenv("COLUMNS");
	setenv("TERM", "xterm-256color", 1);
	setenv("LC_ALL", "C.UTF-8", 1);
	for (int i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq) {
			unsetenv(env[i]);
			continue;
		}
		char name[256];
		size_t n = (size_t)(eq - env[i]) < sizeof name - 1 ? (size_t)(eq - env[i]) : sizeof name - 1;
		memcpy(name, env[i], n);
		name[n] = '\0';
		setenv(name, eq + 1, 1);
	}
	signal(SIGPIPE, SIG_DFL);
	if (job)
		run_as_job(argv);
	execv(argv[0], (char *const *)(uintptr_t)argv);
	_exit(127);
}

static struct pty *start(const char *const argv[], int rows, int cols, const char *const env[], bool job)
{
	struct pty *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->rows = rows;
	p->cols = cols;
	p->cursor_visible = true;
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	int slave;
	/* openpty, then fork: the starting termios is read before the program
	 * can change it. */
	if (openpty(&p->fd, &slave, NULL, NULL, &ws) != 0) {
		free(p);
		return NULL;
	}
	tcgetattr(slave, &p->start);
	p->vt = vterm_new(rows, cols);
	vterm_set_utf8(p->vt, 1);
	vterm_output_set_callback(p->vt, on_output, p);
	p->screen = vterm_obtain_screen(p->vt);
	vterm_screen_enable_altscreen(p->screen, 1);
	vterm_screen_set_callbacks(p->screen, &screen_callbacks, p);
	vterm_screen_reset(p->screen, 1);
	p->pid = fork();
	if (p->pid == 0) {
		close(p->fd);
		child_exec(slave, argv, env, job);
	}
	close(slave);
	if (p->pid < 0) {
		p->pid = 0;
		pty_free(p);
		return NULL;
	}
	fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK);
	return p;
}

struct pty *pty_start(const char *const argv[], int rows, int cols, const char *const env[])
{
	return start(argv, rows, cols, env, false);
}

struct pty *pty_start_job(const char *const argv[], int rows, int cols, const char *const env[])
{
	return start(argv, rows, cols, env, true);
}

/* ---- job control ---- */

/* The terminal's foreground process group (the master side reports the
 * slave's): the job started by pty_start_job, 0 when none. */
static pid_t foreground(const struct pty *p)
{
	pid_t g = tcgetpgrp(p->fd);
	return g > 0 ? g : 0;
}

/* State letter of a process, from /proc/PID/stat ('T': stopped); 0 when
 * it cannot be read. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *close_paren = strrchr(buf, ')'); /* the name may hold spaces */
	return close_paren && close_paren[1] == ' ' ? close_paren[2] : 0;
}

int pty_wait_stopped(struct pty *p, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	for (;;) {
		pid_t g = foreground(p);
		if (g && proc_state(g) == 'T') {
			pty_wait_quiet(p, 50, 2000); /* what it wrote before stopping */
			return 0;
		}
		if (p->eof || now_ms() >= deadline)
			return -1;
		pump(p, 10);
	}
}

void pty_continue(struct pty *p, bool whole_group)
{
	pid_t g = foreground(p);
	if (g)
		kill(whole_group ? -g : g, SIGCONT);
}

/* ---- waiting ---- */

/* Bytes written to the program that it has not read: FIONREAD on the
 * slave side, opened by name for the question (the queue is the
 * terminal's, whichever descriptor asks). -1 when it cannot be asked. */
static int unread_input(const struct pty *p)
{
	const char *name = ptsname(p->fd);
	int n = -1;
	if (!name)
		return -1;
	int fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, FIONREAD, &n) != 0)
		n = -1;
	close(fd);
	return n;
}

int pty_wait_input_read(struct pty *p, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	for (;;) {
		int n = unread_input(p);
		if (n == 0 || p->eof)
			return 0;
		if (n < 0 || now_ms() >= deadline)
			return -1;
		pump(p, 10);
	}
}

int pty_wait_quiet(struct pty *p, int quiet_ms, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0)
			return -1;
		long start = now_ms();
		size_t got = pump(p, (int)(left < quiet_ms ? left : quiet_ms));
		if (p->eof)
			return 0;
		if (got == 0 && now_ms() - start >= quiet_ms)
			return 0;
	}
}

int pty_wait_text(struct pty *p, const char *text, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	for (;;) {
		if (strstr(pty_screen(p), text)) {
			pty_wait_quiet(p, 50, 2000); /* let the frame finish */
			return 0;
		}
		if (p->eof || now_ms() >= deadline)
			return -1;
		pump(p, 20);
	}
}

int pty_wait_row(struct pty *p, int row, const char *text, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	for (;;) {
		if (strstr(pty_row(p, row), text)) {
			pty_wait_quiet(p, 50, 2000); /* let the frame finish */
			return 0;
		}
		if (p->eof || now_ms() >= deadline)
			return -1;
		pump(p, 20);
	}
}

int pty_wait_exit(struct pty *p, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	while (p->pid > 0 && now_ms() < deadline) {
		pump(p, 10);
		reap(p, WNOHANG);
	}
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		reap(p, 0);
		return -1;
	}
	/* after exit: read on until EIO, bounded in case a descendant still
	 * holds the terminal */
	long until = now_ms() + 2000;
	while (!p->eof && now_ms() < until)
		pump(p, 10);
	return p->status;
}

/* ---- input ---- */

void pty_char(struct pty *p, uint32_t c)
{
	vterm_keyboard_unichar(p->vt, c, VTERM_MOD_NONE);
}

void pty_key(struct pty *p, VTermKey key, VTermModifier mod)
{
	vterm_keyboard_key(p->vt, key, mod);
}

void pty_type(struct pty *p, const char *ascii)
{
	for (; *ascii; ascii++) {
		if (*ascii == '\n' || *ascii == '\r')
			vterm_keyboard_key(p->vt, VTERM_KEY_ENTER, VTERM_MOD_NONE);
		else if (*ascii == '\033')
			vterm_keyboard_key(p->vt, VTERM_KEY_ESCAPE, VTERM_MOD_NONE);
		else
			vterm_keyboard_unichar(p->vt, (unsigned char)*ascii, VTERM_MOD_NONE);
	}
}

int pty_send(struct pty *p, const char *bytes, size_t n, int deadline_ms)
{
	long deadline = now_ms() + deadline_ms;
	while (n > 0) {
		if (now_ms() >= deadline || p->eof)
			return -1;
		ssize_t w = write(p->fd, bytes, n < 4096 ? n : 4096);
		if (w > 0) {
			bytes += w;
			n -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		}
		pump(p, w > 0 ? 0 : 10); /* drain its output so it can read on */
	}
	return 0;
}

int pty_paste(struct pty *p, const char *bytes, size_t n, int deadline_ms)
{
	vterm_keyboard_start_paste(p->vt); /* ESC[200~ when the program asked for it */
	int rc = pty_send(p, bytes, n, deadline_ms);
	vterm_keyboard_end_paste(p->vt);
	return rc;
}

void pty_click(struct pty *p, int row, int col, int button)
{
	/* libvterm 0.1.4 encodes a click even when the program never asked
	 * for mouse reports; xterm and every real terminal send nothing then. */
	if (p->mouse == VTERM_PROP_MOUSE_NONE)
		return;
	vterm_mouse_move(p->vt, row, col, VTERM_MOD_NONE);
	vterm_mouse_button(p->vt, button, true, VTERM_MOD_NONE);
	vterm_mouse_button(p->vt, button, false, VTERM_MOD_NONE);
}

void pty_resize(struct pty *p, int rows, int cols)
{
	p->rows = rows;
	p->cols = cols;
	vterm_set_size(p->vt, rows, cols); /* the emulator first, as a terminal does */
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	ioctl(p->fd, TIOCSWINSZ, &ws);     /* the kernel sends SIGWINCH */
}

void pty_kill(struct pty *p, int sig)
{
	if (p->pid > 0)
		kill(p->pid, sig);
}

long long pty_cpu_ms(const struct pty *p)
{
	char path[64], buf[1024];
	if (p->pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the command's name in parentheses (which may hold blanks):
	 * state is field 3, utime 14, stime 15 */
	const char *s = strrchr(buf, ')');
	unsigned long long utime, stime;
	if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return -1;
	return (long long)(utime + stime) * 1000 / sysconf(_SC_CLK_TCK);
}

/* ---- reading the screen ---- */

static size_t put_utf8(char *s, uint32_t c)
{
	if (c < 0x80) { s[0] = (char)c; return 1; }
	if (c < 0x800) { s[0] = (char)(0xc0 | c >> 6); s[1] = (char)(0x80 | (c & 0x3f)); return 2; }
	if (c < 0x10000) {
		s[0] = (char)(0xe0 | c >> 12); s[1] = (char)(0x80 | (c >> 6 & 0x3f));
		s[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	s[0] = (char)(0xf0 | c >> 18); s[1] = (char)(0x80 | (c >> 12 & 0x3f));
	s[2] = (char)(0x80 | (c >> 6 & 0x3f)); s[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Append row r to the text buffer at *at, trailing blanks cut. */
static void row_text(struct pty *p, int r, size_t *at)
{
	size_t line_start = *at, last = *at;
	for (int col = 0; col < p->cols; col++) {
		VTermScreenCell cell;
		VTermPos pos = { r, col };
		vterm_screen_get_cell(p->screen, pos, &cell);
		if (cell.chars[0] == 0) {
			p->text[(*at)++] = ' ';
		} else {
			for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; i++)
				*at += put_utf8(p->text + *at, cell.chars[i]);
			last = *at;
			if (cell.width > 1)
				col += cell.width - 1;
		}
	}
	*at = last > line_start ? last : line_start;
}

static void text_reserve(struct pty *p)
{
	size_t need = (size_t)p->rows * ((size_t)p->cols * 4 * VTERM_MAX_CHARS_PER_CELL + 1) + 1;
	if (need > p->text_cap) {
		free(p->text);
		p->text = malloc(need);
		p->text_cap = p->text ? need : 0;
	}
}

const char *pty_screen(struct pty *p)
{
	text_reserve(p);
	if (!p->text)
		return "";
	size_t at = 0;
	for (int r = 0; r < p->rows; r++) {
		row_text(p, r, &at);
		p->text[at++] = '\n';
	}
	p->text[at] = '\0';
	return p->text;
}

const char *pty_row(struct pty *p, int row)
{
	text_reserve(p);
	if (!p->text)
		return "";
	size_t at = 0;
	if (row >= 0 && row < p->rows)
		row_text(p, row, &at);
	p->text[at] = '\0';
	return p->text;
}

const char *pty_output(const struct pty *p, size_t *len)
{
	if (len)
		*len = p->out_len;
	return p->out ? p->out : "";
}

bool pty_altscreen(const struct pty *p) { return p->alt; }
bool pty_cursor_visible(const struct pty *p) { return p->cursor_visible; }
int pty_altscreen_entries(const struct pty *p) { return p->alt_entries; }
int pty_mouse_mode(const struct pty *p) { return p->mouse; }

bool pty_termios_restored(const struct pty *p)
{
	/* On Linux, termios calls on the master act on the slave's settings,
	 * which outlive the program while the master stays open. */
	struct termios now;
	if (tcgetattr(p->fd, &now) != 0)
		return false;
	const tcflag_t lmask = ICANON | ECHO | ECHOE | ECHOK | ECHONL | ISIG | IEXTEN;
	const tcflag_t imask = ICRNL | INLCR | IGNCR | IXON | IXOFF | ISTRIP;
	const tcflag_t omask = OPOST | ONLCR;
	return (now.c_lflag & lmask) == (p->start.c_lflag & lmask) &&
	       (now.c_iflag & imask) == (p->start.c_iflag & imask) &&
	       (now.c_oflag & omask) == (p->start.c_oflag & omask) &&
	       now.c_cc[VMIN] == p->start.c_cc[VMIN] && now.c_cc[VTIME] == p->start.c_cc[VTIME] &&
	       now.c_cc[VINTR] == p->start.c_cc[VINTR] && now.c_cc[VEOF] == p->start.c_cc[VEOF];
}

bool pty_flow_control(const struct pty *p)
{
	struct termios now;
	return tcgetattr(p->fd, &now) == 0 && (now.c_iflag & (IXON | IXOFF)) != 0;
}

/* The last of "\033[?1h" (keypad transmit: application cursor keys) and
 * "\033[?1l" in everything written decides: libvterm keeps the mode but
 * does not report it. */
bool pty_keypad(const struct pty *p)
{
	const char *on = NULL, *off = NULL;
	for (size_t i = 0; p->out && i + 5 <= p->out_len; i++) {
		if (memcmp(p->out + i, "\033[?1h", 5) == 0)
			on = p->out + i;
		else if (memcmp(p->out + i, "\033[?1l", 5) == 0)
			off = p->out + i;
	}
	return on && (!off || on > off);
}

void pty_free(struct pty *p)
{
	if (!p)
		return;
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		reap(p, 0);
	}
	if (p->vt)
		vterm_free(p->vt);
	if (p->fd >= 0)
		close(p->fd);
	free(p->out);
	free(p->text);
	free(p);
}

int pty_state_free_workbench(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/mha-tui", dir);
	if (mkdir(path, 0700) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/mha-tui/progress.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("mha-tui-progress 1\nplace - -\nmode free\n", f);
	return fclose(f) == 0 ? 0 : -1;
}

int pty_state_remove(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}
