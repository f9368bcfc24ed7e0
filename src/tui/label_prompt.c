/*
 * label_prompt.c - the sentence prompt mode (N): the tokens' labels typed
 * on the status line as words; Enter makes one token a word (n = the
 * number of words, other inputs kept where they fit), sets the labels and
 * gives each word its row of X from the core's table (mha_embed_words:
 * a repeated word shares its vector), as one undo level (app_replace);
 * Esc cancels. The session saves the labels with everything else.
 */
#include "label_prompt.h"

#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

unsigned label_prompt_open(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	mode_enter(app, MODE_LABELS);
	app->typed_overflow = false;
	int len = 0;
	app->text_edit[0] = '\0';
	for (int i = 0; i < app->cfg.n; i++)
		len += snprintf(app->text_edit + len, sizeof app->text_edit - (size_t)len, i ? " %s" : "%s",
		                app->w.labels[i]);
	return APP_REDRAW;
}

/* The new sentence: n words, their labels, their rows of X. */
static unsigned set_sentence(struct app *app)
{
	char labels[MHA_MAX_TOKENS][MHA_LABEL_MAX], msg[MHA_MSG_MAX];
	int n = mha_text_split(app->text_edit, labels, MHA_MAX_TOKENS, msg, sizeof msg);
	if (n < 0) {
		app_message(app, true, "not changed: %s", msg);
		return APP_REDRAW;
	}
	struct mha_config next = app->cfg;
	next.n = n;
	if (next.top_k > n)
		next.top_k = n;
	if (next.window > n)
		next.window = n;
	struct mha_weights nw;
	if (mha_config_check(&next, msg, sizeof msg) != MHA_OK || mha_weights_alloc(&nw, &next) != MHA_OK) {
		app_message(app, true, "not changed: %s", msg[0] ? msg : "out of memory");
		return APP_REDRAW;
	}
	/* the other inputs as they are (new cells from the seed), then the words */
	mha_weights_init(&nw, &next, app->cfg.seed);
	mha_weights_carry(&nw, &next, &app->w, &app->cfg);
	memcpy(nw.labels, labels, (size_t)n * MHA_LABEL_MAX);
	mha_embed_words(&nw, &next, next.seed);
	unsigned f = app_replace(app, &next, &nw);
	if (f & APP_RECOMPUTE)
		app_message(app, false, "%d tokens, one a word; X: each word's row (%s undoes)", n,
		            actions_key_name("undo"));
	return f;
}

static unsigned label_key(struct app *app, int key)
{
	if (key == PROMPT_ESC) {
		mode_leave(app);
		app_message(app, false, "sentence unchanged");
		return APP_REDRAW;
	}
	if (prompt_is_enter(key)) {
		mode_leave(app);
		if (prompt_refuse_overflow(app, sizeof app->text_edit))
			return APP_REDRAW;
		return set_sentence(app);
	}
	prompt_type(app, app->text_edit, sizeof app->text_edit, key);
	return APP_REDRAW;
}

/* "words: the cat sat_   (Enter: one token a word, Esc cancels)", the
 * end of the line when it is longer than the status line */
static bool label_status(const struct app *app, struct rect r)
{
	char line[sizeof app->text_edit + 64];
	const char *tail = "_   (Enter: a token a word; Esc cancels)";
	int room = r.w - 7 - (int)strlen(tail), len = (int)strlen(app->text_edit);
	const char *shown = len > room && room > 0 ? app->text_edit + (len - room) : app->text_edit;
	snprintf(line, sizeof line, "words: %s%s", shown, tail);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

const struct mode_ops label_prompt_mode = {
	.name = "sentence prompt",
	.prompt = true,
	.key = label_key,
	.status = label_status,
};
