/*
 * tui_check.c - helpers shared by the workbench's tests (tui_check.h).
 * Only set-up and typing: each test asserts what it checks itself.
 */
#include "tui_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "frame.h"
#include "session.h"
#include "learn.h"
#include "vscreen.h"

struct mha_config tui_check_default_weights(struct mha_weights *w)
{
	struct mha_config c = mha_config_default();
	assert_int_equal(mha_weights_alloc(w, &c), MHA_OK);
	mha_weights_init(w, &c, c.seed);
	mha_weights_default_labels(w, &c);
	return c;
}

struct app *tui_check_open(const struct lesson_set *set)
{
	struct app *app = calloc(1, sizeof *app);
	struct mha_weights w;
	struct mha_config c = tui_check_default_weights(&w);
	char msg[MHA_MSG_MAX];
	assert_non_null(app);
	assert_int_equal(app_init(app, tui_modes, &c, &w, msg, sizeof msg), 0);
	if (set)
		learn_attach(app, set, "", NULL);
	return app;
}

struct app *tui_check_open_at(const struct lesson_set *set, int li, int si)
{
	struct app *app = tui_check_open(set);
	if (learn_open(app, li, si) & APP_RECOMPUTE)
		app_recompute(app);
	app->learn.reading = false; /* read: at the matrices (tests of the reading layout set it) */
	return app;
}

struct app *tui_check_open_step(const struct lesson_set *set, const char *lesson, const char *id)
{
	const struct lesson *l = lesson_set_find(set, lesson);
	assert_non_null(l);
	int si = lesson_step_index(l, id);
	assert_true(si >= 0);
	struct app *app = tui_check_open_at(set, (int)(l - set->lessons), si);
	assert_string_equal(lesson_run_step(&app->learn.run)->id, id);
	return app;
}

void tui_check_save_and_load(struct app *app, const char *path, struct mha_config *c, struct mha_weights *w)
{
	char msg[4400];
	app->save.session_path = path;
	tui_check_keys(app, "w");
	assert_false(app->status_error);
	if (session_load(path, c, w, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
}

void tui_check_source_path(char *out, size_t len, const char *rel)
{
	const char *root = getenv("MHA_SOURCE_ROOT");
	assert_non_null(root);
	snprintf(out, len, "%s/%s", root, rel);
}

struct app *tui_check_open_sentence_model(const char *sentence)
{
	char model[4200];
	tui_check_source_path(model, sizeof model, "assets/lm.model");
	setenv("MHA_TUI_MODEL", model, 1);
	struct app *app = tui_check_open(NULL);
	char keys[1024] = "N";
	for (int i = 0; i < 200; i++)
		strcat(keys, "\b"); /* the default sentence erased */
	strncat(keys, sentence, sizeof keys - strlen(keys) - 3);
	strcat(keys, "\nW");
	tui_check_keys(app, keys);
	assert_ptr_equal(app->mode, &lm_view_mode);
	assert_false(app->status_error);
	return app;
}

void tui_check_close(struct app *app)
{
	app_free(app);
	free(app);
}

unsigned tui_check_press(struct app *app, int key)
{
	unsigned f = app_key(app, key);
	if (f & APP_RECOMPUTE)
		app_recompute(app);
	return f;
}

unsigned tui_check_keys(struct app *app, const char *s)
{
	unsigned all = 0;
	for (; *s; s++)
		all |= tui_check_press(app, *s == '\n' ? '\r' : (unsigned char)*s);
	return all;
}

struct mha_config tui_check_config(int n, int d, int h, int g, int dk)
{
	struct mha_config c = mha_config_default();
	c.n = n;
	c.d = d;
	c.h = h;
	c.g = g;
	c.dk = dk;
	return c;
}

int tui_check_lessons_open(struct lesson_set *set, char *dir)
{
	char found[4096], msg[4096] = "";
	struct lesson_errors errs = { 0 };
	if (lesson_find_dir(NULL, found, sizeof found, msg, sizeof msg) != 0 ||
	    lesson_set_load(set, found, &errs) != 0 || !mkdtemp(dir)) {
		fprintf(stderr, "setup: %s\n", msg[0] ? msg : errs.count ? errs.msg[0] : "mkdtemp failed");
		lesson_errors_free(&errs);
		return -1;
	}
	lesson_errors_free(&errs);
	return 0;
}

int tui_check_lessons_close(struct lesson_set *set, const char *dir)
{
	char cmd[4200];
	lesson_set_free(set);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct body_layout draw_screen(const struct app *app, int rows, int cols)
{
	return frame_draw(app, rows, cols, NULL);
}

struct body_layout tui_check_screen_layout(struct app *app, int rows, int cols, bool mono, const char **text)
{
	static char buf[512 * 1024]; /* 300 x 100 cells of up to 4 bytes, and the line ends */
	assert_int_equal(vscreen_open(rows, cols, "xterm-256color", mono), 0);
	struct body_layout b = frame_draw(app, rows, cols, &app->hits);
	app->heat_per_page = b.heat_per_page;
	app->learn.scroll_max = b.pane_scroll_max;
	vscreen_text(buf, sizeof buf);
	vscreen_close();
	*text = buf;
	return b;
}

const char *tui_check_line_with(const char *screen, const char *a, const char *b, const char *c)
{
	static char line[512];
	for (const char *p = screen; *p;) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, p);
		if (strstr(line, a) && (!b || strstr(line, b)) && (!c || strstr(line, c)))
			return line;
		p += len + (p[len] == '\n');
	}
	return NULL;
}

const char *tui_check_screen(struct app *app, int rows, int cols, bool mono)
{
	const char *text;
	tui_check_screen_layout(app, rows, cols, mono, &text);
	return text;
}

void tui_check_one_lesson(struct lesson_set *set, const char *dir, const char *name, const char *text)
{
	char path[512];
	struct lesson_errors errs = { 0 };
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%s/01-%s.lesson", dir, name, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(lesson_set_load(set, path, &errs), 0);
	assert_int_equal(errs.count, 0);
	lesson_errors_free(&errs);
}

/* An app with the program's modes and nothing else: enough to read their
 * tables. */
static const struct app tables = { .modes = tui_modes };

const struct action *tui_check_action(const char *id)
{
	return mode_action(&tables, id, NULL);
}

const char *tui_check_key_name(const char *id)
{
	return mode_key_name(&tables, id);
}

int tui_check_bound_keys(int *keys, int max)
{
	int n = 0;
	const struct action *t = workbench_mode.keys;
	for (int i = 0, rows = action_count(t); i < rows && n < max; i++) {
		const struct action *a = mode_target(&tables, &t[i]);
		if (a && a->keys[0])
			keys[n++] = a->keys[0];
	}
	for (int i = 1; tui_modes[i] && n < max; i++)
		if (tui_modes[i]->opener && tui_modes[i]->opener->keys[0])
			keys[n++] = tui_modes[i]->opener->keys[0];
	return n;
}

int tui_check_actions(const struct action **out, int max)
{
	int n = 0;
	for (int i = 0; tui_modes[i]; i++) {
		const struct action *t = tui_modes[i]->keys;
		if (tui_modes[i]->opener && n < max)
			out[n++] = tui_modes[i]->opener;
		for (int k = 0, rows = action_count(t); k < rows && n < max; k++)
			if (!t[k].use)
				out[n++] = &t[k];
	}
	return n;
}

/* The key of each {key:ID} in text joins keys (once each) unless ID is in skip. */
struct taught {
	const char *const *skip;
	int nskip, *keys, n, max;
	bool edit, scale;
};

static void taught_add(struct taught *t, const char *text)
{
	for (const char *p = text ? strstr(text, "{key:") : NULL; p; p = strstr(p + 1, "{key:")) {
		char id[48];
		const char *end = strchr(p + 5, '}');
		if (!end || (size_t)(end - p - 5) >= sizeof id)
			continue;
		snprintf(id, sizeof id, "%.*s", (int)(end - p - 5), p + 5);
		t->edit |= strcmp(id, "edit") == 0;
		t->scale |= strcmp(id, "matrix-scale") == 0;
		bool skipped = false;
		for (int i = 0; i < t->nskip; i++)
			skipped |= strcmp(t->skip[i], id) == 0;
		const struct action *a = skipped ? NULL : tui_check_action(id);
		bool have = false;
		for (int i = 0; a && i < t->n; i++)
			have |= t->keys[i] == a->keys[0];
		if (a && !have && t->n < t->max)
			t->keys[t->n++] = a->keys[0];
	}
}

int tui_check_taught_keys(const struct lesson_set *set, int li, int si, const char *const *skip,
                          int nskip, int *keys, int max, bool *edit, bool *scale)
{
	struct taught t = { .skip = skip, .nskip = nskip, .keys = keys, .max = max };
	for (int l = 0; l <= li && l < set->count; l++)
		for (int s = 0; s < set->lessons[l].nsteps && (l < li || s <= si); s++) {
			const struct lesson_step *st = &set->lessons[l].steps[s];
			taught_add(&t, st->prose);
			for (int h = 0; h < st->nhints; h++)
				taught_add(&t, st->hints[h]);
			if (st->question)
				taught_add(&t, st->question->text);
		}
	if (edit)
		*edit = t.edit;
	if (scale)
		*scale = t.scale;
	return t.n;
}

unsigned tui_check_rnd(uint64_t *state, unsigned n)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (unsigned)(*state % n);
}

int tui_check_answer_right(struct app *app)
{
	struct lesson_run *run = &app->learn.run;
	const struct lesson_question *q = lesson_run_step(run)->question;
	char msg[LESSON_STATUS_MAX], text[LESSON_ANSWER_MAX];
	double v;
	assert_non_null(q); /* a step without a question: the test's mistake */
	if (q->nchoices == 0 && lesson_run_expected(run, &v))
		snprintf(text, sizeof text, "%.9g", v);
	else
		snprintf(text, sizeof text, "%s", q->answer);
	int rc = lesson_run_answer(run, text, msg, sizeof msg);
	app_recompute(app);
	return rc;
}

void tui_check_each_view(struct app *app, void (*fn)(struct app *, const struct mode_ops *, void *), void *ctx)
{
	for (int m = 1; m < APP_MODES_MAX && app->modes[m]; m++) {
		const struct mode_ops *view = app->modes[m];
		if (view->prompt || !view->opener || !view->opener->keys[0])
			continue;
		tui_check_press(app, view->opener->keys[0]);
		fn(app, view, ctx);
		if (app->mode != mode_workbench(app))
			tui_check_press(app, view->opener->keys[0]); /* back */
		if (app->mode != mode_workbench(app))
			fail_msg("%s: %s did not close", view->name, app->mode->name);
	}
}

void tui_check_forfeits(struct app *app, const char *wrong, const char *reason, const char *right)
{
	tui_check_keys(app, wrong);
	assert_false(app->learn.run.answer_right);
	if (reason && !strstr(app->status, reason))
		fail_msg("after %s the status says \"%s\", not \"%s\"", wrong, app->status, reason);
	assert_true(app->learn.run.unearned);
	tui_check_keys(app, right);
	assert_true(app->learn.run.answer_right);
	tui_check_close(app);
}

void tui_check_earns(struct app *app, const char *keys)
{
	char key[256];
	lesson_step_key(app->learn.run.lesson, app->learn.run.step, key, sizeof key);
	tui_check_keys(app, keys);
	if (!progress_is_done(&app->learn.progress, key))
		fail_msg("%s not earned after %s", key, keys);
	tui_check_close(app);
}

void tui_check_next_step(struct app *app)
{
	int was = app->learn.run.step;
	for (int i = 0; i < 3 && app->learn.run.step == was; i++)
		tui_check_keys(app, "n");
}
