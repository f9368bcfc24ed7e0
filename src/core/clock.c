/*
 * clock.c - seconds on a POSIX clock (clock.h). One place, so every timer
 * in mha-tui reads the same clock the same way.
 */
#include "clock.h"

double clock_seconds(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double clock_wall(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}
