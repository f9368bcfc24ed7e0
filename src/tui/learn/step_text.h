/*
 * step_text.h - what a lesson step's words are about, for the workbench's
 * layout (step_text.c): which matrices its text names, and whether it
 * speaks of the heatmaps.
 */
#ifndef STEP_TEXT_H
#define STEP_TEXT_H

#include <stdbool.h>

#include "lesson.h"

/* Whether step s's prose or question says "heatmap" (then the heatmaps
 * keep their room). false when s is NULL (no step open). */
bool step_text_about_heatmaps(const struct lesson_step *s);

/* Whether step s's prose, question or one of its choices names the
 * matrix name as a word ("row i of Q", "Q₀", "K^T", "W^O", "Y[3,0]"),
 * not inside another ("QK", "W^Q" for Q). false when s is NULL. */
bool step_text_names(const struct lesson_step *s, const char *name);

#endif
