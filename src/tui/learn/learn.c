/*
 * learn.c - a lesson on the workbench. A lesson gets its own bench (struct
 * bench): opening one parks the learner's free session in app->learn.other
 * and sets the lesson's step up on a fresh bench; leaving for the free
 * workbench swaps them back, with the lesson's bench parked in turn so that
 * coming back finds it as it was. Steps, hints, the solution and answers
 * go through the lesson library (run.h); the place and the steps done
 * go to the progress file (learn_place.c) at every change, atomically.
 * What the step hides or marks on screen, and the pane's scroll, are
 * learn_show.c's.
 *
 * No drawing and no key codes here (workbench_keys.c maps keys to these
 * calls, the menu and the answer prompt are modes of their own: menu.c,
 * answer_prompt.c; lesson_pane.c shows the step).
 */
#include "learn.h"
#include "learn_focus.h"
#include "learn_place.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lesson.h"
#include "mode.h"
#include "nav.h"
#include "pane.h"

static struct app_learn *L(struct app *app) { return &app->learn; }

/* A done step's bench as the learner left it with n or p, so that coming
 * back (p) finds its edits and its goal met, not the set-up again. */
struct learn_kept {
	bool has;
	struct mha_config cfg;
	struct mha_weights w;
};

static void kept_free(struct app_learn *l)
{
	for (int i = 0; i < l->nkept; i++)
		if (l->kept[i].has)
			mha_weights_free(&l->kept[i].w);
	free(l->kept);
	l->kept = NULL;
	l->nkept = 0;
}

/* Keep the open step's bench when it is done (in memory, this run only). */
static void kept_store(struct app *app)
{
	struct app_learn *l = L(app);
	const struct lesson *les = &l->set->lessons[l->lesson];
	char key[PROGRESS_KEY_MAX];
	lesson_step_key(les, l->run.step, key, sizeof key);
	if (!lesson_step_is_exercise(lesson_run_step(&l->run)) || !progress_is_done(&l->progress, key))
		return;
	if (l->kept && l->kept_lesson != l->lesson)
		kept_free(l);
	if (!l->kept) {
		l->kept = calloc((size_t)les->nsteps, sizeof *l->kept);
		if (!l->kept)
			return;
		l->nkept = les->nsteps;
		l->kept_lesson = l->lesson;
	}
	struct learn_kept *k = &l->kept[l->run.step];
	struct mha_weights w;
	if (app_copy_weights(app, &w) != 0)
		return;
	if (k->has)
		mha_weights_free(&k->w);
	*k = (struct learn_kept){ .has = true, .cfg = app->cfg, .w = w };
}

/* The kept bench of step si of the open lesson onto the app's (handed over), or false. */
static bool kept_restore(struct app *app, int si)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX];
	if (!l->kept || l->kept_lesson != l->lesson || si >= l->nkept || !l->kept[si].has)
		return false;
	struct learn_kept *k = &l->kept[si];
	k->has = false;
	return app_bench_reset(app, &k->cfg, &k->w, msg, sizeof msg) == 0;
}

static const struct lesson *open_lesson(const struct app *app)
{
	const struct app_learn *l = &app->learn;
	return l->open && l->set ? &l->set->lessons[l->lesson] : NULL;
}

const struct lesson *learn_lesson(const struct app *app)
{
	return app->learn.active ? open_lesson(app) : NULL;
}

void learn_attach(struct app *app, const struct lesson_set *set, const char *why,
                  const char *progress_path)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX];
	l->enabled = true;
	l->evaluate = learn_evaluate; /* after every forward pass, */
	l->release = learn_free;      /* and when the app is freed */
	l->set = set && set->count > 0 ? set : NULL;
	snprintf(l->none, sizeof l->none, "%s", why ? why : "");
	progress_init(&l->progress);
	l->progress_path = progress_path;
	if (progress_path && progress_load(progress_path, &l->progress, msg, sizeof msg) != 0) {
		/* refused, and left as it is: this run keeps its progress in memory */
		l->progress_path = NULL;
		progress_init(&l->progress);
		app_message(app, true, "progress file refused (left untouched, not saved this run): %s", msg);
		app->status_until_ms = app->now_ms + APP_NOTICE_MS;
	}
	if (l->set)
		l->menu_sel = lesson_next_undone(l->set, &l->progress);
}

int learn_quit(struct app *app, void (*say)(const char *line, void *ctx), void *ctx)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX], line[LEARN_MSG_MAX + 64];
	int failed = 0;
	if (!l->enabled || l->quit_saved)
		return 0;
	l->quit_saved = true;
	learn_place_view_save(app);
	learn_place_step_save(app);
	if (l->progress_unsaved && learn_place_write(app) != 0) {
		snprintf(line, sizeof line, "progress not saved: %s", l->progress_error);
		say(line, ctx);
		failed++;
	}
	char note[LEARN_MSG_MAX] = "";
	if (learn_place_bench_save(app, msg, sizeof msg, note, sizeof note) != 0) {
		snprintf(line, sizeof line, "the lesson's edits not saved: %s", msg);
		say(line, ctx);
		failed++;
	} else if (note[0]) {
		say(note, ctx);
	}
	return failed;
}

/* What learn_quit says goes nowhere once the app is freed: the status line. */
static void say_on_status(const char *line, void *ctx)
{
	app_message(ctx, true, "%s", line);
}

void learn_free(struct app *app)
{
	struct app_learn *l = L(app);
	if (l->enabled)
		learn_quit(app, say_on_status, app); /* when tui_run has not (the tests) */
	learn_place_bench_release(app);
	if (l->open)
		lesson_run_end(&l->run);
	kept_free(l);
	if (l->has_other)
		app_bench_free(&l->other);
	if (l->enabled)
		progress_free(&l->progress);
	memset(l, 0, sizeof *l);
}

/* Start step si of lesson li on the app's bench (set up afresh when force
 * or the step resets). 0, or -1 with the reason on the status line. */
static int start_step(struct app *app, int li, int si, bool force)
{
	struct app_learn *l = L(app);
	const struct lesson *les = &l->set->lessons[li];
	char msg[LEARN_MSG_MAX];
	struct lesson_run run;
	bool fresh = force || les->steps[si].resets;
	int rc;
	if (fresh) {
		struct mha_config nc = app->cfg;
		struct mha_weights nw;
		memset(&nw, 0, sizeof nw);
		rc = lesson_run_start(&run, les, si, true, &nc, &nw, msg, sizeof msg);
		if (rc >= 0 && app_bench_reset(app, &nc, &nw, msg, sizeof msg) != 0) {
			lesson_run_end(&run);
			rc = -1;
		}
	} else {
		rc = lesson_run_start(&run, les, si, false, &app->cfg, &app->w, msg, sizeof msg);
	}
	if (rc < 0) {
		app_message(app, true, "lesson %d: %s", les->number, msg);
		return -1;
	}
	if (l->open)
		lesson_run_end(&l->run);
	l->run = run;
	l->skip_warned = NULL;
	if (!force && l->lesson == li)
		kept_restore(app, si); /* p back to a done step: its edits, as left */
	lesson_progress_restore(&l->run, &l->progress); /* an answer given before stands */
	l->open = true;
	l->lesson = li;
	l->scroll = 0;
	l->reading = true; /* a new step is read first */
	if (mode_typing(app))
		mode_leave(app); /* the answer to the step left */
	learn_point_at(app, &les->steps[si]);
	const struct lesson_step *st = &les->steps[si];
	app_message(app, false, "lesson %d, step %d of %d%s%s", les->number, si + 1, les->nsteps,
	            st->title[0] ? ": " : "", st->title);
	app_recompute(app); /* and the goal's first evaluation */
	learn_place_touch(app, false, true);
	learn_place_bench_claim(app); /* its file, this instance's (a refused one said) */
	return 0;
}

/* Leaving forward (n, a later lesson or step, f to the free workbench)
 * while the step's question waits would let the learner read its answer
 * there and come back with p. The first such press says that it forfeits
 * the step; the next one leaves, and the step can then only be shown (as
 * with S). Backward (p) stays free. false: the caller stops there. */
static bool forward_ok(struct app *app, const char *key)
{
	struct app_learn *l = L(app);
	if (!l->open || !l->active || !lesson_run_question_waits(&l->run))
		return true;
	if (!l->skip_warned || strcmp(l->skip_warned, key) != 0) { /* each key warns once itself */
		l->skip_warned = key;
		app_message(app, false, "the question waits: %s again leaves it, and it will count as shown, not done",
		            key);
		return false;
	}
	lesson_run_forfeit(&l->run);
	learn_place_touch(app, false, true); /* the tries it spent, saved */
	return true;
}

unsigned learn_open(struct app *app, int li, int si)
{
	struct app_learn *l = L(app);
	if (!l->set || li < 0 || li >= l->set->count)
		return APP_REDRAW;
	const struct lesson *les = &l->set->lessons[li];
	if (si < 0 || si >= les->nsteps)
		si = 0;
	if (l->open && l->active && (li > l->lesson || (li == l->lesson && si > l->run.step)) &&
	    !forward_ok(app, "Enter")) /* the menu's forward jump */
		return APP_REDRAW;
	bool swapped = false, parked = l->has_other;
	if (!l->active) {
		/* park the free session; the lesson takes the parked lesson bench,
		 * or an empty one (set up below) */
		if (!l->has_other)
			memset(&l->other, 0, sizeof l->other);
		app_bench_swap(app, &l->other);
		l->has_other = true;
		l->active = true;
		swapped = true;
	}
	if (start_step(app, li, si, true) != 0) {
		if (swapped) {
			app_bench_swap(app, &l->other);
			l->active = false;
			l->has_other = parked;
		}
		return APP_REDRAW;
	}
	mode_close_all(app); /* the menu, if up, is done */
	mode_follow_step(app); /* unless the step opens a view of its own (@flash) */
	return APP_REDRAW;
}

int learn_open_id(struct app *app, const char *id, char *msg, size_t len)
{
	const struct app_learn *l = &app->learn;
	if (!l->set) {
		snprintf(msg, len, "--lesson %s: %s", id, l->none[0] ? l->none : "no lessons found");
		return 1;
	}
	const struct lesson *les = lesson_set_find(l->set, id);
	if (!les && l->none[0]) { /* a lesson that did not load: its file and why, not "no such lesson" */
		snprintf(msg, len, "--lesson %s: not among the %d lessons that loaded: %s", id, l->set->count, l->none);
		return 1;
	}
	if (!les) {
		snprintf(msg, len, "--lesson %s: no such lesson; lessons are 1..%d or names such as '%s' (in %s)",
		         id, l->set->count, l->set->lessons[0].name, l->set->dir);
		return 2;
	}
	learn_open_where_left(app, (int)(les - l->set->lessons));
	if (!l->active) {
		snprintf(msg, len, "--lesson %s: %s", id, app->status);
		return 1;
	}
	return 0;
}

/* Open lesson li at step si, the learner's saved place: as it was left. */
static unsigned open_at_saved_place(struct app *app, int li, int si)
{
	struct app_learn *l = L(app);
	unsigned f = learn_open(app, li, si);
	if (l->active && l->lesson == li && l->run.step == si) {
		learn_place_bench_load(app); /* the edits made in it */
		learn_place_step_restore(app); /* where it was looked at, hints, a wrong answer */
		if (lesson_run_step(&l->run)->model)
			mode_follow_step(app); /* the model's layer again: the saved bench is not the model */
	}
	return f;
}

unsigned learn_open_where_left(struct app *app, int li)
{
	struct app_learn *l = L(app);
	int si;
	if (!l->set || li < 0 || li >= l->set->count)
		return APP_REDRAW;
	if (lesson_where_left(&l->set->lessons[li], &l->progress, &si))
		return open_at_saved_place(app, li, si);
	return learn_open(app, li, si);
}

void learn_resume(struct app *app)
{
	struct app_learn *l = L(app);
	int li, si;
	if (!l->active)
		learn_place_view_restore(app);
	if (l->set && lesson_resume(l->set, &l->progress, &li, &si) == LESSON_RESUME_LESSON)
		open_at_saved_place(app, li, si);
}

/* ---- stepping ---- */

unsigned learn_no_lesson(struct app *app)
{
	int li, si;
	if (!app->learn.enabled)
		app_message(app, false, "no lesson open (start one with mha-tui --lesson ID)");
	else if (learn_return_place(app, &li, &si))
		app_message(app, false, "in the free workbench: %s returns to lesson %d, step %d; %s lists the lessons",
		            mode_key_name(app, "leave"), app->learn.set->lessons[li].number, si + 1,
		            mode_key_name(app, "menu"));
	else
		app_message(app, false, "no lesson open: %s lists the lessons", mode_key_name(app, "menu"));
	return APP_REDRAW;
}

unsigned learn_step(struct app *app, int dir)
{
	struct app_learn *l = L(app);
	const struct lesson *les = learn_lesson(app);
	if (!les)
		return learn_no_lesson(app);
	int next = l->run.step + dir;
	if (next < 0) {
		app_message(app, false, "this is the first step");
		return APP_REDRAW;
	}
	if (dir > 0 && !forward_ok(app, mode_key_name(app, "next")))
		return APP_REDRAW;
	if (dir > 0)
		learn_place_touch(app, true, true); /* moving on: a step without an exercise is done */
	kept_store(app);
	if (next >= les->nsteps) {
		int li = l->lesson;
		if (li + 1 >= l->set->count) {
			app_message(app, false, "that was the last step of the last lesson; %s lists them all",
			            mode_key_name(app, "menu"));
			return APP_REDRAW;
		}
		learn_open(app, li + 1, 0);
		if (l->lesson == li + 1)
			app_message(app, false, "lesson %d %s; now lesson %d: %s", les->number,
			            lesson_is_done(les, &l->progress) ? "done" : "left (some steps not done yet)",
			            l->set->lessons[li + 1].number, l->set->lessons[li + 1].title);
		return APP_REDRAW;
	}
	start_step(app, l->lesson, next, false);
	return APP_REDRAW;
}

unsigned learn_hint(struct app *app)
{
	struct app_learn *l = L(app);
	if (!learn_lesson(app))
		return learn_no_lesson(app);
	const struct lesson_step *s = lesson_run_step(&l->run);
	if (s->nhints == 0) {
		app_message(app, false, "this step has no hints");
		return APP_REDRAW;
	}
	const char *h = lesson_run_next_hint(&l->run);
	if (!h)
		app_message(app, false, "no more hints; %s shows the solution", mode_key_name(app, "solution"));
	else
		app_message(app, false, "hint %d of %d: %s", l->run.hints_shown, s->nhints, h);
	l->scroll = LEARN_SCROLL_END;
	l->reading = true; /* the hint whole, with the step it helps with */
	return APP_REDRAW;
}

unsigned learn_solve(struct app *app)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX];
	if (!learn_lesson(app))
		return learn_no_lesson(app);
	if (!lesson_step_is_exercise(lesson_run_step(&l->run))) {
		app_message(app, false, "this step has no exercise to solve");
		return APP_REDRAW;
	}
	/* on a copy, so that a refusal changes nothing and u undoes it */
	struct mha_config nc = app->cfg;
	struct mha_weights nw;
	if (app_copy_weights(app, &nw) != 0) {
		app_message(app, true, "out of memory; nothing changed");
		return APP_REDRAW;
	}
	if (lesson_run_solve(&l->run, &nc, &nw, msg, sizeof msg) < 0) {
		mha_weights_free(&nw);
		app_message(app, true, "solution not applied: %s", msg);
		return APP_REDRAW;
	}
	unsigned f = app_replace(app, &nc, &nw);
	mode_solve(app); /* the edits a view owns (the language model's heads) */
	if (f & APP_RECOMPUTE)
		app_message(app, false, "solution applied (%s undoes it)", mode_key_name(app, "undo"));
	l->scroll = LEARN_SCROLL_END;
	return f;
}

void learn_evaluate(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->active || !l->open)
		return;
	int r = lesson_run_eval(&l->run, &app->cfg, &app->w, &app->stack.layer[0]);
	if (r & LESSON_EVAL_JUST_MET) {
		const struct lesson *les = open_lesson(app);
		/* n on the last step opens the next lesson */
		bool last = l->run.step + 1 == les->nsteps;
		app_message(app, false, "goal met! step %d of %d %s; %s: %s", l->run.step + 1, les->nsteps,
		            l->run.solution_shown ? "solved for you, not counted as done"
		            : l->run.unearned ? "counted as shown, not done" : "done",
		            mode_key_name(app, !last || l->lesson + 1 < l->set->count ? "next" : "menu"),
		            !last ? "next step" : l->lesson + 1 < l->set->count ? "next lesson" : "the lesson menu");
	}
	learn_place_touch(app, false, true); /* met, or a wrong answer counted: saved when it changed */
}

/* ---- the free workbench and back ---- */

bool learn_return_place(const struct app *app, int *lesson, int *step)
{
	const struct app_learn *l = &app->learn;
	if (l->active || !l->set)
		return false;
	if (l->open) {
		*lesson = l->lesson;
		*step = l->run.step;
		return true;
	}
	return lesson_resume(l->set, &l->progress, lesson, step) != LESSON_RESUME_MENU;
}

unsigned learn_leave(struct app *app)
{
	struct app_learn *l = L(app);
	if (mode_typing(app))
		mode_leave(app);
	if (l->active && !forward_ok(app, mode_key_name(app, "leave")))
		return APP_REDRAW;
	if (l->active) {
		const struct lesson *les = open_lesson(app);
		app_bench_swap(app, &l->other);
		l->active = false;
		mode_follow_step(app); /* a view the step opened, or one that shows its numbers, closes */
		learn_place_touch(app, false, false);
		app_message(app, false, "free workbench (your own session); %s returns to lesson %d, step %d",
		            mode_key_name(app, "leave"), les->number, l->run.step + 1);
		return APP_REDRAW;
	}
	if (l->open && l->has_other) {
		app_bench_swap(app, &l->other);
		l->active = true;
		learn_place_touch(app, false, true);
		app_message(app, false, "back to lesson %d, step %d", open_lesson(app)->number, l->run.step + 1);
		return APP_REDRAW;
	}
	int li, si;
	if (learn_return_place(app, &li, &si))
		return learn_open(app, li, si);
	return learn_no_lesson(app);
}

/* ---- the lesson menu's selection (the menu mode's keys call these) ---- */

unsigned learn_menu_move(struct app *app, int dir)
{
	struct app_learn *l = L(app);
	if (!l->set)
		return 0;
	int n = l->set->count;
	l->menu_sel = ((l->menu_sel + dir) % n + n) % n;
	l->typed[0] = '\0';
	return APP_REDRAW;
}

unsigned learn_menu_choose(struct app *app)
{
	struct app_learn *l = L(app);
	if (l->open && l->lesson == l->menu_sel) {
		/* the lesson already open: where the learner is in it */
		mode_leave(app);
		return l->active ? APP_REDRAW : learn_leave(app);
	}
	/* the menu closes when the lesson opens (learn_open); it stays up when
	 * a forward jump was only warned about (Enter again leaves) */
	return learn_open_where_left(app, l->menu_sel);
}

unsigned learn_menu_pick(struct app *app, int i)
{
	struct app_learn *l = L(app);
	if (!l->set || i < 0 || i >= l->set->count)
		return 0;
	if (mode_is(app, "menu") && l->menu_sel == i)
		return learn_menu_choose(app);
	if (!mode_is(app, "menu") && !mode_open_id(app, "menu"))
		return APP_REDRAW;
	l->menu_sel = i;
	l->typed[0] = '\0';
	return APP_REDRAW;
}

unsigned learn_menu_welcome(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->enabled || !l->set || l->set->count == 0 || l->open || mode_is(app, "menu"))
		return 0;
	if (!mode_open_id(app, "menu"))
		return 0;
	const struct lesson *les = &l->set->lessons[l->menu_sel];
	app_message(app, false, "Enter: start lesson %d, %s   Esc: the free workbench", les->number, les->title);
	app->notice = true; /* until a key */
	app->status_until_ms = app->now_ms + APP_NOTICE_MS;
	return APP_REDRAW;
}
