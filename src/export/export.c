/*
 * export.c - one computation exported for people outside the program:
 * export_py writes a standalone numpy script that holds the inputs and
 * every intermediate and checks each stage against its own float64
 * recomputation (proof for a sceptical colleague: the checking code is
 * check.py, a real Python file embedded at build time, handed the stage
 * labels as the pipeline writes them); export_svg writes the
 * heads' heatmaps of one stage as SVG (a picture for a slide). Both read
 * a finished forward pass; nothing is computed here but colours and
 * layout. The screen as text (txt) is the TUI's to render.
 */
#include "export.h"
#include "pipeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the numpy script ---- */

static void py_float(FILE *f, float v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", (double)v);
	else
		fputs(isnan(v) ? "float('nan')" : v > 0 ? "float('inf')" : "-float('inf')", f);
}

/* NAME = np.array(...) of count (rows, cols) blocks; count 0: one matrix. */
static void py_array(FILE *f, const char *name, const float *p, int count, int rows, int cols)
{
	fprintf(f, "%s = np.array(%s", name, count ? "[" : "");
	for (int b = 0; b < (count ? count : 1); b++) {
		fputs(b ? ",\n [" : "[", f);
		for (int r = 0; r < rows; r++) {
			fputs(r ? ",\n  [" : "[", f);
			for (int col = 0; col < cols; col++) {
				if (col)
					fputs(", ", f);
				py_float(f, p[((size_t)b * rows + r) * cols + col]);
			}
			fputc(']', f);
		}
		fputc(']', f);
	}
	fprintf(f, "%s, dtype=np.float64)\n", count ? "]" : "");
}

static void py_int_list(FILE *f, const char *key, const int *v, int len)
{
	fprintf(f, "    \"%s\": [", key);
	for (int i = 0; i < len; i++)
		fprintf(f, i ? ", %d" : "%d", v[i]);
	fputs("],\n", f);
}

/* TOKENS = ["the", ...]: labels as Python strings */
static void py_labels(FILE *f, const char *name, const char (*labels)[MHA_LABEL_MAX], int count)
{
	fprintf(f, "%s = [", name);
	for (int i = 0; i < count; i++) {
		fputs(i ? ", \"" : "\"", f);
		for (const char *s = labels[i]; *s; s++)
			fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
		fputc('"', f);
	}
	fputs("]\n", f);
}

static void py_config(FILE *f, const struct mha_config *c, const struct mha_weights *w)
{
	int list[MHA_MAX_TOKENS * MHA_MAX_TOKENS * 2], len = 0;
	fprintf(f, "CFG = {\n    \"n\": %d, \"d\": %d, \"h\": %d, \"g\": %d, \"dk\": %d,\n"
	        "    \"causal\": %s, \"top_k\": %d, \"scale\": %s, \"window\": %d, \"bias\": %s,\n"
	        "    \"pos\": \"%s\", \"pos_offset\": %d, \"m\": %d, \"layers\": %d,\n",
	        c->n, c->d, c->h, c->g, c->dk, c->causal ? "True" : "False", c->top_k,
	        c->scale ? "True" : "False", c->window, c->bias ? "True" : "False",
	        mha_pos_name(c->pos), c->pos_offset, c->m, c->layers);
	for (int i = 0; i < c->h; i++)
		if (c->head_off[i])
			list[len++] = i;
	py_int_list(f, "heads_off", list, len);
	len = 0;
	for (int t = 0; t < mha_keys(c); t++)
		if (mha_is_pad(c, t))
			list[len++] = t;
	py_int_list(f, "pad", list, len);
	len = 0;
	for (int i = 0; i < c->n && i < MHA_MAX_TOKENS; i++)
		for (int j = 0; j < mha_keys(c) && j < 64; j++)
			if ((c->hide[i] >> j) & 1u) {
				list[len++] = i;
				list[len++] = j;
			}
	py_int_list(f, "hidden", list, len); /* query, key, query, key, ... */
	fputs("}\n", f);
	py_labels(f, "TOKENS", (const char (*)[MHA_LABEL_MAX])w->labels, c->n);
	if (c->m > 0)
		py_labels(f, "KV_TOKENS", (const char (*)[MHA_LABEL_MAX])w->kv_labels, c->m);
	fputc('\n', f);
}

/* The checking half of the script: src/export/check.py, embedded at build
 * time (embed.py), a line a string; it defines main(CFG, STAGE, T). */
extern const char *const export_check_py[];

/* The stages by the names check.py knows them (its STAGE keys). */
static const char *const stage_names[PIPELINE_STAGE_COUNT] = {
	[PIPELINE_PROJECTION] = "PROJECTION", [PIPELINE_RESHAPE] = "RESHAPE", [PIPELINE_SCORES] = "SCORES",
	[PIPELINE_SOFTMAX] = "SOFTMAX", [PIPELINE_WEIGHTED_SUM] = "WEIGHTED_SUM", [PIPELINE_CONCAT] = "CONCAT",
	[PIPELINE_OUTPUT] = "OUTPUT",
};

/* STAGE = {"SCORES": "Scores", ...}: each label as the pipeline writes it. */
static void py_stages(FILE *f)
{
	fputs("STAGE = {\n", f);
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++)
		if (stage_names[s])
			fprintf(f, "    \"%s\": \"%s\",\n", stage_names[s], pipeline_stage_label((enum pipeline_stage)s));
	fputs("}\n", f);
}

/* "NAME" for layer 0, "NAME_l" for layer l: one layer's script reads as it always did */
static void py_name(char *buf, size_t len, const char *name, int l)
{
	if (l == 0)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s_%d", name, l);
}

/* Layer l's inputs: W_Q .. W_O (and b_Q .. b_O) */
static void py_layer_inputs(FILE *f, const struct mha_config *c, const struct mha_weights *w, int l)
{
	char name[32];
	for (enum mha_tensor t = MHA_T_WQ; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		py_name(name, sizeof name, mha_tensor_info(t)->key, l);
		py_array(f, name, mha_tensor_data_layer(w, NULL, l, t), 0, s.rows, s.cols);
	}
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias_layer(w, c, l, k);
		py_name(name, sizeof name, b.key, l);
		py_array(f, name, b.p, 0, 1, b.len);
		fprintf(f, "%s = %s[0]\n", name, name);
	}
}

int export_py(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_acts *layers, int count)
{
	/* Python names of the intermediates: mha-tui's numbers, to be checked */
	static const struct { enum mha_tensor t; const char *name, *key; } outs[] = {
		{ MHA_T_Q, "Q_tui", "Q" }, { MHA_T_K, "K_tui", "K" }, { MHA_T_V, "V_tui", "V" },
		{ MHA_T_QROT, "Q_rot_tui", "Q_rot" }, { MHA_T_KROT, "K_rot_tui", "K_rot" },
		{ MHA_T_SCORES, "S_tui", "S" }, { MHA_T_WEIGHTS, "P_tui", "P" }, { MHA_T_HEADS, "O_tui", "O" },
		{ MHA_T_CONCAT, "Concat_tui", "Concat" }, { MHA_T_Y, "Y_tui", "Y" },
		{ MHA_T_STREAM, "x_out_tui", "x_out" },
	};
	char name[32];
	fputs("#!/usr/bin/env python3\n"
	      "\"\"\"Exported by mha-tui (--export py): multi-head attention, its inputs and\n"
	      "every intermediate mha-tui computed (the *_tui arrays), every layer's. Run it\n"
	      "with numpy: it recomputes each stage in float64 from the inputs alone and\n"
	      "checks mha-tui's numbers to 1e-5 relative, one line per stage; exit 1 if any\n"
	      "stage differs. Change any number below and it says where.\"\"\"\n\n", f);
	for (int i = 0; export_check_py[i]; i++)
		fputs(export_check_py[i], f);
	fputs("\n\n# The data: mha-tui's configuration, inputs and intermediates\n", f);
	py_stages(f);
	py_config(f, c, w);
	fputs("# Inputs\n", f);
	struct mha_shape sx = mha_tensor_shape(c, MHA_T_X);
	py_array(f, "X", w->x, 0, sx.rows, sx.cols);
	py_layer_inputs(f, c, w, 0);
	static const enum mha_tensor added[] = { MHA_T_XKV, MHA_T_POS };
	for (size_t k = 0; k < sizeof added / sizeof added[0]; k++) {
		struct mha_shape s = mha_tensor_shape(c, added[k]);
		if (mha_tensor_used(c, added[k]))
			py_array(f, mha_tensor_info(added[k])->key, mha_tensor_data(w, NULL, added[k]), 0, s.rows,
			         s.cols);
	}
	if (c->m == 0)
		fputs("X_kv = None\n", f);
	for (int l = 1; l < count; l++)
		py_layer_inputs(f, c, w, l);
	fputs("LAYERS = [", f);
	for (int l = 0; l < count; l++) {
		fputs(l ? ",\n          dict(" : "dict(", f);
		for (int k = 0; k < 4 + (c->bias ? MHA_BIASES : 0); k++) {
			const char *key = k < 4 ? mha_tensor_info((enum mha_tensor)(MHA_T_WQ + k))->key
			                        : mha_bias(w, c, k - 4).key;
			py_name(name, sizeof name, key, l);
			fprintf(f, "%s%s=%s", k ? ", " : "", key, name);
		}
		fputc(')', f);
	}
	fputs("]\n", f);
	fputs("\n# mha-tui's intermediates\n", f);
	struct mha_shape spe = mha_tensor_shape(c, MHA_T_PE);
	py_array(f, "PE_tui", layers[0].pe, 0, spe.rows, spe.cols);
	for (int l = 0; l < count; l++)
		for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
			if (!mha_tensor_used(c, outs[k].t))
				continue;
			struct mha_shape s = mha_tensor_shape(c, outs[k].t);
			int blocks = outs[k].t == MHA_T_SCORES || outs[k].t == MHA_T_WEIGHTS
			             || outs[k].t == MHA_T_HEADS ? s.count : 0;
			py_name(name, sizeof name, outs[k].name, l);
			py_array(f, name, mha_tensor_data_layer(w, &layers[l], l, outs[k].t), blocks, s.rows,
			         s.cols);
		}
	fputs("TUI = [", f);
	for (int l = 0; l < count; l++) {
		fputs(l ? ",\n       dict(" : "dict(", f);
		int first = 1;
		for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
			if (!mha_tensor_used(c, outs[k].t))
				continue;
			py_name(name, sizeof name, outs[k].name, l);
			fprintf(f, "%s%s=%s", first ? "" : ", ", outs[k].key, name);
			first = 0;
		}
		fputc(')', f);
	}
	fputs("]\n", f);
	fputs("\n\nif __name__ == \"__main__\":\n    import sys\n    sys.exit(main(CFG, STAGE, globals()))\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* ---- SVG heatmaps ---- */

/* Viridis at 9 stops (colour-blind safe, dark = low). */
static const unsigned char viridis[9][3] = {
	{ 68, 1, 84 }, { 71, 44, 122 }, { 59, 81, 139 }, { 44, 113, 142 }, { 33, 144, 141 },
	{ 39, 173, 129 }, { 92, 200, 99 }, { 170, 220, 50 }, { 253, 231, 37 },
};

static void colour(double u, char out[8])
{
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	double x = u * 8;
	int i = x >= 8 ? 7 : (int)x;
	double t = x - i;
	int rgb[3];
	for (int k = 0; k < 3; k++)
		rgb[k] = (int)lround(viridis[i][k] + t * (viridis[i + 1][k] - viridis[i][k]));
	snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Layout of the picture, in pixels. */
struct svg_layout {
	int cell, label_w, panel_w, panel_h, cols, rows, width, height;
};

/* The label of key t: a token of X, or of X_kv with cross-attention. */
static const char *key_label(const struct mha_config *c, const struct mha_weights *w, int t)
{
	return c->m > 0 ? w->kv_labels[t] : w->labels[t];
}

static struct svg_layout svg_layout(const struct mha_config *c, const struct mha_weights *w)
{
	struct svg_layout L;
	const int nk = mha_keys(c), most = c->n > nk ? c->n : nk;
	size_t longest = 1;
	for (int t = 0; t < c->n; t++)
		if (strlen(w->labels[t]) > longest)
			longest = strlen(w->labels[t]);
	for (int t = 0; t < nk; t++)
		if (strlen(key_label(c, w, t)) > longest)
			longest = strlen(key_label(c, w, t));
	L.cell = most <= 8 ? 36 : most <= 16 ? 24 : most <= 32 ? 14 : 9;
	L.label_w = 7 * (int)longest + 24;
	L.panel_w = L.label_w + nk * L.cell + 110; /* room for "no key: row is 0" */
	L.panel_h = L.label_w + c->n * L.cell + 40;
	L.cols = c->h < 4 ? c->h : 4;
	L.rows = (c->h + L.cols - 1) / L.cols;
	L.width = L.cols * L.panel_w + 20;
	L.height = 70 + L.rows * L.panel_h + 90;
	return L;
}

/* One head's panel at (x0, y0): title, key labels (rotated) across the
 * top, query labels down the left, the cells, dead rows marked. */
static void svg_head(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                     const struct mha_acts *a, enum mha_tensor stage, int i, double lo,
                     double hi, const struct svg_layout *L, int x0, int y0)
{
	const int n = c->n, nk = mha_keys(c), gx = x0 + L->label_w, gy = y0 + 24 + L->label_w;
	const float *m = mha_tensor_data(w, a, stage) + (size_t)i * n * nk;
	fprintf(f, "<g class=\"head\" id=\"head%d\">\n<text x=\"%d\" y=\"%d\" class=\"title\">head %d "
	        "(kv %d)%s</text>\n", i, gx, y0 + 16, i, mha_kv_head(c, i),
	        c->head_off[i] ? " off: its output is zeroed" : "");
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s \u2192</text>\n"
	        "<text class=\"axis\" x=\"%d\" y=\"%d\">queries \u2193</text>\n",
	        gx + nk * L->cell + 4, gy - 6, c->m > 0 ? "keys (source)" : "keys", x0, gy + n * L->cell + 16);
	/* keys across the top (the source's tokens with cross-attention), queries down the side */
	for (int t = 0; t < nk; t++) {
		fprintf(f, "<text class=\"%s\" transform=\"translate(%d,%d) rotate(-60)\">",
		        mha_is_pad(c, t) ? "label pad" : "label", gx + t * L->cell + L->cell / 2 + 4, gy - 6);
		xml_text(f, key_label(c, w, t));
		fputs("</text>\n", f);
	}
	for (int t = 0; t < n; t++) {
		fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
		        c->m == 0 && mha_is_pad(c, t) ? "label pad" : "label", gx - 6, gy + t * L->cell + L->cell / 2 + 4);
		xml_text(f, w->labels[t]);
		fputs("</text>\n", f);
	}
	for (int r = 0; r < n; r++) {
		for (int j = 0; j < nk; j++) {
			float v = m[(size_t)r * nk + j];
			/* a key this head's query r kept: the mask, then top-k (the forward's record) */
			bool shown = !pipeline_masked(c, a, i, r, j);
			char fill[8];
			if (shown)
				colour(hi > lo ? ((double)v - lo) / (hi - lo) : 0.5, fill);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s>"
			        "<title>", gx + j * L->cell, gy + r * L->cell, L->cell, L->cell,
			        shown ? fill : "#d9d9d9", shown ? "" : " class=\"masked\"");
			xml_text(f, w->labels[r]);
			fputs(" -> ", f);
			xml_text(f, key_label(c, w, j));
			fprintf(f, ": %.6g%s</title></rect>\n", (double)v, shown ? "" : " (masked)");
		}
		if (a->dead_row[i * n + r])
			fprintf(f, "<text class=\"note\" x=\"%d\" y=\"%d\">no key: row is 0</text>\n",
			        gx + n * L->cell + 4, gy + r * L->cell + L->cell / 2 + 4);
	}
	fputs("</g>\n", f);
}

int export_svg(FILE *f, const struct mha_config *c, const struct mha_weights *w,
               const struct mha_acts *a, enum mha_tensor stage)
{
	const struct svg_layout L = svg_layout(c, w);
	const int n = c->n;
	unsigned char keep[MHA_MAX_TOKENS];
	/* the scale: P in [0, 1]; scores from their smallest to largest visible value */
	double lo = 0.0, hi = 1.0;
	if (stage == MHA_T_SCORES) {
		const int nk = mha_keys(c);
		lo = INFINITY;
		hi = -INFINITY;
		for (int r = 0; r < n; r++) {
			mha_mask_row(c, r, NULL, keep);
			for (int i = 0; i < c->h; i++)
				for (int j = 0; j < nk; j++)
					if (keep[j]) {
						double v = a->scores[((size_t)i * n + r) * nk + j];
						lo = v < lo ? v : lo;
						hi = v > hi ? v : hi;
					}
		}
		if (!(lo <= hi))
			lo = hi = 0.0;
	}
	char what[96];
	enum pipeline_stage st = stage == MHA_T_SCORES ? PIPELINE_SCORES : PIPELINE_SOFTMAX;
	snprintf(what, sizeof what, "%s: %s", pipeline_stage_label(st), mha_tensor_info(stage)->formula);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, sans-serif\" font-size=\"12\">\n"
	        "<style>.title{font-weight:bold}.label{fill:#222}.pad{fill:#888;font-style:italic}"
	        ".note{fill:#a00;font-size:10px}.axis{fill:#444}</style>\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	        "<text x=\"10\" y=\"22\" font-size=\"16\" class=\"title\">", L.width, L.height, L.width, L.height);
	xml_text(f, what);
	char more[96] = "";
	if (c->m > 0 || c->pos != MHA_POS_NONE || c->layers > 1)
		snprintf(more, sizeof more, ", %d source tokens, positions %s, layer 0 of %d", c->m,
		         mha_pos_name(c->pos), c->layers);
	fprintf(f, "</text>\n<text x=\"10\" y=\"42\" class=\"axis\">n %d, d_model %d, %d heads, %d kv heads, "
	        "d_k %d%s%s; rows: queries (down), columns: keys (across)</text>\n<text x=\"10\" y=\"58\" "
	        "class=\"axis\">mask:%s%s", n, c->d, c->h, c->g, c->dk, c->bias ? ", biases" : "", more,
	        c->causal ? " causal" : "", c->window ? " window" : "");
	if (c->window)
		fprintf(f, " %d", c->window);
	if (c->top_k)
		fprintf(f, " top-%d", c->top_k);
	const int nk = mha_keys(c);
	for (int t = 0; t < nk; t++)
		if (mha_is_pad(c, t)) {
			fputs(c->m > 0 ? " padding (grey italic source tokens: no query sees them)"
			               : " padding (grey italic tokens: their rows' outputs are ignored)", f);
			break;
		}
	for (int r = 0; r < n && r < MHA_MAX_TOKENS; r++)
		if (c->hide[r] & (nk >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << nk) - 1)) {
			fputs(" custom cells", f);
			break;
		}
	if (!c->causal && !c->window && !c->top_k && !mha_mask_extra(c))
		fputs(" none", f);
	fputs("</text>\n", f);
	for (int i = 0; i < c->h; i++)
		svg_head(f, c, w, a, stage, i, lo, hi, &L, 10 + (i % L.cols) * L.panel_w,
		         70 + (i / L.cols) * L.panel_h);
	/* legend: the ramp from lo to hi, and the masked grey */
	int ly = 70 + L.rows * L.panel_h + 10;
	fputs("<defs><linearGradient id=\"ramp\">", f);
	for (int k = 0; k < 9; k++)
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"#%02x%02x%02x\"/>", k * 100 / 8,
		        viridis[k][0], viridis[k][1], viridis[k][2]);
	fprintf(f, "</linearGradient></defs>\n<g class=\"legend\">\n"
	        "<text x=\"10\" y=\"%d\" class=\"title\">legend: %s</text>\n"
	        "<rect x=\"10\" y=\"%d\" width=\"240\" height=\"14\" fill=\"url(#ramp)\"/>\n"
	        "<text x=\"10\" y=\"%d\">%.4g</text><text x=\"250\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n"
	        "<rect x=\"280\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#d9d9d9\"/>"
	        "<text x=\"300\" y=\"%d\">masked (weight exactly 0)</text>\n</g>\n</svg>\n",
	        ly + 12, stage == MHA_T_SCORES ? "score" : "attention weight", ly + 20, ly + 48,
	        lo, ly + 48, hi, ly + 20, ly + 32);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
