/*
 * kv_view.h - the KV-cache view (g): the cache at model scale, MHA / GQA /
 * MQA side by side, for the workbench and the presets (kv_view.c).
 */
#ifndef KV_VIEW_H
#define KV_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "app.h"

/* g: open the view, or close it (an action's function). */
unsigned kv_view_toggle(struct app *app, int arg, int key);
/* The context length T and the value type the view shows. */
int64_t kv_view_context(const struct app *app);
enum mha_dtype kv_view_dtype(const struct app *app);

extern const struct mode_ops kv_view_mode;

#endif
