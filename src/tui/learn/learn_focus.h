/*
 * learn_focus.h - where a lesson step puts the learner's eyes (learn_focus.c).
 */
#ifndef LEARN_FOCUS_H
#define LEARN_FOCUS_H

#include "app.h"

/* Point the view at step s: @focus selects the stage; @highlight head H
 * shows that head; the first highlighted cell gets the cursor on the
 * focused stage and where that input is edited. */
void learn_point_at(struct app *app, const struct lesson_step *s);

#endif
