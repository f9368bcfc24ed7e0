/*
 * learn_place.c - where the learner is, kept: the open step and the steps
 * done (progress.h), the free workbench's place (stage, panel, cursor,
 * layout), the open lesson's bench and its step's state (stage, cursor,
 * hints, a wrong answer), saved beside the progress file and read back at
 * resume. The lesson flow itself is learn.c's; no drawing.
 */
#include "learn_place.h"
#include "learn.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nav.h"
#include "session.h"

#define BENCH_PREFIX "lesson-bench-"

static struct app_learn *L(struct app *app) { return &app->learn; }

void learn_place_write(struct app *app)
{
	char msg[LEARN_MSG_MAX];
	if (L(app)->progress_path &&
	    progress_save(L(app)->progress_path, &L(app)->progress, msg, sizeof msg) != 0)
		app_message(app, true, "progress not saved: %s", msg);
}

/* Record the open step in the progress (place, done) and save on change. */
void learn_place_touch(struct app *app, bool leaving, bool in_lesson)
{
	if (L(app)->open && lesson_progress_update(&L(app)->run, &L(app)->progress, leaving, in_lesson))
		learn_place_write(app);
}

/* The free workbench's place (stage, panel, cursor, layout) from the
 * progress file: app's bench is the free one until a lesson opens. Numbers that no
 * longer fit the stages or shapes are brought inside them. */
void learn_place_view_restore(struct app *app)
{
	const struct progress_view *v = &L(app)->progress.view;
	if (!L(app)->progress.has_view || v->stage >= PIPELINE_STAGE_COUNT)
		return;
	app->stage = (enum pipeline_stage)v->stage;
	app->cur[app->stage] = (struct app_cursor){ .panel = v->panel, .row = v->row, .col = v->col };
	L(app)->show_counts = v->layout == 1;
	app_clamp(app);
}

/* Record the free workbench's place in the progress, and save it when it
 * moved (at quit: learn_free). */
void learn_place_view_save(struct app *app)
{
	struct app_learn *l = L(app);
	const struct bench *b = !l->active ? &app->bench : l->has_other ? &l->other : NULL;
	if (!b)
		return;
	const struct app_cursor *c = &b->cur[b->stage];
	struct progress_view v = { (int)b->stage, c->panel, c->row, c->col, l->show_counts ? 1 : 0 };
	if (l->progress.has_view && !memcmp(&v, &l->progress.view, sizeof v))
		return;
	l->progress.view = v;
	l->progress.has_view = true;
	learn_place_write(app);
}

/* The open lesson's bench is kept beside the progress file at quit, as a
 * session named for its lesson and step (lesson-bench-LESSON-STEP.txt),
 * so that resuming into that step keeps its edits, and a bench left by
 * another step or lesson (a second instance, a crash after the place
 * moved on) is never put under this step's text. 0 with the directory
 * (its length in *dir_len) and the path, or -1 when progress is not saved. */
static int bench_path(const struct app *app, char *out, size_t len, int *dir_len)
{
	const struct app_learn *l = &app->learn;
	const char *pp = l->progress_path;
	const char *slash = pp ? strrchr(pp, '/') : NULL;
	if (!slash || !l->open)
		return -1;
	*dir_len = (int)(slash - pp);
	return (size_t)snprintf(out, len, "%.*s/" BENCH_PREFIX "%s-%s.txt", *dir_len, pp,
	                        l->set->lessons[l->lesson].name, lesson_run_step(&l->run)->id) < len ? 0 : -1;
}

/* Every other lesson bench in the directory, removed: one is kept, the
 * last one saved (and the one name older versions used). */
static void bench_remove_others(const char *path, int dir_len)
{
	char dirpath[4096], other[4096];
	snprintf(dirpath, sizeof dirpath, "%.*s", dir_len, path);
	DIR *d = opendir(dirpath);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		bool bench = strncmp(e->d_name, BENCH_PREFIX, strlen(BENCH_PREFIX)) == 0 ||
		             strcmp(e->d_name, "lesson-bench.txt") == 0;
		if (bench && (size_t)snprintf(other, sizeof other, "%s/%s", dirpath, e->d_name) < sizeof other &&
		    strcmp(other, path) != 0)
			unlink(other);
	}
	closedir(d);
}

void learn_place_bench_save(struct app *app)
{
	struct app_learn *l = L(app);
	const struct bench *b = l->active ? &app->bench : l->has_other ? &l->other : NULL;
	char path[4096], msg[LEARN_MSG_MAX];
	int dir_len;
	if (b && bench_path(app, path, sizeof path, &dir_len) == 0 &&
	    session_save(path, &b->cfg, &b->w, msg, sizeof msg) == 0) /* at quit: nowhere to say a failure */
		bench_remove_others(path, dir_len);
}

void learn_place_step_save(struct app *app)
{
	struct app_learn *l = L(app);
	const struct bench *b = l->active ? &app->bench : l->has_other ? &l->other : NULL;
	if (!l->open || !b)
		return;
	struct progress_at at = { .stage = (int)b->stage, .hints = l->run.hints_shown };
	const struct app_cursor *c = &b->cur[b->stage];
	at.panel = c->panel;
	at.row = c->row;
	at.col = c->col;
	lesson_step_key(l->run.lesson, l->run.step, at.key, sizeof at.key);
	if (l->run.answered && !l->run.answer_right && !l->run.solution_shown)
		snprintf(at.tried, sizeof at.tried, "%s", l->run.answer);
	if (l->progress.has_at && !memcmp(&at, &l->progress.at, sizeof at))
		return;
	l->progress.at = at;
	l->progress.has_at = true;
	learn_place_write(app);
}

void learn_place_step_restore(struct app *app)
{
	struct app_learn *l = L(app);
	const struct progress_at *at = &l->progress.at;
	char key[PROGRESS_KEY_MAX], msg[LESSON_STATUS_MAX];
	if (!l->active || !l->open || !l->progress.has_at)
		return;
	lesson_step_key(l->run.lesson, l->run.step, key, sizeof key);
	if (strcmp(key, at->key) != 0)
		return;
	const struct lesson_step *s = lesson_run_step(&l->run);
	l->run.hints_shown = at->hints < s->nhints ? at->hints : s->nhints;
	if (at->tried[0] && !l->run.answered && s->question) {
		int wrong = l->run.wrong;
		bool unearned = l->run.unearned;
		lesson_run_answer(&l->run, at->tried, msg, sizeof msg); /* wrong: its feedback shows again */
		l->run.wrong = wrong; /* counted when it was given */
		l->run.unearned = unearned;
	}
	if (at->stage < PIPELINE_STAGE_COUNT) {
		app->stage = (enum pipeline_stage)at->stage;
		app->cur[app->stage] = (struct app_cursor){ .panel = at->panel, .row = at->row, .col = at->col };
		app_clamp(app); /* brought inside the shapes */
	}
	learn_evaluate(app);
}

/* Back into the lesson at resume: its bench as saved at quit, when there is one. */
void learn_place_bench_load(struct app *app)
{
	char path[4096], msg[LEARN_MSG_MAX];
	struct mha_config c;
	struct mha_weights w;
	int dir_len;
	if (bench_path(app, path, sizeof path, &dir_len) != 0 || session_load(path, &c, &w, msg, sizeof msg) != 0 ||
	    app_bench_reset(app, &c, &w, msg, sizeof msg) != 0)
		return;
	app_recompute(app);
}
