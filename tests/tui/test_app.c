/*
 * test_app.c - the workbench's model driven by keys, without a screen:
 * typed values recompute everything downstream, bad values are refused
 * and change nothing, undo walks back several levels, shape tweaks keep
 * what fits and h x d_k = d_model keeps the counts flat, the mask zeroes
 * the upper triangle, sessions save and load, and edits are autosaved
 * beside the session (in a pause of the keys) until a clean save; undo
 * levels of whole inputs keep within a byte budget.
 */
#include <curses.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mode.h"
#include "app.h"
#include "session.h"
#include "tui_check.h"

static void test_typing_a_value_into_x_changes_q(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "r"); /* seed 1: random inputs, every Q cell reads all of X's row */
	float q0 = app->a.q[0], y0 = app->a.y[0];
	tui_check_keys(app, "\n2.5\n");
	assert_float_equal(app->w.x[0], 2.5f, 0.0f);
	assert_true(q0 != app->a.q[0]);
	assert_true(y0 != app->a.y[0]);
	assert_true(app_cell_changed(app, MHA_T_Q, 0, 0, 0));
	assert_false(app_cell_changed(app, MHA_T_Q, 0, 1, 0)); /* row 1 of Q reads row 1 of X */
	tui_check_close(app);
}

static void test_bad_values_are_refused_and_change_nothing(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	const char *bad[] = { "\nabc\n", "\nnan\n", "\ninf\n", "\n1e7\n", "\n-2000000\n", "\n\n", "\n0x10\n" };
	float x0 = app->w.x[0];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tui_check_keys(app, bad[i]);
		assert_float_equal(app->w.x[0], x0, 0.0f);
		assert_true(app->status_error);
		assert_ptr_not_equal(app->mode, &value_prompt_mode);
	}
	tui_check_keys(app, "\n12");
	app_key(app, 27); /* Esc cancels */
	assert_ptr_not_equal(app->mode, &value_prompt_mode);
	assert_float_equal(app->w.x[0], x0, 0.0f);
	tui_check_close(app);
}

static void test_nudges_and_undo_walk_back_several_levels(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	float x0 = app->w.x[0];
	tui_check_keys(app, "+++");
	assert_float_equal(app->w.x[0], x0 + 0.3f, 1e-6f);
	tui_check_keys(app, "-");
	tui_check_keys(app, "u");
	assert_float_equal(app->w.x[0], x0 + 0.3f, 1e-6f);
	tui_check_keys(app, "uuu");
	assert_float_equal(app->w.x[0], x0, 0.0f);
	tui_check_keys(app, "u"); /* nothing left: a message, no change */
	assert_float_equal(app->w.x[0], x0, 0.0f);
	tui_check_close(app);
}

static void test_computed_cells_cannot_be_edited(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "c\n"); /* W^Q: editable */
	assert_ptr_equal(app->mode, &value_prompt_mode);
	app_key(app, 27);
	tui_check_keys(app, "c\n"); /* Q: computed */
	assert_ptr_not_equal(app->mode, &value_prompt_mode);
	assert_true(app->status_error);
	assert_true(strlen(app->status) < 80); /* it was cut at "c moves between m" */
	/* the longest formula too */
	tui_check_keys(app, "3\n");
	assert_non_null(strstr(app->status, "is computed"));
	assert_true(strlen(app->status) < 80);
	tui_check_close(app);
}

static void test_more_heads_keep_h_times_dk_and_the_counts(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	struct mha_counts before = mha_counts(&app->cfg);
	tui_check_keys(app, "]");
	assert_int_equal(app->cfg.h, 8);
	assert_int_equal(app->cfg.dk, 2);
	assert_int_equal(app->cfg.g, 8);
	struct mha_counts after = mha_counts(&app->cfg);
	assert_true(before.params_total == after.params_total);
	assert_true(before.flops_projection == after.flops_projection);
	/* softmax's 5 n^2 a head does change: only the matmuls stay, and
	 * the message says so within 80 columns */
	assert_non_null(strstr(app->status, "parameters and matmul FLOPs stay the same"));
	assert_true(strlen(app->status) < 80);
	tui_check_keys(app, "[[[");
	assert_int_equal(app->cfg.h, 1);
	assert_int_equal(app->cfg.dk, 16);
	tui_check_keys(app, "[");
	assert_int_equal(app->cfg.h, 1);
	assert_true(app->status_error);
	assert_true(strlen(app->status) < 80); /* it was cut at "change d_m" */
	tui_check_close(app);
}

static void test_an_edit_survives_a_change_of_shape_and_its_undo(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "\n0.75\n");
	tui_check_keys(app, ".");
	assert_int_equal(app->cfg.n, 7);
	assert_float_equal(app->w.x[0], 0.75f, 0.0f);
	tui_check_keys(app, ",,");
	assert_int_equal(app->cfg.n, 5);
	assert_float_equal(app->w.x[0], 0.75f, 0.0f);
	tui_check_keys(app, "uu");
	assert_int_equal(app->cfg.n, 7);
	assert_float_equal(app->w.x[0], 0.75f, 0.0f);
	tui_check_keys(app, "u");
	assert_int_equal(app->cfg.n, 6);
	assert_float_equal(app->w.x[0], 0.75f, 0.0f);
	tui_check_close(app);
}

static void test_the_causal_mask_zeroes_the_upper_triangle(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "m");
	assert_true(app->cfg.causal);
	int n = app->cfg.n;
	for (int i = 0; i < app->cfg.h; i++)
		for (int r = 0; r < n; r++)
			for (int c = r + 1; c < n; c++)
				assert_float_equal(app->a.weights[((size_t)i * n + r) * n + c], 0.0f, 0.0f);
	tui_check_keys(app, "m");
	assert_false(app->cfg.causal);
	assert_true(app->a.weights[1] > 0.0f);
	tui_check_close(app);
}

static void test_invalid_tweaks_are_explained_not_applied(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, ">"); /* g = h already */
	assert_true(app->status_error);
	assert_int_equal(app->cfg.g, 4);
	tui_check_keys(app, "<");
	assert_int_equal(app->cfg.g, 2);
	tui_check_keys(app, "T"); /* top-k below 0 */
	assert_true(app->status_error);
	tui_check_keys(app, "tt");
	assert_int_equal(app->cfg.top_k, 2);
	for (int i = 0; i < 70; i++)
		tui_check_keys(app, ",");
	assert_int_equal(app->cfg.n, 1);
	assert_true(app->status_error);
	for (int i = 0; i < 20; i++)
		tui_check_keys(app, "{");
	assert_int_equal(app->cfg.dk, 1);
	tui_check_close(app);
}

static void test_a_head_switched_off_gives_a_zero_concat_block(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "Lx");
	assert_true(app->cfg.head_off[1]);
	int hw = app->cfg.h * app->cfg.dk;
	for (int r = 0; r < app->cfg.n; r++)
		for (int c = 4; c < 8; c++)
			assert_float_equal(app->a.concat[r * hw + c], 0.0f, 0.0f);
	tui_check_close(app);
}

/* Ctrl-L redraws, as in every terminal program, and changes nothing else. */
static void test_ctrl_l_redraws_and_changes_nothing(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	float x0 = app->w.x[0];
	enum pipeline_stage st = app->stage;
	assert_true(tui_check_keys(app, "\x0c") & APP_REDRAW);
	assert_float_equal(app->w.x[0], x0, 0.0f);
	assert_int_equal(app->stage, st);
	assert_string_equal(mode_key_name(app, "redraw"), "C-l");
	tui_check_close(app);
}

static void test_reseed_and_reset_redraw_the_inputs_and_undo(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	float x0 = app->w.x[0];
	tui_check_keys(app, "r");
	assert_true(app->w.x[0] != x0);
	assert_true(app->cfg.seed == 1);
	tui_check_keys(app, "\n0.5\nR");
	assert_true(app->w.x[0] != 0.5f);
	tui_check_keys(app, "u");
	assert_float_equal(app->w.x[0], 0.5f, 0.0f);
	tui_check_close(app);
}

/* Every action of every mode has its label, help and id, no two share an
 * id, and each of its keys reaches it: in its own mode's table (a prompt's,
 * a view's), or from the workbench (the workbench's rows, the openers), so
 * no second key ('=' for +, h for Left) is taken by a row or view before it. */
static void test_every_action_has_a_help_line_and_n_says_no_lesson(void **state)
{
	(void)state;
	static const struct action *all[512];
	int count = tui_check_actions(all, 512);
	struct app *app = tui_check_open(NULL);
	assert_true(count > 60);
	for (int i = 0; i < count; i++) {
		const struct action *a = all[i];
		const struct mode_ops *owner = NULL;
		assert_non_null(a->help);
		assert_non_null(a->label);
		assert_non_null(a->id);
		assert_ptr_equal(mode_action(app, a->id, &owner), a); /* its id is its own */
		for (int k = 0; k < ACTION_KEYS_MAX && a->keys[k]; k++) {
			const struct mode_ops *via;
			const struct action *got = mode_target(app, owner->opener == a || owner == &workbench_mode
			                                       ? keys_workbench(app, a->keys[k], &via)
			                                       : mode_lookup(app, owner->keys, a->keys[k]));
			if (got != a)
				fail_msg("%s (%s): its key %s reaches %s", a->id, owner->name, keyname(a->keys[k]),
				         got ? got->id : "nothing");
		}
	}
	tui_check_keys(app, "n");
	assert_non_null(strstr(app->status, "no lesson open"));
	tui_check_close(app);
}

static void test_save_writes_a_session_that_loads_back(void **state)
{
	(void)state;
	char dir[] = "/tmp/mha-test-app-XXXXXX", path[64], msg[MHA_MSG_MAX + 4096];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/s.txt", dir);
	struct app *app = tui_check_open(NULL);
	app->save.session_path = path;
	tui_check_keys(app, "\n-0.25\n]w");
	assert_false(app->status_error);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.h, 8);
	assert_float_equal(w.x[0], -0.25f, 0.0f);
	mha_weights_free(&w);
	assert_true(tui_check_keys(app, "q") & APP_QUIT);
	tui_check_close(app);
	unlink(path);
	rmdir(dir);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A temporary directory with the session's and the autosave's paths in it. */
struct files {
	char dir[32], path[64], autop[80];
};

static struct app *open_app_in(struct files *f)
{
	snprintf(f->dir, sizeof f->dir, "/tmp/mha-test-app-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/s.txt", f->dir);
	snprintf(f->autop, sizeof f->autop, "%s.autosave", f->path);
	struct app *app = tui_check_open(NULL);
	app->save.session_path = f->path;
	return app;
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w"); /* in place, as another program might */
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static char *read_text(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* w and q write only when there was an edit since the session was loaded
 * or saved (a rewrite is a new file renamed over the name: the inode
 * tells); a session another program changed meanwhile is never written
 * over: the save goes beside it, "s-2.txt", and stays there. */
static void test_a_save_writes_only_edits_and_never_over_a_file_changed_behind_it(void **state)
{
	(void)state;
	char buf[64], beside[96];
	struct files f;
	struct app *app = open_app_in(&f);
	snprintf(beside, sizeof beside, "%s/s-2.txt", f.dir);
	tui_check_keys(app, "w"); /* nothing on disk yet: written */
	struct stat a, b;
	assert_int_equal(stat(f.path, &a), 0);
	tui_check_keys(app, "hjw");
	assert_non_null(strstr(app->status, "not rewritten"));
	assert_int_equal(app_save_quit(app), APP_QUIT);
	assert_int_equal(stat(f.path, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
	            a.st_mtim.tv_nsec == b.st_mtim.tv_nsec); /* not rewritten, mtime kept */
	tui_check_keys(app, "+w");
	assert_int_equal(stat(f.path, &b), 0);
	assert_true(a.st_ino != b.st_ino); /* an edit: written */
	/* another program changes the file; with no edit here, it is left alone */
	write_text(f.path, "changed by hand\n");
	tui_check_keys(app, "w");
	assert_string_equal(read_text(f.path, buf, sizeof buf), "changed by hand\n");
	assert_false(exists(beside));
	/* an edit: saved beside it, said so; the changed file left as it is */
	tui_check_keys(app, "+w");
	assert_string_equal(read_text(f.path, buf, sizeof buf), "changed by hand\n");
	assert_true(exists(beside));
	assert_string_equal(app->save.session_path, beside);
	assert_non_null(strstr(app->status, "changed on disk"));
	assert_non_null(strstr(app->status, beside));
	/* and saves go on there */
	tui_check_keys(app, "+");
	assert_int_equal(app_save_quit(app), APP_QUIT);
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX + 4096];
	assert_int_equal(session_load(beside, &c, &w, msg, sizeof msg), 0);
	assert_memory_equal(w.x, app->w.x, (size_t)c.n * (size_t)c.d * sizeof *w.x); /* the last edit too */
	mha_weights_free(&w);
	snprintf(buf, sizeof buf, "%s/s-3.txt", f.dir);
	assert_false(exists(buf));
	tui_check_close(app);
}

static void test_edits_are_autosaved_every_20_and_on_a_change_of_shape(void **state)
{
	(void)state;
	char msg[MHA_MSG_MAX + 4096];
	struct files f;
	struct app *app = open_app_in(&f);
	const char *path = f.path, *autop = f.autop;
	char got[96];
	assert_int_equal(app_autosave_path(app, got, sizeof got), 0);
	assert_string_equal(got, autop);
	float x0 = app->w.x[0];
	for (int i = 0; i < APP_AUTOSAVE_EDITS - 1; i++)
		tui_check_keys(app, "+");
	assert_false(exists(autop)); /* 19 edits: not yet */
	tui_check_keys(app, "l\n0.5\n");      /* the 20th, typed into X[the,1] */
	assert_false(exists(autop));        /* owed: written in the next pause of the keys */
	assert_true(app_autosave_idle(app, true));
	app_autosave_wait(app); /* written by a child process */
	assert_true(exists(autop));
	assert_false(exists(path));  /* the session itself is only written by w, q and signals */
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(autop, &c, &w, msg, sizeof msg), 0);
	assert_true(w.x[0] > x0);                 /* the nudges */
	assert_float_equal(w.x[1], 0.5f, 0.0f);   /* the typed value */
	mha_weights_free(&w);
	/* moving the cursor is no edit; a change of shape autosaves at once */
	unlink(autop);
	tui_check_keys(app, "hjkl");
	assert_false(exists(autop));
	tui_check_keys(app, "]");
	assert_true(app_autosave_idle(app, true));
	app_autosave_wait(app); /* written by a child process */
	assert_true(exists(autop));
	assert_int_equal(session_load(autop, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.h, 8);
	mha_weights_free(&w);
	/* a clean save removes it */
	tui_check_keys(app, "w");
	assert_true(exists(path));
	assert_false(exists(autop));
	tui_check_close(app);
	unlink(path);
	rmdir(f.dir);
}

/* The autosave a killed run leaves: the session saved, then an edit (]) in
 * the autosave only. */
static void leave_an_autosave(const struct files *f)
{
	struct app *app = tui_check_open(NULL);
	app->save.session_path = f->path;
	tui_check_keys(app, "w");
	tui_check_keys(app, "]");
	assert_true(app_autosave_idle(app, true));
	app_autosave_wait(app); /* written by a child process */
	assert_true(exists(f->autop));
	tui_check_close(app);
}

/* A run as it starts: the session's workbench, then the autosave check. */
static struct app *start_run(const struct files *f)
{
	struct app *app = tui_check_open(NULL);
	app->save.session_path = f->path;
	app->now_ms = 1000;
	modes_recover_check(app);
	return app;
}

static int heads_in(const char *path)
{
	char msg[MHA_MSG_MAX + 4096];
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
	return c.h;
}

/* An autosave found at start is kept under a numbered name and asked
 * about until answered: other keys (q too) leave the question up; Esc
 * leaves it for later (asked again at the next start, while this run
 * autosaves and saves its own edits); d moves it aside, never deleting
 * it (not asked again). */
static void test_a_found_autosave_is_asked_about_until_answered_later_or_discard(void **state)
{
	(void)state;
	char kept[4200], aside[4200];
	struct files f;
	tui_check_close(open_app_in(&f));
	snprintf(kept, sizeof kept, "%s.~1~", f.autop);
	snprintf(aside, sizeof aside, "%s.discarded.~1~", f.autop);
	leave_an_autosave(&f);

	struct app *app = start_run(&f);
	assert_false(app->save.autosave_held);
	assert_false(exists(f.autop));
	assert_true(exists(kept));
	assert_ptr_equal(app->mode, &recover_prompt_mode);
	assert_string_equal(app->save.recover_path, kept);
	tui_check_keys(app, "lq+x");
	assert_ptr_equal(app->mode, &recover_prompt_mode); /* still asking */
	assert_int_equal(app->cfg.h, 4);           /* not loaded */
	tui_check_keys(app, "\033");               /* later */
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_non_null(strstr(app->status, "later"));
	/* this run autosaves its own edits; its saves leave the kept one alone */
	for (int i = 0; i < APP_AUTOSAVE_EDITS; i++)
		tui_check_keys(app, "+");
	assert_true(app_autosave_idle(app, true));
	app_autosave_wait(app);
	assert_true(exists(f.autop));
	tui_check_keys(app, "w");
	assert_false(exists(f.autop)); /* its own, covered by the save */
	assert_true(exists(kept));
	assert_int_equal(heads_in(kept), 8);
	tui_check_close(app);

	app = start_run(&f); /* asked again */
	assert_ptr_equal(app->mode, &recover_prompt_mode);
	assert_string_equal(app->save.recover_path, kept);
	tui_check_keys(app, "d");
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_false(exists(kept));
	assert_int_equal(heads_in(aside), 8); /* moved aside whole */
	assert_non_null(strstr(app->status, aside));
	tui_check_close(app);

	app = start_run(&f); /* answered: not asked again */
	assert_ptr_equal(app->mode, &workbench_mode);
	tui_check_close(app);
	unlink(aside);
	unlink(f.path);
	rmdir(f.dir);
}

/* Enter loads it into the bench; the next save writes its edits to the
 * session it belongs to and removes it. */
static void test_a_found_autosave_loaded_is_saved_to_its_session_and_removed(void **state)
{
	(void)state;
	char kept[4200];
	struct files f;
	tui_check_close(open_app_in(&f));
	snprintf(kept, sizeof kept, "%s.~1~", f.autop);
	leave_an_autosave(&f);
	struct app *app = start_run(&f);
	assert_ptr_equal(app->mode, &recover_prompt_mode);
	tui_check_keys(app, "\n");
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_int_equal(app->cfg.h, 8); /* loaded */
	assert_true(exists(kept));       /* until saved */
	assert_int_equal(app_save_quit(app), APP_QUIT);
	assert_int_equal(heads_in(f.path), 8);
	assert_false(exists(kept));
	tui_check_close(app);
	unlink(f.path);
	rmdir(f.dir);
}

/* At the largest shapes an autosave takes most of a second: it waits for
 * a pause in the keys (the frame of the key that asked for it comes
 * first), or APP_AUTOSAVE_WAIT_MS while keys keep coming; a save or a
 * switch to a lesson's bench settles it. */
static void test_an_owed_autosave_waits_for_a_pause_in_the_keys(void **state)
{
	(void)state;
	struct files f;
	struct app *app = open_app_in(&f);
	app->now_ms = 5000;
	tui_check_keys(app, "]");
	assert_true(app->save.owed.due);
	assert_false(exists(f.autop));
	assert_false(app_autosave_idle(app, false)); /* keys still coming */
	app->now_ms += APP_AUTOSAVE_WAIT_MS - 1;
	assert_false(app_autosave_idle(app, false));
	assert_false(exists(f.autop));
	app->now_ms += 1; /* waited long enough: written between two keys */
	assert_true(app_autosave_idle(app, false));
	app_autosave_wait(app);
	assert_true(exists(f.autop));
	assert_false(app->save.owed.due);
	assert_false(app_autosave_idle(app, true)); /* nothing owed */
	/* a clean save settles what is owed */
	unlink(f.autop);
	tui_check_keys(app, "[");
	assert_true(app->save.owed.due);
	tui_check_keys(app, "w");
	assert_false(app->save.owed.due);
	assert_false(app_autosave_idle(app, true));
	assert_false(exists(f.autop));
	tui_check_close(app);
	unlink(f.path);
	rmdir(f.dir);
}

/* Undo levels that hold whole inputs (reseed, shape changes) stop at
 * APP_UNDO_BYTES: at d_model 1024 and h x d_k 4096 one level is 64 MiB,
 * and 64 presses of r took 4 GiB. The newest levels stay, and undo walks
 * back through them. */
static void test_undo_levels_of_whole_inputs_keep_within_the_byte_budget(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	struct mha_config c = app->cfg;
	c.d = 1024;
	c.h = 64;
	c.g = 64;
	c.dk = 64;
	c.n = 1;
	/* no recompute: undo is what is measured (and the sanitizer build's
	 * plain loops would take seconds) */
	assert_true(app_change_config(app, &c, "largest") & APP_RECOMPUTE);
	size_t level = 0;
	for (int t = 0; t < MHA_T_COUNT; t++)
		if (mha_tensor_info((enum mha_tensor)t)->input) {
			struct mha_shape s = mha_tensor_shape(&app->cfg, (enum mha_tensor)t);
			level += (size_t)s.count * s.rows * s.cols * sizeof(float);
		}
	assert_true(level > (size_t)APP_UNDO_BYTES / 8);
	unsigned long long seed0 = app->cfg.seed;
	for (int i = 0; i < 12; i++)
		app_key(app, 'r');
	size_t held = 0;
	for (int i = 0; i < APP_UNDO_MAX; i++)
		if (app->undo[i].kind == UNDO_ALL && app->undo[i].w.x)
			held += level;
	if (held > (size_t)APP_UNDO_BYTES)
		print_message("undo holds %zu bytes, budget %d\n", held, APP_UNDO_BYTES);
	assert_true(held <= (size_t)APP_UNDO_BYTES);
	int kept = app->undo_count;
	assert_true(kept >= 2 && kept < 13);
	for (int i = 0; i < kept; i++)
		app_key(app, 'u');
	assert_int_equal(app->undo_count, 0);
	assert_int_equal(app->cfg.d, 1024); /* the oldest levels (back to 16) went */
	/* back to the inputs of the oldest level kept: 12 - kept presses of r in */
	assert_true(app->cfg.seed == seed0 + (unsigned long long)(12 - kept));
	app_key(app, 'u');
	assert_non_null(strstr(app->status, "nothing to undo"));
	tui_check_close(app);
}

/* Down past the help's end, then Up: the help scrolls back at once. */
static void test_help_scrolls_back_at_once_after_scrolling_past_its_end(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "?");
	for (int i = 0; i < 100; i++)
		app_key(app, KEY_NPAGE);
	int count = app->help_scroll; /* no further than the tables' rows, and a heading each */
	assert_true(count > 0 && count <= action_count(workbench_mode.keys) + 16);
	for (int i = 0; i < count; i++)
		app_key(app, KEY_UP);
	assert_int_equal(app->help_scroll, 0);
	tui_check_close(app);
}

/* A value longer than the line holds lost its tail: "1.000...0e5" (33
 * characters) was set as 1. Now Enter refuses it, for a value and for a
 * factor of *; a value that fits still goes in. */
static void test_a_value_too_long_to_hold_is_refused_not_cut(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	float x0 = app->w.x[0];
	tui_check_keys(app, "\n1.00000000000000000000000000000e5\n");
	assert_float_equal(app->w.x[0], x0, 0.0f);
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "more than 31 characters"));
	tui_check_keys(app, "*1.00000000000000000000000000000e-1\n");
	assert_float_equal(app->w.x[0], x0, 0.0f);
	assert_non_null(strstr(app->status, "more than 31 characters"));
	tui_check_keys(app, "\n1.000000000000000000000000000e5\n"); /* 31: fits */
	assert_float_equal(app->w.x[0], 1e5f, 0.0f);
	tui_check_close(app);
}

/* The mode table: a row for every mode, each its own and named, with
 * its keys; a prompt draws its status line and types; a mode with a state
 * says how large; every mode but the workbench can be reached (an opener,
 * a view it is a page of, or the start: the recover question). */
static void test_every_mode_has_its_own_row_of_operations(void **state)
{
	(void)state;
	int m = 0;
	for (; tui_modes[m]; m++) {
		const struct mode_ops *o = tui_modes[m];
		assert_non_null(o->name);
		assert_true(o->keys || o->opener || m == 0);
		if (o->prompt) {
			assert_non_null(o->status);
			assert_non_null(o->type);
		}
		assert_true(m == 0 || o->opener || o->back || o == &recover_prompt_mode);
		for (int k = 0; k < m; k++)
			if (tui_modes[k] == o || !strcmp(tui_modes[k]->name, o->name))
				fail_msg("modes %d and %d share the row or the name of %s", k, m, o->name);
	}
	assert_true(m <= APP_MODES_MAX);
	assert_ptr_equal(tui_modes[0], &workbench_mode);
	assert_non_null(workbench_mode.layout);
	assert_non_null(workbench_mode.body);
	assert_non_null(workbench_mode.pane);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typing_a_value_into_x_changes_q),
		cmocka_unit_test(test_bad_values_are_refused_and_change_nothing),
		cmocka_unit_test(test_nudges_and_undo_walk_back_several_levels),
		cmocka_unit_test(test_computed_cells_cannot_be_edited),
		cmocka_unit_test(test_more_heads_keep_h_times_dk_and_the_counts),
		cmocka_unit_test(test_an_edit_survives_a_change_of_shape_and_its_undo),
		cmocka_unit_test(test_the_causal_mask_zeroes_the_upper_triangle),
		cmocka_unit_test(test_invalid_tweaks_are_explained_not_applied),
		cmocka_unit_test(test_a_head_switched_off_gives_a_zero_concat_block),
		cmocka_unit_test(test_reseed_and_reset_redraw_the_inputs_and_undo),
		cmocka_unit_test(test_ctrl_l_redraws_and_changes_nothing),
		cmocka_unit_test(test_every_action_has_a_help_line_and_n_says_no_lesson),
		cmocka_unit_test(test_save_writes_a_session_that_loads_back),
		cmocka_unit_test(test_edits_are_autosaved_every_20_and_on_a_change_of_shape),
		cmocka_unit_test(test_a_found_autosave_is_asked_about_until_answered_later_or_discard),
		cmocka_unit_test(test_a_found_autosave_loaded_is_saved_to_its_session_and_removed),
		cmocka_unit_test(test_a_save_writes_only_edits_and_never_over_a_file_changed_behind_it),
		cmocka_unit_test(test_an_owed_autosave_waits_for_a_pause_in_the_keys),
		cmocka_unit_test(test_undo_levels_of_whole_inputs_keep_within_the_byte_budget),
		cmocka_unit_test(test_help_scrolls_back_at_once_after_scrolling_past_its_end),
		cmocka_unit_test(test_every_mode_has_its_own_row_of_operations),
		cmocka_unit_test(test_a_value_too_long_to_hold_is_refused_not_cut),
	};
	return cmocka_run_group_tests_name("app", tests, NULL, NULL);
}
