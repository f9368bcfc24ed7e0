/*
 * app.h - the workbench's state: the model (configuration, inputs,
 * activations, cursor, undo stack) and the view (focused stage, status
 * message, overlays). One struct app, passed by pointer; no globals.
 * Everything here works without a terminal, so the tests drive it directly.
 */
#ifndef APP_H
#define APP_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline.h"
#include "goal.h"
#include "run.h"
#include "setup.h"
#include "hit.h"
#include "mha.h"
#include "claim.h"
#include "progress.h"
#include "save.h"
#include "stage.h"

enum {
	APP_MODES_MAX = 32,          /* screen modes an app runs with (mode.h) */
	APP_UNDO_MAX = 64,           /* undo levels kept */
	APP_UNDO_BYTES = 256 << 20,  /* inputs kept by undo levels at most: at d_model 1024 and
	                              * h x d_k 4096 one level holds 64 MiB, and 64 of them
	                              * would take 4 GiB; the oldest go first */
	APP_EDIT_MAX = 32,           /* bytes of a typed value */
	APP_STATUS_MAX = 320,
	APP_STATUS_MS = 4000,        /* a message shows this long */
	APP_CHANGED_MS = 1500,       /* cells changed by an edit stay marked this long */
	APP_AUTOSAVE_EDITS = 20,     /* edits between autosaves (a shape change saves at once) */
	APP_AUTOSAVE_WAIT_MS = 2000, /* an autosave owed waits for a pause in the keys this long at most */
	APP_NOTICE_MS = 60000,       /* the "an autosave is waiting" notice shows this long, or until a key */
};

/* What a key changed (mode.h): the loop recomputes and redraws
 * accordingly. A key that changes nothing drawn returns 0 and no frame is
 * drawn for it; one that changes what is drawn says APP_REDRAW (a message
 * too); APP_RECOMPUTE implies a frame. */
enum app_flags {
	APP_REDRAW = 1 << 0,     /* something drawn changed: draw a frame */
	APP_RECOMPUTE = 1 << 1,  /* inputs or configuration changed: run mha_forward, then draw */
	APP_QUIT = 1 << 2,
};

struct app_cursor {
	int panel, row, col;  /* panel of the stage view, cell within it */
};

struct undo_entry {
	enum { UNDO_CELL, UNDO_CONFIG, UNDO_ALL } kind;
	enum mha_tensor t;        /* UNDO_CELL: which input, */
	int layer;                /*   of which layer (W's; X and P_pos are every layer's), */
	size_t index;             /*   which cell, */
	float old;                /*   and its value before */
	struct mha_config cfg;    /* UNDO_CONFIG / UNDO_ALL: the configuration before */
	struct mha_weights w;     /* UNDO_ALL: every input before (owned) */
};

/* One workbench's model and where the learner looks at it. The free
 * session and an open lesson each have one: a lesson's set-ups never touch
 * the learner's own session, and leaving a lesson returns to it as it was.
 * The app holds the one in use (app->bench, whose fields it also names
 * directly: app->cfg is app->bench.cfg); the other waits in
 * app->learn.other, and app_bench_swap exchanges them. The fields are
 * written once, here, for both. */
#define BENCH_FIELDS \
	struct mha_config cfg;        /* valid at all times */ \
	struct mha_weights w;         /* the inputs the learner edits */ \
	struct mha_stack stack;       /* every layer's intermediates of cfg, w (after app_recompute; owned) */ \
	struct mha_acts a;            /* the viewed layer's: stack.layer[layer] (not owned) */ \
	int layer;                    /* the layer the stage screens show: 0 .. cfg.layers - 1 */ \
	float *prev;                  /* every tensor's values before the last edit, tensor after tensor */ \
	size_t prev_len;              /* floats in prev */ \
	long long changed_until_ms;   /* mark cells that differ from prev until then */ \
	struct undo_entry undo[APP_UNDO_MAX]; /* ring buffer; levels that hold whole inputs \
	                               * (UNDO_ALL) keep at most APP_UNDO_BYTES between them */ \
	int undo_top, undo_count; \
	enum pipeline_stage stage;    /* the focused stage */ \
	struct app_cursor cur[PIPELINE_STAGE_COUNT]; /* a cursor per stage */ \
	int head;                     /* the head the stage screens show */ \
	enum proj proj;               /* Q, K or V on Projection and Reshape */ \
	int heat_page;                /* heatmap page when they do not all fit */

struct bench {
	BENCH_FIELDS
};

enum { LEARN_MSG_MAX = 4096, LEARN_TYPED_MAX = 8 };

struct app;

/* The open step's bench on disk (learn_place.c, lessonbench.h): its
 * file, the name this instance saves it to (claimed: a second mha-tui at
 * the same step gets "-2"; beside the file when the file was refused),
 * and why the file itself could not be read (kept as it is). */
struct learn_bench_file {
	char path[4096];             /* the step's bench, "" before one is claimed */
	char saves_to[4200];         /* where this run saves it (locked while the step is open) */
	char refused[LEARN_MSG_MAX]; /* why path was refused, or "" */
	char recovered[4300];        /* a crashed run's autosave loaded into the step: removed once saved */
};

/* The lessons side of the app (learn.h has the operations). All off when
 * `enabled` is false: the workbench alone, as in the workbench's tests. */
struct app_learn {
	bool enabled;                  /* the lesson pane is on screen (tui_run, lesson tests) */
	const struct lesson_set *set;  /* the lessons found, or NULL (not owned) */
	char none[LEARN_MSG_MAX];      /* no lessons: why (every path tried); or load errors */
	struct progress progress;      /* steps done, and the learner's place */
	const char *progress_path;     /* where progress saves; NULL: not saved (not owned) */
	bool open;                     /* run holds a step of lesson `lesson` */
	bool active;                   /* the app's bench is that lesson's (else the free one) */
	int lesson;                    /* index into set of the open lesson */
	struct lesson_run run;         /* the step the learner is on */
	struct bench other;            /* the bench not in use: the free one while active,
	                                * the lesson's while the learner is out of it */
	bool has_other;
	int menu_sel;                  /* index into set */
	char typed[LEARN_TYPED_MAX];   /* a lesson number being typed in the menu */
	int scroll;                    /* first line of the pane's middle part */
	int scroll_max;                /* as last drawn (0 until then) */
	bool reading;                  /* the reading layout: while the step's text is more than its
	                                * pane holds, the words take the body (frame.c); a step
	                                * opened, a hint, an answer set it, a key of the matrices
	                                * clears it (keys.c) */
	bool show_counts;              /* narrow terminals: the side column shows the counts */
	struct learn_kept *kept;       /* per step of lesson kept_lesson: its bench as left when done (learn.c) */
	const char *skip_warned;       /* the key told that leaving forward forfeits the waiting question (learn.c) */
	int nkept, kept_lesson;
	struct learn_bench_file bench_file; /* the open step's bench on disk */
	bool progress_unsaved;         /* the last save of the progress failed: tried again at quit */
	char progress_error[LEARN_MSG_MAX]; /*   and why */
	bool quit_saved;               /* learn_quit has saved the place and bench: learn_free does not */
	/* the lessons' part of app_recompute (check the goal) and of app_free
	 * (save the place, free the lesson): set by learn_attach, which is how
	 * the lessons join an app (the app itself knows no lesson code) */
	void (*evaluate)(struct app *app);
	void (*release)(struct app *app);
};

struct mode_ops;
struct app {
	/* the bench in use: the model, and where the learner looks at it */
	union {
		struct bench bench;   /* whole (app_bench_swap) */
		struct { BENCH_FIELDS }; /* field by field: app->cfg, app->stage, ... */
	};
	/* the forward pass app_recompute runs: mha_stack_forward (every
	 * layer; with one layer, mha_forward's numbers). The golden screen
	 * tests set mha_stack_forward_naive, whose last digits are the same for
	 * every CPU kernel and BLAS backend (sanitizer and valgrind builds). */
	void (*forward)(const struct mha_config *, const struct mha_weights *, struct mha_stack *);
	struct app_save save;         /* the session file: where it saves, what is owed (save.h) */
	bool notice;                  /* the status message goes at the next key */
	/* the screen modes (mode.h): the table the app runs with, which one
	 * has the keys, each one's private state (by its place in the table) */
	const struct mode_ops *const *modes; /* modes[0] the workbench; NULL ends it */
	const struct mode_ops *mode;  /* the mode that has the keys */
	const struct mode_ops *mode_back; /* under a prompt: the mode it returns to; else mode */
	void *mode_state[APP_MODES_MAX];

	/* view (besides the bench's and the modes') */
	int heat_per_page;            /* as last drawn (for paging) */
	int heat_scale;               /* the heatmaps' scale: 0 each head, 1 each row, 2 shared (heat_strip.c) */
	bool help_open;               /* the help overlay is up (over any mode but a prompt) */
	const char *lm_model;         /* --model FILE: the language model W opens (NULL: the shipped one) */
	int help_scroll;              /* first help line shown */
	char status[APP_STATUS_MAX];  /* message for the status line */
	bool status_error;
	long long status_until_ms;    /* show the message until then */
	bool quit_armed;              /* q failed to save: a second q quits anyway */
	long long now_ms;             /* the clock: the loop sets it after every key (tests set it) */
	struct hit_map hits;          /* what was drawn where, as last drawn (frame_draw):
	                               * what a click meets */
	struct { int y, x; enum hit_button button; } mouse; /* the event app_mouse is applying */

	/* lessons */
	struct app_learn learn;
};

/* Start with cfg (valid) and w (allocated; ownership passes to the app),
 * running the screen modes of `modes` (mode.h; modes[0] the workbench,
 * NULL after the last; not owned: the program's is tui_modes, modes.h). */
int app_init(struct app *app, const struct mode_ops *const *modes, const struct mha_config *cfg,
             struct mha_weights *w, char *msg, size_t len);
void app_free(struct app *app);

/* The stack's forward over the current inputs, then what follows them:
 * every mode's recompute hook (mode.h) and the open lesson's goal. */
void app_recompute(struct app *app);

/* Layers. A view reads the layer the learner looks at as app->layer and
 * its numbers as app->a (that layer's activations) or app_tensor (W's of
 * that layer too); app_layer_set moves there (clamped; APP_* flags). */
unsigned app_layer_set(struct app *app, int layer);
float *app_tensor(const struct app *app, enum mha_tensor t);

/* A status-line message for APP_STATUS_MS. */
void app_message(struct app *app, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The stage view of the focused stage, and the cell under the cursor
 * (false when the stage shows nothing): app_cursor_cell builds the view
 * into v, app_view_cursor reads the cursor off a view already built (the
 * frame builds it once a frame). */
void app_view(const struct app *app, struct stage_view *v);
bool app_cursor_cell(const struct app *app, struct cell *out, const struct panel **panel,
                     struct stage_view *v);
bool app_view_cursor(const struct app *app, const struct stage_view *v, struct cell *out,
                     const struct panel **panel);

/* The cursor is on a cell of an input (not on the Reshape proof): *out. */
bool app_cursor_input(const struct app *app, struct cell *out);
/* The same (out may be NULL), else a message saying what to edit
 * instead: an edit or a prompt for one asks this first. */
bool app_cursor_editable(struct app *app, struct cell *out);

/* Value of a panel cell (proof panels compute X . W block in double). */
float app_panel_value(const struct app *app, const struct panel *p, int r, int c);

/* Model operations, each recording undo. Return APP_* flags. */
unsigned app_set_cell(struct app *app, float v);             /* the cursor's input cell */
unsigned app_set_input(struct app *app, const struct cell *c, float v); /* input cell c (a nudge's) */
unsigned app_change_config(struct app *app, const struct mha_config *next, const char *what);
unsigned app_reseed(struct app *app, unsigned long long seed, const char *what);
unsigned app_undo(struct app *app);
/* Every cell of rows [r0, r1) x columns [c0, c1) of input t multiplied by
 * f, or set to f when set is true: one undo level. Refused (message, no
 * change) when a result would pass +-MHA_VALUE_MAX. */
unsigned app_scale_cells(struct app *app, enum mha_tensor t, int r0, int r1, int c0, int c1,
                         float f, bool set, const char *what);
/* Do two configurations have the same shapes? */
bool app_same_shape(const struct mha_config *a, const struct mha_config *b);

/* Keep cursor and head inside the current shapes. */
void app_clamp(struct app *app);

/* Benches (struct bench): exchange the app's with b; free one; make cfg
 * and w (owned from here on) the app's, with no undo levels and fresh
 * activations (a lesson step's set-up). app_bench_reset: 0, or -1 with
 * msg (out of memory; the app is then unchanged and w freed). */
void app_bench_swap(struct app *app, struct bench *b);
void app_bench_free(struct bench *b);
int app_bench_reset(struct app *app, const struct mha_config *cfg, struct mha_weights *w,
                    char *msg, size_t len);
/* Make cfg and w (owned from here on) the app's, the old ones kept as an
 * undo level (a lesson's solution). Returns APP_* flags. */
unsigned app_replace(struct app *app, const struct mha_config *cfg, struct mha_weights *w);
/* A copy of the app's inputs, for changing them aside. 0, or -1 (memory). */
int app_copy_weights(const struct app *app, struct mha_weights *out);

/* The marks of changed cells (marks.c). */
#include "marks.h"

#endif
