/*
 * lm_command.h - the language model's headless commands
 * (doc/LANGUAGE_MODEL.md): `mha-tui --train lm` trains it and saves the
 * model and its vocabulary; `mha-tui --eval [--model FILE]` prints its
 * held-out cross-entropy beside unigram and bigram baselines, and what its
 * heads do. They print to the streams they are given and return an exit
 * status; main.c only dispatches.
 */
#ifndef TRAIN_LM_COMMAND_H
#define TRAIN_LM_COMMAND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The shipped model's shape and budget (what `--train lm` does with no
 * other flag): doc/LANGUAGE_MODEL.md. */
enum { LM_DEFAULT_VOCAB = 8192, LM_DEFAULT_D = 64, LM_DEFAULT_HEADS = 4, LM_DEFAULT_LAYERS = 2,
       LM_DEFAULT_CONTEXT = 64, LM_DEFAULT_STEPS = 5000 };
#define LM_DEFAULT_CORPUS "/usr/share/wordnet"

struct lm_request {
	const char *corpus;  /* WordNet's data files; NULL: LM_DEFAULT_CORPUS */
	const char *model;   /* --eval: the model file; NULL: the shipped one */
	const char *save;    /* --train lm: where the model goes (its vocabulary beside it) */
	int layers, d_model, heads, steps, vocab; /* 0: the defaults above */
	uint64_t seed;
	int threads;         /* 0: 1 */
};

/* Progress on err, one line on out. 0; 1 (corpus or file trouble); 2 (bad shape). */
int lm_train_command(const struct lm_request *rq, FILE *out, FILE *err);
/* The report on out. 0, or 1 with a message on err. */
int lm_eval_command(const struct lm_request *rq, FILE *out, FILE *err);
/* The vocabulary's file for a model file: NAME.model -> NAME.vocab, else NAME.vocab. */
void lm_vocab_path(const char *model_path, char *out, size_t len);
/* Does the model file (and its vocabulary) load? 0, or -1 with
 * "--model FILE: why" in msg. */
int lm_model_check(const char *path, char *msg, size_t len);

#endif
