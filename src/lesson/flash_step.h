/*
 * flash_step.h - lessons on the FlashAttention view (flash_step.c): the @flash
 * directive (open the view at given tile sizes and step, optionally in
 * its predict state), questions answered from the view's recording
 * (@answer flash l[0] 0.002), and the known slips a @feedback line can
 * name (@feedback no-rescale ...). The lesson library never sees the
 * engine: the TUI copies the recording's numbers for the asked row into
 * a struct lesson_flash_live (in the step's run), and this file turns
 * them into the right answer and the slips' answers.
 * Deliberately not here: the recording, the view, any drawing.
 */
#ifndef LESSON_FLASH_STEP_H
#define LESSON_FLASH_STEP_H

#include <stdbool.h>

#include "lesson.h"

/* @flash BRxBC STEP [predict]: the view opens with query tiles of br rows
 * and key tiles of bc columns at step `step` (1-based, as the view counts
 * them). With predict, step `step` is the one the learner predicts: the
 * view opens one step before it, shows its tile as the next one with "?"
 * for its numbers, and goes on to it only once the step's question is
 * answered. */
struct lesson_flash {
	int br, bc, step;
	bool predict;
	int line;
};

/* What a live question asks, of query row `row` after the predicted step:
 * the running max m, the running sum l, the factor exp(m_old - m_new) the
 * earlier sums were multiplied by, or column `col` of the partial output o. */
enum lesson_flash_qty { LESSON_FLASH_M, LESSON_FLASH_L, LESSON_FLASH_RESCALE, LESSON_FLASH_O };

struct lesson_flash_ask {
	enum lesson_flash_qty qty;
	int row, col;
};

/* Known slips, named by @feedback of a live question; each is the number
 * a learner who makes it would type. */
enum lesson_flash_slip {
	LESSON_SLIP_NONE = -1,
	LESSON_SLIP_SUM,        /* m: the sum of the scores met instead of their max */
	LESSON_SLIP_KEPT,       /* m, rescale: m taken as unchanged (m_old; factor 1) */
	LESSON_SLIP_INVERSE,    /* rescale: exp(m_new - m_old) */
	LESSON_SLIP_NO_EXP,     /* rescale: m_old - m_new, the exponent alone */
	LESSON_SLIP_NO_RESCALE, /* l, o: the old sum added without its rescale */
	LESSON_SLIP_TILE_ONLY,  /* l, o: the new tile's terms alone, the old sum forgotten */
	LESSON_SLIP_DIVIDED,    /* o: divided by l already (that is the end, O = o / l) */
	LESSON_SLIP_OLD,        /* l, o: the value before the step, the new tile's terms never added */
	LESSON_SLIP_COUNT
};

/* The recording's numbers for the asked row (and column of o): before
 * the predicted step (m0 = -inf, l0 = 0, o0 = 0 when it is the row's
 * first key tile) and after it; the rescale factor the step applied; and
 * the sum of the row's scores over every key met up to that step. */
struct lesson_flash_live {
	bool ok;
	double m0, l0, o0;
	double m1, l1, o1;
	double alpha;
	double seen_sum;
};

/* "no-rescale" -> its slip, or LESSON_SLIP_NONE. */
enum lesson_flash_slip lesson_flash_slip_by_name(const char *name);
const char *lesson_flash_slip_name(enum lesson_flash_slip s);
/* Does slip s make sense for quantity q? */
bool lesson_flash_slip_fits(enum lesson_flash_slip s, enum lesson_flash_qty q);

/* The answer to ask from the live numbers, or with slip the number that
 * slip gives. */
double lesson_flash_value(const struct lesson_flash_ask *ask, const struct lesson_flash_live *v,
                          enum lesson_flash_slip slip);

/* Is this @answer text a live one ("flash ...")? */
bool lesson_flash_answer_is(const char *answer);

#endif
