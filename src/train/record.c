/*
 * record.c - a training run kept for watching again (record.h): snapshots
 * of what the training screen draws at evenly spaced steps, at most
 * TRAIN_RECORD_MAX of them (the spacing doubles when they fill up), the
 * whole run's loss (pairs of entries merged when it fills up), and the
 * step at which each head type first scored above its threshold. It
 * stores what it is given; the scores themselves come from analysis.c,
 * through the caller. No terminal, no clock: the same steps give the same
 * record however fast they were trained.
 */
#include "record.h"

#include <stdlib.h>
#include <string.h>

/* A snapshot's figures, in this order, as doubles: loss, acc, held loss,
 * held accuracy, then per head (l * h + i) its scores, |grad|, distance
 * mean and shares, off (0 / 1), then each layer's spread. */
enum { SNAP_FIXED = 4, HEAD_DOUBLES = TRAIN_PAT_COUNT + 1 + 1 + TRAIN_DIST_BUCKETS + 1 };

static int heads(const struct train_record *r)
{
	return r->s.layers * r->s.h;
}

int train_record_init(struct train_record *r, const struct train_shape *s, const double threshold[TRAIN_PAT_COUNT])
{
	memset(r, 0, sizeof *r);
	r->s = *s;
	r->snap_doubles = SNAP_FIXED + (size_t)heads(r) * HEAD_DOUBLES + (size_t)s->layers;
	r->snap_floats = (size_t)heads(r) * (size_t)s->n * (size_t)s->n;
	r->dmem = malloc(TRAIN_RECORD_MAX * r->snap_doubles * sizeof *r->dmem);
	r->pmem = malloc(TRAIN_RECORD_MAX * r->snap_floats * sizeof *r->pmem);
	if (!r->dmem || !r->pmem) {
		train_record_free(r);
		return -1;
	}
	memcpy(r->threshold, threshold, sizeof r->threshold);
	train_record_clear(r);
	return 0;
}

void train_record_free(struct train_record *r)
{
	free(r->dmem);
	free(r->pmem);
	r->dmem = NULL;
	r->pmem = NULL;
}

void train_record_clear(struct train_record *r)
{
	r->count = 0;
	r->stride = TRAIN_RECORD_STRIDE;
	r->nloss = 0;
	r->loss_per = 1;
	r->pending = 0;
	r->npending = 0;
	r->last_step = 0;
	for (int p = 0; p < TRAIN_PAT_COUNT; p++) {
		r->below[p] = false;
		r->formed[p] = -1;
	}
}

size_t train_record_bytes(const struct train_record *r)
{
	return TRAIN_RECORD_MAX * (r->snap_doubles * sizeof *r->dmem + r->snap_floats * sizeof *r->pmem) +
	       sizeof r->loss;
}

bool train_record_wants(const struct train_record *r, long step)
{
	return step % r->stride == 0 && (r->count == 0 || step > r->steps[r->count - 1]);
}

/* Every other snapshot dropped (those off the doubled stride). */
static void thin(struct train_record *r)
{
	long stride = 2 * r->stride;
	int kept = 0;
	for (int k = 0; k < r->count; k++) {
		if (r->steps[k] % stride != 0)
			continue;
		if (kept != k) {
			r->steps[kept] = r->steps[k];
			r->probe_ok[kept] = r->probe_ok[k];
			memcpy(r->dmem + (size_t)kept * r->snap_doubles, r->dmem + (size_t)k * r->snap_doubles,
			       r->snap_doubles * sizeof *r->dmem);
			memcpy(r->pmem + (size_t)kept * r->snap_floats, r->pmem + (size_t)k * r->snap_floats,
			       r->snap_floats * sizeof *r->pmem);
		}
		kept++;
	}
	r->count = kept;
	r->stride = stride;
}

/* The marks: a head type forms at the first snapshot where some head
 * scores above its threshold, after one where none did. */
static void marks(struct train_record *r, const struct train_snap *snap)
{
	for (int p = 0; p < TRAIN_PAT_COUNT; p++) {
		double top = 0;
		for (int l = 0; l < r->s.layers; l++)
			for (int i = 0; i < r->s.h; i++) {
				double v = snap->scores[(l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + p];
				top = v > top ? v : top;
			}
		if (top <= r->threshold[p])
			r->below[p] = true;
		else if (r->below[p] && r->formed[p] < 0)
			r->formed[p] = snap->step;
	}
}

void train_record_put(struct train_record *r, const struct train_snap *snap)
{
	if (!train_record_wants(r, snap->step))
		return;
	marks(r, snap);
	while (r->count == TRAIN_RECORD_MAX) {
		thin(r);
		if (!train_record_wants(r, snap->step))
			return;
	}
	int k = r->count++;
	r->steps[k] = snap->step;
	r->probe_ok[k] = snap->probe_ok;
	double *d = r->dmem + (size_t)k * r->snap_doubles;
	*d++ = snap->loss;
	*d++ = snap->acc;
	*d++ = snap->held.loss;
	*d++ = snap->held.accuracy;
	for (int l = 0; l < r->s.layers; l++)
		for (int i = 0; i < r->s.h; i++) {
			int hd = l * MHA_MAX_HEADS + i;
			memcpy(d, snap->scores + hd * TRAIN_PAT_COUNT, TRAIN_PAT_COUNT * sizeof *d);
			d += TRAIN_PAT_COUNT;
			*d++ = snap->norms[hd];
			*d++ = snap->dist[hd].mean;
			memcpy(d, snap->dist[hd].share, TRAIN_DIST_BUCKETS * sizeof *d);
			d += TRAIN_DIST_BUCKETS;
			*d++ = snap->head_off[l][i] ? 1.0 : 0.0;
		}
	for (int l = 0; l < r->s.layers; l++)
		*d++ = snap->spread[l];
	if (snap->probe_ok)
		memcpy(r->pmem + (size_t)k * r->snap_floats, snap->probe, r->snap_floats * sizeof *r->pmem);
}

void train_record_get(const struct train_record *r, int k, struct train_snap *out)
{
	float *probe = out->probe;
	memset(out, 0, sizeof *out);
	out->probe = probe;
	if (k < 0 || k >= r->count)
		return;
	out->step = r->steps[k];
	out->probe_ok = r->probe_ok[k];
	const double *d = r->dmem + (size_t)k * r->snap_doubles;
	out->loss = *d++;
	out->acc = *d++;
	out->held.loss = *d++;
	out->held.accuracy = *d++;
	for (int l = 0; l < r->s.layers; l++)
		for (int i = 0; i < r->s.h; i++) {
			int hd = l * MHA_MAX_HEADS + i;
			memcpy(out->scores + hd * TRAIN_PAT_COUNT, d, TRAIN_PAT_COUNT * sizeof *d);
			d += TRAIN_PAT_COUNT;
			out->norms[hd] = *d++;
			out->dist[hd].mean = *d++;
			memcpy(out->dist[hd].share, d, TRAIN_DIST_BUCKETS * sizeof *d);
			d += TRAIN_DIST_BUCKETS;
			out->head_off[l][i] = *d++ != 0.0;
		}
	for (int l = 0; l < r->s.layers; l++)
		out->spread[l] = *d++;
	if (out->probe_ok)
		memcpy(probe, r->pmem + (size_t)k * r->snap_floats, r->snap_floats * sizeof *probe);
}

int train_record_find(const struct train_record *r, long step)
{
	int k = 0;
	while (k + 1 < r->count && r->steps[k + 1] <= step)
		k++;
	return k;
}

void train_record_loss(struct train_record *r, long step, double loss)
{
	if (step <= r->last_step)
		return; /* each step once, in order */
	r->last_step = step;
	r->pending += loss;
	if (++r->npending < r->loss_per)
		return;
	if (r->nloss == TRAIN_RUN_LOSS_MAX) {
		/* full: each entry the mean of twice as many steps */
		for (int k = 0; k < TRAIN_RUN_LOSS_MAX / 2; k++)
			r->loss[k] = 0.5f * (r->loss[2 * k] + r->loss[2 * k + 1]);
		r->nloss = TRAIN_RUN_LOSS_MAX / 2;
		r->loss_per *= 2;
		if (r->npending < r->loss_per)
			return;
	}
	r->loss[r->nloss++] = (float)(r->pending / (double)r->npending);
	r->pending = 0;
	r->npending = 0;
}

bool train_record_loss_mean(const struct train_record *r, long a, long b, double *out)
{
	/* entry k covers steps k loss_per + 1 .. (k + 1) loss_per */
	long ka = (a - 1) / r->loss_per, kb = (b - 1) / r->loss_per;
	if (ka < 0)
		ka = 0;
	if (kb >= r->nloss)
		kb = r->nloss - 1;
	if (ka > kb)
		return false;
	double sum = 0;
	for (long k = ka; k <= kb; k++)
		sum += r->loss[k];
	*out = sum / (double)(kb - ka + 1);
	return true;
}
