/*
 * flash_lesson.c - the FlashAttention view in a lesson step (@flash,
 * lessons/README.md): the step's tiles and step, the predict state that
 * keeps the predicted step hidden until the question is answered right,
 * the limit that keeps the view from the steps that answer the lesson's
 * next questions, and the live question's numbers copied from the view's
 * recording into the lesson run (lesson_run.live: the lesson library
 * turns them into the answer). The lesson's keys inside the view are rows
 * of its table (flash_view.c). No drawing here (flash_view.c), and no
 * arithmetic on the numbers beyond reading them (src/lesson/flash_step.c).
 */
#include "flash_view.h"
#include "flash_view_int.h"

#include <math.h>
#include <string.h>

#include "mode.h"
#include "nav.h"
#include "pipeline.h"
#include "progress.h"
#include "setup.h"

/* The open lesson step's @flash, or NULL. */
const struct lesson_flash *flash_lesson_step(const struct app *app)
{
	const struct app_learn *l = &app->learn;
	return l->open && l->active && l->run.lesson ? lesson_run_step(&l->run)->flash : NULL;
}

/* The first view step (0-based) that an earlier step of the open lesson
 * predicts and the learner has not passed yet (neither done nor shown, nor
 * past earning), or -1. That step's numbers, and the later ones', answer the earlier
 * question: a learner who goes on with n before answering must not read
 * them here. With f, only predictions on f's tiles count (other tiles show
 * other steps); without f (a step without @flash), every one does. */
static int flash_lesson_earlier_pending(const struct app *app, const struct lesson_flash *f)
{
	const struct app_learn *l = &app->learn;
	const struct lesson *les = l->run.lesson;
	if (!l->open || !l->active || !les)
		return -1;
	int first = -1;
	for (int i = 0; i < l->run.step && i < les->nsteps; i++) {
		const struct lesson_flash *e = les->steps[i].flash;
		char key[PROGRESS_KEY_MAX];
		if (!e || !e->predict || (f && (e->br != f->br || e->bc != f->bc)))
			continue;
		lesson_step_key(les, i, key, sizeof key);
		/* passed, or past earning: its tries spent (wrong answers, or
		 * left with n / f, learn.c's forward_ok) */
		if (progress_is_done(&l->progress, key) || progress_is_shown(&l->progress, key) ||
		    progress_wrong(&l->progress, key) >= lesson_question_tries(les->steps[i].question))
			continue;
		if (first < 0 || e->step - 1 < first)
			first = e->step - 1;
	}
	return first;
}

/* The step the predict state hides (0-based), or -1 when nothing is
 * hidden: the lesson's question is answered right (a wrong answer gets
 * its feedback and the step stays hidden: the truth is not a free second
 * try), the solution was shown, or the step predicts nothing; and no
 * earlier step of the lesson still waits for its prediction of this step
 * or an earlier one (then that one is hidden). */
int flash_view_hidden_step(const struct app *app)
{
	const struct lesson_flash *f = flash_lesson_step(app);
	const struct lesson_run *run = &app->learn.run;
	const struct flash_view *fv = flash_view_now(app);
	if (!f || !fv || fv->rec.steps == 0)
		return -1;
	int own = f->predict && !run->answer_right && !run->solution_shown ? f->step - 1 : -1;
	int earlier = flash_lesson_earlier_pending(app, f);
	int h = own < 0 ? earlier : earlier < 0 || own < earlier ? own : earlier;
	return h < fv->rec.steps ? h : -1;
}

/* Opening the view in a lesson step without @flash while an earlier step
 * still waits for its prediction: refused (and said); true then. The free
 * view would step (or retile) onto what that step predicts. */
bool flash_lesson_refuse_open(struct app *app)
{
	if (flash_lesson_step(app) || flash_lesson_earlier_pending(app, NULL) < 0)
		return false;
	app_message(app, true, "the tiles wait: an earlier step of this lesson predicts one "
	            "(%s goes back to it)", mode_key_name(app, "prev"));
	return true;
}

/* The last step the view may show. In a lesson step with @flash, its
 * step (the predicted one once it is revealed): the steps after it answer
 * the lesson's next questions. */
int flash_lesson_last(const struct app *app)
{
	const struct flash_view *fv = flash_view_now(app);
	const struct lesson_flash *f = flash_lesson_step(app);
	int last = fv && fv->rec.steps > 0 ? fv->rec.steps - 1 : 0;
	if (f) {
		int hidden = flash_view_hidden_step(app), cap = hidden >= 0 ? hidden - 1 : f->step - 1;
		last = cap < last ? cap : last;
	}
	return last < 0 ? 0 : last;
}

/* The lesson's live question: the recording's numbers for its row at the
 * predicted step, and those of the step before it in the same query tile. */
void flash_lesson_live(struct app *app, const struct flash_view *fv)
{
	const struct lesson_flash *f = flash_lesson_step(app);
	if (!f)
		return; /* the free workbench's recording: the lesson's numbers stand */
	const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
	struct lesson_flash_live *v = &app->learn.run.live;
	memset(v, 0, sizeof *v);
	if (!q || !q->flash || f->step < 1 || f->step > fv->rec.steps)
		return;
	const struct mha_flash_step *st = &fv->rec.step[f->step - 1];
	const int r = q->flash->row - st->r0, col = q->flash->col, dk = fv->rec.dk, n = app->cfg.n;
	if (r < 0 || r >= st->rows || col >= dk)
		return; /* the asked row is not in the predicted step's query tile */
	v->m1 = st->m[r];
	v->l1 = st->l[r];
	v->o1 = st->o[(size_t)r * dk + col];
	v->alpha = st->alpha[r];
	v->m0 = -INFINITY;
	if (st->kt > 0) {
		const struct mha_flash_step *pr = st - 1; /* the same query tile's key tile before */
		v->m0 = pr->m[r];
		v->l0 = pr->l[r];
		v->o0 = pr->o[(size_t)r * dk + col];
	}
	const float *s = app->a.scores + ((size_t)fv->rec.head * n + (size_t)q->flash->row) * n;
	for (int j = 0; j < st->c0 + st->cols; j++)
		if (!pipeline_masked(&app->cfg, &app->a, fv->rec.head, q->flash->row, j))
			v->seen_sum += s[j];
	v->ok = true;
	/* an answer given before (the learner back at the step, or a
	 * resumed session) could not be checked until now: it stands again */
	if (lesson_progress_restore(&app->learn.run, &app->learn.progress) && app->learn.evaluate)
		app->learn.evaluate(app);
}

/* Take the lesson step's tiles and step. */
void flash_lesson_setup(struct app *app, struct flash_view *fv, const struct lesson_flash *f)
{
	fv->br = f->br;
	fv->bc = f->bc;
	fv->step = f->step - 1 - (f->predict ? 1 : 0);
	fv->step = fv->step < 0 ? 0 : fv->step;
	flash_view_record(app, fv);
}

/* Going on past the last step the view may show: said why, when a
 * lesson holds it there. */
void flash_lesson_refuse_past(struct app *app)
{
	const struct lesson_flash *f = flash_lesson_step(app);
	int hidden = flash_view_hidden_step(app);
	if (hidden >= 0 && f && hidden == f->step - 1 && !app->learn.run.answer_right &&
	    !app->learn.run.solution_shown)
		app_message(app, true, "first predict the next tile: %s answers, then Right shows it",
		            mode_key_name(app, "answer"));
	else if (hidden >= 0)
		app_message(app, true, "an earlier step of this lesson predicts the next tile: "
		            "answer it there first (%s goes back)", mode_key_name(app, "prev"));
	else if (flash_lesson_step(app))
		app_message(app, false, "the lesson stops the tiles here: %s goes on to its next step",
		            mode_key_name(app, "next"));
}

/* A lesson step keeps its tiles and head: others would show what its
 * next questions ask. */
bool flash_lesson_refuse_tiles(struct app *app)
{
	if (!flash_lesson_step(app))
		return false;
	app_message(app, true, "this lesson step keeps its tiles; %s on the free workbench (%s) "
	            "changes them", mode_key_name(app, "flash"), mode_key_name(app, "leave"));
	return true;
}
