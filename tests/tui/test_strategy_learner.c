/*
 * test_strategy_learner.c - two strategies a gaming learner (one who plays
 * to pass, not to learn) really used must not pass the shipped lessons'
 * exercises. test_blind_learner.c presses keys at random; these learners
 * are cleverer in one way each:
 *
 *   - the letter learner answers every choice question the same way, in
 *     its one try: the same letter, or the longest or the shortest
 *     choice; for every such way, the share of choice questions it earns
 *     must stay at most LETTER_PERCENT_MAX percent;
 *   - the climber reads the goal line the lesson pane draws ("Not yet
 *     (1 of 2 hold): Y[3,0] = 0.52, want within 0.66..0.68"), and the
 *     figures of the goal's other conditions where the screen shows them
 *     (cells the step does not hide, the configuration, the counts
 *     unless hidden); it tries + / -, round values and small steps typed
 *     on a cell's value on the editable cells the stage screens show
 *     (a third of the time a highlighted cell, a third a cell of a
 *     matrix the step's text names: "by editing W^K only"), factors for
 *     a block with * once taught, and the keys the lessons taught so
 *     far, each in turn; it keeps a change while the reading gets nearer
 *     the goal (in some runs the condition the goal line names first
 *     counts most, in the others all count alike), pressing the
 *     same key again, and undoes it (u) when not. It never reads a
 *     hidden value; and the goal line it reads is on the 80x24 screen of
 *     every exercise it tries (checked below).
 *
 * What counts as passed by the climber: the goal earned (met, not only
 * shown) within the budget in any run, with the step's question, if any,
 * passable blind as test_blind_learner.c judges it: no question, or a
 * choice among fewer than three. A numeric question or a choice among
 * three or more closes the gate (test_blind_learner checks that no
 * numeric answer is on the step's screens); the climber still climbs
 * behind it, with the answer given, and the report says so ("behind a
 * gate"), as a measure of what the prediction alone holds back.
 *
 * The budget: BUDGET = 400 keys a run (navigation, values and undos
 * counted), what a patient player presses in ten minutes at one key every
 * 1.5 s while reading the goal line; RUNS = 32 runs a step, with different
 * random choices of cell, key and value, about half of them weighing the
 * conditions alike rather than in the goal line's order (8 runs missed
 * two exercises that 32 find, one run in eight to sixteen).
 *
 * Both learners were written while the lessons were being fixed for
 * them; since the fixes landed (main 184303c: letters a 12/31, b 12/31,
 * c 7/31; no exercise climbed, against 3 of 28 on 1054c82: lesson 1
 * steer, lesson 2 one-cell, lesson 12 twins) both are enforced.
 * ENFORCE_LETTERS or ENFORCE_CLIMB set to 0 makes its test print its
 * figures without failing (MHA_STRATEGY_STRICT=1 makes it fail all the
 * same). Either way the learners' teeth are checked: a weak lesson
 * written for the test is passed, and its predicted twin is not.
 *
 * MHA_STRATEGY_REPORT=1 prints every exercise the climber tried;
 * MHA_STRATEGY_TRACE=1 every move it kept, and the goal line after it;
 * MHA_STRATEGY_RUNS and MHA_STRATEGY_BUDGET change RUNS and BUDGET.
 * Deliberately not here: a learner copying numbers off the screen into
 * numeric questions (test_blind_learner's numeric check already counts a
 * question passed when its answer is any number on any of its screens).
 * Suite 'perf' as well as 'tui': some 10^5 forward passes, left out of
 * the valgrind run.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>
#include <curses.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "ref.h"
#include "stage.h"
#include "vscreen.h"
#include "tui_check.h"

/* 1: the test fails when the learner passes (see above). */
enum { ENFORCE_LETTERS = 1, ENFORCE_CLIMB = 1 };
/* Always-X earns at most this share of the choice questions (percent:
 * 12 of 30 is exactly 40, in whole numbers). */
enum { LETTER_PERCENT_MAX = 40 };
enum { RUNS = 32, BUDGET = 400, KEYS_MAX = 64, CELLS_MAX = 8192, REPEAT_MAX = 40 };
/* Under AddressSanitizer (CI's second pass, some 12x slower here) a
 * quarter of the runs: the same first seeds, so it can only find less;
 * the verdict on the lessons is the plain build's. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
enum { RUNS_HERE = RUNS / 4 };
#else
enum { RUNS_HERE = RUNS };
#endif
/* RUNS_HERE and BUDGET, or MHA_STRATEGY_RUNS / MHA_STRATEGY_BUDGET when
 * set (by hand: how much more would it take?). */
static int runs = RUNS_HERE, budget = BUDGET;

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-strategy-XXXXXX";

static bool strict(int enforce)
{
	return enforce || getenv("MHA_STRATEGY_STRICT") != NULL;
}

/* ---- the letter learner ---- */

/* What the learner answers every choice question with: a letter
 * ('a'..'z'), or the longest or the shortest choice (the first of equals),
 * a test-taker's old trick. */
enum { PICK_LONGEST = 'z' + 1, PICK_SHORTEST, PICK_END };

static size_t text_chars(const char *t) /* UTF-8 characters */
{
	size_t n = 0;
	for (; *t; t++)
		n += ((unsigned char)*t & 0xc0) != 0x80;
	return n;
}

/* The choice of q that strategy picks, or -1 when it offers none. */
static int pick(const struct lesson_question *q, int strategy)
{
	int best = -1;
	for (int c = 0; c < q->nchoices; c++) {
		size_t len = text_chars(q->choices[c].text), at = best < 0 ? 0 : text_chars(q->choices[best].text);
		if (strategy < PICK_LONGEST ? (q->choices[c].key[0] | 0x20) == strategy && best < 0
		    : best < 0 || (strategy == PICK_LONGEST ? len > at : len < at))
			best = c;
	}
	return best;
}

/* Of the choice questions of s, how many strategy earns (one try each), and how many there are. */
static int strategy_wins(const struct lesson_set *s, int strategy, int *questions, bool *offered)
{
	int wins = 0;
	*questions = 0;
	*offered = false;
	for (int li = 0; li < s->count; li++)
		for (int si = 0; si < s->lessons[li].nsteps; si++) {
			const struct lesson_question *q = s->lessons[li].steps[si].question;
			if (!q || q->nchoices == 0)
				continue;
			(*questions)++;
			int c = pick(q, strategy);
			*offered |= c >= 0;
			wins += c >= 0 && strcasecmp(q->choices[c].key, q->answer) == 0;
		}
	return wins;
}

static const char *strategy_name(int strategy, char *buf, size_t len)
{
	if (strategy == PICK_LONGEST || strategy == PICK_SHORTEST)
		return strategy == PICK_LONGEST ? "the longest" : "the shortest";
	snprintf(buf, len, "'%c'", strategy);
	return buf;
}

/* Does a strategy earn more than LETTER_PERCENT_MAX percent of the
 * choice questions of s? The worst one's name and percentage in worst
 * and *percent; prints every strategy's share. */
static bool letter_too_good(const struct lesson_set *s, char *worst, size_t len, double *percent)
{
	int questions = 0, best = -1;
	char name[8];
	*percent = 0;
	fprintf(stderr, "always the same answer, of the choice questions:");
	for (int k = 'a'; k < PICK_END; k++) {
		bool offered;
		int wins = strategy_wins(s, k, &questions, &offered);
		if (!offered)
			continue;
		fprintf(stderr, " %s %d/%d (%.0f%%)", strategy_name(k, name, sizeof name), wins, questions,
		        questions ? 100.0 * wins / questions : 0);
		if (wins > best) {
			best = wins;
			snprintf(worst, len, "%s", strategy_name(k, name, sizeof name));
			*percent = questions ? 100.0 * wins / questions : 0;
		}
	}
	fprintf(stderr, "\n");
	return best > 0 && 100 * best > LETTER_PERCENT_MAX * questions;
}

static void test_no_letter_earns_more_than_its_share(void **state)
{
	(void)state;
	char worst[16];
	double percent;
	if (!letter_too_good(&set, worst, sizeof worst, &percent))
		return;
	if (!strict(ENFORCE_LETTERS)) {
		fprintf(stderr, "NOT ENFORCED (ENFORCE_LETTERS = 0): always %s earns %.0f%%, more than %d%%\n",
		        worst, percent, LETTER_PERCENT_MAX);
		return;
	}
	fail_msg("always %s earns %.0f%% of the choice questions, more than %d%%", worst, percent,
	         LETTER_PERCENT_MAX);
}

/* ---- the climber ---- */

/* The same runs every time. */
static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
	return tui_check_rnd(&rng_state, n);
}

/* Taught actions the climber does not press as moves of their own: it
 * navigates and edits by itself (below), and never leaves the step, asks
 * for a hint or the solution, or undoes other than to drop a change. */
static const char *const not_moves[] = {
	"next", "prev", "hint", "solution", "answer", "menu", "leave", "quit", "save", "help", "edit",
	"matrix-scale", "undo", "left", "right", "up", "down", "stage-jump", "stage-next", "stage-prev",
	"matrix-next", "matrix-prev", "nudge-up", "nudge-down", "qkv", "scroll-down", "scroll-up",
	"counts", "redraw", "export", "sentence", "reseed", "reset", "mouse", "train", "analysis",
	"flash", "decode", "masks", "kv-cache",
};

/* Round values typed into a cell, as test_blind_learner's learner types them. */
static const char *const values[] = {
	"0", "1", "2", "3", "4", "5", "8", "10", "-1", "-2", "-3", "-5", "-10", "0.5", "0.1", "0.25", "-0.5",
};

/* An editable cell as the stage screens show it: where the cursor goes
 * (stage, projection, panel, row and column in it) and what it is. */
struct target {
	int stage, proj, panel, row, col;
	enum mha_tensor t;
	int r, c;
	bool marked; /* the step highlights it */
	bool named;  /* in a matrix the step's text names ("by editing W^K only") */
};

struct climber {
	struct app *app;
	const struct lesson_step *step;
	int keys[KEYS_MAX], nkeys, next_key; /* the taught keys, tried in turn */
	bool edit, scale;
	struct target cells[CELLS_MAX];
	int ncells, nmarked, nnamed;
	bool ordered; /* this run weighs the goal's conditions in the goal line's order (else alike) */
	int used;  /* keys pressed */
	bool met;  /* the goal was earned at some moment */
};

static bool earned(const struct app *app)
{
	return app->learn.active && app->learn.run.met && !app->learn.run.unearned;
}

static void press(struct climber *cl, int key)
{
	unsigned f = app_key(cl->app, key);
	if (f & APP_RECOMPUTE)
		app_recompute(cl->app);
	cl->used++;
	cl->met |= earned(cl->app);
}

static void type(struct climber *cl, const char *s)
{
	for (; *s; s++)
		press(cl, *s == '\n' ? '\r' : (unsigned char)*s);
}

/* Does the step's text name weight matrix t ("W^K")? X is left out: a
 * capital X is too common a letter to tell. */
static bool names(const struct lesson_step *s, enum mha_tensor t)
{
	const char *name = mha_tensor_info(t)->name;
	return t != MHA_T_X && ((s->prose && strstr(s->prose, name)) ||
	                        (s->question && strstr(s->question->text, name)));
}

/* A cell to try: a highlighted one, one of a matrix the text names, or
 * any, a third of the time each (any, when the step has none of the kind). */
static const struct target *pick_cell(struct climber *cl)
{
	unsigned kind = rnd(3);
	int n = kind == 0 ? cl->nmarked : kind == 1 ? cl->nnamed : 0;
	if (n == 0)
		return &cl->cells[rnd((unsigned)cl->ncells)];
	int i = (int)rnd((unsigned)n);
	for (int k = 0; k < cl->ncells; k++)
		if ((kind == 0 ? cl->cells[k].marked : cl->cells[k].named) && i-- == 0)
			return &cl->cells[k];
	return &cl->cells[0];
}

/* Every input cell the stage screens show (each once), looked at, not
 * pressed for: the learner sees the screens. */
static void find_cells(struct climber *cl)
{
	const struct app *app = cl->app;
	bool *seen[MHA_T_WO + 1]; /* the inputs: X, W^Q, W^K, W^V, W^O */
	for (int t = 0; t <= MHA_T_WO; t++) {
		struct mha_shape sh = mha_tensor_shape(&app->cfg, (enum mha_tensor)t);
		seen[t] = calloc((size_t)sh.count * (size_t)sh.rows * (size_t)sh.cols, 1);
		assert_non_null(seen[t]);
	}
	cl->ncells = cl->nmarked = cl->nnamed = 0;
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++)
		for (int proj = 0; proj < (s <= PIPELINE_RESHAPE ? PROJ_COUNT : 1); proj++) {
			struct stage_view v;
			int pj = s <= PIPELINE_RESHAPE ? proj : (int)app->proj;
			stage_view((enum pipeline_stage)s, &app->cfg, app->head, (enum proj)pj, &v);
			for (int p = 0; p < v.count; p++) {
				const struct panel *pa = &v.p[p];
				if (!mha_tensor_info(pa->t)->input || pa->proof || pa->t > MHA_T_WO)
					continue;
				struct mha_shape sh = mha_tensor_shape(&app->cfg, pa->t);
				for (int r = 0; r < pa->rows; r++)
					for (int c = 0; c < pa->cols && cl->ncells < CELLS_MAX; c++) {
						size_t at = (size_t)r * sh.cols + pa->col0 + c;
						if (seen[pa->t][at])
							continue;
						seen[pa->t][at] = true;
						bool marked = learn_marked(app, pa->t, 0, r, pa->col0 + c);
						bool named = names(cl->step, pa->t);
						cl->cells[cl->ncells++] = (struct target){ s, pj, p, r, c, pa->t, r,
						                                           pa->col0 + c, marked, named };
						cl->nmarked += marked;
						cl->nnamed += named;
					}
			}
		}
	for (int t = 0; t <= MHA_T_WO; t++)
		free(seen[t]);
}

/* The cursor to cell x with the keys a learner presses: the stage's
 * digit, v for the projection, c for the matrix, the arrows. false when
 * it did not get there. */
static bool go_to(struct climber *cl, const struct target *x)
{
	struct app *app = cl->app;
	if ((int)app->stage != x->stage)
		press(cl, '1' + x->stage);
	for (int i = 0; i < PROJ_COUNT && x->stage <= PIPELINE_RESHAPE && (int)app->proj != x->proj; i++)
		press(cl, 'v');
	for (int i = 0; i < STAGE_PANELS_MAX && app->cur[app->stage].panel != x->panel; i++)
		press(cl, 'c');
	while (app->cur[app->stage].row != x->row && cl->used < budget) {
		int before = app->cur[app->stage].row;
		press(cl, app->cur[app->stage].row < x->row ? KEY_DOWN : KEY_UP);
		if (app->cur[app->stage].row == before)
			break;
	}
	while (app->cur[app->stage].col != x->col && cl->used < budget) {
		int before = app->cur[app->stage].col;
		press(cl, app->cur[app->stage].col < x->col ? KEY_RIGHT : KEY_LEFT);
		if (app->cur[app->stage].col == before)
			break;
	}
	struct cell c;
	return app_cursor_input(app, &c) && c.t == x->t && c.r == x->r && c.c == x->c;
}

/* How far a condition's text ("Y[3,0] = 0.52, want within 0.66..0.68",
 * "heads = 8, want = 16", "Y moved by at most 0.2 since the step began,
 * want within 0.05") is from its target; NAN when it gives no number to
 * compare ("causal is off, want on", "head 1 is on, want off"). */
static double text_distance(const char *why)
{
	const char *want = strstr(why, ", want ");
	const char *eq = strstr(why, " = ");
	const char *most = strstr(why, " moved by at most ");
	if (!want || (!eq && !most) || strncmp(why, "argmax ", 7) == 0)
		return NAN;
	double v = atof(most ? most + strlen(" moved by at most ") : eq + 3);
	const char *w = want + strlen(", want ");
	if (strncmp(w, "within ", 7) == 0) {
		double a = atof(w + 7), b = a;
		const char *dots = strstr(w, "..");
		if (dots)
			b = atof(dots + 2);
		return v < a ? a - v : v > b ? v - b : 0;
	}
	double a = atof(w + strcspn(w, "-0123456789"));
	return w[0] == '>' ? fmax(0, a - v) : w[0] == '<' ? fmax(0, v - a) : w[0] == '=' ? fabs(v - a) : NAN;
}

/* Does the screen show every cell of g's reference (the step hides none)? */
static bool cells_shown(const struct app *app, const struct lesson_cond *g)
{
	struct mha_shape s = mha_tensor_shape(&app->cfg, g->ref.t);
	int lo[3], hi[3], n[3] = { s.count, s.rows, s.cols };
	for (int k = 0; k < 3; k++)
		if (!lesson_range_resolve(g->ref.r[k], n[k], &lo[k], &hi[k]))
			return false;
	for (int m = lo[0]; m <= hi[0]; m++)
		for (int r = lo[1]; r <= hi[1]; r++)
			for (int c = lo[2]; c <= hi[2]; c++)
				if (learn_hidden(app, g->ref.t, m, r, c))
					return false;
	return true;
}

/* Is what g compares on the screen? Its cells unless hidden; the
 * configuration (the header line); the counts unless hidden. */
static bool shown(const struct app *app, const struct lesson_cond *g)
{
	switch (g->kind) {
	case LESSON_COND_CELL:
	case LESSON_COND_REDUCE:
	case LESSON_COND_ARGMAX:
		return cells_shown(app, g);
	case LESSON_COND_QTY:
		return g->qty <= LESSON_Q_HEADS_OFF || !learn_counts_hidden(app);
	case LESSON_COND_HEAD:
		return true; /* a head switched off is drawn as off */
	default:
		return false; /* 'unchanged' shows its figure only on the goal line */
	}
}

/* For "argmax P₀[2,*] = 1": how far the wanted column is below the row's largest. */
static double argmax_gap(const struct app *app, const struct lesson_cond *g)
{
	struct mha_shape s = mha_tensor_shape(&app->cfg, g->ref.t);
	const float *p = mha_tensor_data(&app->w, &app->a, g->ref.t);
	int m = g->ref.r[0].lo, r = g->ref.r[1].lo, want = (int)g->a;
	if (!p || g->cmp != LESSON_EQ || want >= s.cols || m >= s.count || r >= s.rows)
		return NAN;
	const float *row = p + ((size_t)m * s.rows + r) * s.cols;
	double max = -INFINITY;
	for (int j = 0; j < s.cols; j++)
		max = fmax(max, row[j]);
	return max - row[want];
}

/* The climber's reading of the screen, lower when nearer the goal. The
 * goal line gives how many conditions hold ("Not yet (2 of 3 hold)") and
 * names the first that does not, with its figure: those before it hold.
 * Each condition that does not hold costs w (1 + d / (1 + d)), d how far
 * it is from its target when the screen gives it (the goal line for the
 * named one; cells the step does not hide, the configuration, the counts
 * unless hidden, a head's on / off for the others), else the worst
 * (d / (1 + d) = 1: "Y changed shape" is no nearer); the conditions the
 * screen says nothing of (an 'unchanged' not named) share the count the
 * goal line leaves for them. w is 3^(n-1-i) for the i-th of n in a run
 * that takes them in the goal line's order (making the named one hold
 * outweighs anything after it), else 1. Lower is nearer. */
static double reading(const struct climber *cl)
{
	const struct app *app = cl->app;
	const char *line = app->learn.run.status, *first = strstr(line, "): ");
	int n = cl->step->ngoals, hold = 0, named_at = -1, unmet_seen = 0, unknown = 0;
	if (strncmp(line, "Not yet (", 9) == 0 && first)
		hold = atoi(line + 9), first += 3;
	else if (strncmp(line, "Not yet: ", 9) == 0)
		first = line + 9;
	else
		return 0; /* met */
	double cost = 0, unknown_weight = 0, weight = 1;
	for (int i = 1; i < n && cl->ordered; i++)
		weight *= 3;
	for (int i = 0; i < n; i++, weight /= cl->ordered ? 3 : 1) {
		const struct lesson_cond *g = &cl->step->goals[i];
		char why[LESSON_STATUS_MAX];
		bool ok = lesson_cond_eval(g, &app->learn.run, &app->cfg, &app->w, app->stack.layer, why, sizeof why);
		bool named = named_at < 0 && !ok && strcmp(why, first) == 0;
		if (named)
			named_at = i;
		else if (named_at < 0 && first[0] && ok)
			continue; /* before the named one: holds, the line says so */
		if (!named && !shown(app, g)) {
			unknown++;
			unknown_weight += weight;
			continue;
		}
		if (ok)
			continue;
		double d = g->kind == LESSON_COND_ARGMAX ? (shown(app, g) ? argmax_gap(app, g) : NAN)
		                                         : text_distance(why);
		cost += weight * (1 + (isnan(d) ? 1 : d / (1 + d)));
		unmet_seen++;
	}
	int unknown_unmet = n - hold - unmet_seen;
	if (unknown > 0 && unknown_unmet > 0)
		cost += 2 * unknown_weight * unknown_unmet / unknown;
	return cost;
}

/* One undo level made since (top, count)? */
static bool changed(const struct app *app, int top, int count)
{
	return app->undo_top != top || app->undo_count != count;
}

enum move_kind { MOVE_NUDGE, MOVE_STEP, MOVE_TYPE, MOVE_KEY, MOVE_SCALE, MOVE_FACTOR };

/* Steps a climber types on top of a cell's value (it reads the value off
 * the screen): coarse to fine, for bands narrower than a nudge. */
static const double steps[] = { 1, -1, 0.5, -0.5, 0.2, -0.2, 0.05, -0.05, 0.02, -0.02, 0.01, -0.01, 0.005, -0.005 };
/* Factors the scale prompt gets again and again while they help. */
static const char *const factors[] = { "2", "0.5", "1.5", "0.67", "1.2", "0.8", "1.05", "0.95", "-1" };

/* Does a condition the keys change (a shape, a switch, a head) not hold yet? */
static bool wants_keys(const struct climber *cl)
{
	const struct app *app = cl->app;
	for (int i = 0; i < cl->step->ngoals; i++) {
		const struct lesson_cond *g = &cl->step->goals[i];
		char why[LESSON_STATUS_MAX];
		if ((g->kind == LESSON_COND_QTY || g->kind == LESSON_COND_HEAD) &&
		    !lesson_cond_eval(g, &app->learn.run, &app->cfg, &app->w, app->stack.layer, why, sizeof why))
			return true;
	}
	return false;
}

/* Make one move; keep it while the goal line gets better (pressing the
 * same key again, for a nudge or a taught key), drop the last try with u. */
static void climb_once(struct climber *cl, double *now)
{
	struct app *app = cl->app;
	/* what the learner can do: nudge always (the status line offers + and
	 * -); type values once taught; the taught keys, each in turn, half
	 * the time while a shape or switch is wanted; scale once taught */
	enum move_kind can[6];
	int ncan = 0;
	can[ncan++] = MOVE_NUDGE;
	if (cl->edit) {
		can[ncan++] = MOVE_STEP;
		can[ncan++] = MOVE_TYPE;
	}
	if (cl->scale) {
		can[ncan++] = MOVE_SCALE;
		can[ncan++] = MOVE_FACTOR;
	}
	enum move_kind kind = can[rnd((unsigned)ncan)];
	if (cl->nkeys && (rnd(ncan + 1) == 0 || (wants_keys(cl) && rnd(2))))
		kind = MOVE_KEY;
	int key = 0, tabs = (int)rnd(4);
	bool set_cells = rnd(2); /* a round value after = sets the block */
	double step = steps[rnd(sizeof steps / sizeof *steps)];
	const char *value = kind == MOVE_FACTOR ? factors[rnd(sizeof factors / sizeof *factors)]
	                                        : values[rnd(sizeof values / sizeof *values)];
	char line[40] = "";
	if (kind != MOVE_KEY) {
		if (cl->ncells == 0)
			return;
		const struct target *x = pick_cell(cl);
		if (!go_to(cl, x))
			return;
	}
	if (kind == MOVE_NUDGE)
		key = rnd(2) ? '+' : '-';
	else if (kind == MOVE_KEY)
		key = cl->keys[cl->next_key++ % cl->nkeys];
	for (int times = 0; times < REPEAT_MAX && cl->used < budget && !cl->met; times++) {
		int top = app->undo_top, count = app->undo_count;
		if (kind == MOVE_STEP) { /* the cell's value as drawn, plus the step */
			struct stage_view v;
			struct cell c;
			const struct panel *p;
			app_cursor_cell(app, &c, &p, &v);
			float at = app_panel_value(app, p, app->cur[app->stage].row, app->cur[app->stage].col);
			snprintf(line, sizeof line, "\n%.4f\n", at + step);
		} else if (kind == MOVE_TYPE) {
			snprintf(line, sizeof line, "\n%s\n", value);
		} else if (kind == MOVE_SCALE || kind == MOVE_FACTOR) { /* a block: Tab picks which */
			snprintf(line, sizeof line, "*%.*s%s%s\n", tabs, "\t\t\t", kind == MOVE_SCALE && set_cells ? "=" : "",
			         value);
		}
		if (key)
			press(cl, key);
		else
			type(cl, line);
		if (app->mode != &workbench_mode)
			press(cl, 27); /* a refused value: Esc */
		if (cl->met || !changed(app, top, count))
			return;
		double after = reading(cl);
		if (!(after < *now - 1e-6)) {
			press(cl, 'u');
			return;
		}
		*now = after;
		if (getenv("MHA_STRATEGY_TRACE"))
			fprintf(stderr, "  kept %d '%s' key %c at %d: %.4f '%s'\n", kind, line, key ? key : ' ', cl->used, after,
			        app->learn.run.status);
		if (kind == MOVE_KEY)
			find_cells(cl); /* the shapes may have changed */
		if (kind == MOVE_TYPE || kind == MOVE_SCALE)
			return; /* a round value: once */
	}
}

/* One run of the climber on lesson li, step si: true when it earned the
 * goal. The question, if any, is answered right first (its gate is judged
 * apart: see the top of the file). */
static bool climb_run(int li, int si, uint64_t seed, int *keys_used)
{
	static struct climber cl;
	memset(&cl, 0, sizeof cl);
	cl.app = tui_check_open(&set);
	cl.step = &set.lessons[li].steps[si];
	rng_state = seed;
	cl.ordered = rnd(2);
	cl.nkeys = tui_check_taught_keys(&set, li, si, not_moves, (int)(sizeof not_moves / sizeof *not_moves),
	                                 cl.keys, KEYS_MAX, &cl.edit, &cl.scale);
	for (int i = cl.nkeys - 1; i > 0; i--) { /* in an order of the run's own */
		int j = (int)rnd((unsigned)i + 1), k = cl.keys[i];
		cl.keys[i] = cl.keys[j];
		cl.keys[j] = k;
	}
	if (learn_open(cl.app, li, si) & APP_RECOMPUTE)
		app_recompute(cl.app);
	if (cl.step->question && tui_check_answer_right(cl.app) != 1) {
		/* a live question with nothing recorded yet: its gate stays shut */
		*keys_used = 0;
		tui_check_close(cl.app);
		return false;
	}
	cl.met = earned(cl.app);
	find_cells(&cl);
	if (getenv("MHA_STRATEGY_TRACE"))
		fprintf(stderr, "line %d, %s: %d cells (%d marked), %d keys, status '%s'\n", cl.step->line, cl.step->id,
		        cl.ncells, cl.nmarked, cl.nkeys, cl.app->learn.run.status);
	double now = reading(&cl);
	while (!cl.met && cl.used < budget) {
		int before = cl.used;
		climb_once(&cl, &now);
		if (cl.used == before)
			cl.used++; /* a move that could not be made still costs a look */
	}
	*keys_used = cl.used;
	tui_check_close(cl.app);
	return cl.met;
}

/* Does the step's question let a blind learner through? (None, or a choice among fewer than three.) */
static bool gate_open(const struct lesson_step *s)
{
	return !s->question || (s->question->nchoices > 0 && s->question->nchoices < 3);
}

static bool has_edit_goal(const struct lesson_step *s)
{
	for (int i = 0; i < s->ngoals; i++)
		if (s->goals[i].kind != LESSON_COND_ANSWER)
			return true;
	return false;
}

/* Runs of the climber that earned step si of lesson li (of RUNS); the
 * keys the first such run took in *keys. */
static int climbs(int li, int si, int *keys)
{
	int won = 0;
	*keys = 0;
	for (int r = 0; r < runs; r++) {
		int used;
		if (climb_run(li, si, 0x9e3779b97f4a7c15ULL * (uint64_t)(r + 7) + (uint64_t)(li * 64 + si), &used)) {
			if (!won)
				*keys = used;
			won++;
		}
	}
	return won;
}

/* Exercises the climber is known to pass, "LESSON STEP" (e.g. "6 silence"),
 * each reported to its lesson's author: printed, not failed, until their
 * fix lands; then drop them here (the test says when one is no longer
 * climbed). Session 3 had L6 silence and L11 shift here, both fixed. */
static const char *const known[] = {
	NULL, /* the end: the list stays valid C when it is empty */
};

static bool is_known(int lesson, const char *id)
{
	char key[LESSON_ID_MAX + 8];
	snprintf(key, sizeof key, "%d %s", lesson, id);
	for (size_t i = 0; known[i]; i++)
		if (strcmp(known[i], key) == 0)
			return true;
	return false;
}

/* Every exercise with a goal beyond its answer, climbed; the failures
 * (gate open, climbed, not known) listed in out. Returns how many were
 * passed, known ones included (in *known_passed too). */
static int climb_all(const struct lesson_set *s, bool report, char *out, size_t len, int *tried,
                     int *known_passed)
{
	struct lesson_set shipped = set;
	int passed = 0;
	double lucky = 0; /* a guesser's expected earnings: climbed, behind a gate guessed at random */
	*known_passed = 0;
	set = *s;
	*tried = 0;
	out[0] = '\0';
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++) {
			const struct lesson_step *st = &set.lessons[li].steps[si];
			if (!has_edit_goal(st))
				continue;
			(*tried)++;
			int keys, won = climbs(li, si, &keys);
			bool open = gate_open(st), pass = won > 0 && open;
			char line[200], first[40] = "";
			if (won)
				snprintf(first, sizeof first, ", the first in %d keys", keys);
			snprintf(line, sizeof line, "  L%d %s: climbed in %d of %d runs%s (%s)\n",
			         set.lessons[li].number, st->id, won, runs, first, !st->question ? "no question"
			         : st->question->nchoices ? (open ? "a coin-toss choice" : "behind a choice gate")
			                                  : "behind a numeric gate");
			bool known_step = is_known(set.lessons[li].number, st->id);
			if (report || pass)
				fprintf(stderr, "%s%s", known_step && pass ? "  known, reported: " : "", line + (known_step && pass ? 2 : 0));
			else if (known_step && runs >= RUNS) /* fewer runs may just miss it */
				fprintf(stderr, "L%d %s is no longer climbed: drop it from known[]\n",
				        set.lessons[li].number, st->id);
			passed += pass;
			*known_passed += pass && known_step;
			lucky += (double)won / runs * (!st->question ? 1 : st->question->nchoices
			                               ? 1.0 / st->question->nchoices : 0);
			if (pass && !known_step && strlen(out) + strlen(line) < len)
				strcat(out, line);
		}
	set = shipped;
	fprintf(stderr, "climber: a learner who guesses a choice gate's letter at random and then climbs "
	        "earns %.1f of these %d on average (a numeric gate counted shut)\n", lucky, *tried);
	return passed;
}

static void test_no_exercise_is_climbed(void **state)
{
	(void)state;
	char failures[4096];
	int tried, known_passed, passed = climb_all(&set, getenv("MHA_STRATEGY_REPORT") != NULL, failures,
	                                            sizeof failures, &tried, &known_passed);
	fprintf(stderr, "climber: %d of %d exercises with an edit goal passed (%d known), %d runs x %d keys\n",
	        passed, tried, known_passed, runs, budget);
	if (passed == known_passed)
		return;
	if (!strict(ENFORCE_CLIMB)) {
		fprintf(stderr, "NOT ENFORCED (ENFORCE_CLIMB = 0)\n");
		return;
	}
	fail_msg("climbed without the idea:\n%s", failures);
}

/* The learners have teeth: an exercise steered by a live goal line (the
 * old lesson 1 'steer'), a band to reach in Q by a typed value (lesson 2
 * 'one-cell'), and the letters of a set that always answers 'a', are
 * caught; the same steering behind a prediction is not. */
static const char weak_lesson[] =
	"mha-tui-lesson 1\n@lesson 1\n@title Weak\n@objective Exercises a climber passes.\n"
	"@config tokens=4 d_model=4 heads=1 seed=1\n@labels the cat sat down\n"
	"@fill X identity\n@fill W^Q identity\n@fill W^K identity\n@fill W^V identity\n@fill W^O identity\n"
	"@step steer Steer\nMake token 2 attend most to token 1. Type a value with {key:edit}.\n"
	"@goal argmax P₀[2,*] = 1\n@hint h1\n@hint h2\n@hint h3\n@solution W^Q[2,1] = 3\n"
	"@focus Softmax\n@highlight W^Q[2,*]\n"
	"@step band One cell\nMake Q[1,2] equal to 1.\n@set X[1,*] = 0\n@set X[1,0] = 1\n"
	"@goal Q[1,2] within 0.99 1.01\n@hint h1\n@hint h2\n@hint h3\n@solution W^Q[0,2] = 1\n"
	"@focus Projection\n@highlight W^Q[*,2]\n"
	"@step predict Predict, then steer\nPredict, then make token 2 attend most to token 1.\n"
	"@question With W^Q[2,1] = 3, what weight will token 2 give token 1? (two decimals)\n"
	"@answer 0.55 0.01\n@goal answer\n@goal argmax P₀[2,*] = 1\n@hide Softmax\n"
	"@hint h1\n@hint h2\n@hint h3\n@solution W^Q[2,1] = 3\n@focus Softmax\n@highlight W^Q[2,*]\n"
	"@step pick Pick\n@question Which?\n@choice a one\n@choice b two\n@choice c three\n@answer a\n"
	"@feedback b no\n@feedback c no\n@hint h1\n@hint h2\n@hint h3\n@focus Softmax\n"
	"@step pick-again Pick again\n@question Which?\n@choice a one\n@choice b two\n@choice c three\n"
	"@answer a\n@feedback b no\n@feedback c no\n@hint h1\n@hint h2\n@hint h3\n@focus Softmax\n";

static void test_the_learners_catch_a_weak_lesson_and_not_a_prediction(void **state)
{
	(void)state;
	struct lesson_set weak;
	tui_check_one_lesson(&weak, dir, "weak", weak_lesson);
	int keys;
	struct lesson_set shipped = set;
	set = weak;
	int steer = climbs(0, 0, &keys), band = climbs(0, 1, &keys), predict = climbs(0, 2, &keys);
	set = shipped;
	char failures[4096], worst[16];
	double percent;
	int tried, known_passed, passed = climb_all(&weak, false, failures, sizeof failures, &tried, &known_passed);
	bool letters = letter_too_good(&weak, worst, sizeof worst, &percent);
	lesson_set_free(&weak);
	assert_true(steer > 0);
	assert_true(band > 0);
	/* climbed with the answer given, but its numeric gate holds */
	assert_true(predict > 0);
	assert_int_equal(tried, 3);
	assert_int_equal(passed, 2);
	assert_int_equal(known_passed, 0);
	assert_non_null(strstr(failures, "L1 steer: climbed"));
	assert_non_null(strstr(failures, "L1 band: climbed"));
	assert_null(strstr(failures, "predict"));
	assert_true(letters);
	assert_string_equal(worst, "'a'");
}

/* What the climber reads is on the screen: for every exercise it tries,
 * the goal line ("Not yet ...") is drawn at 80x24 once the question is
 * answered. */
static void test_the_goal_line_is_on_the_screen(void **state)
{
	(void)state;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++) {
			const struct lesson_step *st = &set.lessons[li].steps[si];
			if (!has_edit_goal(st))
				continue;
			struct app *app = tui_check_open_at(&set, li, si);
			if (st->question)
				tui_check_answer_right(app);
			app->now_ms = 1000000;
			const char *text = tui_check_screen(app, 24, 80, false);
			if (!strstr(text, "Not yet"))
				fail_msg("lesson %d step %s: no goal line at 80x24:\n%s", set.lessons[li].number, st->id, text);
			tui_check_close(app);
		}
}

/* The climber reads the goal line's figures as a learner would. */
static void test_the_climber_reads_how_far_the_goal_line_is(void **state)
{
	(void)state;
	assert_float_equal(text_distance("Y[3,0] = 0.52, want within 0.66..0.68"), 0.14, 1e-9);
	assert_float_equal(text_distance("Y[3,0] = 0.7, want within 0.66..0.68"), 0.02, 1e-9);
	assert_float_equal(text_distance("Y[3,0] = 0.67, want within 0.66..0.68"), 0, 1e-9);
	assert_float_equal(text_distance("P₁[5,4] = 0.31, want > 0.8"), 0.49, 1e-9);
	assert_float_equal(text_distance("max P₀[3,*] = 0.5, want < 0.2"), 0.3, 1e-9);
	assert_float_equal(text_distance("heads = 8, want = 16"), 8, 1e-9);
	assert_float_equal(text_distance("S₁[0,4] = -1.5, want >= 2"), 3.5, 1e-9);
	assert_float_equal(text_distance("Y moved by at most 1.04 since the step began, want within 0.0001"),
	                   1.04 - 0.0001, 1e-9);
	assert_true(isnan(text_distance("causal is off, want on")));
	assert_true(isnan(text_distance("head 1 is on, want off")));
	assert_true(isnan(text_distance("Y changed shape since the step began")));
	assert_true(isnan(text_distance("argmax P₀[2,*] = 2 (sat), want 1 (cat)")));
}

int main(void)
{
	setlocale(LC_ALL, "C");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_climber_reads_how_far_the_goal_line_is),
		cmocka_unit_test(test_the_goal_line_is_on_the_screen),
		cmocka_unit_test(test_the_learners_catch_a_weak_lesson_and_not_a_prediction),
		cmocka_unit_test(test_no_letter_earns_more_than_its_share),
		cmocka_unit_test(test_no_exercise_is_climbed),
	};
	if (getenv("MHA_STRATEGY_RUNS"))
		runs = atoi(getenv("MHA_STRATEGY_RUNS"));
	if (getenv("MHA_STRATEGY_BUDGET"))
		budget = atoi(getenv("MHA_STRATEGY_BUDGET"));
	/* the shipped lessons, loaded once for every test */
	if (tui_check_lessons_open(&set, dir) != 0)
		return 1;
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return tui_check_lessons_close(&set, dir) != 0 ? 1 : failed;
}
