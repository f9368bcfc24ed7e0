/*
 * pane.c - the lesson pane and the lesson menu as lines of text: the step's
 * heading, prose, question, the goal's live status, hints shown, the
 * solution, a keys line; the menu with done marks and overall progress.
 * Composition only: wrapping is wrap.c's, evaluation goal.c's, drawing the
 * TUI's.
 */
#include "pane.h"
#include "lesson_int.h"
#include "notation.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text wrapped to width; in ASCII, cells in the notation read "P_0[2,0]"
 * (notation_ascii) before the wrap measures them. */
static int wrap(struct lesson_text *out, bool utf8, const char *text, int width, enum lesson_line_kind kind,
                lesson_key_fn *keys, const void *ctx)
{
	if (utf8)
		return lesson_wrap(out, text, width, kind, keys, ctx);
	char *ascii = strdup(text);
	if (!ascii)
		return -1;
	notation_ascii(ascii);
	int rc = lesson_wrap(out, ascii, width, kind, keys, ctx);
	free(ascii);
	return rc;
}

/* Add one line of text, wrapped when longer than the width. */
static int add(struct lesson_text *out, bool utf8, enum lesson_line_kind kind, int width, lesson_key_fn *keys,
               const void *ctx, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int add(struct lesson_text *out, bool utf8, enum lesson_line_kind kind, int width, lesson_key_fn *keys,
               const void *ctx, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return wrap(out, utf8, buf, width, kind, keys, ctx);
}

/* text wrapped to width behind an ASCII prefix; continuation lines are
 * indented to line up under the text ("  a) ...", then "     ..."). */
static int add_hanging(struct lesson_text *out, bool utf8, enum lesson_line_kind kind, int width,
                       lesson_key_fn *keys, const void *ctx, const char *prefix, const char *text)
{
	int pl = (int)strlen(prefix);
	struct lesson_text body = { 0 };
	int rc = wrap(&body, utf8, text, width - pl > 8 ? width - pl : 8, kind, keys, ctx);
	for (int i = 0; i < body.count && rc == 0; i++) {
		char line[2048];
		snprintf(line, sizeof line, "%*s%s", pl, i ? "" : prefix, body.lines[i].text);
		rc = lesson_text_add(out, kind, line, width);
	}
	lesson_text_free(&body);
	return rc;
}

/* s into out, cut to at most width display columns with an ellipsis when
 * longer (no space left before it). */
static void fit(char *out, size_t len, const char *s, int width, bool utf8)
{
	const char *dots = utf8 ? "\u2026" : "...";
	if (width <= 0 || lesson_utf8_width(s) <= width) {
		snprintf(out, len, "%s", s);
		return;
	}
	int room = width - lesson_utf8_width(dots), cut = room > 0 ? (int)lesson_utf8_prefix(s, room) : 0;
	while (cut > 0 && s[cut - 1] == ' ')
		cut--;
	snprintf(out, len, "%.*s%s", cut, s, dots);
}

static int blank(struct lesson_text *out)
{
	if (out->count == 0 || out->lines[out->count - 1].kind == LESSON_LINE_BLANK)
		return 0;
	return lesson_text_add(out, LESSON_LINE_BLANK, "", 0);
}

static int question_lines(const struct lesson_run *run, int width, lesson_key_fn *keys, const void *ctx,
                          bool utf8, struct lesson_text *out)
{
	const struct lesson_question *q = lesson_run_step(run)->question;
	int rc = blank(out);
	rc |= add(out, utf8, LESSON_LINE_QUESTION, width, keys, ctx, "%s", q->text);
	for (int i = 0; i < q->nchoices && rc == 0; i++) {
		char prefix[16];
		snprintf(prefix, sizeof prefix, "  %.8s) ", q->choices[i].key);
		rc = add_hanging(out, utf8, LESSON_LINE_CHOICE, width, keys, ctx, prefix, q->choices[i].text);
	}
	char tries[80];
	lesson_run_tries_text(run, tries, sizeof tries);
	if (rc == 0 && run->answered)
		rc = add(out, utf8, LESSON_LINE_ANSWER, width, keys, ctx, "Your answer: %s (%s)", run->answer,
		         run->answer_right ? (run->unearned ? "right; counts as shown" : "right") : tries);
	if (rc == 0 && lesson_run_feedback(run))
		rc = add(out, utf8, LESSON_LINE_ANSWER, width, keys, ctx, "%s", lesson_run_feedback(run));
	else if (rc == 0 && !run->answered) /* after an answer, the line above says the tries left */
		rc = add(out, utf8, LESSON_LINE_KEYS, width, keys, ctx, "%s (%s)",
		         lesson_run_step(run)->nhides && !lesson_run_revealed(run)
		         ? "Answer with {key:answer}: part of the screen stays hidden until it is right"
		         : q->nchoices > 0 ? "Press {key:answer}, then a choice's key"
		         : q->model ? "Press {key:answer}, then type the head as the view names it and Enter"
		                    : "Press {key:answer}, then type the number and Enter", tries);
	return rc;
}

int lesson_run_pane(const struct lesson_run *run, int width, lesson_key_fn *keys, const void *ctx,
                    bool utf8, struct lesson_text *out)
{
	const struct lesson *l = run->lesson;
	const struct lesson_step *s = lesson_run_step(run);
	/* one line for the lesson, cut if need be (the menu has its whole
	 * title): the lines of a narrow pane are for the step */
	char heading[512], lesson_line[512];
	snprintf(heading, sizeof heading, "Lesson %d: %s", l->number, l->title);
	fit(lesson_line, sizeof lesson_line, heading, width, utf8);
	int rc = lesson_text_add(out, LESSON_LINE_TITLE, lesson_line, width);
	rc |= add(out, utf8, LESSON_LINE_TITLE, width, keys, ctx, "Step %d of %d%s%s", run->step + 1,
	          l->nsteps, s->title[0] ? ": " : "", s->title);
	rc |= blank(out);
	rc |= wrap(out, utf8, s->prose, width, LESSON_LINE_PROSE, keys, ctx);
	if (rc == 0 && s->question)
		rc = question_lines(run, width, keys, ctx, utf8, out);
	if (rc == 0 && lesson_step_is_exercise(s)) {
		rc = blank(out);
		const char *mark = run->met ? (utf8 ? "\u2713" : "[x]") : (utf8 ? "\u25cb" : "[ ]");
		rc |= add(out, utf8, run->met ? LESSON_LINE_MET : LESSON_LINE_UNMET, width, keys, ctx, "%s %s",
		          mark, run->status[0] ? run->status : "Not yet checked");
		for (int i = 0; i < run->hints_shown && i < s->nhints && rc == 0; i++)
			rc = add(out, utf8, LESSON_LINE_HINT, width, keys, ctx, "Hint %d of %d: %s", i + 1,
			         s->nhints, s->hints[i]);
		if (rc == 0 && run->solution_shown) {
			char all[1024] = "", one[160];
			for (int i = 0; i < s->nsolution; i++) {
				lesson_edit_describe(&s->solution[i], one, sizeof one);
				size_t at = strlen(all);
				snprintf(all + at, sizeof all - at, "%s%s", i ? "; " : "", one);
			}
			rc = add(out, utf8, LESSON_LINE_SOLUTION, width, keys, ctx, "Solution applied: %s", all);
		}
		if (rc == 0 && !run->met) {
			int left = s->nhints - run->hints_shown;
			if (left > 0)
				rc = add(out, utf8, LESSON_LINE_KEYS, width, keys, ctx, "{key:hint} hint (%d left), "
				         "{key:solution} solution", left);
			else
				rc = add(out, utf8, LESSON_LINE_KEYS, width, keys, ctx, "{key:solution} shows the solution");
		}
	}
	if (rc == 0)
		rc = blank(out);
	if (rc == 0)
		rc = add(out, utf8, LESSON_LINE_KEYS, width, keys, ctx, "%s, {key:prev} previous, "
		         "{key:leave} free workbench",
		         run->step + 1 == l->nsteps ? "Last step. {key:next} next lesson" : "{key:next} next step");
	return rc ? -1 : 0;
}

void lesson_progress_counts(const struct lesson *l, const struct progress *p, int *steps_done,
                            int *exercises_done, int *exercises_shown)
{
	*steps_done = *exercises_done = *exercises_shown = 0;
	for (int i = 0; i < l->nsteps; i++) {
		char key[PROGRESS_KEY_MAX];
		lesson_step_key(l, i, key, sizeof key);
		bool exercise = lesson_step_is_exercise(&l->steps[i]);
		if (p && progress_is_done(p, key)) {
			(*steps_done)++;
			*exercises_done += exercise;
		} else if (p && exercise && progress_is_shown(p, key)) {
			(*exercises_shown)++;
		}
	}
}

bool lesson_is_done(const struct lesson *l, const struct progress *p)
{
	int steps, exercises, shown;
	lesson_progress_counts(l, p, &steps, &exercises, &shown);
	return l->nsteps > 0 && steps == l->nsteps;
}

/* " 4 . Scores, and why divide by sqrt(d_k) (0/2)"; when that is wider
 * than the pane, the title is cut short with an ellipsis so that the
 * exercises done stay in view: " 4 . Scores, and why divi… (0/2)". A pane
 * too narrow even for that puts the count before the title, which is cut. */
static void menu_line(char *line, size_t len, const struct lesson *l, const char *mark,
                      int exercises, int width, bool utf8)
{
	char head[32], count[32], title[400];
	snprintf(head, sizeof head, "%2d %s ", l->number, mark);
	snprintf(count, sizeof count, "(%d/%d)", exercises, l->nexercises);
	int room = width - lesson_utf8_width(head) - 1 - lesson_utf8_width(count); /* for the title */
	if (width <= 0 || room >= lesson_utf8_width(l->title) || room >= 8) {
		fit(title, sizeof title, l->title, width <= 0 ? 0 : room, utf8);
		snprintf(line, len, "%s%s %s", head, title, count);
	} else {
		snprintf(line, len, "%s%s %s", head, count, l->title);
	}
}

int lesson_menu(const struct lesson_set *set, const struct progress *p, int width, bool utf8,
                struct lesson_text *out)
{
	int lessons_done = 0, ex_done = 0, ex_total = 0, ex_shown = 0;
	int rc = add(out, utf8, LESSON_LINE_TITLE, width, NULL, NULL, "%s", "Lessons");
	for (int i = 0; i < set->count && rc == 0; i++) {
		const struct lesson *l = &set->lessons[i];
		int steps, exercises, shown;
		lesson_progress_counts(l, p, &steps, &exercises, &shown);
		bool done = l->nsteps > 0 && steps == l->nsteps;
		lessons_done += done;
		ex_done += exercises;
		ex_shown += shown;
		ex_total += l->nexercises;
		const char *mark = done ? (utf8 ? "\u2713" : "x") : steps + shown > 0 ? (utf8 ? "\u2026" : ".") : " ";
		char line[512];
		menu_line(line, sizeof line, l, mark, exercises, width, utf8);
		/* one line per lesson, whatever the width: cut, never wrapped */
		rc = lesson_text_add(out, done ? LESSON_LINE_MENU_DONE : LESSON_LINE_MENU, line, width);
	}
	if (rc == 0)
		rc = blank(out);
	if (rc == 0) {
		/* earned only: an exercise solved with the solution is "shown", counted apart */
		char shown_part[64] = "";
		if (ex_shown > 0)
			snprintf(shown_part, sizeof shown_part, "; %d only shown (S)", ex_shown);
		rc = add(out, utf8, LESSON_LINE_KEYS, width, NULL, NULL, "Done: %d of %d lessons, %d of %d "
		         "exercises%s", lessons_done, set->count, ex_done, ex_total, shown_part);
	}
	return rc ? -1 : 0;
}
