/*
 * learn_show.c - what a lesson changes on the screen: the pane's scroll,
 * the counts in the pane's place, and which cells, stages, counts and
 * heads the open step hides or marks (asked of the lesson library). No
 * drawing: the views ask these as they draw.
 */
#include "learn.h"

#include <curses.h>
#include <string.h>

#include "layout.h"
#include "lesson.h"
#include "mode.h"

static struct app_learn *L(struct app *app) { return &app->learn; }

/* ---- the pane ---- */

unsigned learn_scroll(struct app *app, int lines)
{
	struct app_learn *l = L(app);
	int s = l->scroll < l->scroll_max ? l->scroll : l->scroll_max;
	s += lines;
	if (l->scroll_max > 0 && s > l->scroll_max)
		s = l->scroll_max;
	l->scroll = s < 0 ? 0 : s;
	return APP_REDRAW;
}

unsigned learn_read_toggle(struct app *app)
{
	struct app_learn *l = L(app);
	if (!learn_lesson(app)) {
		app_message(app, false, "%s reads a lesson step whole: no lesson is open (%s lists them)",
		            mode_key_name(app, "read"), mode_key_name(app, "menu"));
		return APP_REDRAW;
	}
	l->reading = !l->reading;
	app_message(app, false, l->reading ? "the whole step (when the pane cannot hold it); %s: the matrices"
	                                   : "the matrices, the step beside them; %s: the whole step",
	            mode_key_name(app, "read"));
	return APP_REDRAW;
}

bool learn_read_keeps(const char *id)
{
	static const char *const keep[] = { "help", "quit", "save", "redraw", "next", "prev", "hint", "solution",
	                                    "answer", "leave", "menu", "scroll-down", "scroll-up", "counts", "read" };
	for (size_t i = 0; id && i < sizeof keep / sizeof *keep; i++)
		if (!strcmp(id, keep[i]))
			return true;
	return false;
}

unsigned learn_counts_toggle(struct app *app)
{
	struct app_learn *l = L(app);
	if (!l->enabled)
		return APP_REDRAW;
	l->show_counts = !l->show_counts;
	if (COLS >= LAYOUT_WIDE_COLS) /* the side column holds both */
		app_message(app, false, "at this width the counts and the lesson pane both show; below %d columns "
		            "%s trades one for the other", LAYOUT_WIDE_COLS, mode_key_name(app, "counts"));
	else if (l->show_counts)
		app_message(app, false, "the counts take the lesson pane's place (%s brings it back)",
		            mode_key_name(app, "counts"));
	else
		app_message(app, false, "the lesson pane is back (%s trades it for the counts)", mode_key_name(app, "counts"));
	return APP_REDRAW;
}

/* ---- what the screen shows ---- */

static const struct lesson_run *shown_run(const struct app *app)
{
	return app->learn.active && app->learn.open ? &app->learn.run : NULL;
}

bool learn_hidden(const struct app *app, enum mha_tensor t, int m, int r, int c)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_hidden_at(run, app->layer, t, m, r, c);
}

bool learn_stage_hidden(const struct app *app, enum pipeline_stage s)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_stage_hidden(run, s);
}

bool learn_shows_hidden(const struct app *app, unsigned shows)
{
	const struct lesson_run *run = shown_run(app);
	if (!run)
		return false;
	if ((shows & MODE_SHOWS_COUNTS) && lesson_run_counts_hidden(run))
		return true;
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++)
		if ((shows & MODE_SHOWS_STAGE(s)) && lesson_run_stage_hidden(run, (enum pipeline_stage)s))
			return true;
	return false;
}

const struct lesson_step *learn_view_waits(const struct app *app, const char *action)
{
	const struct lesson_run *run = shown_run(app);
	if (!run || !action)
		return NULL;
	const struct lesson *les = run->lesson;
	for (int i = run->step; i < les->nsteps; i++) {
		const struct lesson_step *s = &les->steps[i];
		if (!s->wait || strcmp(s->wait, action) != 0)
			continue;
		char key[256];
		lesson_step_key(les, i, key, sizeof key);
		bool settled = i == run->step ? lesson_run_revealed(run) || run->unearned
		                              : progress_is_done(&app->learn.progress, key) ||
		                                    progress_is_shown(&app->learn.progress, key);
		if (!settled)
			return s;
	}
	return NULL;
}

bool learn_counts_hidden(const struct app *app)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_counts_hidden(run);
}

bool learn_marked(const struct app *app, enum mha_tensor t, int m, int r, int c)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_marked_at(run, app->layer, t, m, r, c);
}

bool learn_head_marked(const struct app *app, int h)
{
	const struct lesson_run *run = shown_run(app);
	return run && lesson_run_head_marked(run, h);
}
