/*
 * lessonbench.c - a lesson's workbench kept between runs, a kind of file
 * of its own (lessonbench.h): three header lines naming the lesson and
 * the step, then a session. Read strictly (a damaged or newer file is
 * refused and kept, never replaced by the next save), written through
 * the one write path, named and locked per instance, pruned to the
 * newest few, its autosave found after a crash. The session inside is
 * session_read.c's and session_write.c's; what a lesson is, the lesson
 * library's.
 */
#include "lessonbench.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claim.h"
#include "readfile.h"
#include "session.h"
#include "writefile.h"

#define PREFIX "lesson-bench-"

/* A bench is a lesson's: small shapes, but a lesson may set up the paper's
 * base size; anything past this is not one. */
enum { BENCH_FILE_MAX = 1 << 28 };

/* A name that goes into a file name as it is. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= LESSONBENCH_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
		      *s == '_' || *s == '-'))
			return false;
	return n > 0;
}

int lessonbench_path(const char *dir, const char *lesson, const char *step, char *out, size_t outlen)
{
	if (!name_ok(lesson) || !name_ok(step))
		return -1;
	return (size_t)snprintf(out, outlen, "%s/" PREFIX "%s-%s.txt", dir, lesson, step) < outlen ? 0 : -1;
}

int lessonbench_claim(const char *path, char *out, size_t outlen, int *holder)
{
	return claim_session(path, out, outlen, holder);
}

void lessonbench_release(const char *path)
{
	claim_unlock(path);
}

/* One header line "KEY VALUE" at *p (advanced past it): VALUE into out. */
static bool header_line(const char **p, const char *end, const char *key, char *out, size_t outlen)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	if (n && (*p)[n - 1] == '\r')
		n--;
	size_t k = strlen(key);
	if (n <= k + 1 || strncmp(*p, key, k) != 0 || (*p)[k] != ' ' || n - k - 1 >= outlen)
		return false;
	memcpy(out, *p + k + 1, n - k - 1);
	out[n - k - 1] = '\0';
	*p = nl ? nl + 1 : end;
	return memchr(out, '\0', n - k - 1) == NULL && name_ok(out);
}

int lessonbench_parse(const char *name, const char *text, size_t size, char *lesson, char *step,
                      struct mha_config *c, struct mha_weights *w, char *msg, size_t len)
{
	const char *p = text, *end = text + size;
	lesson[0] = step[0] = '\0';
	if (size >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3; /* a byte-order mark, as some editors write */
	size_t magic = strlen(LESSONBENCH_MAGIC);
	if ((size_t)(end - p) >= strlen(SESSION_MAGIC) && memcmp(p, SESSION_MAGIC, strlen(SESSION_MAGIC)) == 0)
		return session_parse(name, text, size, c, w, msg, len); /* a bench of an older mha-tui */
	if ((size_t)(end - p) <= magic || memcmp(p, LESSONBENCH_MAGIC " ", magic + 1) != 0) {
		snprintf(msg, len, "%s:1: not an mha-tui lesson bench (first line '%s %d')", name, LESSONBENCH_MAGIC,
		         LESSONBENCH_VERSION);
		return -1;
	}
	char version[16] = "";
	if (!header_line(&p, end, LESSONBENCH_MAGIC, version, sizeof version) || strcmp(version, "1") != 0) {
		char *e;
		long v = strtol(version, &e, 10);
		if (*version && !*e && v > LESSONBENCH_VERSION)
			snprintf(msg, len, "%s:1: a bench of a newer mha-tui (version %ld; this one reads %d)", name, v,
			         LESSONBENCH_VERSION);
		else
			snprintf(msg, len, "%s:1: expected '%s %d'", name, LESSONBENCH_MAGIC, LESSONBENCH_VERSION);
		return -1;
	}
	if (!header_line(&p, end, "lesson", lesson, LESSONBENCH_NAME_MAX)) {
		snprintf(msg, len, "%s:2: expected 'lesson NAME' (letters, digits, . _ -)", name);
		return -1;
	}
	if (!header_line(&p, end, "step", step, LESSONBENCH_NAME_MAX)) {
		snprintf(msg, len, "%s:3: expected 'step ID' (letters, digits, . _ -)", name);
		return -1;
	}
	return session_parse_within(name, 3, p, (size_t)(end - p), c, w, msg, len);
}

/* Read and parse the file at path. 0, 1 none, -1 refused (msg). */
static int read_bench(const char *path, char *lesson, char *step, struct mha_config *c, struct mha_weights *w,
                      char *msg, size_t len)
{
	char *text, why[256];
	size_t size;
	if (readfile_all(path, BENCH_FILE_MAX, &text, &size, why, sizeof why) != 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(msg, len, "%s: %s", path, why);
		return -1;
	}
	int rc = lessonbench_parse(path, text, size, lesson, step, c, w, msg, len);
	free(text);
	return rc;
}

/* The lesson and step a file says, against the ones asked for ("": a
 * plain session, whose name said them). 0, or -1 with msg. */
static int same_step(const char *path, const char *lesson, const char *step, const char *got_lesson,
                     const char *got_step, char *msg, size_t len)
{
	if (!got_lesson[0] || (!strcmp(lesson, got_lesson) && !strcmp(step, got_step)))
		return 0;
	snprintf(msg, len, "%s: the bench of lesson %s step %s, not of %s step %s", path, got_lesson, got_step,
	         lesson, step);
	return -1;
}

int lessonbench_load(const char *path, const char *lesson, const char *step, struct mha_config *c,
                     struct mha_weights *w, char *msg, size_t len)
{
	char got_lesson[LESSONBENCH_NAME_MAX], got_step[LESSONBENCH_NAME_MAX];
	int rc = read_bench(path, got_lesson, got_step, c, w, msg, len);
	if (rc == 0 && same_step(path, lesson, step, got_lesson, got_step, msg, len) != 0) {
		mha_weights_free(w);
		rc = -1;
	}
	if (rc < 0) {
		size_t n = strlen(msg);
		snprintf(msg + n, len - n, ": kept as it is");
	}
	return rc;
}

struct bench_ref {
	const char *lesson, *step;
	const struct mha_config *c;
	const struct mha_weights *w;
};

static int write_bench(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct bench_ref *b = ctx;
	fprintf(f, "%s %d\nlesson %s\nstep %s\n", LESSONBENCH_MAGIC, LESSONBENCH_VERSION, b->lesson, b->step);
	return session_write_to(f, b->c, b->w, why, len);
}

int lessonbench_save(const char *path, const char *lesson, const char *step, const struct mha_config *c,
                     const struct mha_weights *w, char *msg, size_t len)
{
	if (!name_ok(lesson) || !name_ok(step)) {
		snprintf(msg, len, "%s: not saved: the lesson's name or the step's id cannot name a file", path);
		return -1;
	}
	/* what is there must be one this program reads, of this step: a
	 * damaged or newer bench is kept (the adversary's 12) */
	struct mha_config oc;
	struct mha_weights ow;
	char got_lesson[LESSONBENCH_NAME_MAX], got_step[LESSONBENCH_NAME_MAX], why[MHA_MSG_MAX + 4200];
	int rc = read_bench(path, got_lesson, got_step, &oc, &ow, why, sizeof why);
	if (rc == 0) {
		mha_weights_free(&ow);
		rc = same_step(path, lesson, step, got_lesson, got_step, why, sizeof why);
	}
	if (rc < 0) {
		snprintf(msg, len, "%s: not saved over it, kept as it is", why);
		return -1;
	}
	struct bench_ref b = { lesson, step, c, w };
	return writefile_write(path, WRITEFILE_BENCH, write_bench, &b, NULL, msg, len);
}

int lessonbench_autosave_path(const char *bench, char *out, size_t outlen)
{
	return (size_t)snprintf(out, outlen, "%s.autosave", bench) < outlen ? 0 : -1;
}

/* Is a later than b? */
static bool newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

int lessonbench_crashed_autosave(const char *path, char *out, size_t outlen)
{
	char own[4300];
	struct stat a, b;
	/* a clean save of the bench removes its autosave: one still there
	 * and newer holds edits no save took */
	if (lessonbench_autosave_path(path, own, sizeof own) == 0 && stat(own, &a) == 0 && S_ISREG(a.st_mode) &&
	    !claim_held(path) && (stat(path, &b) != 0 || newer(&a.st_mtim, &b.st_mtim)) &&
	    (size_t)snprintf(out, outlen, "%s", own) < outlen)
		return 0;
	return claim_orphan_autosave(path, out, outlen);
}

/* Is e a bench file's name (not its autosave, lock or temporary file)? */
static bool bench_name(const char *e)
{
	size_t n = strlen(e);
	if (!strcmp(e, "lesson-bench.txt"))
		return true;
	return strncmp(e, PREFIX, strlen(PREFIX)) == 0 && n > 4 && !strcmp(e + n - 4, ".txt");
}

struct found {
	char path[4200];
	struct timespec mtime;
};

/* Newest first. */
static int by_mtime(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->path, y->path);
}

/* The files in dir that match (and are regular), newest first; *n found.
 * NULL (and *n 0) when none or out of memory. */
static struct found *list(const char *dir, bool (*match)(const char *), int *n)
{
	struct found *v = NULL;
	int cap = 0;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		struct stat st;
		char path[4200];
		if (!match(e->d_name) || (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			struct found *more = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof *v);
			if (!more)
				break;
			v = more;
		}
		snprintf(v[*n].path, sizeof v[*n].path, "%s", path);
		v[(*n)++].mtime = st.st_mtim;
	}
	closedir(d);
	if (*n)
		qsort(v, (size_t)*n, sizeof *v, by_mtime);
	return v;
}

void lessonbench_prune(const char *dir, const char *keep)
{
	int n;
	struct found *v = list(dir, bench_name, &n);
	for (int i = LESSONBENCH_KEPT; i < n; i++)
		if ((!keep || strcmp(v[i].path, keep) != 0) && !claim_held(v[i].path))
			unlink(v[i].path);
	free(v);
}

static bool autosave_name(const char *e)
{
	size_t n = strlen(e), k = strlen(".txt.autosave");
	return strncmp(e, PREFIX, strlen(PREFIX)) == 0 && n > k && !strcmp(e + n - k, ".txt.autosave");
}

int lessonbench_orphan_autosave(const char *dir, char *out, size_t outlen)
{
	int n, rc = -1;
	struct found *v = list(dir, autosave_name, &n);
	for (int i = 0; i < n && rc != 0; i++) {
		char bench[4200];
		size_t k = strlen(v[i].path) - strlen(".autosave");
		snprintf(bench, sizeof bench, "%.*s", (int)k, v[i].path);
		if (!claim_held(bench) && (size_t)snprintf(out, outlen, "%s", v[i].path) < outlen)
			rc = 0;
	}
	free(v);
	return rc;
}
