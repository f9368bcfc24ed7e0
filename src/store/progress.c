/*
 * progress.c - reading and writing the learner's progress file. Strict on
 * reading (a line it does not understand is an error with its number, not
 * something to skip), so a foreign or damaged file is never taken for
 * progress and later overwritten with less. Does not know what lessons
 * exist: keys are checked for form only.
 */
#include "progress.h"
#include "pipeline.h"
#include "readfile.h"
#include "statefile.h"
#include "writefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* A stage as the file writes it: its label, '-' for a space
 * ("Weighted-sum"), so that a stage added to the pipeline never moves a
 * saved place. */
static const char *stage_name(char *out, size_t len, int stage)
{
	snprintf(out, len, "%s", pipeline_stage_label((enum pipeline_stage)stage));
	for (char *c = out; *c; c++)
		if (*c == ' ')
			*c = '-';
	return out;
}

/* A stage as read: by its label (any case, '-' for a space), or by its
 * number as files before labels wrote it (still loaded). A label no
 * stage has any more reads as PIPELINE_STAGE_COUNT: the place is then
 * not restored, the rest of the file is. -1: neither a label nor a
 * number. */
static int stage_read(const char *text)
{
	if (text[0] >= '0' && text[0] <= '9') {
		char *end;
		long v = strtol(text, &end, 10);
		return *end || v > 9999 ? -1 : (int)v;
	}
	int s = pipeline_stage_by_label(text);
	bool word = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ^-_") == strlen(text);
	return s >= 0 ? s : word ? PIPELINE_STAGE_COUNT : -1;
}

static const char magic[] = "mha-tui-progress";

void progress_init(struct progress *p)
{
	memset(p, 0, sizeof *p);
}

void progress_free(struct progress *p)
{
	for (int i = 0; i < p->ndone; i++)
		free(p->done[i]);
	free(p->done);
	for (int i = 0; i < p->nanswered; i++)
		free(p->answered[i]);
	free(p->answered);
	for (int i = 0; i < p->nwrong; i++)
		free(p->wrong[i]);
	free(p->wrong);
	for (int i = 0; i < p->nshown; i++)
		free(p->shown[i]);
	free(p->shown);
	progress_init(p);
}

/* A key or name we can write on one line and read back: printable, no blanks. */
static bool key_ok(const char *k, size_t max)
{
	size_t n = strlen(k);
	if (n == 0 || n >= max)
		return false;
	for (const char *c = k; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

static bool listed(char *const *v, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], key))
			return true;
	return false;
}

/* Shown is for good: a step both shown and done (a file of an older
 * version, or two instances merged) is shown. */
bool progress_is_done(const struct progress *p, const char *key)
{
	return listed(p->done, p->ndone, key) && !listed(p->shown, p->nshown, key);
}

bool progress_is_shown(const struct progress *p, const char *key)
{
	return listed(p->shown, p->nshown, key);
}

/* Append a copy of s to the list *v of *n strings (room for *cap). 0, or -1. */
static int list_add(char ***v, int *n, int *cap, const char *s)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 32;
		char **grown = realloc(*v, (size_t)c * sizeof *grown);
		if (!grown)
			return -1;
		*v = grown;
		*cap = c;
	}
	char *copy = strdup(s);
	if (!copy)
		return -1;
	(*v)[(*n)++] = copy;
	return 0;
}

int progress_mark_done(struct progress *p, const char *key)
{
	if (!key_ok(key, PROGRESS_KEY_MAX) || p->ndone >= PROGRESS_DONE_MAX)
		return -1;
	if (listed(p->done, p->ndone, key) || listed(p->shown, p->nshown, key))
		return 0; /* a shown step is never upgraded to done */
	return list_add(&p->done, &p->ndone, &p->cap, key);
}

int progress_mark_shown(struct progress *p, const char *key)
{
	if (!key_ok(key, PROGRESS_KEY_MAX) || p->nshown >= PROGRESS_DONE_MAX)
		return -1;
	if (listed(p->shown, p->nshown, key))
		return 0;
	/* shown is for good: a done line read before it goes, so that the
	 * done list holds only what progress_is_done finds */
	for (int i = 0; i < p->ndone; i++)
		if (!strcmp(p->done[i], key)) {
			free(p->done[i]);
			memmove(&p->done[i], &p->done[i + 1], (size_t)(p->ndone - i - 1) * sizeof *p->done);
			p->ndone--;
			break;
		}
	return list_add(&p->shown, &p->nshown, &p->scap, key);
}

/* The entry "KEY VALUE" of key in the list v of n, or -1. */
static int entry_index(char *const *v, int n, const char *key)
{
	size_t len = strlen(key);
	for (int i = 0; i < n; i++)
		if (!strncmp(v[i], key, len) && v[i][len] == ' ')
			return i;
	return -1;
}

static int answer_index(const struct progress *p, const char *key)
{
	return entry_index(p->answered, p->nanswered, key);
}

const char *progress_answer(const struct progress *p, const char *key)
{
	int i = answer_index(p, key);
	return i < 0 ? NULL : p->answered[i] + strlen(key) + 1;
}

/* Set key's entry "KEY VALUE" in the list *v of *n (room for *cap),
 * replacing an older one. 0, or -1. */
static int entry_set(char ***v, int *n, int *cap, const char *key, const char *value)
{
	char entry[PROGRESS_KEY_MAX + PROGRESS_ANSWER_MAX + 1];
	if (!key_ok(key, PROGRESS_KEY_MAX) || !key_ok(value, PROGRESS_ANSWER_MAX))
		return -1;
	snprintf(entry, sizeof entry, "%s %s", key, value);
	int i = entry_index(*v, *n, key);
	if (i >= 0) {
		char *copy = strdup(entry);
		if (!copy)
			return -1;
		free((*v)[i]);
		(*v)[i] = copy;
		return 0;
	}
	if (*n >= PROGRESS_DONE_MAX)
		return -1;
	return list_add(v, n, cap, entry);
}

int progress_set_answer(struct progress *p, const char *key, const char *answer)
{
	return entry_set(&p->answered, &p->nanswered, &p->acap, key, answer);
}

int progress_wrong(const struct progress *p, const char *key)
{
	int i = entry_index(p->wrong, p->nwrong, key);
	return i < 0 ? 0 : atoi(p->wrong[i] + strlen(key) + 1);
}

int progress_set_wrong(struct progress *p, const char *key, int n)
{
	char v[8];
	if (n < 1 || n > 99)
		return -1;
	snprintf(v, sizeof v, "%d", n);
	return entry_set(&p->wrong, &p->nwrong, &p->wcap, key, v);
}

void progress_set_place(struct progress *p, const char *lesson, const char *step, bool in_lesson)
{
	bool ok = lesson && step && key_ok(lesson, sizeof p->lesson) && key_ok(step, sizeof p->step);
	snprintf(p->lesson, sizeof p->lesson, "%s", ok ? lesson : "");
	snprintf(p->step, sizeof p->step, "%s", ok ? step : "");
	p->in_lesson = ok && in_lesson;
}

int progress_default_path(char *out, size_t outlen, char *msg, size_t len)
{
	return statefile_path("progress.txt", out, outlen, msg, len);
}

/* What a save writes: this run's place and done steps, and the done
 * steps of the file on disk this run does not have (another instance's). */
struct merged {
	const struct progress *p, *disk;
};

/* "NAME KEY VALUE" lines: this run's entries, then the disk's for keys
 * this run has none of. */
static void write_entries(FILE *f, const char *name, char *const *v, int n, char *const *disk, int ndisk)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %s\n", name, v[i]);
	int w = n;
	for (int i = 0; i < ndisk && w < PROGRESS_DONE_MAX; i++) {
		char key[PROGRESS_KEY_MAX];
		snprintf(key, sizeof key, "%.*s", (int)strcspn(disk[i], " "), disk[i]);
		if (entry_index(v, n, key) < 0) {
			fprintf(f, "%s %s\n", name, disk[i]);
			w++;
		}
	}
}

static int write_progress(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct merged *m = ctx;
	(void)why;
	(void)len;
	const struct progress *p = m->p;
	fprintf(f, "%s %d\n", magic, PROGRESS_VERSION);
	fprintf(f, "place %s %s\n", p->lesson[0] ? p->lesson : "-", p->step[0] ? p->step : "-");
	fprintf(f, "mode %s\n", p->in_lesson ? "lesson" : "free");
	for (int i = 0; i < p->ndone; i++)
		fprintf(f, "done %s\n", p->done[i]);
	int n = p->ndone;
	for (int i = 0; i < m->disk->ndone && n < PROGRESS_DONE_MAX; i++)
		if (!progress_is_done(p, m->disk->done[i])) {
			fprintf(f, "done %s\n", m->disk->done[i]);
			n++;
		}
	for (int i = 0; i < p->nshown; i++)
		fprintf(f, "shown %s\n", p->shown[i]);
	n = p->nshown;
	for (int i = 0; i < m->disk->nshown && n < PROGRESS_DONE_MAX; i++)
		if (!listed(p->shown, p->nshown, m->disk->shown[i])) {
			fprintf(f, "shown %s\n", m->disk->shown[i]);
			n++;
		}
	char st[32];
	if (p->has_at) { /* the place is this run's: so is the step's state */
		const struct progress_at *a = &p->at;
		fprintf(f, "at %s stage=%s panel=%d row=%d col=%d hints=%d\n", a->key, stage_name(st, sizeof st, a->stage),
		        a->panel, a->row, a->col, a->hints);
		if (a->tried[0])
			fprintf(f, "tried %s %s\n", a->key, a->tried);
	}
	const struct progress *v = p->has_view ? p : m->disk->has_view ? m->disk : NULL;
	if (v)
		fprintf(f, "view stage=%s panel=%d row=%d col=%d layout=%d\n", stage_name(st, sizeof st, v->view.stage),
		        v->view.panel, v->view.row, v->view.col, v->view.layout);
	write_entries(f, "answered", p->answered, p->nanswered, m->disk->answered, m->disk->nanswered);
	write_entries(f, "wrong", p->wrong, p->nwrong, m->disk->wrong, m->disk->nwrong);
	return 0;
}

int progress_save(const char *path, const struct progress *p, char *msg, size_t len)
{
	/* read, merge and replace under a lock, so two instances saving at
	 * once both keep what the other had done */
	char dir[4096], why[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		slash[slash == dir] = '\0'; /* "/progress.txt" -> "/" */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the directory is the lock: no file of its own */
	if (fd >= 0)
		flock(fd, LOCK_EX);
	struct progress disk;
	int rc = -1;
	if (progress_load(path, &disk, why, sizeof why) != 0) {
		/* damaged, or another program's, since this run read it: what it
		 * holds is not known, so it is kept, and this save refused */
		snprintf(msg, len, "%s", why);
	} else {
		struct merged m = { p, &disk };
		rc = writefile_write(path, WRITEFILE_PROGRESS, write_progress, &m, NULL, msg, len);
		progress_free(&disk);
	}
	if (fd >= 0)
		close(fd); /* and with it the lock */
	return rc;
}

static int bad(const char *name, int line, char *msg, size_t len, const char *why)
{
	snprintf(msg, len, "%s:%d: %s", name, line, why);
	return -1;
}

/* One line (NUL-terminated, no newline) of the file, line number ln. */
static int parse_line(const char *name, int ln, char *l, struct progress *p, bool *seen,
                      char *msg, size_t len)
{
	char head[32];
	snprintf(head, sizeof head, "%s %d", magic, PROGRESS_VERSION);
	if (ln == 1) {
		if (strncmp(l, magic, strlen(magic)) != 0)
			return bad(name, ln, msg, len, "not an mha-tui progress file (first line must be "
			           "'mha-tui-progress 1'): left as it is");
		return strcmp(l, head) ? bad(name, ln, msg, len, "unsupported progress version") : 0;
	}
	if (!l[0] || l[0] == '#')
		return 0;
	char a[128], b[128];
	int n = 0;
	if (!strncmp(l, "place ", 6)) {
		if (sscanf(l + 6, "%127s %127s %n", a, b, &n) != 2 || l[6 + n] != '\0' ||
		    strlen(a) >= sizeof p->lesson || strlen(b) >= sizeof p->step)
			return bad(name, ln, msg, len, "expected 'place LESSON STEP'");
		bool none = !strcmp(a, "-");
		snprintf(p->lesson, sizeof p->lesson, "%s", none ? "" : a);
		snprintf(p->step, sizeof p->step, "%s", none ? "" : b);
		seen[0] = true;
	} else if (!strcmp(l, "mode lesson") || !strcmp(l, "mode free")) {
		p->in_lesson = !strcmp(l, "mode lesson");
		seen[1] = true;
	} else if (!strncmp(l, "done ", 5)) {
		if (progress_mark_done(p, l + 5) != 0)
			return bad(name, ln, msg, len, "expected 'done LESSON/STEP'");
	} else if (!strncmp(l, "at ", 3)) {
		struct progress_at *t = &p->at;
		if (sscanf(l + 3, "%127s stage=%31s panel=%4d row=%4d col=%4d hints=%4d %n", a, b, &t->panel,
		           &t->row, &t->col, &t->hints, &n) != 6 || l[3 + n] != '\0' || !key_ok(a, sizeof t->key) ||
		    (t->stage = stage_read(b)) < 0 || t->panel < 0 || t->row < 0 || t->col < 0 || t->hints < 0)
			return bad(name, ln, msg, len, "expected 'at LESSON/STEP stage=NAME panel=N row=N col=N hints=N'");
		snprintf(t->key, sizeof t->key, "%s", a);
		p->has_at = true;
	} else if (!strncmp(l, "tried ", 6)) {
		if (sscanf(l + 6, "%127s %127s %n", a, b, &n) != 2 || l[6 + n] != '\0' || !p->has_at ||
		    strcmp(a, p->at.key) != 0 || !key_ok(b, sizeof p->at.tried))
			return bad(name, ln, msg, len, "expected 'tried LESSON/STEP ANSWER' after its 'at' line");
		snprintf(p->at.tried, sizeof p->at.tried, "%s", b);
	} else if (!strncmp(l, "shown ", 6)) {
		if (progress_mark_shown(p, l + 6) != 0)
			return bad(name, ln, msg, len, "expected 'shown LESSON/STEP'");
	} else if (!strncmp(l, "view ", 5)) {
		struct progress_view *v = &p->view;
		if (sscanf(l + 5, "stage=%31s panel=%4d row=%4d col=%4d layout=%1d %n", b, &v->panel,
		           &v->row, &v->col, &v->layout, &n) != 5 || l[5 + n] != '\0' || (v->stage = stage_read(b)) < 0 ||
		    v->panel < 0 || v->row < 0 || v->col < 0 || v->layout < 0 || v->layout > 1)
			return bad(name, ln, msg, len, "expected 'view stage=NAME panel=N row=N col=N layout=0|1'");
		p->has_view = true;
	} else if (!strncmp(l, "answered ", 9)) {
		if (sscanf(l + 9, "%127s %127s %n", a, b, &n) != 2 || l[9 + n] != '\0' ||
		    progress_set_answer(p, a, b) != 0)
			return bad(name, ln, msg, len, "expected 'answered LESSON/STEP ANSWER'");
	} else if (!strncmp(l, "wrong ", 6)) {
		int w;
		if (sscanf(l + 6, "%127s %2d %n", a, &w, &n) != 2 || l[6 + n] != '\0' || progress_set_wrong(p, a, w) != 0)
			return bad(name, ln, msg, len, "expected 'wrong LESSON/STEP N' (N 1..99)");
	} else {
		return bad(name, ln, msg, len, "unexpected line: expected place, mode, done, shown, answered, wrong, at, tried or view");
	}
	return 0;
}

int progress_parse(const char *name, const char *text, size_t size, struct progress *p,
                   char *msg, size_t len)
{
	progress_init(p);
	bool seen[2] = { false, false };
	int ln = 0, rc = 0;
	const char *s = text, *end = text + size;
	if (size == 0) /* nothing in it to keep (this program never writes one): a first run */
		return 0;
	while (s < end && rc == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		const char *next = nl ? nl + 1 : end; /* before n loses a CR */
		ln++;
		char line[256];
		if (n && s[n - 1] == '\r')
			n--;
		if (n >= sizeof line || memchr(s, '\0', n))
			rc = bad(name, ln, msg, len, n >= sizeof line ? "line too long" : "holds a NUL byte");
		else {
			memcpy(line, s, n);
			line[n] = '\0';
			rc = parse_line(name, ln, line, p, seen, msg, len);
		}
		s = next;
	}
	if (rc == 0 && (!seen[0] || !seen[1]))
		rc = bad(name, ln, msg, len, "file ends early: 'place' and 'mode' lines expected");
	if (rc != 0)
		progress_free(p);
	return rc;
}

int progress_load(const char *path, struct progress *p, char *msg, size_t len)
{
	progress_init(p);
	char *buf, why[256];
	size_t size;
	if (readfile_all(path, (size_t)1 << 22, &buf, &size, why, sizeof why) != 0) {
		if (errno == ENOENT)
			return 0; /* first run */
		snprintf(msg, len, "%s: %s: left as it is", path, why);
		return -1;
	}
	int rc = progress_parse(path, buf, size, p, msg, len);
	free(buf);
	return rc;
}
