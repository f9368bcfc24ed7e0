/*
 * answer_prompt.c - the answer prompt mode: the step's question answered
 * on the status line. A choice's key commits at once (no Enter), a number
 * with Enter; Esc cancels. The lesson library judges the answer
 * (lesson_run_answer); this only types it and says the verdict.
 */
#include "answer_prompt.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "actions.h"
#include "draw.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

unsigned answer_prompt_open(struct app *app)
{
	struct app_learn *l = &app->learn;
	app->typed_overflow = false;
	if (!learn_lesson(app))
		return learn_no_lesson(app);
	if (!lesson_run_step(&l->run)->question) {
		app_message(app, false, "this step asks no question");
		return APP_REDRAW;
	}
	mode_enter(app, MODE_ANSWER);
	l->answer[0] = '\0';
	return APP_REDRAW;
}

/* A multiple-choice key typed whole (and no longer key starts with it):
 * one key per choice, no Enter needed. */
static bool choice_complete(const struct lesson_question *q, const char *typed)
{
	bool whole = false;
	size_t n = strlen(typed);
	for (int i = 0; i < q->nchoices; i++) {
		if (strncasecmp(q->choices[i].key, typed, n) != 0)
			continue;
		if (q->choices[i].key[n] == '\0')
			whole = true;
		else
			return false;
	}
	return whole;
}

static unsigned commit(struct app *app)
{
	struct app_learn *l = &app->learn;
	char msg[LESSON_STATUS_MAX];
	mode_leave(app);
	int rc = lesson_run_answer(&l->run, l->answer, msg, sizeof msg);
	if (rc < 0) {
		app_message(app, true, "not an answer: %s", msg);
		return APP_REDRAW;
	}
	/* a wrong answer reveals nothing (lesson_run_revealed); one with no
	 * reason of its own points at the help there is */
	const struct lesson_step *s = lesson_run_step(&l->run);
	char next[64] = "";
	if (rc == 1 && s->nhides)
		snprintf(next, sizeof next, " (now revealed)");
	else if (rc == 0 && !lesson_run_feedback(&l->run)) {
		bool hint = l->run.hints_shown < s->nhints;
		snprintf(next, sizeof next, "; %s %s", actions_key_name(hint ? "hint" : "solution"),
		         hint ? "gives a hint" : "shows the solution");
	}
	app_message(app, false, "answer %s: %s%s", l->run.answer, msg, next);
	learn_evaluate(app);
	l->scroll = LEARN_SCROLL_END;
	return APP_REDRAW;
}

static unsigned answer_key(struct app *app, int key)
{
	struct app_learn *l = &app->learn;
	if (key == PROMPT_ESC) {
		mode_leave(app);
		app_message(app, false, "answer cancelled");
		return APP_REDRAW;
	}
	if (prompt_is_enter(key)) {
		if (prompt_refuse_overflow(app, sizeof l->answer)) {
			mode_leave(app);
			return APP_REDRAW;
		}
		return commit(app);
	}
	if (prompt_is_backspace(key)) {
		prompt_type(app, l->answer, sizeof l->answer, key);
		return APP_REDRAW;
	}
	size_t n = strlen(l->answer);
	if (key < 32 || key >= 127)
		return APP_REDRAW;
	if (n + 1 >= sizeof l->answer) {
		app->typed_overflow = true; /* dropped: Enter refuses the line */
		return APP_REDRAW;
	}
	l->answer[n] = (char)key;
	l->answer[n + 1] = '\0';
	if (choice_complete(lesson_run_step(&l->run)->question, l->answer))
		return commit(app);
	return APP_REDRAW;
}

/* "answer (a/b/c): b_   (a choice's key answers, Esc cancels)" */
static bool answer_status(const struct app *app, struct rect r)
{
	const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
	char line[APP_STATUS_MAX + 128], choices[64] = "";
	for (int i = 0, at = 0; q && i < q->nchoices && at < (int)sizeof choices; i++)
		at += snprintf(choices + at, sizeof choices - (size_t)at, "%s%s", i ? "/" : " (", q->choices[i].key);
	if (choices[0])
		strncat(choices, ")", sizeof choices - strlen(choices) - 1);
	snprintf(line, sizeof line, "answer%s: %s_   (%s, Esc cancels)", choices, app->learn.answer,
	         q && q->nchoices ? "a choice's key answers" : "type a number, Enter answers");
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

const struct mode_ops answer_prompt_mode = {
	.name = "answer prompt",
	.prompt = true,
	.key = answer_key,
	.status = answer_status,
};
