/*
 * harness.h - run a program on a pseudo-terminal with libvterm as its
 * terminal emulator, the way a person's terminal would (doc/TESTING.md,
 * layer 2).
 *
 *     const char *argv[] = { getenv("MHA_TUI"), NULL };
 *     struct pty *p = pty_start(argv, 24, 80, NULL);
 *     pty_wait_text(p, "Projection", 5000);   // poll the screen with a deadline
 *     pty_char(p, 'q');                        // keys go through libvterm's encoder
 *     int status = pty_wait_exit(p, 5000);     // then reads on until EIO
 *     assert_false(pty_altscreen(p));
 *     assert_true(pty_termios_restored(p));
 *     pty_free(p);
 *
 * Nothing here asserts: every call reports, and the tests decide.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

struct pty;

/* Start argv[0] (a path) on a new pseudo-terminal of rows x cols. The
 * child gets this process's environment without LINES and COLUMNS, with
 * TERM=xterm-256color and LC_ALL=C.UTF-8 unless env changes them: each
 * env entry is "NAME=VALUE" to set or "NAME" alone to unset; NULL-ended.
 * NULL when the pty or the fork fails. */
struct pty *pty_start(const char *const argv[], int rows, int cols, const char *const env[]);

/* The same, with the program as a shell runs a foreground job: in a
 * process group of its own that holds the terminal, under a parent in
 * the same session (which exits with the program's status), so that
 * Ctrl-Z stops it as at a shell. pty_kill reaches that parent, not the
 * program: use it for job control only. */
struct pty *pty_start_job(const char *const argv[], int rows, int cols, const char *const env[]);
/* Job control (pty_start_job): wait until the job is stopped (Ctrl-Z),
 * then read what it wrote; 0, or -1 at the deadline. pty_continue sends
 * SIGCONT to its whole process group, as fg does, or to the program
 * alone (the group's leader: its children stay stopped, a test's way to
 * choose the order in which they go on). */
int pty_wait_stopped(struct pty *p, int deadline_ms);
void pty_continue(struct pty *p, bool whole_group);

/* Read and emulate until the program writes nothing for quiet_ms.
 * Returns 0, or -1 when still busy at deadline_ms (the screen is then
 * whatever was drawn so far). */
int pty_wait_quiet(struct pty *p, int quiet_ms, int deadline_ms);
/* Read and emulate until the program has read every byte sent to it (the
 * terminal's input queue is empty): the keys before the last are then
 * acted on and drawn, since the program draws before it reads on. Output
 * going quiet does not say that: a busy program can lag behind its keys.
 * 0, or -1 at deadline_ms. */
int pty_wait_input_read(struct pty *p, int deadline_ms);
/* Read until the screen shows text somewhere, then until quiet (50 ms).
 * Returns 0, or -1 at the deadline or when the program ended without it. */
int pty_wait_text(struct pty *p, const char *text, int deadline_ms);
/* The same for one row (0-based) of the screen: a state that a line
 * elsewhere cannot fake (a status line's new message). */
int pty_wait_row(struct pty *p, int row, const char *text, int deadline_ms);

/* Keys, through libvterm's encoder (so modes such as application cursor
 * keys and bracketed paste apply as in a real terminal). */
void pty_char(struct pty *p, uint32_t c);
void pty_key(struct pty *p, VTermKey key, VTermModifier mod);
void pty_type(struct pty *p, const char *ascii);
/* Write raw bytes at once (keys typed ahead, or what a terminal sends by
 * itself), reading the program's output while the kernel's buffer is
 * full so that neither side blocks. Returns 0, or -1 when the program
 * stopped reading until deadline_ms. */
int pty_send(struct pty *p, const char *bytes, size_t n, int deadline_ms);
/* The same as a paste: inside bracketed-paste markers when the program
 * turned that mode on, as a terminal does. */
int pty_paste(struct pty *p, const char *bytes, size_t n, int deadline_ms);
/* Click (press and release) button 1..3 at a 0-based cell; like a real
 * terminal, sends nothing unless the program turned mouse reports on. */
void pty_click(struct pty *p, int row, int col, int button);
/* Change the terminal's size: the kernel sends SIGWINCH. */
void pty_resize(struct pty *p, int rows, int cols);

/* Send a signal to the program. */
void pty_kill(struct pty *p, int sig);
/* The CPU time the program has used so far (user + system, from
 * /proc/PID/stat), in milliseconds: what a key costs it, whatever else
 * the machine is doing; -1 once it is gone. */
long long pty_cpu_ms(const struct pty *p);
/* Wait for the program to end, then read on until EIO (the last frames,
 * such as leaving the alternate screen, come after exit). Returns the
 * wait status, or -1 at the deadline (the program is then killed). */
int pty_wait_exit(struct pty *p, int deadline_ms);

/* The screen as text: rows joined by '\n', trailing blanks cut, UTF-8.
 * The pointer stays valid until the next call on p. */
const char *pty_screen(struct pty *p);
/* One row (0-based), the same way. */
const char *pty_row(struct pty *p, int row);
/* Everything the program wrote, raw. */
const char *pty_output(const struct pty *p, size_t *len);
/* Terminal state as the emulator sees it. */
bool pty_altscreen(const struct pty *p);
bool pty_cursor_visible(const struct pty *p);
int pty_altscreen_entries(const struct pty *p); /* times it switched to it */
int pty_mouse_mode(const struct pty *p);        /* VTERM_PROP_MOUSE_*, 0 = off */
/* Software flow control (IXON or IXOFF) is on in the line discipline now. */
bool pty_flow_control(const struct pty *p);
/* Keypad transmit mode (application cursor keys) is on: the last of its
 * on and off sequences the program wrote was "on". */
bool pty_keypad(const struct pty *p);
/* The line discipline's settings equal those the program started with
 * (canonical mode, echo, signals, CR/NL mapping, flow control). */
bool pty_termios_restored(const struct pty *p);

/* Kill the program if it still runs, and free everything. */
void pty_free(struct pty *p);

/* mha-tui's state under dir (an XDG_STATE_HOME) as after a first run:
 * dir/mha-tui with progress naming no lesson, so mha-tui opens on the free
 * workbench, not the lesson menu. 0, or -1 when a file cannot be made. */
int pty_state_free_workbench(const char *dir);

/* dir and all below it removed: 0, or -1. */
int pty_state_remove(const char *dir);

#endif
