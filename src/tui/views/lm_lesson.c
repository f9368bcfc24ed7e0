/*
 * lm_lesson.c - the language model's view in a lesson step (@model,
 * lessons/README.md): the step owns the view, which puts the step's
 * sentence through the model onto the lesson's bench; what the lesson's
 * goals and answers read (struct lesson_model_live: each head's measure
 * on the sentence through the model as shipped, the heads off now, the
 * positions whose predictions moved) copied into the step's run after
 * every forward pass; the predictions and heads kept hidden while the
 * step's question waits (@hide model); the solution's "model head KIND
 * off" applied. The measures are train_head_measure's (src/train); the
 * lesson library judges them (src/lesson/model_step.c). No drawing here.
 */
#include <string.h>

#include "lm_view_int.h"
#include "mode.h"
#include "nav.h"

const char *lm_lesson_sentence(const struct app *app)
{
	const struct app_learn *l = &app->learn;
	return l->open && l->active && l->run.lesson ? lesson_run_step(&l->run)->model : NULL;
}

bool lm_lesson_hides(const struct app *app)
{
	return lm_lesson_sentence(app) && lesson_run_model_hidden(&app->learn.run);
}

/* The lesson's kinds, as train_head_measure scores them. */
static const int kind_of[LESSON_MODEL_KINDS] = {
	[LESSON_MODEL_PREVIOUS] = TRAIN_HEAD_PREVIOUS, [LESSON_MODEL_FIRST] = TRAIN_HEAD_FIRST,
	[LESSON_MODEL_CURRENT] = TRAIN_HEAD_SELF, [LESSON_MODEL_SAME] = TRAIN_HEAD_SAME,
	[LESSON_MODEL_INDUCTION] = TRAIN_HEAD_INDUCTION,
};

void lm_lesson_measure(struct lm_view *s)
{
	char labels[MHA_MAX_TOKENS][MHA_LABEL_MAX];
	for (int i = 0; i < s->n; i++)
		snprintf(labels[i], MHA_LABEL_MAX, "%s", s->v.word[s->ids[i]]);
	for (int l = 0; l < s->m.s.layers; l++) {
		struct mha_config c = train_layer_config(&s->m, l);
		c.n = s->n;
		for (int i = 0; i < s->m.s.h; i++) {
			struct train_head_measure hm;
			train_head_measure(&c, (const char(*)[MHA_LABEL_MAX])labels, s->bt.acts[l * s->bt.cap_b].weights, i,
			                   &hm);
			for (int k = 0; k < TRAIN_HEAD_KINDS; k++)
				s->shipped_score[l * s->m.s.h + i][k] = hm.scored[k] ? hm.score[k] : 0.0;
		}
	}
}

void lm_lesson_live(struct app *app, const struct lm_view *s)
{
	struct lesson_model_live *v = &app->learn.run.model;
	bool was = v->ok;
	memset(v, 0, sizeof *v);
	const char *text = lm_lesson_sentence(app);
	const int L = s->m.s.layers, H = s->m.s.h;
	if (!text || !s->live || !s->lesson || strcmp(text, s->sentence) != 0 || L * H > LESSON_MODEL_HEADS_MAX)
		return;
	v->layers = L;
	v->heads = H;
	v->n = s->n;
	for (int i = 0; i < L * H; i++) {
		for (int k = 0; k < LESSON_MODEL_KINDS; k++)
			v->score[i][k] = s->shipped_score[i][kind_of[k]];
		v->off[i] = s->m.head_off[i / H][i % H];
	}
	for (int i = 0; i < s->n; i++) {
		v->top1_changed[i] = s->top_id[i * TOP] != s->base_id[i * TOP];
		for (int k = 0; k < TOP; k++)
			v->next_changed[i] |= s->top_id[i * TOP + k] != s->base_id[i * TOP + k] ||
			                      s->top_p[i * TOP + k] != s->base_p[i * TOP + k];
	}
	v->ok = true;
	/* an answer given before (a resumed step) could not be checked until
	 * now: it stands again (the caller evaluates next) */
	if (!was)
		lesson_progress_restore(&app->learn.run, &app->learn.progress);
}

bool lm_lesson_refuse(struct app *app)
{
	if (!lm_lesson_hides(app))
		return false;
	app_message(app, true, "predict first: %s answers the step's question; then the predictions and the heads show",
	            mode_key_name(app, "answer"));
	return true;
}
