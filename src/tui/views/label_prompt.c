/*
 * label_prompt.c - the sentence prompt modes. N: the tokens' labels typed
 * on the status line as words; Enter makes one token a word (n = the
 * number of words, other inputs kept where they fit), sets the labels and
 * gives each word its row of X from the core's table (mha_embed_words:
 * a repeated word shares its vector), as one undo level (app_replace);
 * Esc cancels. X: the same for the source sentence of cross-attention,
 * X_kv (m = its number of words, mha_embed_kv_words; an empty line turns
 * the source off: self-attention again). The session saves the labels
 * with everything else.
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

extern const struct mode_ops label_prompt_mode, source_prompt_mode;

/* Which of the two prompts is open: the source's (X) or the queries' (N). */
static bool is_source(const struct app *app)
{
	return app->mode == &source_prompt_mode;
}

/* The prompt's state, whichever of the two is open. */
static struct label_prompt *prompt_state(struct app *app)
{
	return mode_state(app, is_source(app) ? &source_prompt_mode : &label_prompt_mode);
}

/* N and X: the prompt, with the current labels to edit (X: the source's,
 * empty when there is none). */
static bool prompt_fill(struct app *app, bool src)
{
	struct label_prompt *p = mode_state(app, src ? &source_prompt_mode : &label_prompt_mode);
	if (!p)
		return false;
	*p = (struct label_prompt){ 0 };
	int len = 0, count = src ? app->cfg.m : app->cfg.n;
	for (int i = 0; i < count; i++)
		len += snprintf(p->text + len, sizeof p->text - (size_t)len, i ? " %s" : "%s",
		                src ? app->w.kv_labels[i] : app->w.labels[i]);
	return true;
}

static bool label_enter(struct app *app)
{
	return prompt_fill(app, false);
}

static bool source_enter(struct app *app)
{
	return prompt_fill(app, true);
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

/* The new source: m words, their labels, their rows of X_kv; no word:
 * no source (self-attention). Where the keys' axis changes sequence (on
 * or off) the padding and the cells hidden by hand, which name keys, are
 * cleared; causal is turned off (no token of one sequence comes after a
 * token of another). */
static unsigned set_source(struct app *app, const char *text)
{
	char labels[MHA_MAX_KV_TOKENS][MHA_LABEL_MAX], msg[MHA_MSG_MAX];
	int m = text[strspn(text, " \t")] ? mha_text_split(text, labels, MHA_MAX_KV_TOKENS, msg, sizeof msg) : 0;
	if (m < 0) {
		app_message(app, true, "not changed: %s", msg);
		return APP_REDRAW;
	}
	struct mha_config next = app->cfg;
	next.m = m;
	bool axis = (m > 0) != (app->cfg.m > 0), causal = m > 0 && next.causal;
	if (axis) {
		next.pad = 0;
		memset(next.hide, 0, sizeof next.hide);
	}
	next.causal = next.causal && m == 0;
	int keys = mha_keys(&next);
	if (next.top_k > keys)
		next.top_k = keys;
	if (next.window > (next.n > keys ? next.n : keys))
		next.window = next.n > keys ? next.n : keys;
	struct mha_weights nw;
	msg[0] = '\0';
	if (mha_config_check(&next, msg, sizeof msg) != MHA_OK || mha_weights_alloc(&nw, &next) != MHA_OK) {
		app_message(app, true, "not changed: %s", msg[0] ? msg : "out of memory");
		return APP_REDRAW;
	}
	mha_weights_init(&nw, &next, app->cfg.seed);
	mha_weights_carry(&nw, &next, &app->w, &app->cfg);
	if (m > 0) {
		memcpy(nw.kv_labels, labels, (size_t)m * MHA_LABEL_MAX);
		mha_embed_kv_words(&nw, &next, next.seed);
	}
	unsigned f = app_replace(app, &next, &nw);
	if (!(f & APP_RECOMPUTE))
		return f;
	if (m == 0)
		app_message(app, false, "no source: self-attention, K and V from X again (%s undoes)",
		            mode_key_name(app, "undo"));
	else
		app_message(app, false, "source X_kv: %d tokens, one a word; Q from X, K and V from X_kv%s (%s undoes)",
		            m, causal ? "; causal off" : axis && (app->cfg.pad || app->cfg.window) ? "; padding cleared" : "",
		            mode_key_name(app, "undo"));
	return f;
}

static unsigned label_cancel(struct app *app)
{
	return prompt_cancel(app, is_source(app) ? "source unchanged" : "sentence unchanged");
}

static unsigned label_set(struct app *app)
{
	struct label_prompt *p = prompt_state(app);
	bool src = is_source(app); /* asked before prompt_take gives the keys back */
	if (!prompt_take(app, &p->overflow, sizeof p->text))
		return APP_REDRAW;
	return src ? set_source(app, p->text) : set_sentence(app, p->text);
}

static unsigned label_type(struct app *app, int key)
{
	struct label_prompt *p = prompt_state(app);
	prompt_type(p->text, sizeof p->text, &p->overflow, key);
	return APP_REDRAW;
}

/* "words: the cat sat_   (Enter: one token a word, Esc cancels)", the
 * end of the line when it is longer than the status line */
static bool label_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	bool src = app->mode == &source_prompt_mode;
	const struct label_prompt *p = mode_state_if(app, src ? &source_prompt_mode : &label_prompt_mode);
	char line[sizeof p->text + 64];
	const char *tail = src ? "_   (Enter: X_kv a row a word, none: off; Esc)" : "_   (Enter: a token a word; Esc cancels)";
	const char *head = src ? "source: " : "words: ", *text = p ? p->text : "";
	int room = r.w - (int)strlen(head) - (int)strlen(tail), len = (int)strlen(text);
	const char *shown = len > room && room > 0 ? text + (len - room) : text;
	while (((unsigned char)*shown & 0xc0) == 0x80)
		shown++; /* from a character's first byte: never half of one */
	snprintf(line, sizeof line, "%s%s%s", head, shown, tail);
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

static const struct action source_opener = {
	.keys = { 'X' }, .label = "X", .name = "source", .help = "cross-attention source", .group = "General", .id = "source",
};

static const struct action source_keys[] = {
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "set",
	  .help = "one source token a word, X_kv a row each; no word: no source", .call = label_set, .id = "source-set" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "cancel", .help = "keep the source as it was",
	  .call = label_cancel, .id = "source-cancel" },
	{ .keys = { 0 } },
};

const struct mode_ops source_prompt_mode = {
	.name = "source prompt",
	.prompt = true,
	.opener = &source_opener,
	.keys = source_keys,
	.state_size = sizeof(struct label_prompt),
	.enter = source_enter,
	.type = label_type,
	.status = label_status,
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
