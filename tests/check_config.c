/*
 * check_config.c - see check_config.h.
 */
#include "check_config.h"

#include <string.h>

void check_vary(struct mha_config *c, int v)
{
	c->causal = v & 1;
	c->top_k = v & 2 ? (c->n + 2) / 3 : 0;
	c->scale = !(v & 4);
	memset(c->head_off, 0, sizeof c->head_off);
	if (v & 4)
		c->head_off[c->h - 1] = true;
}
