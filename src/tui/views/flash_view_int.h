/*
 * flash_view_int.h - the FlashAttention view's own parts, shared by its
 * two files: flash_view.c (the recording, the keys, the drawing) and
 * flash_lesson.c (what a lesson step's @flash asks of it: its tiles and
 * step, the predict state, the live question's numbers). Not for other
 * files: flash_view.h is the view's face.
 */
#ifndef FLASH_VIEW_INT_H
#define FLASH_VIEW_INT_H

#include "app.h"
#include "engine.h"
#include "mode.h"
#include "mode.h"

struct flash_view {
	int br, bc;            /* tile sizes asked (the recording clamps them to 1..n) */
	int step;              /* the step shown */
	int64_t context;       /* the meter's context length for the base model */
	struct mha_flash_record rec;
	double final_diff;     /* max |tiles' O - plain P V| over the head */
	char error[MHA_MSG_MAX];
};

/* The mode (flash_view.c). */
extern const struct mode_ops flash_mode;

/* flash_view.c: the view's state, made on first use (NULL when out of
 * memory); as it is (NULL until then); the app's current head recorded
 * with the asked tiles. */
struct flash_view *flash_view_state(struct app *app);
const struct flash_view *flash_view_now(const struct app *app);
void flash_view_record(struct app *app, struct flash_view *fv);

/* flash_lesson.c: */
/* The open lesson step's @flash, or NULL (the free workbench, a step without it). */
const struct lesson_flash *flash_lesson_step(const struct app *app);
/* The last step the view may show: in a lesson step, no further than its
 * step (the predicted one once revealed). */
int flash_lesson_last(const struct app *app);
/* The lesson's live question: its numbers from fv's recording into the run. */
void flash_lesson_live(struct app *app, const struct flash_view *fv);
/* Take the lesson step's tiles and step, and record. */
void flash_lesson_setup(struct app *app, struct flash_view *fv, const struct lesson_flash *f);
/* F in a lesson step without @flash while an earlier step waits for its
 * tile prediction: refused (and said); true then. */
bool flash_lesson_refuse_open(struct app *app);
/* Right past the last step: say why, when a lesson holds the view there. */
void flash_lesson_refuse_past(struct app *app);
/* Tiles or head asked for in a lesson step: refused (and said); true then. */
bool flash_lesson_refuse_tiles(struct app *app);

#endif
