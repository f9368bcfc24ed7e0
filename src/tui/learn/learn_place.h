/*
 * learn_place.h - the learner's place saved and restored (learn_place.c):
 * progress, the free workbench's view, the open lesson's bench.
 */
#ifndef LEARN_PLACE_H
#define LEARN_PLACE_H

#include <stdbool.h>

#include "app.h"

/* Save the progress file now (a failure goes to the status line). */
void learn_place_write(struct app *app);
/* Record the open step in the progress (place, done) and save on change. */
void learn_place_touch(struct app *app, bool leaving, bool in_lesson);
/* The free workbench's place from the progress file; and recorded there
 * (saved when it moved). */
void learn_place_view_restore(struct app *app);
void learn_place_view_save(struct app *app);
/* The open lesson's bench saved at quit beside the progress file, and
 * loaded back at resume when there is one. */
void learn_place_bench_save(struct app *app);
void learn_place_bench_load(struct app *app);
/* The open step's state at quit (its stage, cursor, hints shown, a wrong
 * answer last given: progress 'at' and 'tried' lines), recorded in the
 * progress; and given back when the learner resumes into that step. */
void learn_place_step_save(struct app *app);
void learn_place_step_restore(struct app *app);

#endif
