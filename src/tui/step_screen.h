/*
 * step_screen.h - a lesson step drawn headless as the learner first sees
 * it (80x24, the smallest screen the layout promises), as text: the
 * drawing callback that `mha-tui --check-lessons` gives the lesson
 * library's screen check (screen_check.h), which itself never draws.
 */
#ifndef STEP_SCREEN_H
#define STEP_SCREEN_H

#include <stddef.h>

#include "lesson.h"

/* lesson_screen_fn: step si of lesson li of set opened on the default
 * workbench, answer (unless NULL) typed into the answer prompt, drawn on
 * a vscreen, read back into out. ctx unused. 0, or -1 when it cannot be
 * drawn (no terminfo, no memory). */
int step_screen_text(void *ctx, const struct lesson_set *set, int li, int si, const char *answer,
                     char *out, size_t len);

#endif
