/*
 * datadir.c - does the program run from a meson build directory? The
 * lessons (src/lesson/set.c) and the shipped language model
 * (src/train/lm_file.c) prefer the source tree's files when it does. It
 * reads /proc/self/exe and looks for build.ninja; it opens nothing else.
 */
#include "datadir.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool datadir_from_build(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			return false;
		*slash = '\0';
		char probe[4200];
		struct stat st;
		snprintf(probe, sizeof probe, "%s/build.ninja", exe);
		if (stat(probe, &st) == 0)
			return true;
	}
	return false;
}
