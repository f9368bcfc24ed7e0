/*
 * label_prompt.c - the sentence prompt mode (N): the tokens' labels typed
 * on the status line as words; Enter makes one token a word (n = the
 * number of words, other inputs kept where they fit), sets the labels and
 * gives each word its row of X from the core's table (mha_embed_words:
 * a repeated word shares its vector), as one undo level (app_replace);
 * Esc cancels. The session saves the labels with everything else.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

/* The prompt's own state: the sentence being typed. */
struct label_prompt {
	char text[MHA_MAX_TOKENS * MHA_LABEL_MAX];
	bool overflow; /* a character did not fit: Enter refuses the line */
};

extern const struct mode_ops label_prompt_mode;

/* N: the prompt, with the current labels to edit. */
static bool label_enter(struct app *app)
{
	struct label_prompt *p = mode_state(app, &label_prompt_mode);
	if (!p)
		return false;
	*p = (struct label_prompt){ 0 };
	int len = 0;
	for (int i = 0; i < app->cfg.n; i++)
		len += snprintf(p->text + len, sizeof p->text - (size_t)len, i ? " %s" : "%s", app->w.labels[i]);
	return true;
}

/* The new sentence: n words, their labels, their rows of X. */
static unsigned set_sentence(struct app *app, const char *text)
{
	char labels[MHA_MAX_TOKENS][MHA_LABEL_MAX], msg[MHA_MSG_MAX];
	int n = mha_text_split(text, labels, MHA_MAX_TOKENS, msg, sizeof msg);
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
		            mode_key_name(app, "undo"));
	return f;
}

static unsigned label_cancel(struct app *app)
{
	return prompt_cancel(app, "sentence unchanged");
}

static unsigned label_set(struct app *app)
{
	struct label_prompt *p = mode_state(app, &label_prompt_mode);
	if (!prompt_take(app, &p->overflow, sizeof p->text))
		return APP_REDRAW;
	return set_sentence(app, p->text);
}

static unsigned label_type(struct app *app, int key)
{
	struct label_prompt *p = mode_state(app, &label_prompt_mode);
	prompt_type(p->text, sizeof p->text, &p->overflow, key);
	return APP_REDRAW;
}

/* "words: the cat sat_   (Enter: one token a word, Esc cancels)", the
 * end of the line when it is longer than the status line */
static bool label_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	const struct label_prompt *p = mode_state_if(app, &label_prompt_mode);
	char line[sizeof p->text + 64];
	const char *tail = "_   (Enter: a token a word; Esc cancels)", *text = p ? p->text : "";
	int room = r.w - 7 - (int)strlen(tail), len = (int)strlen(text);
	const char *shown = len > room && room > 0 ? text + (len - room) : text;
	while (((unsigned char)*shown & 0xc0) == 0x80)
		shown++; /* from a character's first byte: never half of one */
	snprintf(line, sizeof line, "words: %s%s", shown, tail);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

static const struct action label_opener = {
	.keys = { 'N' }, .label = "N", .name = "words", .help = "type your own sentence", .group = "General",
	.id = "sentence",
};

static const struct action label_keys[] = {
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "set", .help = "one token a word, X a row each",
	  .call = label_set, .id = "sentence-set" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "cancel", .help = "keep the sentence as it was",
	  .call = label_cancel, .id = "sentence-cancel" },
	{ .keys = { 0 } },
};

const struct mode_ops label_prompt_mode = {
	.name = "sentence prompt",
	.prompt = true,
	.opener = &label_opener,
	.keys = label_keys,
	.state_size = sizeof(struct label_prompt),
	.enter = label_enter,
	.type = label_type,
	.status = label_status,
};
