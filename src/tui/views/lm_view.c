/*
 * lm_view.c - the learner's own sentence through the language model
 * mha-tui trained on WordNet's glosses (W; doc/LANGUAGE_MODEL.md). W
 * tokenizes the workbench's sentence with the shipped tokenizer and puts
 * one layer of the real model on the workbench: X is the residual stream
 * entering that layer (x_0 = E[t] + P for layer 0), W^Q..W^O are the
 * layer's trained weights, so every stage is live and editable as any
 * other. The view shows the five most probable next tokens at every
 * position and an overview of every layer x head on the sentence, each
 * titled by what its map shows there (train_head_measure); Enter puts
 * the selected head's layer on the workbench, x switches the head off.
 *
 * How the model and the workbench meet: the bench holds layer l alone
 * (the workbench shows one layer). After every forward pass of the bench
 * (the recompute hook), its W's and heads off are written back into the
 * view's copy of the model, and the layers after l and the read-out run
 * on x_l + Y_l, the bench's own output (lm_forward_after, src/train): an
 * edit on the workbench reaches the predictions at once. The TUI computes
 * no attention here: the bench's forward is the core's, the rest the
 * train library's. Which layer the bench holds is known by the undo level
 * it was put there at: undoing past it goes back to the layer (or the toy
 * sentence) before, and a bench of another shape or sentence (a lesson's,
 * N's) is left alone.
 *
 * It does not save the model's edits (the session saves the bench as any
 * session: X, the layer's W's, the labels). In a lesson step with @model
 * the step owns the view and the lesson's bench holds the layer
 * (lm_lesson.c: what its goals read). g opens the generation page
 * (lm_generate.c), which decodes on this model as edited. The model is
 * the shipped one, or --model FILE's (app->lm_model).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "heatmap.h"
#include "lm.h"
#include "lm_view_int.h"
#include "mode.h"
#include "theme.h"
#include "train.h"

enum {
	WIDE_COLS = 150,    /* from here predictions and heads side by side */
	PRED_WORD_W = 9,    /* a predicted token's column on narrow terminals */
	LIST_ITEM_W = 22,   /* "> L0H0 previous word" and a gap: the overview as a list */
};

static void lm_done(void *state)
{
	struct lm_view *s = state;
	if (!s->loaded)
		return;
	lm_batch_free(&s->bt);
	train_model_free(&s->m);
	lm_vocab_free(&s->v);
	s->loaded = false;
}

static bool load(const struct app *app, struct lm_view *s)
{
	if (s->loaded)
		return true;
	char msg[4400];
	if (lm_model_open(app->lm_model, s->path, sizeof s->path, &s->m, &s->v, &s->meta, msg, sizeof msg) != 0) {
		snprintf(s->why, sizeof s->why, "%.500s", msg);
		return false;
	}
	if ((size_t)s->m.s.n * s->m.s.d > sizeof s->x0 / sizeof s->x0[0] ||
	    lm_batch_alloc(&s->bt, &s->m, 1, 1) != MHA_OK) {
		snprintf(s->why, sizeof s->why, "the model is larger than the workbench holds");
		train_model_free(&s->m);
		lm_vocab_free(&s->v);
		return false;
	}
	s->loaded = true;
	return true;
}

/* The top TOP of every position from the probabilities in s->bt. */
static void read_top(struct lm_view *s, int *ids, float *p)
{
	const int V = s->m.s.classes;
	for (int i = 0; i < s->n; i++)
		lm_top_k(s->bt.logits + (size_t)i * V, V, TOP, ids + i * TOP, p + i * TOP);
}

/* Layer l of the model on the sentence as the bench's inputs: the
 * streams from x0 through the layers below (the model as edited), then
 * X = x_l and the layer's W's. */
static int layer_bench(struct lm_view *s, int l, struct mha_config *c, struct mha_weights *w)
{
	lm_forward_from(&s->m, &s->bt, 0, s->n, s->x0);
	*c = train_layer_config(&s->m, l);
	c->n = s->n;
	if (mha_weights_alloc(w, c) != MHA_OK)
		return -1;
	const size_t dd = (size_t)s->m.s.d * s->m.s.h * s->m.s.dk;
	memcpy(w->x, lm_stream_at(&s->m, &s->bt, l, 0), sizeof(float) * (size_t)s->n * s->m.s.d);
	memcpy(w->wq, s->m.wq[l], sizeof(float) * dd);
	memcpy(w->wk, s->m.wk[l], sizeof(float) * dd);
	memcpy(w->wv, s->m.wv[l], sizeof(float) * dd);
	memcpy(w->wo, s->m.wo[l], sizeof(float) * dd);
	for (int i = 0; i < s->n; i++)
		snprintf(w->labels[i], MHA_LABEL_MAX, "%s", s->v.word[s->ids[i]]);
	return 0;
}

/* Put layer l on the bench as one undo level; remembered as a link. */
static bool put_layer(struct app *app, struct lm_view *s, int l)
{
	struct mha_config c;
	struct mha_weights w;
	if (layer_bench(s, l, &c, &w) != 0) {
		app_message(app, true, "out of memory for the language model's layer");
		return false;
	}
	app_replace(app, &c, &w);
	if (s->links == LINKS) { /* the oldest goes: undo past it leaves the model */
		memmove(s->link, s->link + 1, sizeof s->link[0] * (LINKS - 1));
		s->links--;
	}
	s->link[s->links++] = (struct lm_link){ app->undo_count, l };
	s->layer = l;
	app->head = s->sel_layer == l ? s->sel_head : 0;
	app_recompute(app);
	return true;
}

/* The workbench's sentence: its labels joined by blanks. */
static void sentence_of(const struct app *app, char *out, size_t len)
{
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < app->cfg.n && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, i ? " %s" : "%s", app->w.labels[i]);
}

/* Does the bench hold the model's layer on this sentence? */
static bool bench_is_model(const struct app *app, const struct lm_view *s)
{
	const struct mha_config *c = &app->cfg;
	if (!s->loaded || s->links == 0 || s->lesson != app->learn.active || c->n != s->n || c->d != s->m.s.d || c->h != s->m.s.h || c->g != c->h ||
	    c->dk != s->m.s.dk || c->m != 0 || c->layers > 1 || c->bias || c->pos != MHA_POS_NONE)
		return false;
	for (int i = 0; i < s->n; i++)
		if (strcmp(app->w.labels[i], s->v.word[s->ids[i]]) != 0)
			return false;
	return true;
}

/* The sentence through the model: tokens, the shipped model's
 * predictions, layer 0 on the bench. */
static bool open_sentence(struct app *app, struct lm_view *s, const char *text)
{
	int total = lm_split_text(text, NULL, 0);
	if (total < 1 || total > s->m.s.n) {
		app_message(app, true, "the language model reads 1 to %d tokens (words and punctuation marks "
		            "count one each); this sentence has %d: %s shortens it", s->m.s.n, total,
		            mode_key_name(app, "sentence"));
		return false;
	}
	struct lm_piece pc[MHA_MAX_TOKENS];
	s->n = lm_encode(&s->v, text, s->ids, pc, total);
	for (int i = 0; i < s->n; i++)
		snprintf(s->typed[i], MHA_LABEL_MAX, "%.*s", pc[i].len, text + pc[i].start);
	/* the model as shipped: reloaded, so that edits of another sentence go */
	lm_done(s);
	if (!load(app, s))
		return false;
	lm_embed(&s->m, s->ids, s->n, s->x0);
	lm_forward_from(&s->m, &s->bt, 0, s->n, s->x0);
	read_top(s, s->base_id, s->base_p);
	lm_lesson_measure(s);
	snprintf(s->sentence, sizeof s->sentence, "%s", text);
	s->lesson = app->learn.active;
	s->links = 0;
	s->sel_layer = s->sel_head = 0;
	s->scroll = 0;
	return put_layer(app, s, 0);
}

/* W: load the model, and put the workbench's sentence through it unless
 * the bench holds it already. */
static bool lm_enter(struct app *app);

bool lm_view_ready(struct app *app)
{
	const struct lm_view *s = mode_state_if(app, &lm_view_mode);
	return (s && s->live) || (lm_enter(app) && (s = mode_state_if(app, &lm_view_mode)) && s->live);
}

static bool lm_enter(struct app *app)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	if (!s)
		return false;
	const char *step_text = lm_lesson_sentence(app);
	if (app->learn.active && !step_text) { /* a lesson's bench is the lesson's: the model goes on the learner's own */
		app_message(app, true, "the language model goes on your own workbench, not a lesson's: %s "
		            "goes there first", mode_key_name(app, "leave"));
		return false;
	}
	if (!load(app, s)) {
		app_message(app, true, "no language model: %s", s->why);
		return false;
	}
	if (step_text) { /* the step's sentence (@model), as the step left it or afresh */
		if (bench_is_model(app, s) && !strcmp(s->sentence, step_text))
			return true;
		if (!open_sentence(app, s, step_text))
			return false;
		app_message(app, false, "\"%s\": %d tokens through the language model", step_text, s->n);
		return true;
	}
	if (bench_is_model(app, s))
		return true;
	char text[MHA_MAX_TOKENS * MHA_LABEL_MAX];
	sentence_of(app, text, sizeof text);
	bool source = app->cfg.m > 0; /* the model is self-attention: its layer has no source */
	if (!open_sentence(app, s, text))
		return false;
	app_message(app, false, "\"%s\": %d tokens through the language model; layer 0 on the workbench%s "
	            "(%s undoes)", text, s->n, source ? ", the source set aside" : "", mode_key_name(app, "undo"));
	return true;
}

/* After every forward pass of the bench: its layer back into the model,
 * then the layers after it and the read-out on its output. */
static void lm_recompute(struct app *app)
{
	struct lm_view *s = mode_state_if(app, &lm_view_mode);
	if (!s || !s->loaded)
		return;
	while (s->links > 0 && app->undo_count < s->link[s->links - 1].undo)
		s->links--; /* undone past the layer's arrival: the one before */
	s->live = bench_is_model(app, s);
	if (!s->live) {
		if (app->learn.active)
			lm_lesson_live(app, s); /* the lesson's goals see no model */
		return;
	}
	const int l = s->link[s->links - 1].layer;
	const size_t dd = (size_t)s->m.s.d * s->m.s.h * s->m.s.dk;
	s->layer = l;
	memcpy(s->m.wq[l], app->w.wq, sizeof(float) * dd);
	memcpy(s->m.wk[l], app->w.wk, sizeof(float) * dd);
	memcpy(s->m.wv[l], app->w.wv, sizeof(float) * dd);
	memcpy(s->m.wo[l], app->w.wo, sizeof(float) * dd);
	for (int i = 0; i < s->m.s.h; i++)
		s->m.head_off[l][i] = app->cfg.head_off[i];
	if (l == 0)
		memcpy(s->x0, app->w.x, sizeof(float) * (size_t)s->n * s->m.s.d);
	lm_forward_after(&s->m, &s->bt, l, s->n, app->w.x, app->a.y);
	read_top(s, s->top_id, s->top_p);
	if (s->lesson)
		lm_lesson_live(app, s);
}

/* ---- what a head does ---- */

/* Layer l's P (h, n, n) on the sentence: the bench's for its layer, the
 * model's run for the others. */
static const float *layer_weights(const struct app *app, const struct lm_view *s, int l)
{
	return l == s->layer ? app->a.weights : s->bt.acts[l * s->bt.cap_b].weights;
}

static bool head_off(const struct app *app, const struct lm_view *s, int l, int i)
{
	return l == s->layer ? app->cfg.head_off[i] : s->m.head_off[l][i];
}

/* "previous word", "current word", ...: what head i of layer l's map
 * shows on this sentence (train_head_measure); "off". */
static const char *head_title(const struct app *app, const struct lm_view *s, int l, int i)
{
	if (head_off(app, s, l, i))
		return "off";
	struct mha_config c = train_layer_config(&s->m, l);
	c.n = s->n;
	struct train_head_measure hm;
	int kind = train_head_measure(&c, (const char (*)[MHA_LABEL_MAX])app->w.labels, layer_weights(app, s, l), i, &hm);
	return train_head_kind_name(kind, false);
}

/* ---- drawing ---- */

static bool lm_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false;
	const struct lm_view *s = mode_state_if(app, &lm_view_mode);
	char line[200];
	if (s && s->live && lm_lesson_hides(app))
		snprintf(line, sizeof line, "predict first: %s answers; the predictions and heads show once you answer right",
		         mode_key_name(app, "answer"));
	else if (s && s->live)
		snprintf(line, sizeof line, "selected: L%dH%d (%s); layer %d is on the workbench; %s: generate",
		         s->sel_layer, s->sel_head, head_title(app, s, s->sel_layer, s->sel_head), s->layer,
		         mode_key_name(app, "model-generate"));
	else
		snprintf(line, sizeof line, "the workbench no longer holds the model: %s puts the sentence through it",
		         mode_key_name(app, "model"));
	draw_fit(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* "tokens: the dog saw zyzzyva=<unk>": the tokens, an unknown word as
 * typed, wrapped under the label; returns the last row used */
static int draw_tokens(const struct lm_view *s, int y, int x, int w, int bottom)
{
	const int indent = 8;
	int col = x + indent;
	draw_put(y, x, w, "tokens:", theme_attr(ROLE_DIM));
	for (int i = 0; i < s->n; i++) {
		char tok[2 * MHA_LABEL_MAX + 8];
		bool unk = s->ids[i] == LM_UNK;
		snprintf(tok, sizeof tok, unk ? "%s=<unk>" : "%s", unk ? s->typed[i] : s->v.word[s->ids[i]]);
		int tw = draw_width(tok);
		if (col + tw > x + w && col > x + indent) {
			if (y + 1 >= bottom)
				break;
			y++;
			col = x + indent;
		}
		draw_put(y, col, x + w - col, tok, theme_attr(unk ? ROLE_ERROR : ROLE_NORMAL));
		col += tw + 1;
	}
	return y;
}

void lm_prob_text(char *out, size_t len, float p)
{
	char v[16];
	snprintf(v, sizeof v, "%.3f", (double)p);
	snprintf(out, len, "%s", p < 1.0f && v[0] == '0' ? v + 1 : v);
}

/* The predictions from row y to bottom: a position a row. */
static void draw_predictions(const struct app *app, const struct lm_view *s, int y, int x, int w, int bottom)
{
	int word_w = w >= 110 ? LM_WORD_MAX : PRED_WORD_W;
	bool edited = false;
	for (int i = 0; i < s->n * TOP; i++)
		edited |= s->top_id[i] != s->base_id[i] || s->top_p[i] != s->base_p[i];
	char line[512];
	snprintf(line, sizeof line, "next token after each position, top %d%s", TOP,
	         edited ? " (* differs from the model as shipped: your edits)" : "");
	draw_fit(y++, x, w, line, theme_attr(ROLE_TITLE));
	int rows = bottom - y, first = s->scroll;
	if (first > s->n - rows)
		first = s->n - rows;
	if (first < 0)
		first = 0;
	for (int i = first; i < s->n && y < bottom; i++, y++) {
		bool differs = false;
		for (int k = 0; k < TOP; k++)
			differs |= s->top_id[i * TOP + k] != s->base_id[i * TOP + k] ||
			           s->top_p[i * TOP + k] != s->base_p[i * TOP + k];
		char tok[MHA_LABEL_MAX];
		heatmap_token_label(tok, sizeof tok, (const char (*)[MHA_LABEL_MAX])app->w.labels, s->n, i, word_w);
		int len = snprintf(line, sizeof line, "%c%2d %-*s", differs ? '*' : ' ', i, word_w, tok);
		draw_put(y, x, w, line, theme_attr(differs ? ROLE_CHANGED : ROLE_DIM));
		int col = x + len;
		for (int k = 0; k < TOP && col < x + w; k++) {
			char p[16], item[48];
			lm_prob_text(p, sizeof p, s->top_p[i * TOP + k]);
			snprintf(item, sizeof item, " %.*s %s", word_w, s->v.word[s->top_id[i * TOP + k]], p);
			int iw = draw_width(item);
			if (col + iw > x + w)
				break;
			draw_put(y, col, iw, item, k == 0 ? theme_attr(ROLE_NORMAL) | A_BOLD : theme_attr(ROLE_NORMAL));
			col += iw;
		}
	}
	if (first + rows < s->n && bottom - 1 >= 0) {
		snprintf(line, sizeof line, " ... %d more (Down)", s->n - first - rows);
		draw_put(bottom - 1, x, w, line, theme_attr(ROLE_DIM));
	}
}

/* The overview: a small map of every layer x head when they fit, else a
 * table of what each measures. */
static void draw_heads(const struct app *app, const struct lm_view *s, int y, int x, int w, int bottom,
                       struct hit_map *hits)
{
	(void)hits;
	const int L = s->m.s.layers, H = s->m.s.h;
	char line[256];
	draw_fit(y++, x, w, "every layer x head on your sentence (Enter: on the workbench)", theme_attr(ROLE_TITLE));
	struct heatmap hm;
	memset(&hm, 0, sizeof hm);
	hm.rows = hm.cols = s->n;
	int cell_w = 1;
	struct heatmap_size one = heatmap_measure(&hm, cell_w);
	for (int cw = 2; cw <= 3; cw++) { /* wider cells while the grid fits */
		struct heatmap_size t = heatmap_measure(&hm, cw);
		if (H * (t.cols + 1) <= w && L * t.rows <= bottom - y)
			one = t, cell_w = cw;
	}
	if (H * (one.cols + 1) > w || L * one.rows > bottom - y) {
		/* the table: a row a layer, a column a head; when a column
		 * cannot hold "h0 previous word", the heads as a list */
		int col_w = (w - 8) / H;
		if (col_w < LIST_ITEM_W - 2) {
			int per = w / LIST_ITEM_W > 0 ? w / LIST_ITEM_W : 1;
			for (int k = 0; k < L * H && y < bottom; k++) {
				int l = k / H, i = k % H;
				bool sel = l == s->sel_layer && i == s->sel_head;
				/* the selection marked in words too (NO_COLOR) */
				snprintf(line, sizeof line, "%c L%dH%d %s", sel ? '>' : ' ', l, i, head_title(app, s, l, i));
				draw_put(y, x + (k % per) * LIST_ITEM_W, LIST_ITEM_W - 1, line,
				         sel ? theme_attr(ROLE_SELECTED) : theme_head_attr(i));
				y += k % per == per - 1 || k == L * H - 1;
			}
			if (y < bottom)
				draw_put(y, x, w, "(a larger terminal shows each head's map)", theme_attr(ROLE_DIM));
			return;
		}
		for (int l = 0; l < L && y < bottom; l++, y++) {
			snprintf(line, sizeof line, "layer %d", l);
			draw_put(y, x, 8, line, theme_attr(ROLE_DIM));
			for (int i = 0; i < H; i++) {
				snprintf(line, sizeof line, "h%d %s", i, head_title(app, s, l, i));
				bool sel = l == s->sel_layer && i == s->sel_head;
				draw_put(y, x + 8 + i * col_w, col_w - 1, line,
				         sel ? theme_attr(ROLE_SELECTED) : theme_head_attr(i));
			}
		}
		if (y < bottom)
			draw_put(y, x, w, "(a larger terminal shows each head's map)", theme_attr(ROLE_DIM));
		return;
	}
	for (int l = 0; l < L; l++)
		for (int i = 0; i < H; i++) {
			char title[48], short_title[24];
			snprintf(title, sizeof title, "L%dH%d %s", l, i, head_title(app, s, l, i));
			snprintf(short_title, sizeof short_title, "L%dH%d", l, i);
			hm.m = layer_weights(app, s, l) + (size_t)i * s->n * s->n;
			hm.labels = (const char (*)[MHA_LABEL_MAX])app->w.labels;
			hm.title = title;
			hm.short_title = short_title;
			hm.off = head_off(app, s, l, i);
			hm.lo = 0;
			hm.hi = 1;
			hm.scale = HEATMAP_SCALE_FIXED;
			hm.cur_row = hm.cur_col = -1;
			bool sel = l == s->sel_layer && i == s->sel_head;
			hm.title_attr = sel ? theme_attr(ROLE_SELECTED) : theme_head_attr(i);
			heatmap_draw(stdscr, y + l * one.rows, x + i * (one.cols + 1), &hm, cell_w);
		}
}

static void lm_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	const struct lm_view *s = mode_state_if(app, &lm_view_mode);
	const struct rect r = b->info;
	const int bottom = r.y + r.h;
	int y = r.y;
	char line[256];
	if (!s || !s->loaded) {
		draw_put(y, r.x, r.w, "no language model loaded", theme_attr(ROLE_ERROR));
		return;
	}
	snprintf(line, sizeof line, "Your sentence through the language model, layer %d on the workbench (%d layers "
	         "x %d heads, d_model %d, trained on WordNet's glosses)", s->layer, s->m.s.layers, s->m.s.h, s->m.s.d);
	draw_fit(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
	if (!s->live) {
		snprintf(line, sizeof line, "The workbench holds another sentence or shape now: %s puts it through the model.",
		         mode_key_name(app, "model"));
		draw_fit(y + 1, r.x, r.w, line, theme_attr(ROLE_NORMAL));
		return;
	}
	y = draw_tokens(s, y, r.x, r.w, bottom) + 2;
	if (lm_lesson_hides(app)) { /* the step's question first */
		snprintf(line, sizeof line, "Predict first (%s answers): the predictions and every head's map show "
		         "once you answer right.", mode_key_name(app, "answer"));
		draw_fit(y, r.x, r.w, line, theme_attr(ROLE_DIM));
		return;
	}
	if (r.w >= WIDE_COLS) {
		int pw = r.w * 45 / 100;
		draw_predictions(app, s, y, r.x, pw, bottom);
		draw_heads(app, s, y, r.x + pw + 2, r.w - pw - 2, bottom, hits);
	} else if (s->heads_page) {
		draw_heads(app, s, y, r.x, r.w, bottom, hits);
	} else {
		draw_predictions(app, s, y, r.x, r.w, bottom);
	}
}

/* ---- keys ---- */

static unsigned lm_page(struct app *app)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	s->heads_page = !s->heads_page;
	return APP_REDRAW;
}

/* Up / Down: the predictions scroll; on the heads page, the layer */
static unsigned lm_move(struct app *app, int arg)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	if (!s->loaded)
		return 0;
	if (arg == 'l' || arg == 'h') {
		int h = s->sel_head + (arg == 'l' ? 1 : -1);
		s->sel_head = (h + s->m.s.h) % s->m.s.h;
	} else if (s->heads_page || arg == 'J' || arg == 'K') {
		int L = s->m.s.layers, l = s->sel_layer + (arg == 'j' || arg == 'J' ? 1 : -1);
		s->sel_layer = (l + L) % L;
	} else {
		int sc = s->scroll + (arg == 'j' ? 1 : -1);
		s->scroll = sc < 0 ? 0 : sc >= s->n ? s->n - 1 : sc;
	}
	return APP_REDRAW;
}

/* Enter: the selected head's layer on the workbench, the head selected */
static unsigned lm_open_head(struct app *app)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	if (!s->live)
		return 0;
	if (lm_lesson_refuse(app))
		return APP_REDRAW;
	if (s->sel_layer != s->layer && !put_layer(app, s, s->sel_layer))
		return APP_REDRAW;
	app->head = s->sel_head;
	app->stage = PIPELINE_SOFTMAX;
	mode_leave(app);
	app_message(app, false, "layer %d of the language model on the workbench, head %d (%s): edits reach the "
	            "predictions (%s)", s->layer, s->sel_head, head_title(app, s, s->layer, s->sel_head),
	            mode_key_name(app, "model"));
	return APP_RECOMPUTE | APP_REDRAW;
}

/* Head i of layer l off (off true) or on, its layer on the workbench
 * first, as one undo level; selected. */
static unsigned switch_head(struct app *app, struct lm_view *s, int l, int i, bool off)
{
	s->sel_layer = l;
	s->sel_head = i;
	if (l != s->layer && !put_layer(app, s, l))
		return APP_REDRAW;
	struct mha_config next = app->cfg;
	next.head_off[i] = off;
	unsigned f = app_change_config(app, &next, off ? "head off" : "head on");
	if (f & APP_RECOMPUTE)
		app_recompute(app); /* the predictions now, for the message */
	app_message(app, false, "layer %d head %d %s: the predictions follow (%s undoes)", l, i,
	            app->cfg.head_off[i] ? "off" : "on", mode_key_name(app, "undo"));
	return f | APP_REDRAW;
}

/* x: the selected head off / on (its layer on the workbench first) */
static unsigned lm_toggle_head(struct app *app)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	if (!s->live)
		return 0;
	if (lm_lesson_refuse(app))
		return APP_REDRAW;
	return switch_head(app, s, s->sel_layer, s->sel_head, !head_off(app, s, s->sel_layer, s->sel_head));
}

/* S in a lesson step: its "model head KIND off|on" edits, each on the
 * head the analysis names for KIND on the sentence (lesson_model_best). */
static void lm_solve(struct app *app)
{
	struct lm_view *s = mode_state_if(app, &lm_view_mode);
	if (!s || !s->live || !s->lesson || !lm_lesson_sentence(app))
		return;
	const struct lesson_step *st = lesson_run_step(&app->learn.run);
	for (int k = 0; k < st->nsolution; k++) {
		const struct lesson_edit *e = &st->solution[k];
		int best = e->kind == LESSON_EDIT_MODEL_HEAD
		         ? lesson_model_best(&app->learn.run.model, (enum lesson_model_kind)e->head) : -1;
		if (best >= 0)
			switch_head(app, s, best / s->m.s.h, best % s->m.s.h, e->off);
	}
}

/* The step's sentence is the view's: a lesson step with @model. */
static bool lm_owns_step(const struct app *app)
{
	return lm_lesson_sentence(app) != NULL;
}

/* The whole width; in a lesson step the side column for its pane. */
static struct body_layout lm_layout(const struct app *app, const struct frame *f, const struct layout *l, int cols)
{
	if (!lm_lesson_sentence(app) || l->side.w <= 0 || l->side.h <= 0)
		return mode_layout_wide(app, f, l, cols);
	struct body_layout b = { 0 };
	b.info = l->body;
	b.body_h = l->body.h;
	b.lesson = l->side;
	return b;
}

/* g: the generation page, on the model as it is now */
static unsigned lm_generate(struct app *app)
{
	struct lm_view *s = mode_state(app, &lm_view_mode);
	if (!s->live || lm_lesson_refuse(app))
		return APP_REDRAW;
	mode_open(app, &lm_gen_mode);
	return APP_REDRAW;
}

enum { FL = ACTION_BAR_BOTH };
static const struct action lm_opener = {
	.keys = { 'W' }, .label = "W", .name = "model", .help = "your sentence through the trained language model",
	.group = "Views", .shows = MODE_SHOWS_ALL, .id = "model",
};

static const struct action lm_keys[] = {
	{ .keys = { '\t' }, .label = "Tab", .name = "page", .help = "predictions / every head (narrow terminals)",
	  .call = lm_page, .id = "model-page", .bar = FL },
	{ .keys = { KEY_DOWN, 'j' }, .label = "Down j", .name = "scroll", .help = "Up/Down: the predictions scroll "
	  "(on the heads: the layer); Left/Right: the head", .help_keys = "arrows hjkl", .bar_keys = "Up Down",
	  .call_arg = lm_move, .arg = 'j', .id = "model-down", .bar = FL },
	{ .keys = { KEY_UP, 'k' }, .label = "Up k", .help = "the predictions scroll back; on the heads: the layer "
	  "before", .help_keys = "", .call_arg = lm_move, .arg = 'k', .id = "model-up" },
	{ .keys = { KEY_RIGHT, 'l' }, .label = "Right l", .name = "head", .help = "select the next head",
	  .help_keys = "", .bar_keys = "Left Right", .call_arg = lm_move, .arg = 'l', .id = "model-head-next",
	  .bar = FL },
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left h", .help = "select the head before", .help_keys = "",
	  .call_arg = lm_move, .arg = 'h', .id = "model-head-prev" },
	{ .keys = { 'J' }, .label = "J", .name = "layer", .help = "select the next layer", .help_keys = "J K",
	  .bar_keys = "J K", .call_arg = lm_move, .arg = 'J', .id = "model-layer-next" },
	{ .keys = { 'K' }, .label = "K", .help = "select the layer before", .help_keys = "", .call_arg = lm_move,
	  .arg = 'K', .id = "model-layer-prev" },
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "open",
	  .help = "the selected head's layer on the workbench, its maps in view", .call = lm_open_head,
	  .id = "model-open", .bar = FL },
	{ .keys = { 'x' }, .label = "x", .name = "head off/on", .help = "the selected head off / on: the "
	  "predictions follow", .call = lm_toggle_head, .id = "model-head-toggle", .bar = FL },
	{ .keys = { 'g' }, .label = "g", .name = "generate", .help = "generate from your sentence, a token a step "
	  "with a K/V cache (greedy or sampled)", .call = lm_generate, .id = "model-generate", .bar = FL },
	{ .use = "undo", .name = "undo", .help = "undo the last edit, head switched or layer put on the workbench",
	  .bar = FL },
	/* a lesson step on the model (@model): its question, hints and steps work here */
	{ .use = "answer", .bar = ACTION_BAR_LESSON },
	{ .use = "hint", .bar = ACTION_BAR_LESSON },
	{ .use = "solution", .bar = ACTION_BAR_LESSON },
	{ .use = "next", .bar = ACTION_BAR_LESSON },
	{ .use = "prev", .bar = ACTION_BAR_LESSON },
	{ .use = "leave", .bar = ACTION_BAR_LESSON },
	{ .use = "menu", .bar = ACTION_BAR_LESSON },
	{ .keys = { 0 } },
};

const struct mode_ops lm_view_mode = {
	.name = "language model",
	.opener = &lm_opener,
	.keys = lm_keys,
	.closed = true,
	.state_size = sizeof(struct lm_view),
	.enter = lm_enter,
	.done = lm_done,
	.recompute = lm_recompute,
	.owns_step = lm_owns_step,
	.solve = lm_solve,
	.status = lm_status,
	.layout = lm_layout,
	.body = lm_body,
};
