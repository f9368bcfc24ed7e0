/*
 * parser.h - the lesson parser's state, shared by its files: parse.c
 * reads the lines and dispatches the directives (the header's and
 * @include itself), parse_setup.c and parse_step.c hold the other
 * directives, resolve.c checks the result against each step's
 * configuration once the last line is read. Private to the lesson module.
 */
#ifndef PARSER_H
#define PARSER_H

#include "lesson_int.h"

struct caps { /* capacities of the arrays being grown */
	int ops, labels, kv_labels, marks, goals, hints, solution, hides, choices, feedback;
};

struct parser {
	const char *file;           /* for messages */
	struct lesson *l;
	struct lesson_arena *a;
	struct lesson_errors *errs;
	const char *assets_dir;
	int nerr;                   /* errors of this file */
	bool oom;
	bool foreign;               /* not a lesson file at all: report only that */
	int line;
	int steps_cap, lint_cap;
	int cur;                    /* current step, -1 in the header */
	struct caps base_caps, step_caps;
	char *prose;                /* current step's prose (malloc) */
	size_t prose_len, prose_cap;
	int title_line, objective_line, number_line;
	bool base_labels_bad;       /* reported already */
	bool *base_op_reported;     /* resolve.c: base operation i reported already (one
	                             * report, for the first step it fails in) */
	/* an open @matrix block */
	struct lesson_op *block;    /* NULL when none */
	int block_line;
	float *rows;                /* its numbers (malloc) */
	int nvals, vals_cap, block_cols, block_rows;
};

/* "file:line: message", counted in ps->nerr. */
void lesson_parser_err(struct parser *ps, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* p, or NULL after reporting "out of memory" (once; the parse then stops). */
void *lesson_parser_need(struct parser *ps, void *p);
/* The step being read (NULL in the header), and the set-up directives
 * add to: the step's, or in the header every step's (with its capacities). */
struct lesson_step *lesson_parser_step(struct parser *ps);
struct lesson_setup *lesson_parser_setup(struct parser *ps, struct caps **caps);

/* A directive: fn(ps, its argument, without blanks at either end). The
 * set-up directives (parse_setup.c): */
void lesson_d_config(struct parser *ps, const char *arg);
void lesson_d_labels(struct parser *ps, const char *arg);
void lesson_d_kv_labels(struct parser *ps, const char *arg);
void lesson_d_matrix(struct parser *ps, const char *arg);
void lesson_d_end(struct parser *ps, const char *arg);
void lesson_d_preset(struct parser *ps, const char *arg);
void lesson_d_fill(struct parser *ps, const char *arg);
void lesson_d_embed(struct parser *ps, const char *arg);
void lesson_d_set(struct parser *ps, const char *arg);
/* A row of numbers inside an open @matrix block; the block closed (@end,
 * the next directive or the end of the file). */
void lesson_parser_block_row(struct parser *ps, const char *l);
void lesson_parser_block_close(struct parser *ps);
/* The step's exercise and view (parse_step.c): */
void lesson_d_focus(struct parser *ps, const char *arg);
void lesson_d_highlight(struct parser *ps, const char *arg);
void lesson_d_hide(struct parser *ps, const char *arg);
void lesson_d_wait(struct parser *ps, const char *arg);
void lesson_d_goal(struct parser *ps, const char *arg);
void lesson_d_hint(struct parser *ps, const char *arg);
void lesson_d_solution(struct parser *ps, const char *arg);
void lesson_d_question(struct parser *ps, const char *arg);
void lesson_d_choice(struct parser *ps, const char *arg);
void lesson_d_answer(struct parser *ps, const char *arg);
void lesson_d_feedback(struct parser *ps, const char *arg);
/* The FlashAttention view's (flash_step.c): @flash, and after the last line a
 * step's live question checked. */
void lesson_d_flash(struct parser *ps, const char *arg);
void lesson_flash_resolve(struct parser *ps, struct lesson_step *s);
/* The language model's view (model_step.c): @model, and after the last
 * line a step's model goals, answer and edits checked. */
void lesson_d_model(struct parser *ps, const char *arg);
void lesson_model_resolve(struct parser *ps, struct lesson_step *s);

/* After the last line: resolve every step's configuration and check
 * references, shapes, assets and questions against it (resolve.c). */
void lesson_parser_finish(struct parser *ps);

#endif
