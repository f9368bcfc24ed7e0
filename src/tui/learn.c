/*
 * learn.c - a lesson on the workbench. A lesson gets its own bench (struct
 * bench): opening one parks the learner's free session in app->learn.other
 * and sets the lesson's step up on a fresh bench; leaving for the free
 * workbench swaps them back, with the lesson's bench parked in turn so that
 * coming back finds it as it was. Steps, hints, the solution and answers
 * go through the lesson library (exercise.h); the place and the steps done
 * go to the progress file (nav.h, progress.h) at every change, atomically.
 *
 * No drawing and no key codes here (actions.c maps keys to these calls,
 * draw.c and pane_view.c show the state).
 */
#include "learn.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lesson.h"
#include "nav.h"
#include "pane.h"

_Static_assert((int)LESSON_STAGE_PROJECTION == (int)STAGE_PROJECTION &&
               (int)LESSON_STAGE_WO == (int)STAGE_OUTPUT && (int)LESSON_STAGE_COUNT == (int)STAGE_COUNT,
               "lesson stages and workbench stages are the same seven, in the same order");

enum { SCROLL_END = INT_MAX / 2 }; /* scroll to the pane's end (clamped when drawn) */

static struct app_learn *L(struct app *app) { return &app->learn; }

static const struct lesson *open_lesson(const struct app *app)
{
	const struct app_learn *l = &app->learn;
	return l->open && l->set ? &l->set->lessons[l->lesson] : NULL;
}

const struct lesson *learn_lesson(const struct app *app)
{
	return app->learn.active ? open_lesson(app) : NULL;
}

static void progress_write(struct app *app)
{
	char msg[LEARN_MSG_MAX];
	if (L(app)->progress_path &&
	    progress_save(L(app)->progress_path, &L(app)->progress, msg, sizeof msg) != 0)
		app_message(app, true, "progress not saved: %s", msg);
}

/* Record the open step in the progress (place, done) and save on change. */
static void progress_touch(struct app *app, bool leaving, bool in_lesson)
{
	if (L(app)->open && lesson_progress_update(&L(app)->run, &L(app)->progress, leaving, in_lesson))
		progress_write(app);
}

void learn_attach(struct app *app, const struct lesson_set *set, const char *why,
                  const char *progress_path)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX];
	l->enabled = true;
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

void learn_free(struct app *app)
{
	struct app_learn *l = L(app);
	if (l->open)
		lesson_run_end(&l->run);
	if (l->has_other)
		app_bench_free(&l->other);
	if (l->enabled)
		progress_free(&l->progress);
	memset(l, 0, sizeof *l);
}

/* ---- the step on screen: focus, cursor, head ---- */

/* Put the cursor of stage st on cell (m, r, c) of tensor t when that
 * stage's screen shows it. */
static bool place_cursor(struct app *app, enum stage st, enum mha_tensor t, int m, int r, int c)
{
	struct stage_view v;
	stage_view(st, &app->cfg, app->head, app->proj, &v);
	for (int i = 0; i < v.count; i++) {
		const struct panel *p = &v.p[i];
		if (p->t != t || p->proof || p->m != m || c < p->col0 || c >= p->col0 + p->cols || r >= p->rows)
			continue;
		app->cur[st] = (struct app_cursor){ i, r, c - p->col0 };
		return true;
	}
	return false;
}

/* The stage where an input is edited, and which projection shows it. */
static int input_home(enum mha_tensor t, enum proj *proj)
{
	switch (t) {
	case MHA_T_X: return STAGE_PROJECTION;
	case MHA_T_WQ: *proj = PROJ_Q; return STAGE_PROJECTION;
	case MHA_T_WK: *proj = PROJ_K; return STAGE_PROJECTION;
	case MHA_T_WV: *proj = PROJ_V; return STAGE_PROJECTION;
	case MHA_T_WO: return STAGE_OUTPUT;
	default: return -1;
	}
}

/* @focus selects the stage; @highlight head H shows that head; the first
 * highlighted cell gets the cursor on the focused stage, and an input's
 * first highlighted cell gets it where that input is edited, so the keys
 * the lesson asks for start from the right cell. */
static void point_at(struct app *app, const struct lesson_step *s)
{
	if (s->focus >= 0)
		app->stage = (enum stage)s->focus;
	/* every step starts at head 0 (or its highlighted head), its page in
	 * view: a head picked in the step before would leave the cursors on a
	 * head the text does not speak of */
	app->head = 0;
	for (int i = 0; i < s->nmarks; i++)
		if (s->marks[i].is_head && s->marks[i].head < app->cfg.h)
			app->head = s->marks[i].head;
	bool focus_done = false, home_done[STAGE_COUNT] = { false };
	for (int i = 0; i < s->nmarks; i++) {
		const struct lesson_ref *ref = &s->marks[i].ref;
		if (s->marks[i].is_head)
			continue;
		int m = ref->r[0].lo, r = ref->r[1].lo, c = ref->r[2].lo;
		if (!focus_done && s->focus >= 0) {
			int keep = app->head;
			if (ref->t == MHA_T_SCORES || ref->t == MHA_T_WEIGHTS || ref->t == MHA_T_HEADS)
				app->head = m < app->cfg.h ? m : app->head;
			focus_done = place_cursor(app, (enum stage)s->focus, ref->t, m, r, c);
			if (!focus_done)
				app->head = keep;
		}
		enum proj proj = app->proj;
		int home = input_home(ref->t, &proj);
		if (home >= 0 && home != s->focus && !home_done[home]) {
			enum proj keep = app->proj;
			app->proj = proj;
			home_done[home] = place_cursor(app, (enum stage)home, ref->t, 0, r, c);
			if (!home_done[home])
				app->proj = keep;
		}
	}
	app->heat_page = app->heat_per_page > 0 ? app->head / app->heat_per_page : 0;
	app_clamp(app);
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
	l->open = true;
	l->lesson = li;
	l->scroll = 0;
	l->answering = false;
	point_at(app, &les->steps[si]);
	const struct lesson_step *st = &les->steps[si];
	app_message(app, false, "lesson %d, step %d of %d%s%s", les->number, si + 1, les->nsteps,
	            st->title[0] ? ": " : "", st->title);
	app_recompute(app); /* and the goal's first evaluation */
	progress_touch(app, false, true);
	return 0;
}

unsigned learn_open(struct app *app, int li, int si)
{
	struct app_learn *l = L(app);
	if (!l->set || li < 0 || li >= l->set->count)
		return APP_REDRAW;
	const struct lesson *les = &l->set->lessons[li];
	if (si < 0 || si >= les->nsteps)
		si = 0;
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
	l->menu = false;
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
	if (!les) {
		snprintf(msg, len, "--lesson %s: no such lesson; lessons are 1..%d or names such as '%s' (in %s)",
		         id, l->set->count, l->set->lessons[0].name, l->set->dir);
		return 2;
	}
	learn_open(app, (int)(les - l->set->lessons), 0);
	if (!l->active) {
		snprintf(msg, len, "--lesson %s: %s", id, app->status);
		return 1;
	}
	return 0;
}

void learn_resume(struct app *app)
{
	struct app_learn *l = L(app);
	int li, si;
	if (l->set && lesson_resume(l->set, &l->progress, &li, &si) == LESSON_RESUME_LESSON)
		learn_open(app, li, si);
}

/* ---- stepping ---- */

static unsigned no_lesson(struct app *app)
{
	int li, si;
	if (!app->learn.enabled)
		app_message(app, false, "no lesson open (start one with mha-tui --lesson ID)");
	else if (learn_return_place(app, &li, &si))
		app_message(app, false, "in the free workbench: f returns to lesson %d, step %d; M lists the lessons",
		            app->learn.set->lessons[li].number, si + 1);
	else
		app_message(app, false, "no lesson open: M lists the lessons");
	return APP_REDRAW;
}

unsigned learn_step(struct app *app, int dir)
{
	struct app_learn *l = L(app);
	const struct lesson *les = learn_lesson(app);
	if (!les)
		return no_lesson(app);
	int next = l->run.step + dir;
	if (next < 0) {
		app_message(app, false, "this is the first step");
		return APP_REDRAW;
	}
	if (dir > 0)
		progress_touch(app, true, true); /* moving on: a step without an exercise is done */
	if (next >= les->nsteps) {
		int li = l->lesson;
		if (li + 1 >= l->set->count) {
			app_message(app, false, "that was the last step of the last lesson; M lists them all");
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
		return no_lesson(app);
	const struct lesson_step *s = lesson_run_step(&l->run);
	if (s->nhints == 0) {
		app_message(app, false, "this step has no hints");
		return APP_REDRAW;
	}
	const char *h = lesson_run_next_hint(&l->run);
	if (!h)
		app_message(app, false, "no more hints; S shows the solution");
	else
		app_message(app, false, "hint %d of %d: %s", l->run.hints_shown, s->nhints, h);
	l->scroll = SCROLL_END;
	return APP_REDRAW;
}

unsigned learn_solve(struct app *app)
{
	struct app_learn *l = L(app);
	char msg[LEARN_MSG_MAX];
	if (!learn_lesson(app))
		return no_lesson(app);
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
	if (f & APP_RECOMPUTE)
		app_message(app, false, "solution applied (u undoes it)");
	l->scroll = SCROLL_END;
	return f;
}

/* ---- answers ---- */

unsigned learn_answer_begin(struct app *app)
{
	struct app_learn *l = L(app);
	if (!learn_lesson(app))
		return no_lesson(app);
	if (!lesson_run_step(&l->run)->question) {
		app_message(app, false, "this step asks no question");
		return APP_REDRAW;
	}
	l->answering = true;
	l->answer[0] = '\0';
	return APP_REDRAW;
}

/* A multiple-choice key typed whole (and no longer key starts with it):
 * one key per choice, no Enter needed. */
static bool choice_complete(const struct lesson_question *q, const char *typed)
{
	bool whole = false;
	size_t n = strlen(typed);
	for (int i = 0; i < q->nchoices; i++) {
		if (strncasecmp(q->choices[i].key, typed, n) != 0)
			continue;
		if (q->choices[i].key[n] == '\0')
			whole = true;
		else
			return false;
	}
	return whole;
}

unsigned learn_answer_type(struct app *app, int ch)
{
	struct app_learn *l = L(app);
	size_t n = strlen(l->answer);
	if (ch < 32 || ch >= 127 || n + 1 >= sizeof l->answer)
		return APP_REDRAW;
	l->answer[n] = (char)ch;
	l->answer[n + 1] = '\0';
	if (choice_complete(lesson_run_step(&l->run)->question, l->answer))
		return learn_answer_commit(app);
	return APP_REDRAW;
}

unsigned learn_answer_commit(struct app *app)
{
	struct app_learn *l = L(app);
	char msg[LESSON_STATUS_MAX];
	l->answering = false;
	int rc = lesson_run_answer(&l->run, l->answer, msg, sizeof msg);
	if (rc < 0) {
		app_message(app, true, "not an answer: %s", msg);
		return APP_REDRAW;
	}
	app_message(app, false, "answer %s: %s%s", l->run.answer, msg,
	            lesson_run_step(&l->run)->nhides ? " (now revealed)" : "");
	learn_evaluate(app);
	l->scroll = SCROLL_END;
	return APP_REDRAW;
}

void learn_evaluate(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->active || !l->open)
		return;
	int r = lesson_run_eval(&l->run, &app->cfg, &app->w, &app->a);
	if (r & LESSON_EVAL_JUST_MET) {
		const struct lesson *les = open_lesson(app);
		/* n on the last step opens the next lesson */
		bool last = l->run.step + 1 == les->nsteps;
		app_message(app, false, "goal met! step %d of %d done; %s", l->run.step + 1, les->nsteps,
		            !last ? "n: next step" : l->lesson + 1 < l->set->count ? "n: next lesson" : "M: the lesson menu");
		progress_touch(app, false, true);
	}
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
	l->answering = false;
	if (l->active) {
		const struct lesson *les = open_lesson(app);
		app_bench_swap(app, &l->other);
		l->active = false;
		progress_touch(app, false, false);
		app_message(app, false, "free workbench (your own session); f returns to lesson %d, step %d",
		            les->number, l->run.step + 1);
		return APP_REDRAW;
	}
	if (l->open && l->has_other) {
		app_bench_swap(app, &l->other);
		l->active = true;
		progress_touch(app, false, true);
		app_message(app, false, "back to lesson %d, step %d", open_lesson(app)->number, l->run.step + 1);
		return APP_REDRAW;
	}
	int li, si;
	if (learn_return_place(app, &li, &si))
		return learn_open(app, li, si);
	return no_lesson(app);
}

/* ---- the menu ---- */

unsigned learn_menu_toggle(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->enabled)
		return no_lesson(app);
	if (!l->set) {
		app_message(app, true, "no lessons: %s", l->none);
		return APP_REDRAW;
	}
	l->menu = !l->menu;
	l->typed[0] = '\0';
	l->answering = false;
	if (l->menu)
		l->menu_sel = l->open ? l->lesson : lesson_next_undone(l->set, &l->progress);
	return APP_REDRAW;
}

unsigned learn_menu_move(struct app *app, int dir)
{
	struct app_learn *l = L(app);
	int n = l->set->count;
	l->menu_sel = ((l->menu_sel + dir) % n + n) % n;
	l->typed[0] = '\0';
	return APP_REDRAW;
}

/* Digits pick a lesson by number: "1" then "3" is lesson 13; a digit that
 * makes no lesson's number starts a new one. */
unsigned learn_menu_digit(struct app *app, int ch)
{
	struct app_learn *l = L(app);
	char t[LEARN_TYPED_MAX];
	for (int pass = 0; pass < 2; pass++) {
		snprintf(t, sizeof t, "%.*s%c", LEARN_TYPED_MAX - 2, pass == 0 ? l->typed : "", ch);
		for (int i = 0; i < l->set->count; i++) {
			char num[16];
			snprintf(num, sizeof num, "%d", l->set->lessons[i].number);
			if (strcmp(num, t) == 0) {
				l->menu_sel = i;
				snprintf(l->typed, sizeof l->typed, "%s", t);
				return APP_REDRAW;
			}
		}
	}
	l->typed[0] = '\0';
	app_message(app, false, "no lesson %c", ch);
	return APP_REDRAW;
}

unsigned learn_menu_choose(struct app *app)
{
	struct app_learn *l = L(app);
	const struct lesson *les = &l->set->lessons[l->menu_sel];
	l->menu = false;
	if (l->open && l->lesson == l->menu_sel) {
		/* the lesson already open: where the learner is in it */
		return l->active ? APP_REDRAW : learn_leave(app);
	}
	/* its saved place, else its first step not done yet */
	int si = 0;
	if (strcmp(l->progress.lesson, les->name) == 0 && lesson_step_index(les, l->progress.step) >= 0) {
		si = lesson_step_index(les, l->progress.step);
	} else {
		for (int i = les->nsteps - 1; i >= 0; i--) {
			char key[PROGRESS_KEY_MAX];
			lesson_step_key(les, i, key, sizeof key);
			if (!progress_is_done(&l->progress, key))
				si = i;
		}
	}
	return learn_open(app, l->menu_sel, si);
}

unsigned learn_menu_pick(struct app *app, int i)
{
	struct app_learn *l = L(app);
	if (!l->set || i < 0 || i >= l->set->count)
		return 0;
	if (l->menu && l->menu_sel == i)
		return learn_menu_choose(app);
	l->menu = true;
	l->menu_sel = i;
	l->typed[0] = '\0';
	l->answering = false;
	return APP_REDRAW;
}

/* ---- the pane ---- */

unsigned learn_scroll(struct app *app, int lines)
{
	struct app_learn *l = L(app);
	int s = l->scroll < l->scroll_max ? l->scroll : l->scroll_max;
	s += lines;
	if (l->scroll_max > 0 && s > l->scroll_max)
		s = l->scroll_max;
	l->scroll = s < 0 ? 0 : s;
	return APP_REDRAW;
}

unsigned learn_counts_toggle(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->enabled)
		return APP_REDRAW;
	l->show_counts = !l->show_counts;
	app_message(app, false, "%s", l->show_counts ? "below 130 columns the counts take the lesson pane's place (# brings it back)"
	                                                : "the lesson pane is back (# trades it for the counts)");
	return APP_REDRAW;
}

/* ---- what the screen shows ---- */

static const struct lesson_run *shown_run(const struct app *app)
{
	return app->learn.active && app->learn.open ? &app->learn.run : NULL;
}

bool learn_hidden(const struct app *app, enum mha_tensor t, int m, int r, int c)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_hidden(run, t, m, r, c);
}

bool learn_stage_hidden(const struct app *app, enum stage s)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_stage_hidden(run, (enum lesson_stage)s);
}

bool learn_counts_hidden(const struct app *app)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_counts_hidden(run);
}

bool learn_marked(const struct app *app, enum mha_tensor t, int m, int r, int c)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_marked(run, t, m, r, c);
}

bool learn_head_marked(const struct app *app, int h)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_head_marked(run, h);
}
