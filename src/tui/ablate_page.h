/*
 * ablate_page.h - the training screen's ablation page (key a): the
 * default `--ablate multi` run a slice at a time in the idle pauses, its
 * table (held-out accuracy and loss per h, mean and spread, solved seeds)
 * beside the paper's Table 3 row (A). The numbers come from src/train.
 */
#ifndef ABLATE_PAGE_H
#define ABLATE_PAGE_H

#include <stdbool.h>

#include "layout.h"

struct ablate_page;
/* The default ablation planned (nothing trained yet); NULL: out of memory. */
struct ablate_page *ablate_page_new(void);
void ablate_page_free(struct ablate_page *p);
/* Train for about budget_s seconds; true while there was work (redraw). */
bool ablate_page_idle(struct ablate_page *p, double budget_s);
bool ablate_page_done(const struct ablate_page *p);
/* The page in r. */
void ablate_page_draw(const struct ablate_page *p, struct rect r);

#endif
