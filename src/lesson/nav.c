/*
 * nav.c - resuming and recording the learner's place and progress. Reads
 * and changes a struct progress only; saving it is the caller's
 * (progress_save), loading lessons is set.c's.
 */
#include "nav.h"
#include "pane.h"

#include <string.h>

enum lesson_resume lesson_resume(const struct lesson_set *set, const struct progress *p,
                                 int *lesson, int *step)
{
	*lesson = *step = 0;
	if (!p->lesson[0])
		return LESSON_RESUME_MENU;
	for (int i = 0; i < set->count; i++) {
		if (strcmp(set->lessons[i].name, p->lesson) != 0)
			continue;
		*lesson = i;
		lesson_where_left(&set->lessons[i], p, step); /* a renamed step: the first not done */
		return p->in_lesson ? LESSON_RESUME_LESSON : LESSON_RESUME_FREE;
	}
	return LESSON_RESUME_MENU; /* the lesson is gone (renamed, or another lessons dir) */
}

bool lesson_progress_update(const struct lesson_run *run, struct progress *p, bool leaving,
                            bool in_lesson)
{
	const struct lesson *l = run->lesson;
	const struct lesson_step *s = lesson_run_step(run);
	bool changed = strcmp(p->lesson, l->name) != 0 || strcmp(p->step, s->id) != 0 ||
	               p->in_lesson != in_lesson;
	progress_set_place(p, l->name, s->id, in_lesson);
	char key[PROGRESS_KEY_MAX];
	lesson_step_key(l, run->step, key, sizeof key);
	bool last = run->step + 1 == l->nsteps;
	bool exercise = lesson_step_is_exercise(s);
	bool done = exercise ? run->met : leaving || last;
	if (s->question && run->wrong > progress_wrong(p, key) && progress_set_wrong(p, key, run->wrong) == 0)
		changed = true; /* tries spent stay spent (p, n, a restart) */
	if (exercise && (run->unearned || progress_is_shown(p, key))) {
		/* its solution was shown (S), now or before: shown when passed, never done, and
		 * its answer not kept */
		if (done && !progress_is_done(p, key) && !progress_is_shown(p, key) &&
		    progress_mark_shown(p, key) == 0)
			changed = true;
		return changed;
	}
	if (done && !progress_is_done(p, key) && progress_mark_done(p, key) == 0)
		changed = true;
	const char *had = progress_answer(p, key);
	if (s->question && run->answered && run->answer_right && (!had || strcmp(had, run->answer)) &&
	    progress_set_answer(p, key, run->answer) == 0)
		changed = true;
	return changed;
}

bool lesson_progress_restore(struct lesson_run *run, const struct progress *p)
{
	char key[PROGRESS_KEY_MAX], msg[LESSON_STATUS_MAX];
	lesson_step_key(run->lesson, run->step, key, sizeof key);
	if (progress_is_shown(p, key))
		run->unearned = true; /* shown stays shown: meeting the goal again earns nothing */
	if (progress_wrong(p, key) > run->wrong) {
		run->wrong = progress_wrong(p, key);
		run->unearned |= lesson_run_tries_left(run) == 0;
	}
	const char *given = progress_answer(p, key);
	if (!lesson_run_step(run)->question || !given || run->answered)
		return false;
	if (lesson_run_answer(run, given, msg, sizeof msg) == 1)
		return true;
	run->answered = run->answer_right = false; /* the lesson changed its answer: ask again */
	run->answer[0] = '\0';
	return false;
}

bool lesson_where_left(const struct lesson *les, const struct progress *p, int *step)
{
	*step = strcmp(p->lesson, les->name) == 0 ? lesson_step_index(les, p->step) : -1;
	if (*step >= 0)
		return true;
	*step = 0;
	for (int i = les->nsteps - 1; i >= 0; i--) {
		char key[PROGRESS_KEY_MAX];
		lesson_step_key(les, i, key, sizeof key);
		if (!progress_is_done(p, key))
			*step = i;
	}
	return false;
}

int lesson_next_undone(const struct lesson_set *set, const struct progress *p)
{
	for (int i = 0; i < set->count; i++)
		if (!lesson_is_done(&set->lessons[i], p))
			return i;
	return 0;
}
