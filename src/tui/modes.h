/*
 * modes.h - the screen modes the program runs with, in one table
 * (modes.c): the workbench first (the mode every other returns to), then
 * the views and prompts, each one file of src/tui (mode.h says what a mode
 * is). Adding a view is one row here, MODE(name_mode) for the `const
 * struct mode_ops name_mode` its file defines; the help, the hints, the
 * key dispatch and the hooks all walk this table (app->modes).
 */
#ifndef MODES_H
#define MODES_H

#include "app.h"
#include "mode.h"

/* The table's rows, in the order the help lists them. */
#define TUI_MODES(MODE)                                                              \
	MODE(workbench_mode)      /* the seven stage screens (workbench.c) */             \
	MODE(menu_mode)           /* the lesson menu in the pane (menu.c) */              \
	MODE(value_prompt_mode)   /* a value for the cursor's cell (value_prompt.c) */    \
	MODE(scale_prompt_mode)   /* a factor for a block of cells (scale_prompt.c) */    \
	MODE(answer_prompt_mode)  /* the step's question answered (answer_prompt.c) */    \
	MODE(label_prompt_mode)   /* your own sentence (label_prompt.c) */                \
	MODE(source_prompt_mode)  /* cross-attention's source sentence (label_prompt.c) */ \
	MODE(recover_prompt_mode) /* an autosave found at start (recover_prompt.c) */     \
	MODE(decode_view_mode)    /* prefill and decode (decode_view.c) */                \
	MODE(mask_view_mode)      /* padding, window, cells by hand (mask_view.c) */      \
	MODE(kv_view_mode)        /* the KV cache at model scale (kv_view.c) */           \
	MODE(qkov_view_mode)      /* a head's QK and OV circuits (qkov_view.c) */         \
	MODE(flash_mode)          /* FlashAttention tile by tile (flash_view.c) */        \
	MODE(train_mode)          /* a tiny model learning live (train_view.c) */         \
	MODE(train_ablate_mode)   /* its ablation page (train_ablate.c) */                \
	MODE(train_circuits_mode) /* its circuits page (train_circuits.c) */              \
	MODE(analysis_view_mode)  /* head analysis (analysis_view.c) */               \
	MODE(lm_view_mode)        /* your sentence through the language model (lm_view.c) */ \
	MODE(lm_gen_mode)         /* generating from it, a K/V cache a layer (lm_generate.c) */

#define TUI_MODE_EXTERN(m) extern const struct mode_ops m;
TUI_MODES(TUI_MODE_EXTERN)
#undef TUI_MODE_EXTERN

/* The table, NULL after the last: what app_init takes. */
extern const struct mode_ops *const tui_modes[];

/* At start, after the workbench is set up: an autosave a run left
 * (app_autosave_check) is asked about by the recover prompt where the
 * workbench has the keys, else named on the status line. true when one
 * was found. */
bool modes_recover_check(struct app *app);

#endif
