/*
 * learn_place.h - the learner's place saved and restored (learn_place.c):
 * progress, the free workbench's view, the open lesson's bench.
 */
#ifndef LEARN_PLACE_H
#define LEARN_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Save the progress file now: 0, or -1 (said on the status line, kept in
 * app->learn.progress_error, and tried again at quit: learn_quit). */
int learn_place_write(struct app *app);
/* Record the open step in the progress (place, done) and save on change. */
void learn_place_touch(struct app *app, bool leaving, bool in_lesson);
/* The free workbench's place from the progress file; and recorded there
 * (saved when it moved). */
void learn_place_view_restore(struct app *app);
void learn_place_view_save(struct app *app);
/* The open lesson's bench saved at quit beside the progress file (0 with
 * a note, "" or where it went instead of its own name; or -1 with msg:
 * for learn_quit to say on stderr), and loaded back at
 * resume when there is one; its file's claim given up (at the end). */
int learn_place_bench_save(struct app *app, char *msg, size_t len, char *note, size_t note_len);
void learn_place_bench_load(struct app *app);
void learn_place_bench_release(struct app *app);
/* The open step's bench file (lesson-bench-LESSON-STEP.txt beside the
 * progress file), claimed for this instance when the step opens: a
 * second mha-tui at the step saves to "-2" (both benches kept). What is
 * there already is read: a file it cannot read (damaged, a newer version,
 * another kind, another step's) is kept as it is, said on the status line,
 * and this run's edits of the step go beside it (said again at quit in
 * the save's note). 0 with app->learn.bench_file for the open step, -1
 * when there is none (progress not saved, a name a file cannot have). */
int learn_place_bench_claim(struct app *app);
/* The open step's state at quit (its stage, cursor, hints shown, a wrong
 * answer last given: progress 'at' and 'tried' lines), recorded in the
 * progress; and given back when the learner resumes into that step. */
void learn_place_step_save(struct app *app);
void learn_place_step_restore(struct app *app);

#endif
