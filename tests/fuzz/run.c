/*
 * run.c - start a program with its output in two temporary files (no pipe
 * that could fill and block it), wait with a deadline, read both back. Used
 * by the bad-input tests; it judges nothing itself.
 */
#include "run.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *s = malloc(size > 0 ? (size_t)size + 1 : 1);
	*len = 0;
	if (!s)
		return NULL;
	if (size > 0 && pread(fd, s, (size_t)size, 0) == size)
		*len = (size_t)size;
	s[*len] = '\0';
	return s;
}

static int temp_fd(void)
{
	char path[] = "/tmp/mha-run-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int run_program(const char *const argv[], int deadline_ms, bool as_nobody, struct run_result *r)
{
	memset(r, 0, sizeof *r);
	int out = temp_fd(), err = temp_fd();
	if (out < 0 || err < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		if (as_nobody && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(126);
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	int st = 0;
	struct timespec tick = { 0, 2000000 }; /* 2 ms */
	long waited = 0;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (waited >= deadline_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			r->hung = true;
			break;
		}
		nanosleep(&tick, NULL);
		waited += 2;
	}
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r->signal = WIFSIGNALED(st) && !r->hung ? WTERMSIG(st) : 0;
	r->out = slurp(out, &r->out_len);
	r->err = slurp(err, &r->err_len);
	close(out);
	close(err);
	return 0;
}

void run_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
}

const char *run_mha_tui(void)
{
	const char *p = getenv("MHA_TUI");
	return p ? p : "./mha-tui";
}
