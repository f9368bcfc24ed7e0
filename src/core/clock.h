/*
 * clock.h - seconds on a POSIX clock, for the profiles, the benchmarks and
 * the training screen's pacing. Wall time is CLOCK_MONOTONIC (never steps
 * back when the date is set); CPU time is CLOCK_PROCESS_CPUTIME_ID or
 * CLOCK_THREAD_CPUTIME_ID, what a shared machine's cores actually spent.
 */
#ifndef MHA_CLOCK_H
#define MHA_CLOCK_H

#include <time.h>

/* Seconds on clock id, as a double (ns resolution kept up to ~100 days). */
double clock_seconds(clockid_t id);

/* Wall seconds: clock_seconds(CLOCK_MONOTONIC). */
double clock_wall(void);

#endif
