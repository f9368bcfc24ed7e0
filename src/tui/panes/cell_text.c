/*
 * cell_text.c - the workbench's words for a cell: its name in the one
 * notation (notation.c) with the app's token labels, the status line's
 * readout ("P₀[2 sat, 0 the] = 0.35   from S₀[2,*]"), and the value beside
 * a heatmap, each fitted to its width by leaving parts out whole, never
 * by cutting a number. Text only: drawing it is the caller's.
 */
#include "cell_text.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "learn.h"
#include "mode.h"
#include "notation.h"
#include "pipeline.h"
#include "theme.h"
#include "wrap.h"

char *cell_text_name(const struct app *app, const struct cell *c, bool labels, char *buf, size_t len)
{
	return notation_cell(buf, len, c, labels ? (const char(*)[MHA_LABEL_MAX])app->w.labels : NULL, app->cfg.n,
	                     theme_utf8());
}

/* ", Q[2,0..3]" for each tensor c was computed from, at most max of them. */
static void deps_text(const struct app *app, const struct cell *c, int max, char *buf, size_t len)
{
	size_t l = 0;
	int n = 0;
	buf[0] = '\0';
	for (int t = 0; t < MHA_T_COUNT && n < max && l < len; t++) {
		struct cell_rect d;
		if (!pipeline_deps_rect(&app->cfg, c, (enum mha_tensor)t, &d))
			continue;
		char ref[NOTATION_MAX];
		notation_rect(ref, sizeof ref, &app->cfg, (enum mha_tensor)t, &d, theme_utf8());
		l += (size_t)snprintf(buf + l, len - l, "%s%s", n ? ", " : "   from ", ref);
		n++;
	}
}

void cell_text_status(const struct app *app, const struct cell *c, const struct panel *p, int width, char *buf,
                      size_t len)
{
	const struct app_cursor *cu = &app->cur[app->stage];
	float v = app_panel_value(app, p, cu->row, cu->col);
	bool hidden = learn_hidden(app, c->t, c->m, c->r, c->c);
	char keys[96] = "";
	if (mha_tensor_info(c->t)->input && !p->proof)
		snprintf(keys, sizeof keys, "   %s edits, %s/%s nudge", mode_key_name(app, "edit"),
		         mode_key_name(app, "nudge-up"), mode_key_name(app, "nudge-down"));
	/* the fullest form that fits: labels, keys, then the sources (the
	 * last first) go whole; then the value's digits */
	for (int digits = 9; digits >= 3; digits--)
		for (int deps = MHA_T_COUNT; deps >= 0; deps--)
			for (int k = 1; k >= 0; k--)
				for (int labels = 1; labels >= 0; labels--) {
					char name[NOTATION_MAX], val[48], from[256];
					cell_text_name(app, c, labels, name, sizeof name);
					fmt_sig(val, sizeof val, v, digits);
					if (hidden)
						snprintf(val, sizeof val, "? (answer first: %s)", mode_key_name(app, "answer"));
					deps_text(app, c, deps, from, sizeof from);
					snprintf(buf, len, "%s = %s%s%s", name, val, from, k ? keys : "");
					if (lesson_utf8_width(buf) <= width)
						return;
				}
	/* narrower than a name and a value: the caller's cut is all there is */
}

int cell_text_value(const struct app *app, const struct cell *c, float v, bool hidden, bool labels, int width,
                    int min_digits, char *buf, size_t len)
{
	for (int digits = 9; digits >= min_digits; digits--)
		for (int with = labels; with >= 0; with--) {
			char name[NOTATION_MAX], val[32];
			fmt_sig(val, sizeof val, v, digits);
			snprintf(buf, len, "%s=%s", cell_text_name(app, c, with, name, sizeof name), hidden ? "?" : val);
			int w = lesson_utf8_width(buf);
			if (w <= width)
				return w;
		}
	snprintf(buf, len, "%s", "");
	return -1;
}
