/*
 * flash_view.h - the FlashAttention view (flash_view.c), for the tests:
 * which step it shows. The mode itself is flash_mode (modes.h).
 */
#ifndef FLASH_VIEW_H
#define FLASH_VIEW_H

#include "app.h"

/* The step shown (0-based) and the one hidden by the predict state (-1:
 * none). */
int flash_view_step(const struct app *app);
int flash_view_hidden_step(const struct app *app);

#endif
