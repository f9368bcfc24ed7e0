/*
 * tui_check.h - helpers shared by the workbench's tests: an app on the
 * default configuration, the shipped lessons for a group of tests, keys
 * typed into it, and its screen drawn and read back as text.
 */
#ifndef TUI_CHECK_H
#define TUI_CHECK_H

#include <stdint.h>

#include "app.h"
#include "frame.h"
#include "keys.h"
#include "layout.h"
#include "lesson.h"
#include "mode.h"
#include "modes.h"

/* The default configuration, and w allocated with its seeded weights and
 * labels (as a fresh workbench starts). */
struct mha_config tui_check_default_weights(struct mha_weights *w);

/* The default workbench (fails the test when it cannot be made), with the
 * lessons of set attached when set is not NULL (progress in memory only). */
struct app *tui_check_open(const struct lesson_set *set);
/* The same with lesson li of set open at step si (recomputed), as a
 * learner who picked it finds it once read (the matrices, not the
 * reading layout: app->learn.reading false); or by the lesson's number or name and
 * the step's id (the test fails when either is not there). */
struct app *tui_check_open_at(const struct lesson_set *set, int li, int si);
struct app *tui_check_open_step(const struct lesson_set *set, const char *lesson, const char *id);
void tui_check_close(struct app *app);
/* w pressed with the session at path, then the file read back into c and
 * w (allocated: mha_weights_free); the test fails when either fails. */
void tui_check_save_and_load(struct app *app, const char *path, struct mha_config *c, struct mha_weights *w);
/* rel under the source tree ($MHA_SOURCE_ROOT, set by meson). */
void tui_check_source_path(char *out, size_t len, const char *rel);
/* The default workbench on the shipped language model (assets/lm.model
 * by $MHA_TUI_MODEL), sentence typed with N, then W: the model's view
 * open on it, with no error said. */
struct app *tui_check_open_sentence_model(const char *sentence);
/* n until the open lesson's step changes: leaving a waiting question may
 * take a second press (the first one says what skipping costs). */
void tui_check_next_step(struct app *app);
/* Each character as a key ('\n' as Enter), recomputing when told; returns
 * the flags of them all. tui_check_press: one key (a curses code). */
unsigned tui_check_keys(struct app *app, const char *s);
unsigned tui_check_press(struct app *app, int key);
/* Every view with an opener key (prompts left out: they type, they show
 * nothing) opened in turn from the workbench: fn(app, view, ctx) called
 * with it open, or with the workbench when it refused to open; then it
 * is closed again (the test fails when it does not close). */
void tui_check_each_view(struct app *app, void (*fn)(struct app *, const struct mode_ops *, void *), void *ctx);
/* A gaming learner's wrong answers typed (keys): the step's question is
 * not answered right, the status names reason (unless NULL), and the
 * tries are spent for good; the right answer typed then shows the rest,
 * the step shown but never earned. Closes app. */
void tui_check_forfeits(struct app *app, const char *wrong, const char *reason, const char *right);
/* The right path: keys typed at app's step earn it (done in the
 * progress, not only shown). Closes app. */
void tui_check_earns(struct app *app, const char *keys);
/* The default configuration with these shapes (not checked). */
struct mha_config tui_check_config(int n, int d, int h, int g, int dk);
/* Group set-up and teardown for the lesson tests: the shipped lessons
 * into set, and dir (a mkdtemp template) made; then both undone, dir
 * removed with what is in it. 0, or -1 with the reason on stderr. */
int tui_check_lessons_open(struct lesson_set *set, char *dir);
int tui_check_lessons_close(struct lesson_set *set, const char *dir);
/* The cmocka group set-up and teardown of a test file whose lessons are
 * its static `set` and whose directory its static `dir` (a template):
 * group_setup and group_teardown, defined by one line. */
#define TUI_CHECK_LESSON_GROUP(set, dir) \
	static int group_setup(void **state) { (void)state; return tui_check_lessons_open(&(set), (dir)); } \
	static int group_teardown(void **state) { (void)state; return tui_check_lessons_close(&(set), (dir)); }
/* A set of one lesson: text written to dir/NAME/01-NAME.lesson and
 * loaded into set (the test fails when it does not load cleanly). */
void tui_check_one_lesson(struct lesson_set *set, const char *dir, const char *name, const char *text);

/* The whole screen drawn for rows x cols with no hit regions kept
 * (frame_draw(app, rows, cols, NULL)): the tests' and the benchmark's
 * drawing, which the program itself never needs. */
struct body_layout draw_screen(const struct app *app, int rows, int cols);

/* The whole screen of rows x cols (mono: no colour) drawn on a screen of
 * its own as the loop draws it: the hit regions into app->hits, the
 * heatmaps' page size and the pane's scroll taken back into the app; then
 * read back as text, a line a row. The text is the helpers' own, valid
 * until the next call. app->now_ms is the caller's (1000000: the
 * messages of the keys typed before have expired). */
const char *tui_check_screen(struct app *app, int rows, int cols, bool mono);
/* The line of screen text holding all of a, b and c (b, c: NULL for
 * any), copied; NULL when none. Valid until the next call. */
const char *tui_check_line_with(const char *screen, const char *a, const char *b, const char *c);
/* The same, the text into *text, returning where the frame put things. */
struct body_layout tui_check_screen_layout(struct app *app, int rows, int cols, bool mono, const char **text);

/* Answer the open lesson step's question right, as a learner types it:
 * the number it expects (its @answer holds the tolerance too, "0.67
 * 0.01", which the prompt refuses; a live question's from the recording),
 * or the right choice's key; then recompute. lesson_run_answer's result:
 * 1 right, -1 when it cannot be answered (a live question with nothing
 * recorded). */
int tui_check_answer_right(struct app *app);
/* The action of that id among the program's modes (tui_modes), or NULL;
 * the key its help shows ("undo" -> "u"). */
const struct action *tui_check_action(const char *id);
const char *tui_check_key_name(const char *id);
/* The first key of every row of the workbench's table and of every view's
 * opener: every key that does something on the workbench, into keys (at
 * most max); returns how many. */
int tui_check_bound_keys(int *keys, int max);
/* Every action of every mode (each opener and each row with keys of its
 * own) into out (at most max); returns how many. */
int tui_check_actions(const struct action **out, int max);
/* xorshift64 on *state (not 0): a number in 0..n-1, the same sequence
 * for the same seed, for learners that press keys at random. */
unsigned tui_check_rnd(uint64_t *state, unsigned n);
/* The keys the shipped lessons name ({key:ID} in prose, hints and
 * questions) in every lesson before li and in lesson li up to and
 * including step si, each action's first key, minus the actions whose id
 * is in skip (nskip of them): at most max into keys; returns how many.
 * *edit and *scale (may be NULL) say whether {key:edit} and
 * {key:matrix-scale} were among them. For the strategy learners. */
int tui_check_taught_keys(const struct lesson_set *set, int li, int si, const char *const *skip,
                          int nskip, int *keys, int max, bool *edit, bool *scale);

#endif
