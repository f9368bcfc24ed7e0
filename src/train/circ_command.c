/*
 * circ_command.c - `mha-tui --circuits MODEL` without a terminal: load
 * the model, make the report (circ_report.c) and print it, as tables or
 * (--json) as the object doc/CIRCUITS.md describes. Every number comes
 * from the report; this file only formats, and for the language model
 * (a version-2 model file, doc/LANGUAGE_MODEL.md) cuts windows of its
 * held-out text and names its tokens. A float that is not a number
 * (a score with nothing to score) prints as null in JSON and "-" in the
 * tables.
 */
#include "circ_command.h"
#include "circuits.h"
#include "lm.h"
#include "lm_command.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ---- */

static void jnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void jarray(FILE *f, const double *v, int len)
{
	fputc('[', f);
	for (int k = 0; k < len; k++) {
		if (k)
			fputs(", ", f);
		jnum(f, v[k]);
	}
	fputc(']', f);
}

/* (rows, cols) as an array of rows, 6 significant digits (the views are
 * for reading; the figures above them keep 9) */
static void jmatrix(FILE *f, const double *m, int rows, int cols)
{
	if (!m) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (int r = 0; r < rows; r++) {
		fputs(r ? ",\n    [" : "[", f);
		for (int c = 0; c < cols; c++) {
			double v = m[(size_t)r * cols + c];
			if (isfinite(v))
				fprintf(f, c ? ", %.6g" : "%.6g", v);
			else
				fputs(c ? ", null" : "null", f);
		}
		fputc(']', f);
	}
	fputc(']', f);
}

/* {"key": value, ...} */
static void jobject(FILE *f, int count, const char *const *keys, const double *values)
{
	for (int k = 0; k < count; k++) {
		fprintf(f, "%s\"%s\": ", k ? ", " : "{", keys[k]);
		jnum(f, values[k]);
	}
	fputc('}', f);
}

static void jstats(FILE *f, const struct train_stats *st)
{
	static const char *const keys[] = { "loss", "accuracy" };
	jobject(f, 2, keys, (const double[]){ st->loss, st->accuracy });
}

static void joutcome(FILE *f, const struct circ_outcome *o)
{
	static const char *const keys[] = { "log_prob", "accuracy", "restored" };
	jobject(f, 3, keys, (const double[]){ o->log_prob, o->accuracy, o->restored });
}

static void jints(FILE *f, const int *v, int len)
{
	fputc('[', f);
	for (int k = 0; k < len; k++)
		fprintf(f, k ? ", %d" : "%d", v[k]);
	fputc(']', f);
}

static void jrank(FILE *f, const char *key, const struct circ_rank *r, int dk)
{
	fprintf(f, "\"%s\": {\"rank\": %d, \"norm\": ", key, r->rank);
	jnum(f, r->norm);
	fputs(", \"singular_values\": ", f);
	jarray(f, r->sv, dk);
	fputc('}', f);
}

static void json_head(FILE *f, const struct circ_report *r, const struct circ_head *hd)
{
	const struct train_shape *s = &r->s;
	fprintf(f, "    {\"layer\": %d, \"head\": %d, \"off\": %s,\n     ", hd->layer, hd->head,
	        hd->off ? "true" : "false");
	jrank(f, "qk", &hd->qk, s->dk);
	fputs(",\n     ", f);
	jrank(f, "ov", &hd->ov, s->dk);
	fputs(",\n     \"copying\": ", f);
	jnum(f, hd->copying);
	fputs(", \"own_top\": ", f);
	jnum(f, hd->own_top);
	fputs(", \"eigenvalues\": ", f);
	if (hd->token_space) {
		fputc('[', f);
		for (int k = 0; k < s->dk; k++) {
			fputs(k ? ", [" : "[", f);
			jnum(f, hd->eig_re[k]);
			fputs(", ", f);
			jnum(f, hd->eig_im[k]);
			fputc(']', f);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs(",\n     \"prefix_matching\": {", f);
	for (int p = 0, first = 1; p < CIRC_PERIODS; p++) {
		if (isnan(hd->prefix[p]))
			continue;
		fprintf(f, first ? "\"%d\": " : ", \"%d\": ", circ_periods[p]);
		jnum(f, hd->prefix[p]);
		first = 0;
	}
	fputs("}, \"prefix_matching_min\": ", f);
	jnum(f, hd->prefix_min);
	fputs(",\n     \"previous_token\": ", f);
	jnum(f, hd->previous);
	fputs(", \"first_token\": ", f);
	jnum(f, hd->first);
	fputs(", \"self\": ", f);
	jnum(f, hd->self);
	fputs(", \"duplicate\": ", f);
	jnum(f, hd->duplicate);
	fprintf(f, ", \"induction\": %s,\n     \"matrices\": {", hd->induction ? "true" : "false");
	for (int v = 0; v < CIRC_VIEWS; v++) {
		struct circ_view_info vi = circ_view_info(r->cm, (enum circ_view)v);
		fprintf(f, "%s\"%s\": ", v ? ",\n      " : "", vi.key);
		jmatrix(f, r->views[(hd->layer * s->h + hd->head) * CIRC_VIEWS + v], vi.rows, vi.cols);
	}
	fputs("}}", f);
}

/* s as a JSON string */
static void jstring(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *c = s; *c; c++)
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*c);
		else
			fputc(*c, f);
	fputc('"', f);
}

/* A token as JSON: its word for the language model, else its id. */
static void jtoken(FILE *f, const struct lm_vocab *v, int id)
{
	if (!v) {
		fprintf(f, "%d", id);
		return;
	}
	jstring(f, v->word[id]);
}

static void jwords(FILE *f, const struct lm_vocab *v, const int *ids, int len)
{
	fputc('[', f);
	for (int k = 0; k < len; k++) {
		if (k)
			fputs(", ", f);
		jtoken(f, v, ids[k]);
	}
	fputc(']', f);
}

static void json_lens_entry(FILE *f, const struct circ_lens_entry *e, int classes, const struct lm_vocab *v)
{
	fputs("{\"target_logit\": ", f);
	jnum(f, e->target_logit);
	fprintf(f, ", \"target_rank\": ");
	if (e->target_rank > 0)
		fprintf(f, "%d", e->target_rank);
	else
		fputs("null", f);
	fputs(", \"top\": ", f);
	jints(f, e->top, classes < CIRC_TOP ? classes : CIRC_TOP);
	if (v) {
		fputs(", \"top_words\": ", f);
		jwords(f, v, e->top, classes < CIRC_TOP ? classes : CIRC_TOP);
	}
	fputs(", \"logits\": ", f);
	if (classes <= CIRC_VIEW_MAX)
		jarray(f, e->logits, classes);
	else
		fputs("null", f);
	fputc('}', f);
}

static void json_report(FILE *f, const struct circ_report *r, const char *path, const struct lm_vocab *v)
{
	const struct train_shape *s = &r->s;
	const int h = s->h, L = s->layers;
	fputs("{\"model\": {\"file\": ", f);
	jstring(f, path);
	fprintf(f, ", \"task\": \"%s\", \"layers\": %d, \"d_model\": %d, \"heads\": %d, \"d_k\": %d, "
	        "\"vocab\": %d, \"classes\": %d, \"tokens\": %d},\n", r->task_name, L, s->d, h, s->dk,
	        s->vocab, s->classes, s->n);
	fprintf(f, "\"settings\": {\"probe_sequences\": %d, \"ablation_sequences\": %d, \"pairs\": %d, "
	        "\"baseline_draws\": %d, \"prefix_clear\": %g, \"min_periods\": %d, \"rank_tolerance\": %.9g},\n",
	        r->o.probe_sequences, r->o.ablation_sequences, r->o.pairs, r->o.baseline_draws,
	        CIRC_PREFIX_CLEAR, CIRC_MIN_PERIODS, CIRC_RANK_TOL);
	fputs("\"heads\": [\n", f);
	for (int k = 0; k < L * h; k++) {
		json_head(f, r, &r->heads[k]);
		fputs(k + 1 < L * h ? ",\n" : "\n", f);
	}
	fputs("],\n\"composition\": [", f);
	for (int c = 0; c < r->ncomp; c++) {
		const struct circ_composition *cp = &r->comp[c];
		fprintf(f, "%s\n  {\"layer\": %d, \"to_layer\": %d", c ? "," : "", cp->layer, cp->layer + 1);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			fprintf(f, ",\n   \"%s\": ", circ_input_name((enum circ_input)in));
			jmatrix(f, cp->score[in], h, h);
		}
		fputs(",\n   \"baseline\": {", f);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			fprintf(f, "\"%s\": ", circ_input_name((enum circ_input)in));
			jnum(f, cp->baseline.mean[in]);
			fputs(", ", f);
		}
		fputs("\"sd\": {", f);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			fprintf(f, "%s\"%s\": ", in ? ", " : "", circ_input_name((enum circ_input)in));
			jnum(f, cp->baseline.sd[in]);
		}
		fprintf(f, "}, \"draws\": %d}}", cp->baseline.draws);
	}
	fputs("],\n", f);

	const struct circ_ablation_result *ab = &r->ablation;
	fprintf(f, "\"ablation\": {\"sequences\": %d, \"clean\": ", ab->sequences);
	jstats(f, &ab->clean);
	fputs(",\n  \"heads\": [", f);
	for (int k = 0; k < L * h; k++) {
		fprintf(f, "%s\n    {\"layer\": %d, \"head\": %d", k ? "," : "", k / h, k % h);
		for (int a = 0; a < CIRC_ABLATIONS; a++) {
			fprintf(f, ", \"%s\": ", circ_ablation_name((enum circ_ablation)a));
			jstats(f, &ab->head[(size_t)k * CIRC_ABLATIONS + a]);
		}
		fputc('}', f);
	}
	fputs("],\n  \"paths\": [", f);
	for (int k = 0; k < (L - 1) * h; k++)
		for (int in = 0; in < CIRC_INPUTS; in++) {
			fprintf(f, "%s\n    {\"sender\": {\"layer\": %d, \"head\": %d}, \"to_layer\": %d, \"input\": \"%s\"",
			        k || in ? "," : "", k / h, k % h, k / h + 1, circ_input_name((enum circ_input)in));
			for (int a = 0; a < CIRC_ABLATIONS; a++) {
				fprintf(f, ", \"%s\": ", circ_ablation_name((enum circ_ablation)a));
				jstats(f, &ab->path[((size_t)k * CIRC_INPUTS + in) * CIRC_ABLATIONS + a]);
			}
			fputc('}', f);
		}
	fputs("]},\n", f);

	const struct circ_patching *pt = &r->patching;
	fprintf(f, "\"patching\": {\"pairs\": %d, \"scored\": %ld, \"clean\": ", pt->pairs, pt->counted);
	joutcome(f, &pt->clean);
	fputs(", \"corrupt\": ", f);
	joutcome(f, &pt->corrupt);
	fputs(",\n  \"pair0\": {\"clean\": ", f);
	jints(f, r->pair_clean, s->n);
	fputs(", \"corrupt\": ", f);
	jints(f, r->pair_corrupt, s->n);
	fputs(", \"targets\": ", f);
	jints(f, r->pair_targets, s->n);
	fputs("},\n  \"heads\": [", f);
	for (int k = 0; k < L * h; k++) {
		fprintf(f, "%s\n    {\"layer\": %d, \"head\": %d, \"patched\": ", k ? "," : "", k / h, k % h);
		joutcome(f, &pt->head[k]);
		fputc('}', f);
	}
	fputs("],\n  \"paths\": [", f);
	for (int k = 0; k < (L - 1) * h; k++)
		for (int b = 0; b <= h; b++) {
			fprintf(f, "%s\n    {\"sender\": {\"layer\": %d, \"head\": %d}, \"receiver\": {\"layer\": %d, "
			        "\"head\": ", k || b ? "," : "", k / h, k % h, k / h + 1);
			if (b < h)
				fprintf(f, "%d}", b);
			else
				fputs("null}", f);
			for (int in = 0; in < CIRC_INPUTS; in++) {
				fprintf(f, ", \"%s\": ", circ_input_name((enum circ_input)in));
				joutcome(f, &pt->path[((size_t)k * (h + 1) + b) * CIRC_INPUTS + in]);
			}
			fputc('}', f);
		}
	fputs("],\n  \"named\": ", f);
	if (pt->named_layer >= 0) {
		fprintf(f, "{\"sender\": {\"layer\": %d, \"head\": %d}, \"to_layer\": %d, \"input\": \"%s\", "
		        "\"restored\": ", pt->named_layer, pt->named_head, pt->named_layer + 1,
		        circ_input_name(pt->named_input));
		jnum(f, pt->named_restored);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs("},\n", f);

	const struct circ_lens *ln = &r->lens;
	fprintf(f, "\"logit_lens\": {\"tokens\": ");
	jints(f, ln->tokens, s->n);
	if (v) {
		fputs(", \"words\": ", f);
		jwords(f, v, ln->tokens, s->n);
	}
	fprintf(f, ", \"position\": %d, \"target\": ", ln->position);
	if (ln->target >= 0)
		fprintf(f, "%d", ln->target);
	else
		fputs("null", f);
	fputs(",\n  \"residual\": [", f);
	for (int l = 0; l <= L; l++) {
		fprintf(f, "%s\n    {\"after_layer\": %d, ", l ? "," : "", l - 1);
		fputs("\"lens\": ", f);
		json_lens_entry(f, &ln->resid[l], s->classes, v);
		fputc('}', f);
	}
	fputs("],\n  \"embedding\": ", f);
	json_lens_entry(f, &ln->embed, s->classes, v);
	fputs(",\n  \"position_embedding\": ", f);
	json_lens_entry(f, &ln->pos, s->classes, v);
	fputs(",\n  \"heads\": [", f);
	for (int k = 0; k < L * h; k++) {
		fprintf(f, "%s\n    {\"layer\": %d, \"head\": %d, \"lens\": ", k ? "," : "", k / h, k % h);
		json_lens_entry(f, &ln->head[k], s->classes, v);
		fputc('}', f);
	}
	fputs("]}}\n", f);
}

/* ---- tables ---- */

static void tnum(FILE *f, const char *fmt, double v, int width)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fprintf(f, "%*s", width, "-");
}

static void text_heads(FILE *f, const struct circ_report *r)
{
	const struct train_shape *s = &r->s;
	fprintf(f, "\nheads: rank of W_QK and W_OV (of d_k %d); copying = sum(lambda) / sum|lambda| over the\n"
	        "eigenvalues of E W_OV U; own = tokens whose own logit is the largest of their row;\n"
	        "attention on probes training never saw, and prefix matching at each repeat period\n"
	        "  head   QK  OV  copying    own   prev  first   self    dup |", s->dk);
	for (int p = 0; p < CIRC_PERIODS; p++)
		if (!isnan(r->heads[0].prefix[p]))
			fprintf(f, " %6d", circ_periods[p]);
	fputs("  call\n", f);
	for (int k = 0; k < s->layers * s->h; k++) {
		const struct circ_head *hd = &r->heads[k];
		fprintf(f, "  L%dH%d%c %3d %3d ", hd->layer, hd->head, hd->off ? '*' : ' ', hd->qk.rank,
		        hd->ov.rank);
		tnum(f, " %+7.3f", hd->copying, 8);
		double v[5] = { hd->own_top, hd->previous, hd->first, hd->self, hd->duplicate };
		for (int q = 0; q < 5; q++)
			tnum(f, " %6.3f", v[q], 7);
		fputs(" |", f);
		for (int p = 0; p < CIRC_PERIODS; p++)
			if (!isnan(hd->prefix[p]))
				fprintf(f, " %6.3f", hd->prefix[p]);
		int best = -1;
		for (int q = 1; q < 5; q++)
			if (v[q] >= CIRC_PREFIX_CLEAR && (best < 0 || v[q] > v[best]))
				best = q;
		static const char *names[5] = { "", "previous", "first", "self", "duplicate" };
		fprintf(f, "  %s\n", hd->induction ? "induction" : best >= 0 ? names[best] : "-");
	}
	fprintf(f, "  (* switched off in the model; induction: prefix matching >= %.1f at every period, and\n"
	        "  copying > 0; otherwise the best pattern scoring %.1f or more)\n", CIRC_PREFIX_CLEAR,
	        CIRC_PREFIX_CLEAR);
}

static void text_composition(FILE *f, const struct circ_report *r)
{
	const int h = r->s.h;
	for (int c = 0; c < r->ncomp; c++) {
		const struct circ_composition *cp = &r->comp[c];
		fprintf(f, "\ncomposition, layer %d -> %d: ||product||_F / (||W^a||_F ||W^b||_F); random matrices "
		        "of the same shapes\n  (%d draws): Q %.3f +- %.3f, K %.3f +- %.3f, V %.3f +- %.3f\n"
		        "  from  to      Q      K      V\n", cp->layer, cp->layer + 1, cp->baseline.draws,
		        cp->baseline.mean[0], cp->baseline.sd[0], cp->baseline.mean[1], cp->baseline.sd[1],
		        cp->baseline.mean[2], cp->baseline.sd[2]);
		for (int a = 0; a < h; a++)
			for (int b = 0; b < h; b++) {
				fprintf(f, "  L%dH%d L%dH%d", cp->layer, a, cp->layer + 1, b);
				for (int in = 0; in < CIRC_INPUTS; in++) {
					double v = cp->score[in][a * h + b];
					fprintf(f, "  %.3f%c", v, v > cp->baseline.mean[in] + 2 * cp->baseline.sd[in] ? '+' : ' ');
				}
				fputc('\n', f);
			}
		fputs("  (+ : above the random mean by more than 2 sd)\n", f);
	}
}

static void text_ablation(FILE *f, const struct circ_report *r)
{
	const struct circ_ablation_result *ab = &r->ablation;
	const int h = r->s.h, L = r->s.layers;
	fprintf(f, "\nablation on %d held-out sequences, loss / accuracy; with every head: %.4f / %.3f\n"
	        "  head   zero             mean             resample\n", ab->sequences, ab->clean.loss,
	        ab->clean.accuracy);
	for (int k = 0; k < L * h; k++) {
		fprintf(f, "  L%dH%d", k / h, k % h);
		for (int a = 0; a < CIRC_ABLATIONS; a++) {
			const struct train_stats *st = &ab->head[(size_t)k * CIRC_ABLATIONS + a];
			fprintf(f, "   %7.4f / %.3f", st->loss, st->accuracy);
		}
		fputc('\n', f);
	}
	if (L < 2)
		return;
	fputs("path ablation: the sender's write replaced in one input of every head of the next layer\n"
	      "  (accuracy)       zero   mean   resample\n", f);
	for (int k = 0; k < (L - 1) * h; k++)
		for (int in = 0; in < CIRC_INPUTS; in++) {
			fprintf(f, "  L%dH%d -> L%d %s  ", k / h, k % h, k / h + 1, circ_input_name((enum circ_input)in));
			for (int a = 0; a < CIRC_ABLATIONS; a++)
				fprintf(f, "   %.3f", ab->path[((size_t)k * CIRC_INPUTS + in) * CIRC_ABLATIONS + a].accuracy);
			fputc('\n', f);
		}
}

static void text_patching(FILE *f, const struct circ_report *r)
{
	const struct circ_patching *pt = &r->patching;
	const int h = r->s.h, L = r->s.layers;
	fprintf(f, "\npatching on %d clean / corrupt pairs (%ld scored positions): mean log p(answer) "
	        "clean %.3f (accuracy %.3f),\ncorrupt %.3f (accuracy %.3f); restored = (patched - corrupt) / "
	        "(clean - corrupt)\n  head   restored  accuracy\n", pt->pairs, pt->counted, pt->clean.log_prob,
	        pt->clean.accuracy, pt->corrupt.log_prob, pt->corrupt.accuracy);
	for (int k = 0; k < L * h; k++) {
		fprintf(f, "  L%dH%d  ", k / h, k % h);
		tnum(f, " %+.3f  ", pt->head[k].restored, 8);
		fprintf(f, "  %.3f\n", pt->head[k].accuracy);
	}
	if (L < 2)
		return;
	fputs("path patching: the clean write of the sender into one input of a receiver (restored)\n"
	      "  sender -> receiver      Q       K       V\n", f);
	for (int k = 0; k < (L - 1) * h; k++)
		for (int b = 0; b <= h; b++) {
			char recv[32];
			if (b < h)
				snprintf(recv, sizeof recv, "L%dH%d", k / h + 1, b);
			else
				snprintf(recv, sizeof recv, "L%d (all)", k / h + 1);
			fprintf(f, "  L%dH%d -> %-10s", k / h, k % h, recv);
			for (int in = 0; in < CIRC_INPUTS; in++)
				tnum(f, "  %+.3f", pt->path[((size_t)k * (h + 1) + b) * CIRC_INPUTS + in].restored, 8);
			fputc('\n', f);
		}
	if (pt->named_layer >= 0)
		fprintf(f, "  the path: L%dH%d -> layer %d through %c (%.3f of the clean answer restored)\n",
		        pt->named_layer, pt->named_head, pt->named_layer + 1, "QKV"[pt->named_input],
		        pt->named_restored);
}

/* A token for a person: "17", or the language model's word. */
static void ttoken(FILE *f, const struct lm_vocab *v, int id)
{
	if (v)
		fprintf(f, "%s", v->word[id]);
	else
		fprintf(f, "%d", id);
}

static void text_entry(FILE *f, const char *what, const struct circ_lens_entry *e, int target, int classes,
                       const struct lm_vocab *v)
{
	fprintf(f, "  %-16s", what);
	if (target >= 0)
		fprintf(f, " answer %8.3f  rank %4d ", e->target_logit, e->target_rank);
	fputs("  top:", f);
	for (int k = 0; k < CIRC_TOP && k < classes; k++) {
		fputc(' ', f);
		ttoken(f, v, e->top[k]);
		fprintf(f, " (%.2f)", e->logits[e->top[k]]);
	}
	fputc('\n', f);
}

static void text_lens(FILE *f, const struct circ_report *r, const struct lm_vocab *v)
{
	const struct circ_lens *ln = &r->lens;
	const int h = r->s.h, L = r->s.layers, C = r->s.classes;
	fprintf(f, "\nlogit lens at position %d (token ", ln->position);
	ttoken(f, v, ln->tokens[ln->position]);
	if (ln->target >= 0) {
		fputs(", answer ", f);
		ttoken(f, v, ln->target);
	}
	fputs(") of the first held-out sequence: U applied to\n", f);
	char what[32];
	for (int l = 0; l <= L; l++) {
		if (l == 0)
			snprintf(what, sizeof what, "the embeddings");
		else
			snprintf(what, sizeof what, "after layer %d", l - 1);
		text_entry(f, what, &ln->resid[l], ln->target, C, v);
	}
	fputs("direct logit attribution (the parts above add up to the last line):\n", f);
	text_entry(f, "token embedding", &ln->embed, ln->target, C, v);
	text_entry(f, "position", &ln->pos, ln->target, C, v);
	for (int k = 0; k < L * h; k++) {
		snprintf(what, sizeof what, "L%dH%d write", k / h, k % h);
		text_entry(f, what, &ln->head[k], ln->target, C, v);
	}
}

/* "mha-tui model 2" on the first line: the language model's file. */
static bool is_lm_file(const char *path)
{
	char line[64] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool lm = fgets(line, sizeof line, f) && !strncmp(line, "mha-tui model 2", 15);
	fclose(f);
	return lm;
}

enum { LM_WINDOWS = 16 }; /* the language model's held-out windows: a forward costs 8192 logits a token */

/* The language model, its vocabulary, and its first LM_WINDOWS windows of
 * held-out text (tokens ids[w n ..], targets the next token each, as
 * --eval cuts them) into *data (2 LM_WINDOWS n ints: tokens, targets). */
static int open_lm(const char *path, struct train_model *m, struct lm_vocab *v, int **data, int *windows,
                   FILE *err)
{
	char msg[4400];
	struct lm_meta meta;
	if (lm_model_load(m, v, &meta, path, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --circuits: %s\n", msg);
		return 1;
	}
	struct lm_corpus c;
	struct lm_stream ho;
	int rc = 1;
	if (lm_corpus_read(&c, LM_DEFAULT_CORPUS, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --circuits %.200s: the held-out text: %s\n", path, msg);
		goto fail;
	}
	if (lm_stream_encode(&ho, v, &c, LM_SPLIT_HELDOUT, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --circuits %.200s: %s\n", path, msg);
		lm_corpus_free(&c);
		goto fail;
	}
	const int n = m->s.n;
	*windows = (int)((ho.len - 1) / n < LM_WINDOWS ? (ho.len - 1) / n : LM_WINDOWS);
	*data = malloc(sizeof(int) * 2 * LM_WINDOWS * (size_t)n);
	if (*data && *windows > 0) {
		for (int w = 0; w < *windows; w++)
			for (int i = 0; i < n; i++) {
				(*data)[(size_t)w * n + i] = ho.ids[(long)w * n + i];
				(*data)[(size_t)(*windows + w) * n + i] = ho.ids[(long)w * n + i + 1];
			}
		rc = 0;
	} else {
		fprintf(err, "mha-tui: --circuits %.200s: %s\n", path,
		        *data ? "the held-out text is shorter than one window" : "out of memory");
		free(*data);
		*data = NULL;
	}
	lm_stream_free(&ho);
	lm_corpus_free(&c);
	if (rc == 0)
		return 0;
fail:
	train_model_free(m);
	lm_vocab_free(v);
	return 1;
}

int circ_command(const char *path, bool json, int position, FILE *out, FILE *err)
{
	struct train_model m;
	const struct train_task *t = NULL;
	struct lm_vocab v, *vocab = NULL;
	int *data = NULL, windows = 0;
	char msg[MHA_MSG_MAX + 512];
	struct circ_options o = CIRC_OPTIONS_DEFAULT;
	if (is_lm_file(path)) {
		if (open_lm(path, &m, &v, &data, &windows, err) != 0)
			return 1;
		vocab = &v;
		// its own held-out text, fewer sequences: 8192 logits a position
		o.tokens = data;
		o.targets = data + (size_t)windows * m.s.n;
		o.sequences = windows;
		o.pairs = LM_WINDOWS;
		o.probe_sequences = 8;
	} else if (train_model_load(&m, &t, path, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --circuits: %s\n", msg);
		return 1;
	}
	int rc = 0;
	struct circ_report r;
	enum mha_status st = MHA_OK;
	if (position >= m.s.n) {
		fprintf(err, "mha-tui: --circuits %.200s: --position %d is outside the model's context: "
		        "allowed 0..%d\n", path, position, m.s.n - 1);
		rc = 2;
		goto out;
	}
	o.position = position;
	st = circ_report_make(&r, &m, t, &o, msg, sizeof msg);
	if (st != MHA_OK) {
		fprintf(err, "mha-tui: --circuits %.200s: %s\n", path, msg);
		rc = st == MHA_EINVAL ? 2 : 1;
		goto out;
	}
	if (json) {
		json_report(out, &r, path, vocab);
	} else {
		const struct train_shape *s = &r.s;
		fprintf(out, "circuits of %s: task %s, %d layer%s, d_model %d, %d heads of d_k %d, "
		        "vocabulary %d, classes %d, %d tokens\n", path, r.task_name, s->layers,
		        s->layers > 1 ? "s" : "", s->d, s->h, s->dk, s->vocab, s->classes, s->n);
		if (vocab)
			fprintf(out, "(the language model: ablation and the lens on its first %d windows of "
			        "held-out text, patching on %d pairs of repeated random tokens)\n", windows, o.pairs);
		text_heads(out, &r);
		text_composition(out, &r);
		text_ablation(out, &r);
		text_patching(out, &r);
		text_lens(out, &r, vocab);
	}
	circ_report_free(&r);
out:
	train_model_free(&m);
	if (vocab)
		lm_vocab_free(vocab);
	free(data);
	return rc;
}
