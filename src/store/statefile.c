/*
 * statefile.c - the state directory: found from XDG_STATE_HOME or HOME,
 * checked (an absolute path that fits, directories all the way), created
 * when missing. Writing the files in it is writefile.c's; what they hold
 * is their own modules'.
 */
#include "statefile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p; fine where it exists. 0, or -1 with errno and the part of
 * the path that failed left in path (cut there). */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0700);
		if (rc != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

int statefile_dir(char *out, size_t outlen, char *msg, size_t len)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	const char *var = state && state[0] == '/' ? "XDG_STATE_HOME" : "HOME";
	const char *base = state && state[0] == '/' ? state : home;
	const char *tail = state && state[0] == '/' ? "/mha-tui" : "/.local/state/mha-tui";
	if (!base || base[0] != '/') {
		/* say what is wrong with what is there, not that it is missing */
		if (home && home[0])
			snprintf(msg, len, "HOME is '%.200s', not an absolute path (nor is XDG_STATE_HOME set to one): "
			         "nowhere to keep state", home);
		else
			snprintf(msg, len, "neither XDG_STATE_HOME nor HOME is set: nowhere to keep state");
		return -1;
	}
	/* checked before a directory is made: a path cut to fit would create
	 * directories nobody asked for */
	char dir[4096];
	size_t room = sizeof dir - 200; /* for the file names the program puts there */
	if (strlen(base) + strlen(tail) >= room) {
		snprintf(msg, len, "%s is %zu bytes long: too long for the state directory (at most %zu): "
		         "nowhere to keep state", var, strlen(base), room - strlen(tail) - 1);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s%s", base, tail);
	char made[4096];
	snprintf(made, sizeof made, "%s", dir);
	struct stat st;
	if (make_dirs(made) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		int err = errno;
		if (err == ENOTDIR || err == EEXIST || (stat(made, &st) == 0 && !S_ISDIR(st.st_mode)))
			snprintf(msg, len, "%s is '%.1000s': a file is in the way of the state directory %.1000s "
			         "(it must be a directory): nowhere to keep state", var, base, dir);
		else
			snprintf(msg, len, "%s is '%.1000s': cannot create the state directory %.1000s: %s", var, base,
			         made, strerror(err));
		return -1;
	}
	if ((size_t)snprintf(out, outlen, "%s", dir) >= outlen) {
		snprintf(msg, len, "%.200s: path too long", dir);
		return -1;
	}
	return 0;
}

int statefile_path(const char *name, char *out, size_t outlen, char *msg, size_t len)
{
	char dir[4096];
	if (statefile_dir(dir, sizeof dir, msg, len) != 0)
		return -1;
	if ((size_t)snprintf(out, outlen, "%s/%s", dir, name) >= outlen) {
		snprintf(msg, len, "%.200s: path too long", dir);
		return -1;
	}
	return 0;
}
