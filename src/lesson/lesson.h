/*
 * lesson.h - guided lessons: what a lesson file holds once parsed, the
 * parser, the set of lessons in a directory, and where that directory is.
 * The file format is documented with a complete example in lessons/README.md.
 * No terminal here: the TUI asks run.h and pane.h for state and for
 * lines of text, and draws them.
 *
 * Indices in lesson files are 0-based, as on screen (head 0, S_0, token 0).
 * Tensors are named as on screen (mha_tensor_info()->name): X, W^Q, W^K,
 * W^V, W^O, Q, K, V, S, P, O, Concat, Y. A reference is written in the one
 * cell notation (src/core/notation.h): P₀[2,0] names a cell of a per-head
 * tensor (S, P, O: the head a subscript, P_0 without UTF-8), Y[3,0] one of
 * any other; each index is a number, a range lo..hi, or * (all).
 *
 * Usage (the TUI):
 *
 *     char dir[4096], msg[4096];
 *     if (lesson_find_dir(flag_dir, dir, sizeof dir, msg, sizeof msg) != 0) fail(msg);
 *     struct lesson_set set;
 *     struct lesson_errors errs = { 0 };
 *     lesson_set_load(&set, dir, &errs);        // what parsed is usable even when errs.count > 0
 *     const struct lesson *l = lesson_set_find(&set, "3");   // or "reshape"
 *     struct lesson_run run;                     // run.h
 *     lesson_run_start(&run, l, 0, &cfg, &w, msg, sizeof msg);
 *     ... after every mha_forward: lesson_run_eval(&run, &cfg, &w, &acts);
 *     ... draw lesson_run_pane(&run, width, keys, ctx, utf8, &text)  // pane.h
 *     lesson_run_end(&run);  lesson_set_free(&set);  lesson_errors_free(&errs);
 */
#ifndef LESSON_H
#define LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "mha.h"
#include "pipeline.h"

enum {
	LESSON_FORMAT_VERSION = 1, /* first line of a lesson file: "mha-tui-lesson 1" */
	LESSON_ID_MAX = 40,        /* bytes of a step id, NUL included */
	LESSON_NAME_MAX = 48,      /* bytes of a lesson name ("reshape"), NUL included */
	LESSON_FILE_MAX = 1 << 20, /* larger lesson or asset files are refused */
	LESSON_ERRORS_MAX = 200,   /* errors kept per load; more are counted only */
};

/* The pipeline's stages (enum pipeline_stage) and their labels are the
 * core's (pipeline.h): lessons name them as the screen does. */

/* What goals compare and edits assign, by their names in lesson files.
 * The first LESSON_Q_CONFIG_COUNT are fields of struct mha_config (causal
 * and scale read on / off); heads_off counts heads switched off; the rest
 * are mha_counts() figures. */
enum lesson_qty {
	LESSON_Q_TOKENS, LESSON_Q_D_MODEL, LESSON_Q_HEADS, LESSON_Q_KV_HEADS, LESSON_Q_D_K,
	LESSON_Q_CAUSAL, LESSON_Q_TOP_K, LESSON_Q_SCALE, LESSON_Q_SEED,
	LESSON_Q_POS, LESSON_Q_POS_OFFSET, LESSON_Q_LAYERS, /* pos reads none|learned|sinusoidal|rope */
	LESSON_Q_KV_TOKENS, /* cross-attention's source tokens M (0: self-attention) */
	LESSON_Q_CONFIG_COUNT,
	LESSON_Q_HEADS_OFF = LESSON_Q_CONFIG_COUNT,
	LESSON_Q_PARAMS, LESSON_Q_PARAMS_WQ, LESSON_Q_PARAMS_WK, LESSON_Q_PARAMS_WV,
	LESSON_Q_PARAMS_WO, LESSON_Q_FLOPS, LESSON_Q_FLOPS_PROJECTION, LESSON_Q_FLOPS_SCORES,
	LESSON_Q_FLOPS_SOFTMAX, LESSON_Q_FLOPS_WEIGHTED_SUM, LESSON_Q_FLOPS_OUTPUT,
	LESSON_Q_FLOPS_ONE_FULL_HEAD, LESSON_Q_KV_CACHE,
	LESSON_Q_COUNT
};
const char *lesson_qty_name(enum lesson_qty q);
/* The quantity's value for configuration c (counts from mha_counts). */
long long lesson_qty_value(const struct mha_config *c, enum lesson_qty q);

/* One index of a reference: lo..hi inclusive; hi = -1 means "to the last". */
struct lesson_range {
	int lo, hi;
};

/* Cells of one tensor: r[0] is the matrix (the head of S, P, O; always
 * 0..0 for the others), r[1] the rows, r[2] the columns; layer the layer
 * of the stack whose tensor it is ("layer 1 S₀[2,3]"; 0 when not written).
 * The residual stream x_L ("x₁[2,0]") is t = MHA_T_XIN with layer L: the
 * input of layer L, or for L = cfg.layers the stack's output. */
struct lesson_ref {
	enum mha_tensor t;
	struct lesson_range r[3];
	int layer;
};

/* One change to the workbench (@set and @solution lines). */
enum lesson_edit_kind {
	LESSON_EDIT_SET,    /* REF = v: every cell of ref (an input) becomes v */
	LESSON_EDIT_SCALE,  /* REF *= v: every cell of ref is multiplied by v */
	LESSON_EDIT_CONFIG, /* FIELD = v: a configuration field (shapes may change) */
	LESSON_EDIT_HEAD,   /* head H off | on */
	LESSON_EDIT_PAD,    /* pad T on | off: key token T padding, or not (head: T, off: not padding) */
	LESSON_EDIT_ANSWER, /* answer TEXT: the learner's answer (solutions only) */
	LESSON_EDIT_MODEL_HEAD, /* model head KIND off | on (solutions only): the language model's head the
	                         * analysis names, switched by the TUI (head: the kind, model_step.h) */
};

struct lesson_edit {
	enum lesson_edit_kind kind;
	int line;                /* in the lesson file */
	struct lesson_ref ref;   /* SET, SCALE */
	double value;            /* SET: the value; SCALE: the factor; CONFIG: the field's value */
	enum lesson_qty field;   /* CONFIG */
	int head;                /* HEAD; PAD: the key token */
	bool off;                /* HEAD; PAD: true for "off", not padding */
	const char *answer;      /* ANSWER */
};

/* One condition of an exercise's goal (@goal lines, all must hold). */
enum lesson_cond_kind {
	LESSON_COND_CELL,      /* REF op a [b]: one cell of any tensor */
	LESSON_COND_ARGMAX,    /* argmax REF op a: REF is one row; a is a column */
	LESSON_COND_REDUCE,    /* max|min|sum REF op a [b]: over every cell of REF */
	LESSON_COND_QTY,       /* QUANTITY op a [b] */
	LESSON_COND_HEAD,      /* head H off | on */
	LESSON_COND_UNCHANGED, /* unchanged T a: every cell of T within a of the step's start */
	LESSON_COND_ANSWER,    /* the learner answered the step's question right */
	LESSON_COND_PROBE,     /* previous-token | prefix-matching layer L op a: the layer's best head on
	                        * sequences the program generates (probe.h), embedded by the step's @embed */
	LESSON_COND_CHANGED,   /* changed T a: some cell of T moved by more than a since the step's start */
	LESSON_COND_MODEL,     /* model ...: the language model's state, as the TUI measured it (model_step.h) */
};

/* What a model goal reads (LESSON_COND_MODEL). */
enum lesson_model_goal {
	LESSON_MODEL_HEADS_OFF, /* model heads_off op a: heads off in every layer of the model */
	LESSON_MODEL_HEAD,      /* model head KIND off|on: the head the analysis names for KIND */
	LESSON_MODEL_TOP1,      /* model top1[T] changed|unchanged: the most probable next token after T */
	LESSON_MODEL_NEXT,      /* model next[T] changed|unchanged: the top 5 after T (the view's '*') */
};

/* What a probe goal measures (LESSON_COND_PROBE). */
enum lesson_probe { LESSON_PROBE_PREVIOUS, LESSON_PROBE_PREFIX };

enum lesson_cmp {
	LESSON_LT, LESSON_LE, LESSON_GT, LESSON_GE, LESSON_EQ, LESSON_NE,
	LESSON_IN, /* a <= x <= b ("within") */
};

struct lesson_cond {
	enum lesson_cond_kind kind;
	int line;
	const char *text;        /* the condition as written, for messages */
	struct lesson_ref ref;   /* CELL, ARGMAX, REDUCE, UNCHANGED (t only) */
	enum lesson_qty qty;     /* QTY */
	enum lesson_cmp cmp;     /* CELL, ARGMAX (EQ or NE), REDUCE, QTY */
	int reduce;              /* REDUCE: 0 max, 1 min, 2 sum */
	double a, b;             /* the value, or the range a..b for LESSON_IN */
	int head;                /* HEAD */
	bool off;                /* HEAD */
	enum lesson_probe probe; /* PROBE */
	int layer;               /* PROBE */
	enum lesson_model_goal model; /* MODEL: what it reads */
	int model_kind;          /* MODEL, HEAD: enum lesson_model_kind (model_step.h) */
	int token;               /* MODEL, TOP1 / NEXT: the position T */
};

/* A question the learner answers: multiple choice (choices, answer is a
 * key) or numeric (no choices, value within tol). */
struct lesson_choice {
	const char *key;  /* "a" */
	const char *text; /* "the previous token" */
};

/* Why a wrong answer is wrong (@feedback KEY TEXT): KEY is a choice's
 * key, or for a numeric question a number (a known mistake, matched as
 * the answer is, within the question's tolerance). */
struct lesson_feedback {
	const char *key;
	double value;     /* numeric questions: KEY read as a number */
	const char *text;
	int line;
	int slip;         /* a live question's: enum lesson_flash_slip (flash_step.h) */
	struct lesson_ref *cell; /* "@feedback cell REF TEXT" (cell questions): the slip is REF's live value */
};

struct lesson_flash_ask;
struct lesson_flash;

struct lesson_question {
	const char *text;
	int line;
	struct lesson_choice *choices;
	int nchoices;
	const char *answer;  /* as written after @answer */
	double value, tol;   /* numeric questions */
	struct lesson_feedback *feedback;
	int nfeedback;
	struct lesson_flash_ask *flash; /* "@answer flash ...": answered from the recording (flash_step.h), or NULL */
	struct lesson_ref *cell;  /* "@answer cell REF [TOL]": the answer is that cell's live value, or NULL */
	bool model;               /* "@answer model head KIND": the head the analysis names (model_step.h) */
	int model_kind;           /* its kind; a @feedback's slip is another kind's head */
};

/* What stays hidden until the learner answers right or shows the solution (predict, then
 * reveal). STAGE hides that stage and every later one. */
enum lesson_hide_kind { LESSON_HIDE_STAGE, LESSON_HIDE_COUNTS, LESSON_HIDE_CELLS,
                        LESSON_HIDE_MODEL /* the language model's predictions and heads (@hide model) */ };

struct lesson_hide {
	enum lesson_hide_kind kind;
	enum pipeline_stage stage; /* STAGE */
	struct lesson_ref ref;   /* CELLS */
};

/* Something the step points at: a head (its heatmap, its blocks) or cells. */
struct lesson_mark {
	bool is_head;
	int head;
	struct lesson_ref ref;
};

/* How a step sets the workbench up. Directives before the first @step set
 * the lesson's base; a step's own directives change that base for that
 * step only. Applied in order: configuration, seed, labels, operations. */
enum lesson_op_kind {
	LESSON_OP_MATRIX,   /* inline @matrix block or @preset asset: whole matrix */
	LESSON_OP_ZERO,     /* @fill T zero */
	LESSON_OP_IDENTITY, /* @fill T identity: 1 where row = column */
	LESSON_OP_EMBED,    /* @embed TOKENS POSITIONS: X[i] = tokens[label i] + positions[i] */
	LESSON_OP_EDIT,     /* @set EDIT */
};

struct lesson_feature { /* one row of a .feat asset */
	const char *key;
	float *v;
};

struct lesson_op {
	enum lesson_op_kind kind;
	int line;
	enum mha_tensor t;     /* MATRIX, ZERO, IDENTITY */
	const char *asset;     /* @preset / @embed: first asset name, else NULL */
	const char *asset2;    /* @embed: the positions asset */
	float *data;           /* MATRIX: rows x cols values, row-major */
	int rows, cols;        /* MATRIX; EMBED: cols is the feature width */
	struct lesson_feature *tokens, *positions; /* EMBED, once loaded */
	int ntokens, npositions;
	struct lesson_edit edit; /* EDIT */
};

struct lesson_setup {
	unsigned given;                    /* bit q: field q of @config given */
	long long value[LESSON_Q_CONFIG_COUNT];
	int config_line;
	const char **labels;               /* @labels, or NULL */
	int nlabels, labels_line;
	const char **kv_labels;            /* @kv_labels: the source's (X_kv's), or NULL */
	int nkv_labels, kv_labels_line;
	struct lesson_op *ops;
	int nops;
};

struct lesson_step {
	const char *id;           /* stable id, unique in the lesson */
	const char *title;        /* may be "" */
	int line;                 /* of its @step */
	const char *prose;        /* raw prose lines joined by '\n' (lesson_wrap them) */
	struct lesson_setup setup;/* its own set-up directives */
	bool resets;              /* entering it sets the workbench up (own set-up, or an exercise) */
	int focus;                /* enum pipeline_stage, or -1 */
	int focus_layer;          /* "@focus layer L STAGE": the layer shown; -1 when not given */
	struct lesson_mark *marks;
	int nmarks;
	struct lesson_cond *goals;/* empty: no exercise */
	int ngoals;
	const char **hints;
	int nhints;
	struct lesson_edit *solution;
	int nsolution;
	struct lesson_question *question; /* or NULL */
	struct lesson_hide *hides;
	int nhides;
	struct mha_config cfg;    /* its starting configuration, resolved */
	struct lesson_flash *flash; /* @flash: the FlashAttention view it opens (flash_step.h), or NULL */
	const char *wait;         /* @wait ACTION: that view waits, here and in every step before, until this
	                           * step's question is answered right or shown; or NULL */
	const char *model;        /* @model SENTENCE: the language model's view on it owns the step, or NULL */
	int model_line;
};

struct lesson_arena;

struct lesson {
	const char *path;         /* as given to lesson_load (or the name) */
	const char *name;         /* "reshape" for 03-reshape.lesson */
	const char *stem;         /* "03-reshape" */
	int number;               /* @lesson */
	int number_line;          /* where @lesson is */
	const char *title;        /* @title */
	const char *objective;    /* @objective: the one-line goal */
	struct lesson_setup base;
	struct lesson_step *steps;
	int nsteps;
	int nexercises;
	/* "file:line: message" for what reads but is not written as lessons
	 * should be (a cell in an old notation in prose): only
	 * --check-lessons reports these */
	const char **lint;
	int nlint;
	struct lesson_arena *arena; /* owns everything above */
};

static inline bool lesson_step_is_exercise(const struct lesson_step *s)
{
	return s->ngoals > 0;
}

/* Messages as "file:line: message", in order. */
struct lesson_errors {
	char **msg;
	int count;   /* kept (at most LESSON_ERRORS_MAX) */
	int dropped; /* beyond that */
};
void lesson_errors_add(struct lesson_errors *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lesson_errors_free(struct lesson_errors *e);

/* Parse a lesson from memory. name is used in messages and gives the
 * lesson's name and stem ("dir/03-reshape.lesson" -> "reshape",
 * "03-reshape"). Assets (@preset, @embed, @include) are read from
 * assets_dir; NULL refuses them. Never crashes, whatever the bytes.
 * Returns 0, or -1 with every error appended to errs (*out is then empty
 * and needs no lesson_free). */
int lesson_parse(const char *name, const char *text, size_t size, const char *assets_dir,
                 struct lesson *out, struct lesson_errors *errs);
int lesson_load(const char *path, const char *assets_dir, struct lesson *out,
                struct lesson_errors *errs);
void lesson_free(struct lesson *l);

/* The directive nearest to a misspelled one ("hnit" -> "hint"), or NULL
 * when none is close. */
const char *lesson_nearest_directive(const char *word);

/* Every NN-slug.lesson in a directory, in file-name order. */
struct lesson_set {
	struct lesson *lessons;
	int count;
	char *dir;
	char *assets_dir; /* where its assets were found, or NULL */
};

/* Load every lesson of dir; lessons that fail to parse are left out and
 * their errors appended. Also checks the set: numbers 1..N in file order,
 * each matching its file name's NN. Returns 0 when all is well, -1 when
 * errs got anything (set is still usable: free it either way). */
int lesson_set_load(struct lesson_set *set, const char *dir, struct lesson_errors *errs);
void lesson_set_free(struct lesson_set *set);
/* By number ("3"), name ("reshape") or stem ("03-reshape"); NULL if none. */
const struct lesson *lesson_set_find(const struct lesson_set *set, const char *id);
/* Index of a step by id, or -1. */
int lesson_step_index(const struct lesson *l, const char *id);

/* Where the lessons are: flag_dir (--lessons-dir) when given, and then no
 * other; else $MHA_TUI_LESSONS, the source tree (MHA_LESSONS_SOURCE_DIR,
 * when the program runs from a build directory), the installed data dir
 * (MHA_LESSONS_INSTALL_DIR). A candidate counts when it holds at least one
 * .lesson file. Returns 0 with the directory in out, or -1 with a message
 * listing every path tried and why it did not count. */
int lesson_find_dir(const char *flag_dir, char *out, size_t outlen, char *msg, size_t len);
/* lesson_find_dir with its inputs given, for the tests: the flag, the
 * environment variable's value, the source tree (tried only when
 * use_source), the installed dir. */
int lesson_dir_search(const char *flag, const char *env, const char *source, bool use_source,
                       const char *install, char *out, size_t outlen, char *msg, size_t len);

/* The assets directory for a lessons directory: DIR/assets, DIR/../assets,
 * then beside the source and installed lessons. 0, or -1 with the paths
 * tried in msg. */
int lesson_find_assets(const char *lessons_dir, char *out, size_t outlen, char *msg, size_t len);

#endif
