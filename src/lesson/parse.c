/*
 * parse.c - the lesson file parser. Reads the whole file line by line,
 * directives ("@word" in column 0), comments ("#"), prose (everything
 * else), and builds a struct lesson in an arena. Every problem becomes a
 * "file:line: message" and parsing goes on, so an author sees all of them
 * at once; a misspelled directive gets the nearest real one suggested.
 * After the last line, each step's configuration is resolved and every
 * reference, shape and asset is checked against it. What needs the
 * forward pass (is a goal false at the start, true after the solution?)
 * is the checker's job (checker.c), not this file's.
 */
#include "lesson_int.h"
#include "parser.h"
#include "notation.h"
#include "readfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum where { HEADER = 1, STEP = 2, ANYWHERE = 3 };

void lesson_parser_err(struct parser *ps, int line, const char *fmt, ...)
{
	char why[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	lesson_errors_add(ps->errs, "%s:%d: %s", ps->file, line, why);
	ps->nerr++;
}

void *lesson_parser_need(struct parser *ps, void *p)
{
	if (!p && !ps->oom) {
		ps->oom = true;
		lesson_parser_err(ps, ps->line, "out of memory");
	}
	return p;
}

struct lesson_step *lesson_parser_step(struct parser *ps)
{
	return ps->cur >= 0 ? &ps->l->steps[ps->cur] : NULL;
}

struct lesson_setup *lesson_parser_setup(struct parser *ps, struct caps **caps)
{
	*caps = ps->cur >= 0 ? &ps->step_caps : &ps->base_caps;
	return ps->cur >= 0 ? &lesson_parser_step(ps)->setup : &ps->l->base;
}

/* ---- prose ---- */

static void prose_add(struct parser *ps, const char *text)
{
	size_t n = strlen(text);
	if (ps->prose_len + n + 2 > ps->prose_cap) {
		size_t cap = (ps->prose_len + n + 2) * 2;
		char *p = lesson_parser_need(ps, realloc(ps->prose, cap));
		if (!p)
			return;
		ps->prose = p;
		ps->prose_cap = cap;
	}
	memcpy(ps->prose + ps->prose_len, text, n);
	ps->prose_len += n;
	ps->prose[ps->prose_len++] = '\n';
	ps->prose[ps->prose_len] = '\0';
}

/* Store the current step's prose without blank lines at either end. */
static void prose_finish(struct parser *ps)
{
	struct lesson_step *s = lesson_parser_step(ps);
	if (!s)
		return;
	const char *p = ps->prose ? ps->prose : "";
	size_t n = ps->prose_len;
	while (n && (p[n - 1] == '\n' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	size_t start = 0;
	for (size_t i = 0; i < n; i++) { /* skip whole blank lines at the start */
		if (p[i] == '\n')
			start = i + 1;
		else if (p[i] != ' ' && p[i] != '\t')
			break;
	}
	s->prose = lesson_parser_need(ps, lesson_arena_strndup(ps->a, p + start, n - start));
	ps->prose_len = 0;
}

/* ---- header directives ---- */

static void d_lesson(struct parser *ps, const char *arg)
{
	long long n;
	const char *end;
	if (ps->number_line) {
		lesson_parser_err(ps, ps->line, "@lesson given twice (first at line %d)", ps->number_line);
		return;
	}
	ps->number_line = ps->l->number_line = ps->line;
	if (lesson_parse_int(arg, &end, &n) != 0 || *lesson_skip_blanks(end) || n < 1 || n > 99) {
		lesson_parser_err(ps, ps->line, "bad lesson number '%.20s': @lesson takes a whole number 1..99", arg);
		return;
	}
	ps->l->number = (int)n;
}

static void d_text(struct parser *ps, const char *arg, const char **dst, int *line,
                   const char *what)
{
	if (*line) {
		lesson_parser_err(ps, ps->line, "@%s given twice (first at line %d)", what, *line);
		return;
	}
	*line = ps->line;
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@%s needs its text on the same line", what);
		return;
	}
	*dst = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

static void d_title(struct parser *ps, const char *arg)
{
	d_text(ps, arg, &ps->l->title, &ps->title_line, "title");
}

static void d_objective(struct parser *ps, const char *arg)
{
	d_text(ps, arg, &ps->l->objective, &ps->objective_line, "objective");
}

/* ---- steps ---- */

static void d_step(struct parser *ps, const char *arg)
{
	char id[LESSON_ID_MAX + 8];
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_");
	if (n == 0 || n >= LESSON_ID_MAX || (arg[n] && arg[n] != ' ' && arg[n] != '\t')) {
		lesson_parser_err(ps, ps->line, "@step needs an id: lower-case letters, digits, '-' and '_', at most %d "
		    "bytes (\"@step scores-2 Title\")", LESSON_ID_MAX - 1);
		n = (size_t)snprintf(id, sizeof id, "step-at-line-%d", ps->line);
	} else {
		memcpy(id, arg, n);
		id[n] = '\0';
	}
	for (int i = 0; i < ps->l->nsteps; i++)
		if (!strcmp(ps->l->steps[i].id, id))
			lesson_parser_err(ps, ps->line, "duplicate step id '%s' (also at line %d): ids must be unique in a "
			    "lesson", id, ps->l->steps[i].line);
	prose_finish(ps);
	struct lesson_step *s = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&ps->l->steps, &ps->l->nsteps,
	                                            &ps->steps_cap, sizeof *s));
	if (!s)
		return;
	ps->cur = ps->l->nsteps - 1;
	memset(&ps->step_caps, 0, sizeof ps->step_caps);
	s->id = lesson_parser_need(ps, lesson_arena_strdup(ps->a, id));
	s->title = lesson_parser_need(ps, lesson_arena_strdup(ps->a, lesson_skip_blanks(arg + n)));
	s->line = ps->line;
	s->focus = -1;
	s->focus_layer = -1;
}

/* ---- set-up ---- */

static void d_include(struct parser *ps, const char *arg)
{
	char *text, why[512];
	size_t size;
	if (lesson_asset_read(ps->assets_dir, arg, ".txt", ps->a, &text, &size, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@include: %s", why);
		return;
	}
	/* included text is shown verbatim: indent every line */
	for (char *l = text, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char buf[1024];
		snprintf(buf, sizeof buf, "  %s", l);
		prose_add(ps, buf);
		if (!nl)
			break;
	}
}

/* ---- dispatch ---- */

static const struct directive {
	const char *name;
	void (*fn)(struct parser *, const char *arg);
	enum where where;
} directives[] = {
	{ "lesson", d_lesson, HEADER }, { "title", d_title, HEADER },
	{ "objective", d_objective, HEADER }, { "step", d_step, ANYWHERE },
	{ "config", lesson_d_config, ANYWHERE }, { "labels", lesson_d_labels, ANYWHERE },
	{ "kv_labels", lesson_d_kv_labels, ANYWHERE },
	{ "matrix", lesson_d_matrix, ANYWHERE }, { "end", lesson_d_end, ANYWHERE },
	{ "preset", lesson_d_preset, ANYWHERE }, { "fill", lesson_d_fill, ANYWHERE },
	{ "embed", lesson_d_embed, ANYWHERE }, { "set", lesson_d_set, ANYWHERE },
	{ "focus", lesson_d_focus, STEP }, { "highlight", lesson_d_highlight, STEP }, { "hide", lesson_d_hide, STEP },
	{ "goal", lesson_d_goal, STEP }, { "hint", lesson_d_hint, STEP }, { "solution", lesson_d_solution, STEP },
	{ "question", lesson_d_question, STEP }, { "choice", lesson_d_choice, STEP },
	{ "answer", lesson_d_answer, STEP }, { "include", d_include, STEP },
	{ "feedback", lesson_d_feedback, STEP },
	{ "flash", lesson_d_flash, STEP }, { "wait", lesson_d_wait, STEP },
	{ "model", lesson_d_model, STEP },
};
enum { NDIRECTIVES = sizeof directives / sizeof directives[0] };

const char *lesson_nearest_directive(const char *word)
{
	const char *names[NDIRECTIVES];
	for (int i = 0; i < NDIRECTIVES; i++)
		names[i] = directives[i].name;
	return lesson_nearest_word(word, names, NDIRECTIVES);
}

static void directive(struct parser *ps, const char *l)
{
	char word[32];
	const char *after = lesson_read_word(l + 1, word, sizeof word);
	/* the argument: the rest, without blanks at either end */
	char arg[2048];
	const char *a = lesson_skip_blanks(after);
	size_t n = strlen(a);
	while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
		n--;
	if (n >= sizeof arg) {
		lesson_parser_err(ps, ps->line, "line too long: at most %zu bytes after the directive", sizeof arg - 1);
		return;
	}
	memcpy(arg, a, n);
	arg[n] = '\0';
	for (int i = 0; i < NDIRECTIVES; i++) {
		const struct directive *d = &directives[i];
		if (strcmp(word, d->name) != 0)
			continue;
		if (*after && *after != ' ' && *after != '\t') {
			lesson_parser_err(ps, ps->line, "@%s: put a space between the directive and its text", d->name);
		} else if (!(d->where & STEP) && ps->cur >= 0) {
			lesson_parser_err(ps, ps->line, "@%s belongs before the first @step", d->name);
		} else if (!(d->where & HEADER) && ps->cur < 0) {
			lesson_parser_err(ps, ps->line, "@%s belongs inside a step: start one with @step ID", d->name);
		} else {
			d->fn(ps, arg);
		}
		return;
	}
	const char *near = lesson_nearest_directive(word);
	if (near)
		lesson_parser_err(ps, ps->line, "unknown directive @%.30s: did you mean @%s?", word, near);
	else
		lesson_parser_err(ps, ps->line, "unknown directive @%.30s (directives are listed in lessons/README.md)",
		    word);
}

/* Text must be UTF-8 without control characters (tab excepted): it goes
 * straight to the terminal. */
static bool text_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = s[i];
		if (ch < 0x80) {
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				return false;
			i++;
			continue;
		}
		size_t len = ch >= 0xc2 && ch <= 0xdf ? 2 : ch >= 0xe0 && ch <= 0xef ? 3
		           : ch >= 0xf0 && ch <= 0xf4 ? 4 : 0;
		if (len == 0 || i + len > n)
			return false;
		if (ch == 0xc2 && s[i + 1] < 0xa0)
			return false; /* C1 controls: terminals act on them */
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

/* A cell in an old notation in text a learner reads (prose, hints,
 * questions, titles), noted for the checker with the form to write; the
 * cell directives refuse old forms themselves (ref.c). */
static void lint_notation(struct parser *ps, const char *l)
{
	static const char *const refs[] = { "@goal", "@set", "@solution", "@highlight", "@hide" };
	for (size_t k = 0; k < sizeof refs / sizeof refs[0]; k++) {
		size_t n = strlen(refs[k]);
		if (!strncmp(l, refs[k], n) && (l[n] == ' ' || l[n] == '\t'))
			return;
	}
	size_t len;
	char want[NOTATION_MAX * 2], msg[512];
	for (const char *at = l; (at = lesson_notation_old(at, &len, want, sizeof want)) != NULL; at += len) {
		snprintf(msg, sizeof msg, "%s:%d: '%.*s' is not the cell notation: write %s (lessons/README.md)",
		         ps->file, ps->line, (int)len, at, want);
		const char **slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&ps->l->lint,
		                                        &ps->l->nlint, &ps->lint_cap, sizeof *slot));
		if (!slot)
			return;
		*slot = lesson_parser_need(ps, lesson_arena_strdup(ps->a, msg));
	}
}

static void line(struct parser *ps, char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		l[--n] = '\0';
	if (memchr(l, '\0', n) || !text_ok((const unsigned char *)l, n)) {
		lesson_parser_err(ps, ps->line, "this line is not UTF-8 text (or holds control characters)");
		return;
	}
	if (ps->block) {
		const char *t = lesson_skip_blanks(l);
		if (!strncmp(l, "@end", 4) && !*lesson_skip_blanks(l + 4)) {
			lesson_parser_block_close(ps);
			return;
		}
		if (l[0] != '@') {
			if (*t && *t != '#')
				lesson_parser_block_row(ps, l);
			return;
		}
		lesson_parser_err(ps, ps->block_line, "@matrix %s block is not closed: add @end after its rows",
		    mha_tensor_info(ps->block->t)->name);
		lesson_parser_block_close(ps);
	}
	if (l[0] == '#')
		return;
	lint_notation(ps, l);
	if (l[0] == '@') {
		directive(ps, l);
		return;
	}
	const char *text = l[0] == '\\' && (l[1] == '@' || l[1] == '#') ? l + 1 : l;
	if (ps->cur < 0) {
		if (*lesson_skip_blanks(text))
			lesson_parser_err(ps, ps->line, "text before the first @step: prose belongs inside a step");
		return;
	}
	prose_add(ps, text);
}

/* "dir/03-reshape.lesson" -> stem "03-reshape", name "reshape". */
static void names_from_path(struct parser *ps, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 7 && !strcmp(base + n - 7, ".lesson"))
		n -= 7;
	ps->l->stem = lesson_parser_need(ps, lesson_arena_strndup(ps->a, base, n));
	const char *s = base;
	while (s < base + n && isdigit((unsigned char)*s))
		s++;
	if (s > base && s < base + n && *s == '-')
		s++;
	else
		s = base;
	size_t nl = (size_t)(base + n - s);
	if (nl >= LESSON_NAME_MAX)
		nl = LESSON_NAME_MAX - 1;
	ps->l->name = lesson_parser_need(ps, lesson_arena_strndup(ps->a, s, nl));
}

int lesson_parse(const char *name, const char *text, size_t size, const char *assets_dir,
                 struct lesson *out, struct lesson_errors *errs)
{
	memset(out, 0, sizeof *out);
	struct parser ps = { .file = name, .l = out, .errs = errs, .assets_dir = assets_dir, .cur = -1 };
	out->arena = lesson_arena_new();
	ps.a = out->arena;
	if (!out->arena) {
		lesson_errors_add(errs, "%s: out of memory", name);
		return -1;
	}
	out->path = lesson_parser_need(&ps, lesson_arena_strdup(ps.a, name));
	names_from_path(&ps, name);
	if (size > LESSON_FILE_MAX) {
		lesson_parser_err(&ps, 1, "file too large: lessons are at most %d bytes", LESSON_FILE_MAX);
		ps.foreign = true;
	} else {
		char *copy = malloc(size + 1);
		if (!copy) {
			lesson_parser_need(&ps, NULL);
		} else {
			memcpy(copy, text, size);
			copy[size] = '\0';
			char magic[32];
			snprintf(magic, sizeof magic, "mha-tui-lesson %d", LESSON_FORMAT_VERSION);
			char *p = copy, *endp = copy + size;
			while (p < endp && !ps.oom) {
				char *nl = memchr(p, '\n', (size_t)(endp - p));
				size_t n = nl ? (size_t)(nl - p) : (size_t)(endp - p);
				p[n] = '\0';
				ps.line++;
				if (ps.line == 1) {
					if (n && p[n - 1] == '\r')
						p[n - 1] = '\0';
					/* a UTF-8 byte-order mark, as some editors write: not part of the text */
					const char *first = strncmp(p, "\xef\xbb\xbf", 3) == 0 ? p + 3 : p;
					if (strcmp(first, magic) != 0) {
						lesson_parser_err(&ps, 1, !strncmp(first, "mha-tui-lesson ", 15)
						    ? "unsupported lesson format: this mha-tui reads '%s'"
						    : "not a lesson file: the first line must be '%s'", magic);
						ps.foreign = true;
						break; /* the rest would only add noise */
					}
				} else {
					line(&ps, p, n);
				}
				p += n + 1;
			}
			if (size == 0) {
				lesson_parser_err(&ps, 1, "empty file: the first line must be '%s'", magic);
				ps.foreign = true;
			}
			free(copy);
		}
	}
	if (!ps.oom && !ps.foreign) {
		if (ps.block) {
			lesson_parser_err(&ps, ps.block_line, "@matrix %s block is not closed: add @end after its rows",
			    mha_tensor_info(ps.block->t)->name);
			ps.block = NULL;
		}
		prose_finish(&ps);
		lesson_parser_finish(&ps);
	}
	free(ps.prose);
	free(ps.rows);
	if (ps.nerr) {
		lesson_free(out);
		return -1;
	}
	return 0;
}

int lesson_load(const char *path, const char *assets_dir, struct lesson *out,
                struct lesson_errors *errs)
{
	memset(out, 0, sizeof *out);
	char *buf, why[256];
	size_t n;
	if (readfile_all(path, LESSON_FILE_MAX, &buf, &n, why, sizeof why) != 0) { /* a FIFO cannot hang it */
		lesson_errors_add(errs, "%s: cannot read: %s", path, why);
		return -1;
	}
	int rc = lesson_parse(path, buf, n, assets_dir, out, errs);
	free(buf);
	return rc;
}

void lesson_free(struct lesson *l)
{
	lesson_arena_free(l->arena);
	memset(l, 0, sizeof *l);
}
