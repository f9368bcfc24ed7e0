/*
 * main.c - mha-tui's entry: the command line decides between the headless
 * JSON dump, the lesson checker and the interactive workbench. Every
 * failure ends here with one line on stderr and exit 1 or 2.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claim.h"
#include "cli.h"
#include "config.h"
#include "checker.h"
#include "circ_command.h"
#include "command.h"
#include "dump.h"
#include "export.h"
#include "export_key.h"
#include "lm_command.h"
#include "lm_dump.h"
#include "mha.h"
#include "report.h"
#include "session.h"
#include "step_screen.h"
#include "tui.h"
#include "writefile.h"

/* One line on stderr; what the message quotes cannot drive the terminal. */
static int fail(int status, const char *msg)
{
	return report_line(stderr, status, msg);
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
	if (mha_weights_start(w, c) != MHA_OK)
		return fail(1, "out of memory for the weights");
	if (cl->text) {
		/* checked by cli_parse: n words, each a valid label */
		mha_text_split(cl->text, w->labels, c->n, msg, sizeof msg);
		mha_embed_words(w, c, c->seed);
	}
	if (cl->kv_text) {
		/* the source's m words likewise: a word has one row in both sequences */
		mha_text_split(cl->kv_text, w->kv_labels, c->m, msg, sizeof msg);
		mha_embed_kv_words(w, c, c->seed);
	}
	return 0;
}

/* What an export writes, for write_output: the script or the picture
 * from a finished forward pass, or the screen (txt). */
struct export_job {
	const struct cli *cl;
	const struct mha_config *c;
	struct mha_weights *w;     /* txt: the workbench owns it from the first call */
	const struct mha_stack *s; /* NULL for txt */
};

static int export_fill(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct export_job *j = ctx;
	if (!j->s) {
		const struct cli *cl = j->cl;
		int stage = !cl->export_stage_given ? -1 : cl->export_scores ? PIPELINE_SCORES : PIPELINE_SOFTMAX;
		int rc = export_key_headless(f, j->c, j->w, stage, 24, 80, why, len);
		return rc != 0 && ferror(f) ? 0 : rc; /* a write error: the flush says which */
	}
	/* py and svg fail only when f does: the flush after says why */
	if (!strcmp(j->cl->export_format, "py"))
		(void)export_py(f, j->c, j->w, j->s->layer, j->s->layers);
	else
		(void)export_svg(f, j->c, j->w, &j->s->layer[0], j->cl->export_scores ? MHA_T_SCORES : MHA_T_WEIGHTS);
	return 0;
}

/* --export FORMAT FILE: through the one write path (atomic, symlinks
 * followed, a device or pipe written into), or standard output for "-".
 * Every failure: "--export: FILE: reason", exit 1. */
static int write_export(const struct export_job *j)
{
	char msg[MHA_MSG_MAX + 8400], why[MHA_MSG_MAX + 4200] = "";
	const char *file = j->cl->export_file;
	if (strcmp(file, "-") != 0) {
		if (writefile_write(file, WRITEFILE_EXPORT, export_fill, j, NULL, why, sizeof why) == 0)
			return 0;
		snprintf(msg, sizeof msg, "--export: %s", why);
		return fail(1, msg);
	}
	if (export_fill(stdout, j, why, sizeof why) != 0) {
		snprintf(msg, sizeof msg, "--export: standard output: not written: %s", why);
		return fail(1, msg);
	}
	return 0; /* a write error on stdout: flushed() says it, as for --dump */
}

static int run_dump_grad(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_stack *s);
static int run_training(const struct cli *cl);

/* stdout could not take what was written (a full disk, a closed pipe):
 * said as --help and --version say it, exit 1. */
static int stdout_failed(void)
{
	char msg[256];
	snprintf(msg, sizeof msg, "cannot write to standard output: %s", strerror(errno));
	return fail(1, msg);
}

static int run_lm(const struct cli *cl);

static int run_dump(const struct cli *cl)
{
	if (cl->lm.model_given)
		return lm_dump_command(cl->lm.model, cl->text, cl->lm.generate, stdout, stderr);
	struct mha_config c;
	struct mha_weights w;
	struct mha_stack s;
	char msg[MHA_MSG_MAX + 8400], why[MHA_MSG_MAX + 4200];
	struct writefile_target t;
	/* the file is checked before any work, so a bad name costs nothing */
	if (cl->mode == CLI_EXPORT && strcmp(cl->export_file, "-") != 0 &&
	    writefile_check(cl->export_file, WRITEFILE_EXPORT, &t, why, sizeof why) != 0) {
		snprintf(msg, sizeof msg, "--export: %s", why);
		return fail(1, msg);
	}
	int rc = open_inputs(cl, &c, &w);
	if (rc)
		return rc;
	if (cl->mode == CLI_EXPORT && !strcmp(cl->export_format, "txt"))
		return write_export(&(struct export_job){ cl, &c, &w, NULL });
	if (mha_stack_alloc(&s, &c) != MHA_OK) {
		mha_weights_free(&w);
		return fail(1, "out of memory for the activations");
	}
	mha_stack_forward(&c, &w, &s);
	if (cl->mode == CLI_EXPORT)
		rc = write_export(&(struct export_job){ cl, &c, &w, &s });
	else if (cl->grad)
		rc = run_dump_grad(&c, &w, &s);
	else
		rc = dump_json(stdout, &c, &w, &s) == 0 ? 0 : stdout_failed();
	mha_stack_free(&s);
	mha_weights_free(&w);
	return rc;
}

/* --text or --kv-text in the workbench: the sentences' session (labels,
 * X and X_kv) is written where the workbench saves, and opened from there,
 * as a fresh configuration would start anew. */
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

/* A loaded autosave whose edits a later save of its session holds is
 * done with: removed (app_save removes "X.autosave" itself; a kept
 * "X.autosave.~N~" is removed here). */
static void settle_recovered(const char *autosave, const char *session)
{
	struct stat a, s;
	if (stat(autosave, &a) != 0 || stat(session, &s) != 0)
		return;
	if (s.st_mtim.tv_sec > a.st_mtim.tv_sec ||
	    (s.st_mtim.tv_sec == a.st_mtim.tv_sec && s.st_mtim.tv_nsec > a.st_mtim.tv_nsec))
		unlink(autosave);
}

/* Where a run that replaces a session it did not load (started from
 * flags or --text, or recovering X.autosave into X) saves: a copy of the
 * session is kept first (writefile_backup, said on exit when the save
 * replaced it); when the session cannot be replaced (not a session, read
 * only, no backup possible) the run saves beside it instead, to the next
 * free "<stem>-N<ext>", and says so on exit. 0, or 1 with the reason
 * said: nowhere at all. */
struct replace_plan {
	struct writefile_backup backup; /* the copy kept, or path "" */
	char beside[4096];              /* where the run saves instead, or "" */
	char why[MHA_MSG_MAX + 4200];   /*   and why */
	const char *of;                 /*   instead of this session */
};

static int plan_replace(struct tui_options *o, struct replace_plan *pl)
{
	struct writefile_target t;
	char msg[MHA_MSG_MAX + 8600];
	if (access(o->session_path, F_OK) != 0)
		return 0; /* nothing there to replace */
	if (writefile_check(o->session_path, WRITEFILE_SESSION, &t, pl->why, sizeof pl->why) == 0 &&
	    writefile_backup(o->session_path, &pl->backup, pl->why, sizeof pl->why) == 0)
		return 0;
	if (claim_beside(o->session_path, pl->beside, sizeof pl->beside) != 0) {
		snprintf(msg, sizeof msg, "%s; and no free name beside it to save to: not started", pl->why);
		return fail(1, msg);
	}
	pl->of = o->session_path;
	o->session_path = pl->beside;
	return 0;
}

/* The workbench. The file a session came from is the one it saves to
 * (an autosave's: the session it belongs to); another instance's file is
 * never saved over (claim.h: the next free name, said on exit); a run
 * replacing a session it did not load keeps a copy of it, or saves
 * beside it (plan_replace); with no state directory it runs, and says it
 * cannot save. Nothing is written before the terminal is known to work. */
static int run_tui(const struct cli *cl)
{
	char path[4096], owner[4096], claimed[4096], msg[MHA_MSG_MAX + 8192];
	const char *held = NULL;
	struct replace_plan plan = { .of = NULL };
	struct tui_options o = {
		.cfg = cl->cfg, .config_given = cl->config_given, .load = cl->load,
		.no_color = cl->no_color || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]),
		.no_mouse = cl->no_mouse,
		.lesson = cl->lesson, .lessons_dir = cl->lessons_dir, .lm_model = cl->lm.model,
	};
	if (cl->lm.model && lm_model_check(cl->lm.model, msg, sizeof msg) != 0)
		return fail(1, msg); /* --model FILE that W could not open: said now, not on the screen later */
	if (tui_check_terminal(msg, sizeof msg) != 0)
		return fail(1, msg); /* before any file is touched: a run that cannot start changes nothing */
	bool recovering = false;
	if (cl->load) {
		recovering = claim_autosave_owner(cl->load, owner, sizeof owner) == 1;
		o.session_path = owner;
	} else if (session_default_path(path, sizeof path, msg, sizeof msg) == 0) {
		o.session_path = path;
	} else if (cl->text) {
		char line[MHA_MSG_MAX + 8300];
		snprintf(line, sizeof line, "--text needs a session file to start from: %s", msg);
		return fail(1, line);
	} else {
		fail(0, msg); /* said before the screen opens; q then says it again */
	}
	int holder = 0, other = 0;
	if (o.session_path) {
		other = claim_session(o.session_path, claimed, sizeof claimed, &holder);
		if (other == 1) {
			/* start from the file the other instance holds, save beside it */
			if (!o.load && !o.config_given && access(o.session_path, F_OK) == 0)
				o.load = o.session_path;
			held = o.session_path;
			o.session_path = claimed;
			o.held = held; /* said at start too */
			o.holder = holder;
		} else if ((o.config_given && !o.load) || recovering) {
			if (plan_replace(&o, &plan) != 0)
				return 1;
		}
	}
	if (cl->text || cl->kv_text) {
		int rc = start_with_text(cl, &o, msg, sizeof msg);
		if (rc)
			return rc;
		/* one sentence goes through the language model; a sentence with a
		 * source (cross-attention) stays on the workbench, which shows both */
		o.model = cl->text && cl->cfg.m == 0;
	}
	int rc = tui_run(&o);
	if (cl->load && o.session_path == owner && !held)
		settle_recovered(cl->load, o.session_path);
	if (writefile_backup_settle(o.session_path, &plan.backup)) {
		snprintf(msg, sizeof msg, "the session this run replaced (%.4000s) is kept as %.4000s", o.session_path,
		         plan.backup.path);
		fail(0, msg);
	}
	if (plan.of && access(plan.beside, F_OK) == 0) {
		snprintf(msg, sizeof msg, "%.4000s was not replaced (%.3000s): this run saved to %.1000s instead", plan.of,
		         plan.why, plan.beside);
		fail(0, msg);
	}
	if (other == 1 && access(claimed, F_OK) == 0) { /* it saved: an unedited run writes nothing */
		snprintf(msg, sizeof msg, "%.4000s is open in another mha-tui (pid %d): this run saved to %.4000s instead",
		         held, holder, claimed);
		fail(0, msg);
	}
	return rc;
}

/* What went to stdout reached it: a full disk or a closed stdout is an
 * error (exit 1), not a silent success. */
static int flushed(int rc)
{
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0)
		return stdout_failed();
	return rc;
}

int main(int argc, char **argv)
{
	/* LC_CTYPE only: wide characters for the screen, while numbers keep
	 * '.' as the decimal point in every locale. */
	setlocale(LC_CTYPE, "");
	/* past a file size limit (ulimit -f) a write fails with EFBIG, which
	 * every writer reports and cleans up after, instead of the default
	 * SIGXFSZ killing the program halfway (a cut file, a temporary file
	 * and a lock left) */
	signal(SIGXFSZ, SIG_IGN);

	struct cli cl;
	char msg[512];
	if (cli_parse(argc, argv, &cl, msg, sizeof msg) != 0)
		return fail(2, msg);
	switch (cl.mode) {
	case CLI_HELP:
		fputs(cli_usage, stdout);
		return flushed(0);
	case CLI_VERSION:
		printf("mha-tui %s\n", MHA_VERSION);
		return flushed(0);
	case CLI_DUMP:
	case CLI_EXPORT:
		return flushed(run_dump(&cl));
	case CLI_CHECK_LESSONS:
		return flushed(lesson_check_drawn(cl.check_dir, cl.lessons_dir, step_screen_text, stdout, stderr));
	case CLI_TRAIN:
	case CLI_ABLATE:
		return flushed(run_training(&cl));
	case CLI_EVAL:
		return flushed(run_lm(&cl));
	case CLI_CIRCUITS:
		return flushed(circ_command(cl.circuits.model, cl.circuits.json, cl.circuits.position,
		                            stdout, stderr));
	case CLI_TUI:
		break;
	}
	return run_tui(&cl);
}

/* --dump json --grad: the dump with the gradients of L = 1/2 sum(Y^2), Y
 * the last layer's. */
static int run_dump_grad(const struct mha_config *c, const struct mha_weights *w,
                         const struct mha_stack *s)
{
	struct mha_stack_grads g;
	if (mha_stack_grads_alloc(&g, c) != MHA_OK)
		return fail(1, "out of memory for the gradients");
	mha_stack_backward_half_square(c, w, s, &g);
	int rc = dump_json_grad(stdout, c, w, s, &g) == 0 ? 0 : stdout_failed();
	mha_stack_grads_free(&g);
	return rc;
}

/* The language model's request from the flags (doc/LANGUAGE_MODEL.md). */
static struct lm_request lm_request_of(const struct cli *cl)
{
	struct lm_request rq = {
		.corpus = cl->lm.corpus, .model = cl->lm.model, .save = cl->train.save,
		.layers = cl->train.layers, .d_model = cl->train.d_model, .heads = cl->train.heads,
		.steps = cl->train.steps, .vocab = cl->lm.vocab,
		.seed = cl->train.seed_given ? cl->cfg.seed : 1, .threads = 1,
	};
	return rq;
}

/* --train lm / --eval: headless. */
static int run_lm(const struct cli *cl)
{
	struct lm_request rq = lm_request_of(cl);
	return cl->mode == CLI_EVAL ? lm_eval_command(&rq, stdout, stderr) : lm_train_command(&rq, stdout, stderr);
}

/* --train TASK / --ablate TASK: headless, see doc/TRAINING.md. */
static int run_training(const struct cli *cl)
{
	if (cl->mode == CLI_TRAIN && !strcmp(cl->train.task, "lm"))
		return run_lm(cl);
	struct train_request rq = {
		.task = cl->train.task, .layers = cl->train.layers, .d_model = cl->train.d_model,
		.heads = cl->train.heads, .steps = cl->train.steps, .seeds = cl->train.seeds,
		.seed = cl->train.seed_given ? cl->cfg.seed : 1, .save = cl->train.save, .threads = 1,
	};
	return cl->mode == CLI_TRAIN ? train_command(&rq, stdout, stderr)
	                             : ablate_command(&rq, stdout, stderr);
}
