/*
 * suggest.h - "did you mean" (suggest.c).
 */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stdbool.h>
#include <stddef.h>


/* Edit distance, for "did you mean". */
int lesson_edit_distance(const char *a, const char *b);
/* The known word nearest to w among names[0..n), or NULL when none is within 2 edits. */
const char *lesson_nearest_word(const char *w, const char *const *names, int n);

#endif
