/*
 * main.c - mha-tui's entry: the command line decides between the headless
 * JSON dump, the lesson checker and the interactive workbench. Every
 * failure ends here with one line on stderr and exit 1 or 2.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "checker.h"
#include "command.h"
#include "dump.h"
#include "mha.h"
#include "session.h"
#include "tui.h"

/* One line on stderr; what the message quotes cannot drive the terminal. */
static int fail(int status, const char *msg)
{
	char line[8192];
	snprintf(line, sizeof line, "%s", msg);
	mha_text_clean(line);
	fprintf(stderr, "mha-tui: %s\n", line);
	return status;
}

/* Configuration and inputs from --load FILE, or from the flags and seed. */
static int open_inputs(const struct cli *cl, struct mha_config *c, struct mha_weights *w)
{
	char msg[MHA_MSG_MAX + 4096];
	if (cl->load) {
		if (session_load(cl->load, c, w, msg, sizeof msg) != 0)
			return fail(1, msg);
		return 0;
	}
	*c = cl->cfg;
	if (mha_weights_alloc(w, c) != MHA_OK)
		return fail(1, "out of memory for the weights");
	mha_weights_init(w, c, c->seed);
	mha_weights_default_labels(w, c);
	if (c->bias)
		mha_biases_init(w, c, c->seed);
	if (cl->text) {
		/* checked by cli_parse: n words, each a valid label */
		mha_text_split(cl->text, w->labels, c->n, msg, sizeof msg);
		mha_embed_words(w, c, c->seed);
	}
	return 0;
}

static int run_dump_grad(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_acts *a);
static int run_training(const struct cli *cl);

static int run_dump(const struct cli *cl)
{
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	int rc = open_inputs(cl, &c, &w);
	if (rc)
		return rc;
	if (mha_acts_alloc(&a, &c) != MHA_OK) {
		mha_weights_free(&w);
		return fail(1, "out of memory for the activations");
	}
	mha_forward(&c, &w, &a);
	if (cl->grad)
		rc = run_dump_grad(&c, &w, &a);
	else
		rc = dump_json(stdout, &c, &w, &a) == 0 ? 0 : fail(1, "writing the dump failed");
	mha_acts_free(&a);
	mha_weights_free(&w);
	return rc;
}

/* --text in the workbench: the sentence's session (labels and X) is
 * written where the workbench saves, and opened from there, as a fresh
 * configuration would start anew. */
static int start_with_text(const struct cli *cl, struct tui_options *o, char *msg, size_t len)
{
	struct mha_config c;
	struct mha_weights w;
	int rc = open_inputs(cl, &c, &w);
	if (rc)
		return rc;
	rc = session_save(o->session_path, &c, &w, msg, len) == 0 ? 0 : fail(1, msg);
	mha_weights_free(&w);
	o->load = o->session_path;
	o->config_given = false;
	return rc;
}

static int run_tui(const struct cli *cl)
{
	char path[4096], msg[MHA_MSG_MAX + 4096];
	struct tui_options o = {
		.cfg = cl->cfg, .config_given = cl->config_given, .load = cl->load,
		.no_color = cl->no_color || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]),
		.no_mouse = cl->no_mouse,
		.lesson = cl->lesson, .lessons_dir = cl->lessons_dir,
	};
	if (cl->load) {
		o.session_path = cl->load;
	} else {
		if (session_default_path(path, sizeof path, msg, sizeof msg) != 0)
			return fail(1, msg);
		o.session_path = path;
	}
	if (cl->text) {
		int rc = start_with_text(cl, &o, msg, sizeof msg);
		if (rc)
			return rc;
	}
	return tui_run(&o);
}

int main(int argc, char **argv)
{
	/* LC_CTYPE only: wide characters for the screen, while numbers keep
	 * '.' as the decimal point in every locale. */
	setlocale(LC_CTYPE, "");

	struct cli cl;
	char msg[512];
	if (cli_parse(argc, argv, &cl, msg, sizeof msg) != 0)
		return fail(2, msg);
	switch (cl.mode) {
	case CLI_HELP:
		fputs(cli_usage, stdout);
		return 0;
	case CLI_VERSION:
		printf("mha-tui %s\n", MHA_VERSION);
		return 0;
	case CLI_DUMP:
		return run_dump(&cl);
	case CLI_CHECK_LESSONS:
		return lesson_check_command(cl.check_dir, cl.lessons_dir, stdout, stderr);
	case CLI_TRAIN:
	case CLI_ABLATE:
		return run_training(&cl);
	case CLI_TUI:
		break;
	}
	return run_tui(&cl);
}

/* --dump json --grad: the dump with the gradients of L = 1/2 sum(Y^2). */
static int run_dump_grad(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_acts *a)
{
	struct mha_grads g;
	if (mha_grads_alloc(&g, c) != MHA_OK)
		return fail(1, "out of memory for the gradients");
	mha_backward_half_square(c, w, a, &g);
	int rc = dump_json_grad(stdout, c, w, a, &g) == 0 ? 0 : fail(1, "writing the dump failed");
	mha_grads_free(&g);
	return rc;
}

/* --train TASK / --ablate TASK: headless, see doc/TRAINING.md. */
static int run_training(const struct cli *cl)
{
	struct train_request rq = {
		.task = cl->train.task, .layers = cl->train.layers, .d_model = cl->train.d_model,
		.heads = cl->train.heads, .steps = cl->train.steps, .seeds = cl->train.seeds,
		.seed = cl->train.seed_given ? cl->cfg.seed : 1, .save = cl->train.save, .threads = 1,
	};
	return cl->mode == CLI_TRAIN ? train_command(&rq, stdout, stderr)
	                             : ablate_command(&rq, stdout, stderr);
}
