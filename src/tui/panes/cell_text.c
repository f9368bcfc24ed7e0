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
	return notation_cell_cross(buf, len, c, labels ? (const char(*)[MHA_LABEL_MAX])app->w.labels : NULL, app->cfg.n,
	                           labels ? (const char(*)[MHA_LABEL_MAX])app->w.kv_labels : NULL, app->cfg.m,
	                           theme_utf8());
}

char *cell_text_write_name(const struct app *app, const struct cell *c, int head, bool labels, char *buf,
                           size_t len)
{
	/* Y's cell in the one notation, its name swapped for C_i: "C₁[2 sat,3]" */
	char y[NOTATION_MAX], ci[16];
	cell_text_name(app, c, labels, y, sizeof y);
	notation_sub_name(ci, sizeof ci, "C", head, theme_utf8());
	snprintf(buf, len, "%s%s", ci, y + strcspn(y, "["));
	return buf;
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

/* Y's cell, head by head: " = C₀ 0.05 + C₁ -0.32 + b^O 0.1" (each head's
 * write, pipeline_head_write); on a head's write C_i, which cell of Y it is
 * a share of: " of Y[2,3] = 0.41". digits per number; "" when it is not Y. */
static void share_text(const struct app *app, const struct cell *c, const struct panel *p, int digits, char *buf,
                       size_t len)
{
	buf[0] = '\0';
	if (c->t != MHA_T_Y || app->stage != PIPELINE_OUTPUT)
		return;
	char v[32], name[NOTATION_MAX];
	if (p->write) {
		fmt_sig(v, sizeof v, app->a.y[(size_t)c->r * app->cfg.d + c->c], digits);
		snprintf(buf, len, " of %s = %s", cell_text_name(app, c, false, name, sizeof name), v);
		return;
	}
	size_t l = (size_t)snprintf(buf, len, " = ");
	for (int i = 0; i < app->cfg.h && l < len; i++) {
		fmt_sig(v, sizeof v, (float)pipeline_head_write(&app->cfg, &app->w, &app->a, app->layer, i, c->r, c->c), digits);
		l += (size_t)snprintf(buf + l, len - l, "%s%s %s", i ? " + " : "", notation_sub_name(name, sizeof name, "C", i, theme_utf8()), v);
	}
	if (app->cfg.bias && l < len) {
		fmt_sig(v, sizeof v, app->w.bo[c->c], digits);
		snprintf(buf + l, len - l, " + b^O %s", v);
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
		for (int share = 1; share >= 0; share--)
			for (int deps = MHA_T_COUNT; deps >= 0; deps--)
				for (int k = 1; k >= 0; k--)
					for (int labels = 1; labels >= 0; labels--) {
						char name[NOTATION_MAX], val[48], from[256], sh[APP_STATUS_MAX];
						cell_text_name(app, c, labels, name, sizeof name);
						if (p->write) /* head i's write: C_i[r,c], not Y's cell */
							cell_text_write_name(app, c, p->write_head, labels, name, sizeof name);
						fmt_sig(val, sizeof val, v, digits);
						if (hidden)
							snprintf(val, sizeof val, "? (answer first: %s)", mode_key_name(app, "answer"));
						deps_text(app, c, p->write ? 0 : deps, from, sizeof from);
						sh[0] = '\0';
						if (share && !hidden)
							share_text(app, c, p, digits < 4 ? digits : 4, sh, sizeof sh);
						snprintf(buf, len, "%s = %s%s%s%s", name, val, sh, from, k ? keys : "");
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
