/*
 * checker.c - the lesson checker for authors and for the test suite. For
 * each exercise it does what a learner would: set the step up, run the
 * forward pass, see the goal unmet; apply the solution, run it again, see
 * the goal met. Parsing problems come from parse.c and set.c; this file
 * adds what needs the computation, and the lint rules (keys, widths, the
 * cell notation in prose).
 */
#include "checker.h"
#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_int.h"
#include "pane.h"
#include "notation.h"

#include <stdio.h>
#include <string.h>

/* Every {key:ACTION} in text names a known action. */
static void check_keys(const struct lesson *l, const struct lesson_step *s, const char *text,
                       struct lesson_errors *errs)
{
	for (const char *p = text ? strstr(text, "{key:") : NULL; p; p = strstr(p + 1, "{key:")) {
		const char *close = strchr(p, '}');
		char action[32];
		size_t n = close ? (size_t)(close - p - 5) : 0;
		if (!close || n >= sizeof action) {
			lesson_errors_add(errs, "%s:%d: step '%s': unclosed {key:...} placeholder", l->path,
			                  s->line, s->id);
			return;
		}
		memcpy(action, p + 5, n);
		action[n] = '\0';
		if (lesson_key_action_known(action))
			continue;
		int nact = 0;
		while (lesson_key_actions[nact])
			nact++;
		const char *near = lesson_nearest_word(action, lesson_key_actions, nact);
		lesson_errors_add(errs, "%s:%d: step '%s': unknown key {key:%s}%s%s%s", l->path, s->line,
		                  s->id, action, near ? ": did you mean {key:" : "", near ? near : "",
		                  near ? "}?" : "");
	}
}

/* Text the pane cannot show whole: a verbatim (indented) line, which the
 * pane cuts, or a word, which it breaks, wider than the narrowest pane.
 * Measured as drawn: tabs and {key:...} expanded, display columns, the
 * wider of the UTF-8 and ASCII forms of the notation. */
static void check_width(const struct lesson *l, const struct lesson_step *s, const char *text,
                        struct lesson_errors *errs)
{
	struct lesson_text t = { 0 };
	if (!text || lesson_wrap(&t, text, 1 << 20, LESSON_LINE_PROSE, NULL, NULL) != 0) {
		lesson_text_free(&t);
		return;
	}
	for (int i = 0; i < t.count; i++) {
		const char *line = t.lines[i].text;
		bool verbatim = t.lines[i].kind == LESSON_LINE_VERBATIM;
		for (const char *w = line; *w;) {
			size_t n = verbatim ? strlen(w) : strcspn(w, " ");
			char word[1024];
			snprintf(word, sizeof word, "%.*s", (int)n, w);
			/* a verbatim line is cut; a word is broken between wide (CJK)
			 * characters, as the pane wraps it, and cut elsewhere */
			int (*width)(const char *) = verbatim ? lesson_utf8_width : lesson_unbreakable_width;
			int cols = width(word);
			notation_ascii(word); /* "P_0" in an ASCII terminal is a column wider */
			if (width(word) > cols)
				cols = width(word);
			if (cols > LESSON_PANE_MIN_COLS)
				lesson_errors_add(errs, "%s:%d: step '%s': %s '%s' is %d columns, wider than the "
				                  "%d-column lesson pane: it would be cut", l->path, s->line, s->id,
				                  verbatim ? "verbatim line" : "word", word, cols,
				                  LESSON_PANE_MIN_COLS);
			w += n;
			w += strspn(w, " ");
		}
	}
	lesson_text_free(&t);
}

/* Set up, forward, evaluate; then solve, forward, evaluate. */
static void check_exercise(const struct lesson *l, int i, struct lesson_errors *errs)
{
	const struct lesson_step *s = &l->steps[i];
	struct mha_config c = mha_config_default();
	struct mha_weights w = { 0 };
	struct mha_stack a = { 0 }; /* every layer: goals may read any */
	struct lesson_run run;
	char msg[1024];
	int at = s->goals[0].line;
	if (lesson_run_start(&run, l, i, true, &c, &w, msg, sizeof msg) < 0) {
		lesson_errors_add(errs, "%s:%d: step '%s': set-up fails: %s", l->path, s->line, s->id, msg);
		return;
	}
	if (mha_stack_alloc(&a, &c) != MHA_OK)
		goto oom;
	mha_stack_forward(&c, &w, &a);
	if (lesson_run_eval(&run, &c, &w, a.layer) & LESSON_EVAL_MET)
		lesson_errors_add(errs, "%s:%d: step '%s': the goal already holds before the learner does "
		                  "anything (%s)", l->path, at, s->id, run.status);
	/* a live answer (@answer flash) is the TUI's recording, which this
	 * library cannot make: tests/tui/test_flash_lesson.c answers those */
	bool live = s->question && (s->question->flash || s->question->model);
	for (int k = 0; k < s->ngoals; k++) /* the language model's state is the TUI's too: tests/tui */
		live |= s->goals[k].kind == LESSON_COND_MODEL;
	int rc = live ? 0 : lesson_run_solve(&run, &c, &w, msg, sizeof msg);
	if (live) {
		/* nothing more to check here */
	} else if (rc < 0) {
		lesson_errors_add(errs, "%s:%d: step '%s': the solution cannot be applied: %s", l->path,
		                  s->nsolution ? s->solution[0].line : s->line, s->id, msg);
	} else {
		mha_stack_free(&a);
		if (mha_stack_alloc(&a, &c) != MHA_OK)
			goto oom;
		mha_stack_forward(&c, &w, &a);
		if (!(lesson_run_eval(&run, &c, &w, a.layer) & LESSON_EVAL_MET))
			lesson_errors_add(errs, "%s:%d: step '%s': the goal does not hold after the solution "
			                  "(%s)", l->path, at, s->id, run.status);
	}
	mha_stack_free(&a);
	mha_weights_free(&w);
	lesson_run_end(&run);
	return;
oom:
	lesson_errors_add(errs, "%s:%d: step '%s': out of memory", l->path, s->line, s->id);
	mha_weights_free(&w);
	lesson_run_end(&run);
}

/* A multiple-choice question says why each wrong choice is wrong. */
static void check_feedback(const struct lesson *l, const struct lesson_step *s, struct lesson_errors *errs)
{
	const struct lesson_question *q = s->question;
	for (int c = 0; q && c < q->nchoices; c++) {
		const char *key = q->choices[c].key;
		bool has = !strcmp(key, q->answer);
		for (int f = 0; f < q->nfeedback && !has; f++)
			has = !strcmp(q->feedback[f].key, key);
		if (!has)
			lesson_errors_add(errs, "%s:%d: step '%s': wrong choice '%s' needs a @feedback %s line "
			                  "saying why it is wrong", l->path, q->line, s->id, key, key);
	}
}

static void check_step(const struct lesson *l, int i, struct lesson_errors *errs)
{
	const struct lesson_step *s = &l->steps[i];
	check_keys(l, s, s->prose, errs);
	check_width(l, s, s->prose, errs);
	for (int k = 0; k < s->nhints; k++) {
		check_keys(l, s, s->hints[k], errs);
		check_width(l, s, s->hints[k], errs);
	}
	if (s->question) {
		check_keys(l, s, s->question->text, errs);
		check_width(l, s, s->question->text, errs);
	}
	for (int k = 0; s->question && k < s->question->nfeedback; k++) {
		check_keys(l, s, s->question->feedback[k].text, errs);
		check_width(l, s, s->question->feedback[k].text, errs);
	}
	check_feedback(l, s, errs);
	if (!lesson_step_is_exercise(s)) {
		/* a prose step must still set up, if it sets anything up */
		struct mha_config c;
		struct mha_weights w;
		char msg[1024];
		if (s->resets || i == 0) {
			if (lesson_step_setup(l, i, &c, &w, msg, sizeof msg) != 0)
				lesson_errors_add(errs, "%s:%d: step '%s': set-up fails: %s", l->path, s->line,
				                  s->id, msg);
			else
				mha_weights_free(&w);
		}
		return;
	}
	if (s->nhints == 0)
		lesson_errors_add(errs, "%s:%d: step '%s': an exercise needs at least one @hint", l->path,
		                  s->line, s->id);
	if (s->nsolution == 0)
		lesson_errors_add(errs, "%s:%d: step '%s': an exercise needs a @solution", l->path,
		                  s->line, s->id);
	else
		check_exercise(l, i, errs);
}

int lesson_check_set(const struct lesson_set *set, struct lesson_errors *errs,
                     struct lesson_check_stats *st)
{
	int before = errs->count + errs->dropped;
	memset(st, 0, sizeof *st);
	for (int k = 0; k < set->count; k++) {
		const struct lesson *l = &set->lessons[k];
		st->lessons++;
		st->steps += l->nsteps;
		st->exercises += l->nexercises;
		for (int i = 0; i < l->nsteps; i++)
			check_step(l, i, errs);
		for (int i = 0; i < l->nlint; i++) /* the parser's notes: cells in an old notation */
			if (l->lint[i])
				lesson_errors_add(errs, "%s", l->lint[i]);
	}
	return errs->count + errs->dropped > before ? -1 : 0;
}

/* One line of text that quotes lesson files or paths: control characters
 * print as '?', so no escape sequence in a file reaches the terminal. */
static void put_clean_line(FILE *f, const char *prefix, const char *text)
{
	char line[8192];
	snprintf(line, sizeof line, "%s", text);
	mha_text_clean(line);
	fprintf(f, "%s%s\n", prefix, line);
}

int lesson_check_command(const char *dir_or_null, const char *lessons_dir_flag, FILE *out, FILE *err)
{
	return lesson_check_drawn(dir_or_null, lessons_dir_flag, NULL, out, err);
}

int lesson_check_drawn(const char *dir_or_null, const char *lessons_dir_flag, lesson_screen_fn *draw,
                       FILE *out, FILE *err)
{
	char dir[4096], msg[8192];
	if (!dir_or_null) {
		if (lesson_find_dir(lessons_dir_flag, dir, sizeof dir, msg, sizeof msg) != 0) {
			put_clean_line(err, "mha-tui: --check-lessons: ", msg);
			return 1;
		}
		dir_or_null = dir;
	}
	struct lesson_set set;
	struct lesson_errors errs = { 0 };
	struct lesson_check_stats st;
	lesson_set_load(&set, dir_or_null, &errs);
	lesson_check_set(&set, &errs, &st);
	if (draw) /* the answer on the step's own screen (screen_check.h) */
		lesson_check_screens(&set, draw, NULL, &errs);
	int bad = errs.count + errs.dropped;
	for (int i = 0; i < errs.count; i++)
		put_clean_line(err, "", errs.msg[i]);
	if (errs.dropped)
		fprintf(err, "... and %d more errors\n", errs.dropped);
	if (bad) {
		char summary[4400];
		snprintf(summary, sizeof summary, "%s: %d lessons, %d steps, %d exercises: %d error%s",
		         dir_or_null, st.lessons, st.steps, st.exercises, bad, bad == 1 ? "" : "s");
		put_clean_line(err, "mha-tui: --check-lessons ", summary);
	} else
		fprintf(out, "%d lessons, %d steps, %d exercises: ok\n", st.lessons, st.steps, st.exercises);
	lesson_set_free(&set);
	lesson_errors_free(&errs);
	return bad ? 1 : 0;
}
