/*
 * head_title.c - what one head's map shows on the sentence in front of
 * the learner, measured, for its title: the weight it puts on the
 * previous word, the first token, the same word elsewhere, the word after
 * an earlier copy of the query's (induction), punctuation, the word
 * itself or the next one, and how evenly it spreads (doc/LANGUAGE_MODEL.md,
 * "Titles"). Any P (h, n, n) and the sentence's labels (a repeated label
 * is a repeated word); no forward of its own, so the workbench measures
 * every frame from what it draws, and a title follows each edit, mask
 * and sentence. It does not say what a head was built or trained for:
 * the caller compares (a wired head keeps its name while its kind here
 * still scores).
 */
#include "train.h"

#include <math.h>
#include <string.h>

static const char *const names[TRAIN_HEAD_KINDS][2] = {
	[TRAIN_HEAD_PREVIOUS] = { "previous word", "prev" },
	[TRAIN_HEAD_FIRST] = { "first token", "1st" },
	[TRAIN_HEAD_SAME] = { "same word", "word" },
	[TRAIN_HEAD_INDUCTION] = { "induction", "ind" },
	[TRAIN_HEAD_PUNCT] = { "punctuation", "punct" },
	[TRAIN_HEAD_SELF] = { "current word", "self" },
	[TRAIN_HEAD_NEXT] = { "next word", "next" },
};

const char *train_head_kind_name(int kind, bool brief)
{
	if (kind >= 0 && kind < TRAIN_HEAD_KINDS)
		return names[kind][brief];
	return kind == TRAIN_HEAD_BROAD ? "broad" : "mixed";
}

/* A label with no letter or digit (nor a byte of a UTF-8 word): a mark. */
static bool punct_label(const char *s)
{
	if (!s[0] || s[0] == '<')
		return false; /* "<unk>", "<doc>" are words the model lacks, not marks */
	for (; *s; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    (unsigned char)*s >= 0x80)
			return false;
	return true;
}

int train_head_measure(const struct mha_config *c, const char (*labels)[MHA_LABEL_MAX], const float *weights,
                       int head, struct train_head_measure *out)
{
	const int n = c->n;
	const float *p = weights + (size_t)head * n * n;
	double sum[TRAIN_HEAD_KINDS] = { 0 }, cnt[TRAIN_HEAD_KINDS] = { 0 }, spread = 0;
	int marks = 0, rows = 0;
	bool mark[MHA_MAX_TOKENS];
	for (int j = 0; j < n; j++)
		marks += mark[j] = labels && punct_label(labels[j]);
	memset(out, 0, sizeof *out);
	for (int q = 0; q < n; q++) {
		const float *row = p + (size_t)q * n;
		if (q >= 1) {
			// previous P[q][q-1], first P[q][0], current P[q][q] (q >= 1: query 0's only key is itself under causal)
			sum[TRAIN_HEAD_PREVIOUS] += row[q - 1], cnt[TRAIN_HEAD_PREVIOUS]++;
			sum[TRAIN_HEAD_FIRST] += row[0], cnt[TRAIN_HEAD_FIRST]++;
			sum[TRAIN_HEAD_SELF] += row[q], cnt[TRAIN_HEAD_SELF]++;
		}
		if (q + 1 < n)
			sum[TRAIN_HEAD_NEXT] += row[q + 1], cnt[TRAIN_HEAD_NEXT]++;
		/* same word: the other keys j != q with the query's label, summed;
		 * induction: the keys j + 1 after an earlier copy j < q - 1 */
		double same = 0, ind = 0, on_marks = 0;
		bool has_same = false, has_ind = false;
		for (int j = 0; labels && j < n; j++) {
			if (j != q && !strcmp(labels[j], labels[q]))
				same += row[j], has_same = true;
			if (j < q - 1 && !strcmp(labels[j], labels[q]))
				ind += row[j + 1], has_ind = true;
			if (mark[j] && j != q)
				on_marks += row[j];
		}
		if (has_same)
			sum[TRAIN_HEAD_SAME] += same, cnt[TRAIN_HEAD_SAME]++;
		if (has_ind)
			sum[TRAIN_HEAD_INDUCTION] += ind, cnt[TRAIN_HEAD_INDUCTION]++;
		if (!mark[q] && marks > 0)
			sum[TRAIN_HEAD_PUNCT] += on_marks, cnt[TRAIN_HEAD_PUNCT]++;
		/* spread: the row's entropy over the keys it sees, / log(keys) */
		int seen = 0;
		double h = 0;
		for (int j = 0; j < n; j++)
			if (row[j] > 0) {
				seen++;
				h -= row[j] * log(row[j]);
			}
		unsigned char keep[MHA_MAX_TOKENS];
		int keys = mha_mask_row(c, q, NULL, keep); /* the keys the mask lets it see */
		if (q >= 1 && seen > 0 && keys > 1) {
			spread += h / log(keys);
			rows++;
		}
	}
	for (int k = 0; k < TRAIN_HEAD_KINDS; k++) {
		out->scored[k] = cnt[k] > 0;
		out->score[k] = cnt[k] > 0 ? sum[k] / cnt[k] : 0;
	}
	out->spread = rows ? spread / rows : 0;
	/* punctuation counts only where marks are few: a head that spreads over a
	 * sentence of marks is not looking for them */
	if (2 * marks > n)
		out->scored[TRAIN_HEAD_PUNCT] = false;
	/* the best kind measured on two queries or more; one measured on a
	 * single query (one repeated word) names the head only when no other
	 * clears: one row is too little to call a head by */
	int best = -1;
	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (int k = 0; k < TRAIN_HEAD_KINDS; k++)
			if (out->scored[k] && (pass || cnt[k] >= 2) && out->score[k] >= TRAIN_HEAD_CLEAR &&
			    (best < 0 || out->score[k] > out->score[best]))
				best = k;
	out->kind = best >= 0 ? best : out->spread >= TRAIN_HEAD_BROAD_SPREAD ? TRAIN_HEAD_BROAD : TRAIN_HEAD_MIXED;
	return out->kind;
}

double train_head_holds(const struct mha_config *c, const char (*labels)[MHA_LABEL_MAX], const float *weights,
                        int head, int kind)
{
	const int n = c->n;
	const float *p = weights + (size_t)head * n * n;
	int asked = 0, held = 0;
	for (int q = 0; q < n; q++) {
		const float *row = p + (size_t)q * n;
		double on = 0;
		bool asks = false;
		switch (kind) {
		case TRAIN_HEAD_PREVIOUS: asks = q >= 1; on = asks ? row[q - 1] : 0; break;
		case TRAIN_HEAD_FIRST: asks = q >= 1; on = row[0]; break;
		case TRAIN_HEAD_NEXT: asks = q + 1 < n; on = asks ? row[q + 1] : 0; break;
		case TRAIN_HEAD_SELF: asks = true; on = row[q]; break;
		case TRAIN_HEAD_SAME: /* every copy of the word, itself included, where it has another */
			for (int j = 0; labels && j < n; j++)
				if (!strcmp(labels[j], labels[q])) {
					on += row[j];
					asks |= j != q;
				}
			break;
		default: return 0;
		}
		if (asks) {
			asked++;
			held += on >= 0.5;
		}
	}
	return asked ? (double)held / asked : 0;
}
