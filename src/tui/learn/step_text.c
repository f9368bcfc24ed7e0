/*
 * step_text.c - what a lesson step's words are about: the workbench
 * scans the open step's prose, question and choices for the names of the
 * stage's matrices (to give the ones it names room beside its focus) and
 * for "heatmap" (to keep the heatmaps' room).
 *
 * It deliberately does not decide any layout (panels.c and workbench.c
 * do), nor read the lesson file or need a directive for this: it reads
 * the parsed step's text only, and draws nothing.
 */
#include "step_text.h"

#include <ctype.h>
#include <string.h>

bool step_text_about_heatmaps(const struct lesson_step *s)
{
	if (!s)
		return false;
	const char *q = s->question ? s->question->text : NULL;
	return strstr(s->prose, "heatmap") || (q && strstr(q, "heatmap"));
}

/* Whether text names the matrix name as a word ("row i of Q", "Q₀",
 * "K^T", "W^O", "Y[3,0]"), not inside another ("QK", "W^Q" for Q). */
static bool names(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *at = text ? strstr(text, name) : NULL; at; at = strstr(at + 1, name)) {
		char before = at == text ? ' ' : at[-1], after = at[n];
		bool starts = !isalnum((unsigned char)before) && before != '^' && before != '_' && before != '{';
		bool ends = !isalnum((unsigned char)after) && after != '\'';
		if (starts && ends)
			return true;
	}
	return false;
}

bool step_text_names(const struct lesson_step *s, const char *name)
{
	if (!s)
		return false;
	bool named = names(s->prose, name) || (s->question && names(s->question->text, name));
	for (int c = 0; s->question && c < s->question->nchoices && !named; c++)
		named = names(s->question->choices[c].text, name);
	return named;
}
