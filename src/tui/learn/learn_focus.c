/*
 * learn_focus.c - where a lesson step puts the learner's eyes: its @focus
 * stage, the head it highlights (its heatmap page in view), and the cursor
 * on the first cell it highlights, both on the focused stage and where
 * that input is edited. It moves the view only, never the model.
 */
#include "learn_focus.h"

#include "mode.h"

/* Put the cursor of stage st on cell (m, r, c) of tensor t when that
 * stage's screen shows it. */
static bool place_cursor(struct app *app, enum pipeline_stage st, enum mha_tensor t, int m, int r, int c)
{
	struct stage_view v;
	stage_view_layer(st, &app->cfg, app->layer, app->head, app->proj, &v);
	for (int i = 0; i < v.count; i++) {
		const struct panel *p = &v.p[i];
		if (p->t != t || p->proof || p->write || p->m != m || c < p->col0 || c >= p->col0 + p->cols || r >= p->rows)
			continue;
		app->cur[st] = (struct app_cursor){ i, r, c - p->col0 };
		return true;
	}
	return false;
}

/* The stage where an input is edited, and which projection shows it. */
static int input_home(enum mha_tensor t, enum proj *proj)
{
	switch (t) {
	case MHA_T_X: return PIPELINE_PROJECTION;
	case MHA_T_WQ: *proj = PROJ_Q; return PIPELINE_PROJECTION;
	case MHA_T_WK: *proj = PROJ_K; return PIPELINE_PROJECTION;
	case MHA_T_WV: *proj = PROJ_V; return PIPELINE_PROJECTION;
	case MHA_T_WO: return PIPELINE_OUTPUT;
	default: return -1;
	}
}

/* @focus selects the stage; @highlight head H shows that head; the first
 * highlighted cell gets the cursor on the focused stage, and an input's
 * first highlighted cell gets it where that input is edited, so the keys
 * the lesson asks for start from the right cell. */
void learn_point_at(struct app *app, const struct lesson_step *s)
{
	if (s->focus >= 0)
		app->stage = (enum pipeline_stage)s->focus;
	if (s->focus_layer >= 0) /* "@focus layer 1 Scores" */
		app_layer_set(app, s->focus_layer);
	/* every step starts at head 0 (or its highlighted head), its page in
	 * view: a head picked in the step before would leave the cursors on a
	 * head the text does not speak of */
	app->head = 0;
	for (int i = 0; i < s->nmarks; i++)
		if (s->marks[i].is_head && s->marks[i].head < app->cfg.h)
			app->head = s->marks[i].head;
	bool focus_done = false, home_done[PIPELINE_STAGE_COUNT] = { false };
	for (int i = 0; i < s->nmarks; i++) {
		const struct lesson_ref *ref = &s->marks[i].ref;
		if (s->marks[i].is_head)
			continue;
		int m = ref->r[0].lo, r = ref->r[1].lo, c = ref->r[2].lo;
		if (!focus_done && s->focus >= 0) {
			int keep = app->head;
			if (ref->t == MHA_T_SCORES || ref->t == MHA_T_WEIGHTS || ref->t == MHA_T_HEADS)
				app->head = m < app->cfg.h ? m : app->head;
			focus_done = place_cursor(app, (enum pipeline_stage)s->focus, ref->t, m, r, c);
			if (!focus_done)
				app->head = keep;
		}
		enum proj proj = app->proj;
		int home = input_home(ref->t, &proj);
		if (home >= 0 && home != s->focus && !home_done[home]) {
			enum proj keep = app->proj;
			app->proj = proj;
			home_done[home] = place_cursor(app, (enum pipeline_stage)home, ref->t, 0, r, c);
			if (!home_done[home])
				app->proj = keep;
		}
	}
	app->heat_page = app->heat_per_page > 0 ? app->head / app->heat_per_page : 0;
	app_clamp(app);
	mode_follow_step(app); /* @flash opens the FlashAttention view; other steps close the views */
}

