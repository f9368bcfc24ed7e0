/*
 * test_circuits.c - what the circuit figures say, and their properties:
 *  - the trained induction model (tests/fixtures/circuits/induction.model):
 *    its layer-1 heads are called induction (copying > 0.9, prefix
 *    matching at every period), K-composition from the previous-token
 *    head is above the random baseline, and path patching names K;
 *  - a head wired to attend 15 tokens back (a constructed model) copies
 *    and matches the one period 16 perfectly, which the single-period
 *    score of the training screen calls induction; here it is not;
 *  - the induction heads with W^O negated attend the same but do not copy:
 *    not induction either;
 *  - the workbench's layer: the heads' writes add up to Y, and W_QK and
 *    W_OV give the forward's scores and writes (GQA, heads off, biases);
 *  - properties: the probes and the pairs are what circuits.h says; the
 *    lens's parts add up to the logits; a head switched off is a no-op to
 *    ablate; a rank-deficient head's rank; V != C leaves copying undefined;
 *    bad requests, tokens and classes the model does not have are refused.
 * Reduced data sets (a few probes and pairs) keep it fast under valgrind.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "circuits.h"

static void load(struct train_model *m, const struct train_task **t, const char *name)
{
	char path[4096], msg[512];
	const char *root = getenv("MHA_SOURCE_ROOT");
	if (!root)
		fail_msg("MHA_SOURCE_ROOT is not set: run under meson test");
	snprintf(path, sizeof path, "%s/tests/fixtures/circuits/%s.model", root, name);
	if (train_model_load(m, t, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
}

/* The report on fewer data than the command's defaults. */
static void report(struct circ_report *r, const struct train_model *m, const struct train_task *t)
{
	struct circ_options o = { .probe_sequences = 4, .ablation_sequences = 8, .pairs = 6,
	                          .baseline_draws = 32, .position = -1 };
	char msg[256];
	if (circ_report_make(r, m, t, &o, msg, sizeof msg) != MHA_OK)
		fail_msg("circ_report_make: %s", msg);
}

/* Only what decides a head's call: its weight figures and its scores on
 * the probes (4 sequences a period). */
struct heads {
	struct circ_head h[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	int count;
};

static void heads_of(const struct train_model *m, struct heads *out)
{
	struct circ_model *cm;
	char msg[256];
	assert_int_equal(circ_model_make(&cm, m), MHA_OK);
	out->count = m->s.layers * m->s.h;
	assert_int_equal(circ_heads_make(cm, out->h, msg, sizeof msg), MHA_OK);
	assert_int_equal(circ_head_scores(cm, 4, 77, out->h), MHA_OK);
	circ_model_free(cm);
}

static void heads_free(struct heads *hs)
{
	circ_heads_free(hs->h, hs->count);
}

static int period_index(int period)
{
	for (int p = 0; p < CIRC_PERIODS; p++)
		if (circ_periods[p] == period)
			return p;
	fail_msg("no period %d", period);
	return -1;
}

static void test_trained_induction_model_shows_its_circuit(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "induction");
	struct circ_report r;
	report(&r, &m, t);
	const int h = r.s.h;
	// layer 1: both heads induction, copying, matching at every period 4..24
	for (int i = 0; i < h; i++) {
		const struct circ_head *hd = circ_report_head(&r, 1, i);
		assert_true(hd->induction);
		assert_true(hd->copying > 0.9);
		assert_true(hd->own_top > 0.9);
		assert_int_equal(hd->periods_scored, 5); /* 4, 8, 12, 16, 24: n = 32 */
		for (int p = 0; p < 5; p++)
			assert_true(hd->prefix[p] > 0.85);
		assert_int_equal(hd->qk.rank, r.s.dk);
		assert_int_equal(hd->ov.rank, r.s.dk);
	}
	// layer 0: no induction; its most previous-token head
	int prev = 0;
	for (int i = 0; i < h; i++) {
		assert_false(circ_report_head(&r, 0, i)->induction);
		if (circ_report_head(&r, 0, i)->previous > circ_report_head(&r, 0, prev)->previous)
			prev = i;
	}
	// K-composition from it into each layer-1 head: above the random baseline, above Q and V
	const struct circ_composition *cp = &r.comp[0];
	for (int b = 0; b < h; b++) {
		double k = cp->score[CIRC_K][prev * h + b];
		assert_true(k > cp->baseline.mean[CIRC_K] + 3 * cp->baseline.sd[CIRC_K]);
		assert_true(k > cp->score[CIRC_Q][prev * h + b] + 0.1);
		assert_true(k > cp->score[CIRC_V][prev * h + b] + 0.1);
	}
	// path patching names K, from that head
	const struct circ_patching *pt = &r.patching;
	assert_int_equal(pt->named_layer, 0);
	assert_int_equal(pt->named_head, prev);
	assert_int_equal(pt->named_input, CIRC_K);
	assert_true(pt->named_restored > 0.8);
	assert_true(pt->clean.accuracy > 0.9 && pt->corrupt.accuracy < 0.3);
	const struct circ_outcome *all = &pt->path[((size_t)prev * (h + 1) + h) * CIRC_INPUTS];
	assert_true(all[CIRC_Q].restored < 0.2 && all[CIRC_V].restored < 0.2);
	// path ablation: taking that head out of layer 1's keys breaks the task, out of Q or V not
	const struct train_stats *pa = &r.ablation.path[(size_t)prev * CIRC_INPUTS * CIRC_ABLATIONS];
	assert_true(pa[CIRC_K * CIRC_ABLATIONS + CIRC_ZERO].accuracy < 0.6);
	assert_true(pa[CIRC_Q * CIRC_ABLATIONS + CIRC_ZERO].accuracy > 0.9);
	assert_true(pa[CIRC_V * CIRC_ABLATIONS + CIRC_ZERO].accuracy > 0.9);
	assert_true(r.ablation.clean.accuracy > 0.9);
	// the lens: the answer is first after layer 1, not before it
	assert_int_equal(r.lens.resid[2].target_rank, 1);
	assert_true(r.lens.resid[0].target_rank > 1);
	circ_report_free(&r);
	train_model_free(&m);
}

/* One layer, one head of d_k 64 reading positions from dimensions 0..31
 * (P[p] = e_p) and tokens from 32..63 (E[t] = e_{32+t}): W^Q sends
 * position p to column p, W^K position j to column j + offset, so query i
 * scores key j at c exactly when j = i - offset; W^V and W^O carry the
 * token dimensions through, and U reads them: the head copies the token
 * `offset` back. */
static void fixed_offset_model(struct train_model *m, int offset)
{
	struct train_shape s = { .layers = 1, .d = 64, .h = 1, .dk = 64, .vocab = 32, .classes = 32, .n = 32 };
	char msg[256];
	assert_int_equal(train_shape_check(&s, msg, sizeof msg), MHA_OK);
	assert_int_equal(train_model_alloc(m, &s), MHA_OK);
	const float c = 30.0f * 8.0f; /* scores of 30 after 1/sqrt(64) */
	for (int p = 0; p < 32; p++) {
		m->pos[p * 64 + p] = 1;
		m->emb[p * 64 + 32 + p] = 1;
		m->wq[0][p * 64 + p] = c;
		if (p + offset < 32)
			m->wk[0][p * 64 + p + offset] = 1;
		m->wv[0][(32 + p) * 64 + 32 + p] = 1;
		m->wo[0][(32 + p) * 64 + 32 + p] = 1;
		m->unemb[(32 + p) * 32 + p] = 1;
	}
}

static void test_a_head_at_a_fixed_offset_is_not_called_induction(void **state)
{
	(void)state;
	struct train_model m;
	fixed_offset_model(&m, 15);
	// the training screen's single-period score (probe period n/2 = 16) is fooled
	double sc[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
	train_pattern_scores(&m, sc);
	assert_true(sc[TRAIN_PAT_INDUCTION] > 0.9);
	struct heads hs;
	heads_of(&m, &hs);
	const struct circ_head *hd = &hs.h[0];
	assert_true(hd->copying > 0.99);            /* it copies ...                     */
	assert_true(hd->own_top > 0.99);
	assert_true(hd->prefix[period_index(16)] > 0.9); /* ... and matches period 16      */
	// 16 tokens back is also an earlier copy's successor at periods 4 and 8
	// (which divide 16), never at 12 or 24: no offset fits every period
	assert_true(hd->prefix[period_index(12)] < 0.1);
	assert_true(hd->prefix[period_index(24)] < 0.1);
	assert_true(hd->prefix_min < 0.1);
	assert_false(hd->induction);
	heads_free(&hs);
	train_model_free(&m);

	// with W^O = 0 it writes nothing: E W_OV U = 0, no own logit is the
	// largest (all tie), and copying has no eigenvalue to measure
	fixed_offset_model(&m, 15);
	memset(m.wo[0], 0, sizeof(float) * 64 * 64);
	heads_of(&m, &hs);
	assert_true(hs.h[0].own_top == 0.0);
	assert_true(isnan(hs.h[0].copying));
	assert_false(hs.h[0].induction);
	heads_free(&hs);
	train_model_free(&m);

	// wired to offset 1 it is a previous-token head, on every probe
	fixed_offset_model(&m, 1);
	heads_of(&m, &hs);
	assert_true(hs.h[0].previous > 0.9);
	assert_false(hs.h[0].induction);
	heads_free(&hs);
	train_model_free(&m);
}

static void test_matching_heads_that_do_not_copy_are_not_induction(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "induction");
	size_t hw = (size_t)m.s.h * m.s.dk;
	for (size_t e = 0; e < hw * (size_t)m.s.d; e++)
		m.wo[1][e] = -m.wo[1][e]; /* layer 1 writes the opposite; its attention is unchanged */
	struct heads hs;
	heads_of(&m, &hs);
	for (int i = 0; i < m.s.h; i++) {
		const struct circ_head *hd = &hs.h[m.s.h + i];
		assert_true(hd->copying < -0.9);
		assert_true(hd->prefix_min > 0.85);
		assert_false(hd->induction);
	}
	heads_free(&hs);
	train_model_free(&m);
}

static void test_probes_repeat_a_block_of_distinct_tokens(void **state)
{
	(void)state;
	enum { N = 32, V = 32, COUNT = 5 };
	int tok[COUNT * N];
	for (int p = 0; p < CIRC_PERIODS; p++) {
		int period = circ_periods[p];
		bool ok = circ_probe_period(N, V, period, COUNT, 99, tok);
		assert_true(ok == (period <= V && period + 2 <= N));
		if (!ok)
			continue;
		for (int b = 0; b < COUNT; b++) {
			const int *s = tok + b * N;
			for (int i = 0; i < N; i++) {
				assert_true(s[i] >= 0 && s[i] < V);
				if (i >= period)
					assert_int_equal(s[i], s[i - period]);
				for (int j = 0; j < i && i < period; j++)
					assert_true(s[i] != s[j]);
			}
		}
		int again[COUNT * N];
		assert_true(circ_probe_period(N, V, period, COUNT, 99, again));
		assert_memory_equal(tok, again, sizeof tok); /* seeded */
	}
	assert_false(circ_probe_period(N, 8, 12, 1, 1, tok)); /* 12 distinct tokens of 8: no */
}

static void test_pairs_differ_where_the_header_says(void **state)
{
	(void)state;
	enum { N = 32, V = 32, COUNT = 20 };
	int clean[COUNT * N], corrupt[COUNT * N], tgt[COUNT * N];
	circ_pairs_make(train_task_find("induction"), N, V, COUNT, 5, clean, corrupt, tgt);
	for (int b = 0; b < COUNT; b++) {
		const int *c = clean + b * N, *x = corrupt + b * N, *g = tgt + b * N;
		int m = 1;
		while (m < N && c[m] != c[0])
			m++; /* the period: the first token comes back */
		assert_true(m >= N / 4 && m <= N / 2);
		int scored = 0;
		for (int i = 0; i < N; i++) {
			bool changed = i < m - 1 && i % 2 == 0;
			assert_true((c[i] != x[i]) == changed);
			if (changed)
				for (int j = 0; j < m; j++)
					assert_true(x[i] != c[j]); /* from outside the block */
			if (g[i] >= 0) {
				scored++;
				assert_true(i >= m && (i - m) % 2 == 0 && i - m < m - 1);
				assert_int_equal(g[i], c[i + 1]);
				assert_int_equal(x[i + 1 - m], c[i + 1]); /* the answer stands in the corrupt copy */
			}
		}
		assert_true(scored >= 1);
	}
	// another task: two independent draws, the clean one's targets
	const struct train_task *prev = train_task_find("previous");
	circ_pairs_make(prev, 16, 16, 3, 5, clean, corrupt, tgt);
	for (int i = 1; i < 16; i++)
		assert_int_equal(tgt[i], clean[i - 1]);
	assert_true(memcmp(clean, corrupt, sizeof(int) * 16) != 0);
}

static void test_lens_parts_add_up_to_the_logits(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "small");
	struct circ_model *cm;
	assert_int_equal(circ_model_make(&cm, &m), MHA_OK);
	int tok[12] = { 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2 };
	for (int pos = 0; pos < 12; pos += 5) {
		struct circ_lens ln;
		assert_int_equal(circ_lens(cm, tok, pos, 3, &ln), MHA_OK);
		for (int c = 0; c < m.s.classes; c++) {
			double sum = ln.embed.logits[c] + ln.pos.logits[c];
			for (int k = 0; k < m.s.layers * m.s.h; k++)
				sum += ln.head[k].logits[c];
			assert_true(fabs(sum - ln.resid[m.s.layers].logits[c]) < 1e-10);
			// and the stream after layer 0 is the embeddings plus layer 0's writes
			double s0 = ln.embed.logits[c] + ln.pos.logits[c];
			for (int i = 0; i < m.s.h; i++)
				s0 += ln.head[i].logits[c];
			assert_true(fabs(s0 - ln.resid[1].logits[c]) < 1e-10);
		}
		// the head switched off (L0H2) writes nothing
		for (int c = 0; c < m.s.classes; c++)
			assert_true(ln.head[2].logits[c] == 0.0);
		circ_lens_free(&ln);
	}
	struct circ_lens bad;
	assert_int_equal(circ_lens(cm, tok, 12, 0, &bad), MHA_EINVAL);
	assert_int_equal(circ_lens(cm, tok, 0, m.s.classes, &bad), MHA_EINVAL);
	circ_model_free(cm);
	train_model_free(&m);
}

static void test_a_head_switched_off_is_a_no_op_to_ablate_and_patch(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "small");
	assert_true(m.head_off[0][2]);
	struct circ_report r;
	report(&r, &m, t);
	assert_true(circ_report_head(&r, 0, 2)->off);
	for (int a = 0; a < CIRC_ABLATIONS; a++) {
		const struct train_stats *st = &r.ablation.head[2 * CIRC_ABLATIONS + a];
		assert_true(st->loss == r.ablation.clean.loss && st->accuracy == r.ablation.clean.accuracy);
	}
	assert_true(r.patching.head[2].restored == 0.0);
	for (int b = 0; b <= m.s.h; b++)
		for (int in = 0; in < CIRC_INPUTS; in++)
			assert_true(r.patching.path[((size_t)2 * (m.s.h + 1) + b) * CIRC_INPUTS + in].restored == 0.0);
	// a head that is on does change something when zeroed
	assert_true(r.ablation.head[0 * CIRC_ABLATIONS + CIRC_ZERO].loss != r.ablation.clean.loss);
	circ_report_free(&r);
	train_model_free(&m);
}

static void test_rank_counts_independent_directions(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "small");
	const int hw = m.s.h * m.s.dk;
	for (int r = 0; r < m.s.d; r++) { /* head 0 of layer 0: column 1 of W^Q_0 = column 0 */
		m.wq[0][r * hw + 1] = m.wq[0][r * hw];
		m.wv[0][r * hw + 2] = 0;      /* and its W^V_0 loses a column */
	}
	struct circ_model *cm;
	assert_int_equal(circ_model_make(&cm, &m), MHA_OK);
	struct circ_head hd[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	char msg[256];
	assert_int_equal(circ_heads_make(cm, hd, msg, sizeof msg), MHA_OK);
	assert_int_equal(hd[0].qk.rank, m.s.dk - 1);
	assert_int_equal(hd[0].ov.rank, m.s.dk - 1);
	assert_int_equal(hd[1].qk.rank, m.s.dk);
	assert_true(hd[0].qk.sv[m.s.dk - 1] < 1e-12 * hd[0].qk.sv[0]);
	// the norm is the root of the squared singular values, and W_QK's Frobenius norm
	double *w = malloc(sizeof(double) * (size_t)m.s.d * m.s.d), sq = 0;
	assert_int_equal(circ_view_rows(cm, 0, 1, CIRC_VIEW_QK, 0, m.s.d, w), MHA_OK);
	for (int e = 0; e < m.s.d * m.s.d; e++)
		sq += w[e] * w[e];
	assert_true(fabs(sqrt(sq) - hd[1].qk.norm) < 1e-10 * sqrt(sq));
	free(w);
	double out[4];
	assert_int_equal(circ_view_rows(cm, 0, 0, CIRC_VIEW_QK, m.s.d - 1, 2, out), MHA_EINVAL);
	assert_int_equal(circ_view_rows(cm, 2, 0, CIRC_VIEW_QK, 0, 1, out), MHA_EINVAL);
	circ_heads_free(hd, m.s.layers * m.s.h);
	circ_model_free(cm);
	train_model_free(&m);
}

static void test_more_classes_than_tokens_leave_copying_undefined(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "onelayer");
	struct circ_report r;
	report(&r, &m, t);
	assert_int_equal(r.ncomp, 0);
	for (int i = 0; i < m.s.h; i++) {
		const struct circ_head *hd = circ_report_head(&r, 0, i);
		assert_false(hd->token_space);
		assert_true(isnan(hd->copying) && isnan(hd->own_top));
		assert_false(hd->induction);
	}
	assert_int_equal(r.patching.named_layer, -1);
	assert_null(circ_report_head(&r, 1, 0));
	circ_report_free(&r);
	train_model_free(&m);
}

static void test_a_position_outside_the_context_is_refused(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "small");
	struct circ_options o = { .position = m.s.n };
	struct circ_report r;
	char msg[256] = "";
	assert_int_equal(circ_report_make(&r, &m, t, &o, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "position 12"));
	// a model with no task (the language model) brings its own sequences
	struct circ_options none = { .probe_sequences = 2, .pairs = 2, .position = -1 };
	assert_int_equal(circ_report_make(&r, &m, NULL, &none, msg, sizeof msg), MHA_EINVAL);
	assert_int_equal(circ_report_make(&r, &m, NULL, NULL, msg, sizeof msg), MHA_EINVAL);
	int tok[2 * 12], tgt[2 * 12];
	for (int k = 0; k < 24; k++) {
		tok[k] = k % 10;
		tgt[k] = k % 12 == 11 ? -1 : (k + 1) % 10;
	}
	none.tokens = tok;
	none.targets = tgt;
	none.sequences = 2;
	assert_int_equal(circ_report_make(&r, &m, NULL, &none, msg, sizeof msg), MHA_OK);
	assert_string_equal(r.task_name, "lm");
	assert_int_equal(r.ablation.sequences, 2);
	assert_int_equal(r.lens.position, 10); /* the last position with a target */
	assert_int_equal(r.lens.target, tgt[10]);
	circ_report_free(&r);
	tgt[5] = 10; /* a class the model does not have */
	assert_int_equal(circ_report_make(&r, &m, NULL, &none, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "outside the model's vocabulary"));
	o.position = 3; /* and a chosen position is where the lens looks */
	o.pairs = 2;
	o.ablation_sequences = 2;
	o.probe_sequences = 2;
	assert_int_equal(circ_report_make(&r, &m, t, &o, msg, sizeof msg), MHA_OK);
	assert_int_equal(r.lens.position, 3);
	circ_report_free(&r);
	train_model_free(&m);
}

static void test_data_the_model_cannot_read_is_refused(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "onelayer"); /* task duplicate: 8 tokens, 2 classes */
	struct circ_report r;
	struct circ_options o = { .probe_sequences = 2, .ablation_sequences = 2, .pairs = 2, .position = -1 };
	char msg[256] = "";
	// a hand-edited task line: induction's answers are tokens 0..7, the read-out has 2 classes
	assert_int_equal(circ_report_make(&r, &m, train_task_find("induction"), &o, msg, sizeof msg), MHA_ERANGE);
	assert_non_null(strstr(msg, "but the model has 2 classes"));
	struct circ_model *cm;
	assert_int_equal(circ_model_make(&cm, &m), MHA_OK);
	int tok[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1 }, tgt[10] = { -1, 0, 1, 0, 1, 0, 1, 0, 1, 0 };
	struct circ_ablation_result ab;
	struct circ_patching pt;
	struct circ_lens ln;
	double sc[2 * TRAIN_PAT_COUNT];
	tgt[3] = 2; /* a class the read-out does not have */
	assert_int_equal(circ_ablate(cm, tok, tgt, 1, &ab), MHA_EINVAL);
	assert_int_equal(circ_patch(cm, tok, tok, tgt, 1, &pt), MHA_EINVAL);
	tgt[3] = 0;
	tok[5] = 8; /* a token the embedding does not have */
	assert_int_equal(circ_ablate(cm, tok, tgt, 1, &ab), MHA_EINVAL);
	assert_int_equal(circ_patterns(cm, tok, 1, sc, NULL, NULL), MHA_EINVAL);
	assert_int_equal(circ_lens(cm, tok, 0, -1, &ln), MHA_EINVAL);
	tok[5] = -1;
	assert_int_equal(circ_patch(cm, tgt, tok, tgt, 1, &pt), MHA_EINVAL);
	circ_model_free(cm);
	train_model_free(&m);
}

static void test_identical_pairs_leave_nothing_to_restore(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t;
	load(&m, &t, "small");
	struct circ_model *cm;
	assert_int_equal(circ_model_make(&cm, &m), MHA_OK);
	int clean[24], corrupt[24], tgt[24];
	circ_pairs_make(t, 12, 10, 2, 3, clean, corrupt, tgt);
	struct circ_patching pt; /* the clean run as its own corruption */
	assert_int_equal(circ_patch(cm, clean, clean, tgt, 2, &pt), MHA_OK);
	assert_true(isnan(pt.head[0].restored) && isnan(pt.clean.restored));
	assert_true(pt.clean.log_prob == pt.corrupt.log_prob);
	assert_int_equal(pt.named_layer, -1);
	circ_patching_free(&pt);
	circ_model_free(cm);
	train_model_free(&m);
}

/* The workbench's layer: C_i add up to Y; without biases the QK circuit
 * gives the scores (S_i = X W_QK X^T s) and the OV circuit the writes
 * (C_i = P_i X W_OV); a head switched off writes 0; GQA reads kv head j. */
static void bench_check(struct mha_config c)
{
	struct mha_weights w;
	struct mha_acts a;
	char msg[256];
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_weights_start(&w, &c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	struct circ_bench b;
	assert_int_equal(circ_bench_make(&c, &w, &a, &b), MHA_OK);
	assert_true(b.sum_error <= 1e-5 * fmax(1, b.y_max));
	const int n = c.n, d = c.d, dk = c.dk;
	double *qk = malloc(sizeof(double) * 2 * (size_t)d * d), *ov = qk + (size_t)d * d;
	const double s = c.scale ? 1 / sqrt((double)dk) : 1;
	for (int i = 0; i < c.h; i++) {
		assert_true(b.qk[i].rank <= dk && b.ov[i].rank <= dk && b.qk[i].rank > 0);
		const double *ci = b.write + (size_t)i * n * d;
		if (c.head_off[i]) {
			for (int e = 0; e < n * d; e++)
				assert_true(ci[e] == 0.0);
			continue;
		}
		assert_int_equal(circ_bench_view_rows(&c, &w, i, CIRC_VIEW_QK, 0, d, qk), MHA_OK);
		assert_int_equal(circ_bench_view_rows(&c, &w, i, CIRC_VIEW_OV, 0, d, ov), MHA_OK);
		if (c.bias)
			continue;
		for (int t = 0; t < n; t++)
			for (int u = 0; u < n; u++) {
				// S_i[t][u] = x_t W_QK x_u^T s
				double acc = 0;
				for (int p = 0; p < d; p++)
					for (int q = 0; q < d; q++)
						acc += (double)w.x[t * d + p] * qk[(size_t)p * d + q] * w.x[u * d + q];
				double want = a.scores[((size_t)i * n + t) * n + u];
				assert_true(fabs(acc * s - want) <= 1e-4 * fmax(1, fabs(want)));
			}
		for (int t = 0; t < n; t++)
			for (int e = 0; e < d; e++) {
				// C_i[t][e] = sum_u P_i[t][u] (x_u W_OV)[e]
				double acc = 0;
				for (int u = 0; u < n; u++) {
					double xw = 0;
					for (int p = 0; p < d; p++)
						xw += (double)w.x[u * d + p] * ov[(size_t)p * d + e];
					acc += a.weights[((size_t)i * n + t) * n + u] * xw;
				}
				assert_true(fabs(acc - ci[(size_t)t * d + e]) <= 1e-4 * fmax(1, fabs(acc)));
			}
	}
	assert_int_equal(circ_bench_view_rows(&c, &w, c.h, CIRC_VIEW_QK, 0, 1, qk), MHA_EINVAL);
	assert_int_equal(circ_bench_view_rows(&c, &w, 0, CIRC_VIEW_QK_TOKENS, 0, 1, qk), MHA_EINVAL);
	free(qk);
	circ_bench_free(&b);
	mha_acts_free(&a);
	mha_weights_free(&w);
}

static void test_workbench_heads_add_into_y_through_their_circuits(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(); /* the wired workbench */
	bench_check(c);
	c.seed = 5;
	c.h = 4;
	c.g = 2;           /* GQA: heads 0, 1 read kv head 0 */
	c.head_off[2] = true;
	c.causal = true;
	bench_check(c);
	c.scale = false;
	c.bias = true;     /* the sum still holds with b^O */
	bench_check(c);
	c = mha_config_default();
	c.seed = 9;
	c.d = 12;
	c.h = 3;
	c.g = 3;
	c.dk = 5;          /* h dk != d */
	c.n = 7;
	bench_check(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trained_induction_model_shows_its_circuit),
		cmocka_unit_test(test_a_head_at_a_fixed_offset_is_not_called_induction),
		cmocka_unit_test(test_matching_heads_that_do_not_copy_are_not_induction),
		cmocka_unit_test(test_probes_repeat_a_block_of_distinct_tokens),
		cmocka_unit_test(test_pairs_differ_where_the_header_says),
		cmocka_unit_test(test_lens_parts_add_up_to_the_logits),
		cmocka_unit_test(test_a_head_switched_off_is_a_no_op_to_ablate_and_patch),
		cmocka_unit_test(test_rank_counts_independent_directions),
		cmocka_unit_test(test_more_classes_than_tokens_leave_copying_undefined),
		cmocka_unit_test(test_a_position_outside_the_context_is_refused),
		cmocka_unit_test(test_data_the_model_cannot_read_is_refused),
		cmocka_unit_test(test_identical_pairs_leave_nothing_to_restore),
		cmocka_unit_test(test_workbench_heads_add_into_y_through_their_circuits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
