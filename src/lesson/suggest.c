/*
 * suggest.c - "did you mean": the known word nearest to a misspelled one
 * (optimal string alignment distance, at most 2 edits).
 */
#include "lesson_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of neighbours each cost 1 ("hnit" is 1 from "hint"). */
int lesson_edit_distance(const char *a, const char *b)
{
	enum { MAXL = 32 };
	size_t la = strlen(a), lb = strlen(b);
	if (la >= MAXL || lb >= MAXL)
		return MAXL;
	int d[MAXL + 1][MAXL + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *lesson_nearest_word(const char *w, const char *const *names, int n)
{
	const char *best = NULL;
	int bd = 3; /* more than 2 edits away is a different word, not a typo */
	for (int i = 0; i < n; i++) {
		int dist = lesson_edit_distance(w, names[i]);
		if (dist < bd) {
			bd = dist;
			best = names[i];
		}
	}
	return best;
}

/* "a" or "a b" or "a..b" after a comparison; the second only for 'within'. */
