/*
 * answer_prompt.c - the answer prompt mode: the step's question answered
 * on the status line. A choice's key commits at once (no Enter), a number
 * with Enter; Esc cancels. The lesson library judges the answer
 * (lesson_run_answer); this only types it and says the verdict.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "draw.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

/* The prompt's own state: the answer typed. */
struct answer_prompt {
	char answer[LESSON_ANSWER_MAX];
	bool overflow; /* a character did not fit: Enter refuses the line */
};

extern const struct mode_ops answer_prompt_mode;

static bool answer_enter(struct app *app)
{
	struct answer_prompt *p = mode_state(app, &answer_prompt_mode);
	if (!learn_lesson(app)) {
		learn_no_lesson(app);
		return false;
	}
	if (!lesson_run_step(&app->learn.run)->question) {
		app_message(app, false, "this step asks no question");
		return false;
	}
	if (!p)
		return false;
	*p = (struct answer_prompt){ 0 };
	return true;
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
	struct answer_prompt *p = mode_state(app, &answer_prompt_mode);
	char msg[LESSON_STATUS_MAX];
	int rc = lesson_run_answer(&l->run, p->answer, msg, sizeof msg);
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
		snprintf(next, sizeof next, "; %s %s", mode_key_name(app, hint ? "hint" : "solution"),
		         hint ? "gives a hint" : "shows the solution");
	}
	app_message(app, false, "answer %s: %s%s", l->run.answer, msg, next);
	learn_evaluate(app);
	l->scroll = LEARN_SCROLL_END;
	l->reading = true; /* the feedback whole, under the question */
	return APP_REDRAW;
}

static unsigned answer_cancel(struct app *app)
{
	return prompt_cancel(app, "answer cancelled");
}

static unsigned answer_commit(struct app *app)
{
	struct answer_prompt *p = mode_state(app, &answer_prompt_mode);
	if (!prompt_take(app, &p->overflow, sizeof p->answer))
		return APP_REDRAW;
	return commit(app);
}

/* A character of the answer; a choice's key typed whole commits it. */
static unsigned answer_type(struct app *app, int key)
{
	struct answer_prompt *p = mode_state(app, &answer_prompt_mode);
	if (prompt_is_backspace(key)) {
		prompt_type(p->answer, sizeof p->answer, &p->overflow, key);
		return APP_REDRAW;
	}
	size_t n = strlen(p->answer);
	if (key < 32 || key >= 127)
		return APP_REDRAW;
	if (n + 1 >= sizeof p->answer) {
		p->overflow = true; /* dropped: Enter refuses the line */
		return APP_REDRAW;
	}
	p->answer[n] = (char)key;
	p->answer[n + 1] = '\0';
	if (choice_complete(lesson_run_step(&app->learn.run)->question, p->answer)) {
		mode_leave(app);
		return commit(app);
	}
	return APP_REDRAW;
}

/* "answer (a/b/c): b_   (a choice's key answers, Esc cancels)" */
static bool answer_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
	const struct answer_prompt *p = mode_state_if(app, &answer_prompt_mode);
	char line[APP_STATUS_MAX + 128], choices[64] = "";
	for (int i = 0, at = 0; q && i < q->nchoices && at < (int)sizeof choices; i++)
		at += snprintf(choices + at, sizeof choices - (size_t)at, "%s%s", i ? "/" : " (", q->choices[i].key);
	if (choices[0])
		strncat(choices, ")", sizeof choices - strlen(choices) - 1);
	snprintf(line, sizeof line, "answer%s: %s_   (%s, Esc cancels)", choices, p ? p->answer : "",
	         q && q->nchoices ? "a choice's key answers" : "type a number, Enter answers");
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

static const struct action answer_opener = {
	.keys = { 'a' }, .label = "a", .name = "answer", .help = "answer: a choice's key, or a number and Enter",
	.group = "Lesson", .id = "answer",
};

static const struct action answer_keys[] = {
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "answer", .help = "answer with the number typed",
	  .call = answer_commit, .id = "answer-commit" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "cancel", .help = "answer nothing now",
	  .call = answer_cancel, .id = "answer-cancel" },
	{ .keys = { 0 } },
};

const struct mode_ops answer_prompt_mode = {
	.name = "answer prompt",
	.prompt = true,
	.opener = &answer_opener,
	.keys = answer_keys,
	.state_size = sizeof(struct answer_prompt),
	.enter = answer_enter,
	.type = answer_type,
	.status = answer_status,
};
