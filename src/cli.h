/*
 * cli.h - the command line of mha-tui, parsed into a plain struct. No
 * output and no exit here, so the parser can be tested and fuzzed.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "mha.h"

enum cli_mode { CLI_TUI, CLI_DUMP, CLI_CHECK_LESSONS, CLI_HELP, CLI_VERSION,
                CLI_TRAIN, CLI_ABLATE, CLI_EXPORT, CLI_EVAL, CLI_CIRCUITS };
/* The last of the modes (fuzz_cli checks a parsed mode against it): a new
 * mode goes before it or becomes it. */
#define CLI_MODE_LAST CLI_CIRCUITS

struct cli {
	enum cli_mode mode;
	struct mha_config cfg;   /* valid (mha_config_check) when parse succeeds */
	bool config_given;       /* a configuration flag was given */
	const char *load;        /* --load FILE, or NULL */
	const char *lesson;      /* --lesson ID, or NULL */
	const char *lessons_dir; /* --lessons-dir DIR, or NULL */
	const char *check_dir;   /* --check-lessons [DIR]: DIR, or NULL */
	bool no_color;           /* --no-color */
	bool no_mouse;           /* --no-mouse */
	bool grad;               /* --grad: the dump adds the gradients of 1/2 sum(Y^2) */
	struct cli_train {       /* --train TASK / --ablate TASK (doc/TRAINING.md) */
		const char *task;    /* the task's name, checked against train_task_find */
		int layers;          /* --layers 1|2; 0: the task's default */
		const char *layers_text; /* --layers as typed: the task's, or the stack's (cfg.layers) */
		int steps;           /* --steps N; 0: the task's default */
		int seeds;           /* --seeds S (ablation); 0: default */
		const char *save;    /* --save FILE, or NULL */
		int heads, d_model;  /* --heads, --d-model as given; 0: not given */
		bool seed_given;     /* --seed was given (cfg.seed holds it) */
		const char *other_config; /* the first other configuration flag given, or NULL */
	} train;
	struct cli_lm {          /* the language model (doc/LANGUAGE_MODEL.md) */
		bool eval;           /* --eval given */
		bool model_given;    /* --model [FILE]: the model, not the workbench's weights */
		const char *model;   /* FILE, or NULL: the shipped one */
		const char *corpus;  /* --corpus DIR (--train lm, --eval), or NULL: /usr/share/wordnet */
		int vocab;           /* --vocab V (--train lm); 0: its default */
		int generate;        /* --generate N (the model's dump): tokens generated after --text; 0: none */
		const char *other;   /* the first configuration flag given other than --text, or NULL */
	} lm;
	struct cli_circuits {    /* --circuits MODEL [--json] [--position P] (doc/CIRCUITS.md) */
		const char *model;   /* the model file */
		bool json;           /* --json: one JSON object instead of tables */
		int position;        /* --position P: the logit lens's; -1 default */
	} circuits;
	const char *text;        /* --text "the cat sat": one token a word (n set from it), or NULL */
	const char *kv_text;     /* --kv-text "le chat": the source's words (m set from them), or NULL */
	const char *export_format; /* --export FORMAT FILE: "py", "svg" or "txt" */
	const char *export_file;   /*   FILE ("-": standard output) */
	bool export_scores;        /* --stage scores: the SVG shows S (default P) */
	bool export_stage_given;   /* --stage given: txt draws that stage (else the default) */
};

/* Returns 0, or 2 (usage error) with a one-line message naming the flag,
 * the value and what is allowed. argv strings are referenced, not copied. */
int cli_parse(int argc, char **argv, struct cli *out, char *msg, size_t len);

/* The --help text. */
extern const char cli_usage[];

#endif
