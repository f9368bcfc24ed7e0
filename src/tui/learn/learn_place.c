/*
 * learn_place.c - where the learner is, kept: the open step and the steps
 * done (progress.h), the free workbench's place (stage, panel, cursor,
 * layout), the open lesson's bench and its step's state (stage, cursor,
 * hints, a wrong answer), saved beside the progress file and read back at
 * resume. The bench is a file of its own kind (lessonbench.h): claimed
 * per instance, never saved over what it cannot read (that is kept and
 * said, the edits saved beside it). What fails at quit is said on stderr
 * (learn_quit, learn.c). The lesson flow itself is learn.c's; no drawing.
 */
#include "learn_place.h"
#include "learn.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "claim.h"
#include "lessonbench.h"
#include "nav.h"
#include "session.h"

static struct app_learn *L(struct app *app) { return &app->learn; }

int learn_place_write(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->progress_path)
		return 0;
	if (progress_save(l->progress_path, &l->progress, l->progress_error, sizeof l->progress_error) != 0) {
		l->progress_unsaved = true; /* tried again at quit, and said there if it fails again */
		app_message(app, true, "progress not saved: %s", l->progress_error);
		return -1;
	}
	l->progress_unsaved = false;
	return 0;
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

/* The directory the progress file is in, where the benches are kept.
 * 0, or -1 when progress is not saved. */
static int bench_dir(const struct app_learn *l, char *out, size_t len)
{
	const char *slash = l->progress_path ? strrchr(l->progress_path, '/') : NULL;
	if (!slash)
		return -1;
	return (size_t)snprintf(out, len, "%.*s", (int)(slash - l->progress_path), l->progress_path) < len ? 0 : -1;
}

/* The lesson and step of the open step (lessonbench's names). */
static const char *lesson_name(const struct app_learn *l) { return l->set->lessons[l->lesson].name; }
static const char *step_id(const struct app_learn *l) { return lesson_run_step(&l->run)->id; }

/* Leaving the step's bench file: its claim given up, its autosave gone
 * with it (what it held is saved, or was let go with the step). */
static void bench_release(struct app *app)
{
	struct learn_bench_file *bf = &L(app)->bench_file;
	app_bench_autosave_drop(app);
	if (bf->saves_to[0])
		lessonbench_release(bf->saves_to);
	memset(bf, 0, sizeof *bf);
}

int learn_place_bench_claim(struct app *app)
{
	struct app_learn *l = L(app);
	struct learn_bench_file *bf = &l->bench_file;
	char dir[4096], path[4096], msg[LEARN_MSG_MAX];
	if (!l->open || bench_dir(l, dir, sizeof dir) != 0 ||
	    lessonbench_path(dir, lesson_name(l), step_id(l), path, sizeof path) != 0)
		return -1;
	if (!strcmp(path, bf->path))
		return 0;
	bench_release(app);
	snprintf(bf->path, sizeof bf->path, "%s", path);
	int holder = 0;
	lessonbench_claim(path, bf->saves_to, sizeof bf->saves_to, &holder); /* -1: path itself, the best left */
	app_bench_autosave_set(app, bf->saves_to, lesson_name(l), step_id(l)); /* the edits between saves */
	struct mha_config c;
	struct mha_weights w;
	int rc = lessonbench_load(path, lesson_name(l), step_id(l), &c, &w, msg, sizeof msg);
	if (rc == 0)
		mha_weights_free(&w);
	if (rc >= 0)
		return 0;
	snprintf(bf->refused, sizeof bf->refused, "%s", msg);
	if (!strcmp(bf->saves_to, path) && claim_beside(path, bf->saves_to, sizeof bf->saves_to) != 0)
		bf->saves_to[0] = '\0'; /* nowhere: the save says so at quit */
	if (bf->saves_to[0])
		app_bench_autosave_set(app, bf->saves_to, lesson_name(l), step_id(l));
	else
		app_bench_autosave_drop(app);
	/* what it means first: the status line is 80 columns; all of it on exit */
	if (bf->saves_to[0])
		app_message(app, true, "lesson bench not read; this step's edits save beside it (said on exit): %s", msg);
	else
		app_message(app, true, "lesson bench not read, and no free name beside it: %s", msg);
	app->status_until_ms = app->now_ms + APP_NOTICE_MS;
	return 0;
}

int learn_place_bench_save(struct app *app, char *msg, size_t len, char *note, size_t note_len)
{
	struct app_learn *l = L(app);
	const struct bench *b = l->active ? &app->bench : l->has_other ? &l->other : NULL;
	struct learn_bench_file *bf = &l->bench_file;
	char dir[4096];
	if (!b || learn_place_bench_claim(app) != 0)
		return 0; /* nothing to save, or nowhere it is kept (said at start) */
	if (!bf->saves_to[0]) {
		snprintf(msg, len, "%.3000s: %.900s; and no free name beside it", bf->path, bf->refused);
		return -1;
	}
	if (lessonbench_save(bf->saves_to, lesson_name(l), step_id(l), &b->cfg, &b->w, msg, len) != 0)
		return -1; /* the autosave, and a crashed run's loaded, stay */
	app_bench_autosave_drop(app);
	if (bf->recovered[0])
		unlink(bf->recovered); /* its edits are in the bench now */
	if (bench_dir(l, dir, sizeof dir) == 0)
		lessonbench_prune(dir, bf->saves_to); /* the newest eight; never another instance's */
	if (bf->refused[0])
		snprintf(note, note_len, "%.3000s: this run saved the step's edits to %.3000s",
		         bf->refused, bf->saves_to);
	else if (strcmp(bf->saves_to, bf->path) != 0)
		snprintf(note, note_len, "%.3000s is open in another mha-tui: this run saved the step's edits to %.3000s",
		         bf->path, bf->saves_to);
	return 0;
}

void learn_place_bench_release(struct app *app)
{
	bench_release(app);
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

/* Back into the lesson at resume: its bench as saved at quit, when there
 * is one (another instance's too, at the same step: where it was left),
 * or the autosave a crashed or killed run left there, which is newer; one
 * that cannot be read is said by bench_claim and left as it is. */
void learn_place_bench_load(struct app *app)
{
	struct app_learn *l = L(app);
	struct learn_bench_file *bf = &l->bench_file;
	char msg[LEARN_MSG_MAX], crashed[4300];
	struct mha_config c;
	struct mha_weights w;
	if (learn_place_bench_claim(app) != 0 || bf->refused[0])
		return;
	bool recovering = lessonbench_crashed_autosave(bf->path, crashed, sizeof crashed) == 0 &&
	                  lessonbench_load(crashed, lesson_name(l), step_id(l), &c, &w, msg, sizeof msg) == 0;
	if (!recovering && lessonbench_load(bf->path, lesson_name(l), step_id(l), &c, &w, msg, sizeof msg) != 0)
		return;
	if (app_bench_reset(app, &c, &w, msg, sizeof msg) != 0) {
		app_message(app, true, "lesson bench not loaded: %s", msg);
		return;
	}
	app_recompute(app);
	if (!recovering)
		return;
	snprintf(bf->recovered, sizeof bf->recovered, "%s", crashed);
	app->save.bench.owed.due = true; /* its own autosave holds them from now on */
	app->save.bench.owed.due_ms = app->now_ms;
	app_message(app, true, "this step's edits that a crashed run left are back (kept until saved at quit): %s",
	            crashed);
	app->status_until_ms = app->now_ms + APP_NOTICE_MS;
}
