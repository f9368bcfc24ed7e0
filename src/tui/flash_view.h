/*
 * flash_view.h - the FlashAttention view (flash_view.c): one head's
 * attention computed tile by tile, stepped forwards and back. The mode
 * itself is flash_mode (mode.h); this is its entry point for the action
 * table.
 */
#ifndef FLASH_VIEW_H
#define FLASH_VIEW_H

#include "app.h"

/* F on Scores or Softmax: record the current head tile by tile (the
 * engine's mha_flash_record) and open the view. APP_* flags. */
unsigned flash_view_open(struct app *app, int arg, int key);

#endif
