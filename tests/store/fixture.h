/*
 * fixture.h - what the store's file tests share: a temporary directory
 * for the group (tmpdir.h) and a default workbench to write (cfg, wts),
 * made by fixture_setup and freed by fixture_teardown.
 */
#ifndef STORE_FIXTURE_H
#define STORE_FIXTURE_H

#include "mha.h"
#include "tmpdir.h"

static struct mha_config cfg;
static struct mha_weights wts;

static int fixture_setup(void **state)
{
	cfg = mha_config_default();
	if (mha_weights_start(&wts, &cfg) != MHA_OK)
		return -1;
	return tmpdir_make(state);
}

static int fixture_teardown(void **state)
{
	mha_weights_free(&wts);
	return tmpdir_remove(state);
}

#endif
