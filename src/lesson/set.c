/*
 * set.c - the lessons of one directory, loaded in file-name order and
 * checked as a whole (numbers 1..N, names unique), looked up by number or
 * name; and where that directory and its assets are. The order of the
 * search is fixed (lesson.h) and every failure names each path tried.
 */
#include "lesson_int.h"

#include "config.h"
#include "datadir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_lesson_file(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && n > 7 && !strcmp(name + n - 7, ".lesson");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .lesson files of dir, sorted; *count of them. NULL with errno set
 * when dir cannot be read. */
static char **list_lessons(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	*count = 0;
	if (!d)
		return NULL;
	char **names = NULL;
	int cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!is_lesson_file(e->d_name))
			continue;
		if (*count == cap) {
			cap = cap ? cap * 2 : 16;
			char **grown = realloc(names, (size_t)cap * sizeof *grown);
			if (!grown)
				break;
			names = grown;
		}
		if (!(names[*count] = strdup(e->d_name)))
			break;
		(*count)++;
	}
	closedir(d);
	if (!names) {
		names = malloc(sizeof *names); /* an empty, non-NULL list */
		if (!names)
			return NULL;
	}
	qsort(names, (size_t)*count, sizeof *names, by_name);
	return names;
}

static void free_list(char **names, int count)
{
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int lesson_set_load(struct lesson_set *set, const char *dir, struct lesson_errors *errs)
{
	memset(set, 0, sizeof *set);
	int before = errs->count + errs->dropped, count;
	char assets[4096], why[4096];
	set->dir = strdup(dir);
	if (lesson_find_assets(dir, assets, sizeof assets, why, sizeof why) == 0)
		set->assets_dir = strdup(assets);
	char **names = list_lessons(dir, &count);
	if (!names) {
		lesson_errors_add(errs, "%s: cannot read the directory: %s", dir, strerror(errno));
		return -1;
	}
	if (count == 0)
		lesson_errors_add(errs, "%s: no .lesson files here", dir);
	set->lessons = calloc((size_t)(count ? count : 1), sizeof *set->lessons);
	if (!set->lessons) {
		free_list(names, count);
		lesson_errors_add(errs, "%s: out of memory", dir);
		return -1;
	}
	bool all = true;
	for (int i = 0; i < count; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (lesson_load(path, set->assets_dir, &set->lessons[set->count], errs) == 0)
			set->count++;
		else
			all = false;
	}
	free_list(names, count);
	/* numbers run 1..N in file order; checked only when every file parsed,
	 * else one broken file would shift all the numbers after it */
	for (int i = 0; all && i < set->count; i++) {
		const struct lesson *l = &set->lessons[i];
		if (l->number != i + 1)
			lesson_errors_add(errs, "%s:%d: lesson number %d, expected %d: numbers run 1..%d "
			                  "without gaps, in file-name order", l->path, l->number_line,
			                  l->number, i + 1,
			                  set->count);
		for (int k = 0; k < i; k++)
			if (!strcmp(l->name, set->lessons[k].name))
				lesson_errors_add(errs, "%s:%d: name '%s' is also %s's: names must be unique",
				                  l->path, l->number_line, l->name, set->lessons[k].path);
	}
	if (!set->assets_dir && !all)
		lesson_errors_add(errs, "%s: (no assets directory found: %s)", dir, why);
	return errs->count + errs->dropped > before ? -1 : 0;
}

void lesson_set_free(struct lesson_set *set)
{
	for (int i = 0; i < set->count; i++)
		lesson_free(&set->lessons[i]);
	free(set->lessons);
	free(set->dir);
	free(set->assets_dir);
	memset(set, 0, sizeof *set);
}

const struct lesson *lesson_set_find(const struct lesson_set *set, const char *id)
{
	if (!id || !*id)
		return NULL;
	size_t digits = strspn(id, "0123456789");
	if (digits > 0 && digits < 4 && !id[digits]) {
		int n = atoi(id);
		for (int i = 0; i < set->count; i++)
			if (set->lessons[i].number == n)
				return &set->lessons[i];
		return NULL;
	}
	for (int i = 0; i < set->count; i++)
		if (!strcasecmp(set->lessons[i].name, id) || !strcasecmp(set->lessons[i].stem, id))
			return &set->lessons[i];
	return NULL;
}

int lesson_step_index(const struct lesson *l, const char *id)
{
	for (int i = 0; id && i < l->nsteps; i++)
		if (!strcmp(l->steps[i].id, id))
			return i;
	return -1;
}

/* Does dir hold lessons? why says what is wrong when not. */
static bool holds_lessons(const char *dir, char *why, size_t len)
{
	int count;
	char **names = list_lessons(dir, &count);
	if (!names) {
		snprintf(why, len, "%s", strerror(errno));
		return false;
	}
	free_list(names, count);
	if (count == 0)
		snprintf(why, len, "no .lesson files");
	return count > 0;
}

/* Append "what (why)" to the list of paths tried. */
static void tried(char *msg, size_t len, const char *what, const char *why)
{
	size_t at = strlen(msg);
	if (at + 1 < len)
		snprintf(msg + at, len - at, "%s%.1000s (%.200s)", at ? "; " : "", what, why);
}

int lesson_dir_search(const char *flag, const char *env, const char *source, bool use_source,
                       const char *install, char *out, size_t outlen, char *msg, size_t len)
{
	char list[4096] = "", why[512], what[4300];
	if (flag) { /* asked for by name: no other place will do */
		if (holds_lessons(flag, why, sizeof why)) {
			snprintf(out, outlen, "%s", flag);
			return 0;
		}
		snprintf(msg, len, "--lessons-dir %s: %s", flag, why);
		return -1;
	}
	const char *cand[3] = { env && *env ? env : NULL, use_source ? source : NULL, install };
	const char *skipped[3] = { "not set", "source tree: not running from a build directory", "" };
	const char *shown[3] = { "$MHA_TUI_LESSONS", source, install };
	for (int i = 0; i < 3; i++) {
		if (!cand[i]) {
			tried(list, sizeof list, shown[i], skipped[i]);
			continue;
		}
		if (holds_lessons(cand[i], why, sizeof why)) {
			snprintf(out, outlen, "%s", cand[i]);
			return 0;
		}
		if (i == 0)
			snprintf(what, sizeof what, "$MHA_TUI_LESSONS=%.4000s", env);
		tried(list, sizeof list, i == 0 ? what : cand[i], why);
	}
	snprintf(msg, len, "no lessons found; tried %s. Give the directory with --lessons-dir DIR", list);
	return -1;
}

int lesson_find_dir(const char *flag_dir, char *out, size_t outlen, char *msg, size_t len)
{
	return lesson_dir_search(flag_dir, getenv("MHA_TUI_LESSONS"), MHA_LESSONS_SOURCE_DIR,
	                          datadir_from_build(), MHA_LESSONS_INSTALL_DIR, out, outlen, msg, len);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int lesson_find_assets(const char *lessons_dir, char *out, size_t outlen, char *msg, size_t len)
{
	char cand[4][4200];
	snprintf(cand[0], sizeof cand[0], "%s/assets", lessons_dir);
	snprintf(cand[1], sizeof cand[1], "%s/../assets", lessons_dir);
	snprintf(cand[2], sizeof cand[2], "%s/../assets", MHA_LESSONS_SOURCE_DIR);
	snprintf(cand[3], sizeof cand[3], "%s/../assets", MHA_LESSONS_INSTALL_DIR);
	char list[4096] = "";
	for (int i = 0; i < 4; i++) {
		if (is_dir(cand[i])) {
			snprintf(out, outlen, "%s", cand[i]);
			return 0;
		}
		tried(list, sizeof list, cand[i], "not a directory");
	}
	snprintf(msg, len, "no assets directory: tried %s", list);
	return -1;
}
