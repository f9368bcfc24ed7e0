/*
 * test_keys_documented.c - every key of every mode's table is where a
 * learner looks for it: in the help overlay opened over that mode (a
 * prompt has no help: every key types; its keys are on its status line),
 * and in the man page's KEYS, in the subsection of that mode (".SS KV
 * cache (g)"; the workbench's anywhere in KEYS). A key counts as named
 * when a key the help or the man page shows covers it: the same key
 * ("Enter", "+", "1-7"), "arrows" for the four arrows, "hjkl" for its
 * letters, Ctrl-L for C-l and Shift-Tab for S-Tab. A new view whose keys
 * are missing from either fails here, naming the mode and the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "help.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-keys-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

enum { WORDS_MAX = 4096, WORD_MAX = 48 };

/* The keys a text names, as words. */
struct words {
	int n;
	char w[WORDS_MAX][WORD_MAX];
};

/* The help's and the man page's spellings of a key, as the tables write it. */
static const char *canonical(const char *k)
{
	if (!strcmp(k, "Ctrl-L"))
		return "C-l";
	if (!strcmp(k, "Shift-Tab"))
		return "S-Tab";
	return k;
}

static void add_word(struct words *ws, const char *w, size_t len)
{
	while (len > 1 && (w[len - 1] == ',' || w[len - 1] == ')' || w[len - 1] == '('))
		len--; /* a list's comma, a title's parentheses: "(g)" (a lone "," is the key) */
	while (len > 1 && (*w == '(' || *w == '"')) {
		w++;
		len--;
	}
	if (len == 0 || len >= WORD_MAX || ws->n >= WORDS_MAX)
		return;
	char buf[WORD_MAX];
	size_t o = 0;
	for (size_t i = 0; i < len; i++) /* troff: "\-" is a minus */
		if (!(w[i] == '\\' && i + 1 < len && w[i + 1] == '-'))
			buf[o++] = w[i];
	buf[o] = '\0';
	snprintf(ws->w[ws->n++], WORD_MAX, "%s", canonical(buf));
}

/* Each blank-separated word of s (len bytes). */
static void add_words(struct words *ws, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '"'))
			i++;
		size_t j = i;
		while (j < len && s[j] != ' ' && s[j] != '"')
			j++;
		add_word(ws, s + i, j - i);
		i = j;
	}
}

/* Is key k (a label's word) among the words? */
static bool covered(const struct words *ws, const char *k)
{
	bool arrow = !strcmp(k, "Left") || !strcmp(k, "Right") || !strcmp(k, "Up") || !strcmp(k, "Down");
	for (int i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (!strcmp(w, k) || (strlen(k) > 1 && !strcasecmp(w, k)) || (arrow && !strcmp(w, "arrows")))
			return true; /* a key's name in any case ("Mouse"); a letter as it is (h is not H) */
		/* "hjkl": four keys in one word */
		if (strlen(k) == 1 && !strcmp(w, "hjkl") && strchr(w, k[0]))
			return true;
	}
	return false;
}

/* Every key a row of m names (its label's words, or its target's) is
 * covered by ws; else the test fails saying which. */
static void check_rows(const struct app *app, const struct mode_ops *m, const struct action *rows, int n,
                       const struct words *ws, const char *where)
{
	for (int i = 0; i < n; i++) {
		const struct action *a = mode_target(app, &rows[i]);
		if (!a)
			fail_msg("%s: a row of %s stands for '%s', which no mode has", where, m->name, rows[i].use);
		char label[64];
		snprintf(label, sizeof label, "%s", a->label);
		for (char *save = NULL, *k = strtok_r(label, " ", &save); k; k = strtok_r(NULL, " ", &save))
			if (!covered(ws, k))
				fail_msg("%s: %s's key %s (%s) is not there", where, m->name, k, a->help);
	}
}

/* The key column of the help's lines for the group from line `from` up
 * to the next heading (to the end: until). */
static void help_words(const struct lesson_text *t, int from, bool until_end, struct words *ws)
{
	ws->n = 0;
	for (int i = from; i < t->count; i++) {
		if (t->lines[i].kind == LESSON_LINE_TITLE) {
			if (i > from && !until_end)
				break;
			const char *how = strchr(t->lines[i].text, '('); /* "KV cache (g or Esc: back)" */
			if (how)
				add_words(ws, how, strlen(how));
			continue;
		}
		add_words(ws, t->lines[i].text, strlen(t->lines[i].text) < 13 ? strlen(t->lines[i].text) : 13);
	}
}

/* An app in mode m (opened as a learner would: F from Scores). */
static struct app *open_in(const struct mode_ops *m)
{
	struct app *app = tui_check_open(&set);
	app->stage = PIPELINE_SCORES;
	if (m != &workbench_mode && !mode_open(app, m))
		fail_msg("%s does not open: %s", m->name, app->status);
	return app;
}

static void test_every_key_of_every_view_is_in_its_help(void **state)
{
	(void)state;
	for (int i = 0; tui_modes[i]; i++) {
		const struct mode_ops *m = tui_modes[i];
		if (m->prompt)
			continue; /* every key types there: the status line says Enter and Esc */
		struct app *app = open_in(m);
		struct lesson_text t = { 0 };
		static struct words ws;
		assert_int_equal(help_lines(app, 400, &t), 0);
		help_words(&t, 0, m == &workbench_mode, &ws);
		check_rows(app, m, m->keys, action_count(m->keys), &ws, "the help");
		if (m->opener)
			check_rows(app, m, m->opener, 1, &ws, "the help");
		for (int k = 1; m == &workbench_mode && tui_modes[k]; k++) /* every view's way in */
			if (tui_modes[k]->opener)
				check_rows(app, tui_modes[k], tui_modes[k]->opener, 1, &ws, "the workbench's help");
		lesson_text_free(&t);
		tui_check_close(app);
	}
}

/* A view whose opener no row of the workbench's table places is listed
 * all the same: after the rows of its group, or under "Views" at the end
 * when the table has no such group. */
static const struct action opener_train = {
	.keys = { '~' }, .label = "~", .name = "tilde", .help = "a view of the Shape group", .group = "Shape",
	.id = "tilde",
};
static const struct action opener_new = {
	.keys = { '`' }, .label = "`", .name = "backtick", .help = "a view of a group of its own", .group = "Tests",
	.id = "backtick",
};
static const struct mode_ops view_train = { .name = "tilde view", .opener = &opener_train };
static const struct mode_ops view_new = { .name = "backtick view", .opener = &opener_new };

static void test_a_view_the_workbench_does_not_place_is_in_its_help(void **state)
{
	(void)state;
	const struct mode_ops *const modes[] = { &workbench_mode, &view_train, &view_new, NULL };
	struct mha_weights w;
	struct mha_config c = tui_check_default_weights(&w);
	char msg[MHA_MSG_MAX];
	struct app *app = calloc(1, sizeof *app);
	assert_int_equal(app_init(app, modes, &c, &w, msg, sizeof msg), 0);
	struct lesson_text t = { 0 };
	assert_int_equal(help_lines(app, 400, &t), 0);
	int train = -1, tilde = -1, views = -1, backtick = -1;
	for (int i = 0; i < t.count; i++) {
		const char *l = t.lines[i].text;
		train = !strcmp(l, "Shape") ? i : train;
		views = !strcmp(l, "Views") ? i : views;
		tilde = strstr(l, "a view of the Shape group") ? i : tilde;
		backtick = strstr(l, "a view of a group of its own") ? i : backtick;
	}
	assert_true(train >= 0 && tilde > train);    /* in its group */
	assert_true(views > tilde && backtick > views); /* the rest at the end */
	lesson_text_free(&t);
	app_free(app);
	free(app);
}

/* The man page's KEYS section: each subsection's title and bold words. */
struct man_section {
	char title[96];
	struct words ws;
};

static int read_man_keys(struct man_section *sec, int max)
{
	char path[4096], line[1024];
	const char *root = getenv("MHA_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/doc/mha-tui.1", root ? root : ".");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	int n = -1;
	bool keys = false;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH ", 4)) {
			keys = !strcmp(line, ".SH KEYS");
			if (keys && n < 0) {
				n = 0;
				snprintf(sec[0].title, sizeof sec[0].title, "KEYS");
				sec[0].ws.n = 0;
			}
			continue;
		}
		if (!keys)
			continue;
		if (!strncmp(line, ".SS ", 4) && n + 1 < max) {
			n++;
			snprintf(sec[n].title, sizeof sec[n].title, "%.90s", line + 4);
			sec[n].ws.n = 0;
			add_words(&sec[n].ws, line + 4, strlen(line + 4)); /* "Mouse", "KV cache (g)": its opener */
			continue;
		}
		/* bold words: .B all of it; .BR / .RB every other argument */
		struct words *ws = &sec[n].ws;
		if (!strncmp(line, ".B ", 3))
			add_words(ws, line + 3, strlen(line + 3));
		else if (!strncmp(line, ".BR ", 4) || !strncmp(line, ".RB ", 4)) {
			bool bold = line[1] == 'B';
			for (const char *p = line + 4; *p;) {
				while (*p == ' ')
					p++;
				const char *end = *p == '"' ? strchr(p + 1, '"') : strchr(p, ' ');
				size_t len = end ? (size_t)(end - p) + (*p == '"') : strlen(p);
				if (bold)
					add_words(ws, p, len);
				bold = !bold;
				p += len;
			}
		}
		for (const char *p = strstr(line, "\\fB"); p; p = strstr(p + 1, "\\fB")) {
			const char *end = strstr(p, "\\fP");
			if (end)
				add_words(ws, p + 3, (size_t)(end - p - 3));
		}
	}
	fclose(f);
	return n + 1;
}

static void test_every_key_of_every_mode_is_in_the_man_page(void **state)
{
	(void)state;
	static struct man_section sec[64];
	static struct words all;
	int n = read_man_keys(sec, 64);
	assert_true(n > 5);
	all.n = 0;
	for (int s = 0; s < n; s++)
		for (int k = 0; k < sec[s].ws.n && all.n < WORDS_MAX; k++)
			snprintf(all.w[all.n++], WORD_MAX, "%s", sec[s].ws.w[k]);
	struct app *app = tui_check_open(&set);
	for (int i = 0; tui_modes[i]; i++) {
		const struct mode_ops *m = tui_modes[i];
		if (m == &workbench_mode) {
			check_rows(app, m, m->keys, action_count(m->keys), &all, "the man page's KEYS");
			continue;
		}
		const struct man_section *own = NULL;
		for (int s = 0; s < n && !own; s++)
			if (!strncasecmp(sec[s].title, m->name, strlen(m->name)))
				own = &sec[s];
		if (!own)
			fail_msg("the man page's KEYS has no subsection for %s (\".SS %s\")", m->name, m->name);
		check_rows(app, m, m->keys, action_count(m->keys), &own->ws, own->title);
		if (m->opener)
			check_rows(app, m, m->opener, 1, &own->ws, own->title);
	}
	tui_check_close(app);
}

/* The matcher itself: a key the text does not name is missed. */
static void test_a_key_missing_from_a_text_is_found_missing(void **state)
{
	(void)state;
	static struct words ws;
	ws.n = 0;
	add_words(&ws, "arrows hjkl  PgDn Ctrl-L 1\\-7", strlen("arrows hjkl  PgDn Ctrl-L 1\\-7"));
	assert_true(covered(&ws, "Left"));
	assert_true(covered(&ws, "j"));
	assert_true(covered(&ws, "C-l"));
	assert_true(covered(&ws, "1-7"));
	assert_false(covered(&ws, "PgUp"));
	assert_false(covered(&ws, "x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_key_missing_from_a_text_is_found_missing),
		cmocka_unit_test(test_every_key_of_every_view_is_in_its_help),
		cmocka_unit_test(test_a_view_the_workbench_does_not_place_is_in_its_help),
		cmocka_unit_test(test_every_key_of_every_mode_is_in_the_man_page),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
