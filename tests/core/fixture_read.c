/*
 * fixture_read.c - see fixture_read.h.
 */
#include "fixture_read.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

int fixture_token(FILE *f, char *buf, size_t cap)
{
	int ch;
	for (;;) {
		while ((ch = getc(f)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
			;
		if (ch != '#')
			break;
		while ((ch = getc(f)) != '\n' && ch != EOF)
			;
	}
	if (ch == EOF)
		return 0;
	size_t i = 0;
	do {
		if (i + 1 < cap)
			buf[i++] = (char)ch;
	} while ((ch = getc(f)) != EOF && ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r');
	buf[i] = '\0';
	return 1;
}

double fixture_number(FILE *f, const char *what)
{
	char buf[64], *end;
	if (!fixture_token(f, buf, sizeof buf))
		fail_msg("fixture ends early: expected %s", what);
	double v = strtod(buf, &end);
	if (end == buf || *end != '\0')
		fail_msg("fixture: '%s' is not a number (%s)", buf, what);
	return v;
}

int fixture_field(FILE *f, const char *key)
{
	char buf[64];
	if (!fixture_token(f, buf, sizeof buf) || strcmp(buf, key) != 0)
		fail_msg("fixture config: expected '%s'", key);
	return (int)fixture_number(f, key);
}

void fixture_config(FILE *f, struct mha_config *c)
{
	char buf[64];
	if (!fixture_token(f, buf, sizeof buf) || strcmp(buf, "config") != 0)
		fail_msg("fixture: expected 'config'");
	*c = mha_config_default();
	c->n = fixture_field(f, "n");
	c->d = fixture_field(f, "d");
	c->h = fixture_field(f, "h");
	c->g = fixture_field(f, "g");
	c->dk = fixture_field(f, "dk");
	c->causal = fixture_field(f, "causal");
	c->top_k = fixture_field(f, "top_k");
	c->scale = fixture_field(f, "scale");
	int off = fixture_field(f, "heads_off");
	for (int i = 0; i < off; i++) {
		int head = (int)fixture_number(f, "head off");
		assert_in_range(head, 0, c->h - 1);
		c->head_off[head] = true;
	}
	/* masks beyond causal: padding keys, window, hidden (query, key) cells */
	int pads = fixture_field(f, "pad");
	for (int i = 0; i < pads; i++) {
		int t = (int)fixture_number(f, "pad token");
		assert_in_range(t, 0, MHA_MAX_TOKENS - 1);
		c->pad |= (uint64_t)1 << t;
	}
	c->window = fixture_field(f, "window");
	int hidden = fixture_field(f, "hidden");
	for (int k = 0; k < hidden; k++) {
		int i = (int)fixture_number(f, "hidden query"), j = (int)fixture_number(f, "hidden key");
		assert_in_range(i, 0, c->n - 1);
		assert_in_range(j, 0, MHA_MAX_TOKENS - 1);
		mha_mask_set(c, i, j, true);
	}
	c->bias = fixture_field(f, "bias");
}

FILE *fixture_open(const char *dir, const char *name)
{
	const char *root = getenv("MHA_SOURCE_ROOT");
	if (!root)
		fail_msg("MHA_SOURCE_ROOT is not set: run under meson test");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fixtures/%s/%s.txt", root, dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open fixture %s", path);
	return f;
}
