/*
 * tui_check.c - helpers shared by the workbench's tests (tui_check.h).
 * Only set-up and typing: each test asserts what it checks itself.
 */
#include "tui_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "actions.h"
#include "learn.h"

struct app *tui_check_open(const struct lesson_set *set)
{
	struct app *app = calloc(1, sizeof *app);
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	assert_non_null(app);
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, c.seed);
	mha_weights_default_labels(&w, &c);
	assert_int_equal(app_init(app, &c, &w, msg, sizeof msg), 0);
	if (set)
		learn_attach(app, set, "", NULL);
	return app;
}

void tui_check_close(struct app *app)
{
	app_free(app);
	free(app);
}

unsigned tui_check_keys(struct app *app, const char *s)
{
	unsigned all = 0;
	for (; *s; s++) {
		unsigned f = app_key(app, *s == '\n' ? '\r' : (unsigned char)*s);
		if (f & APP_RECOMPUTE)
			app_recompute(app);
		all |= f;
	}
	return all;
}
