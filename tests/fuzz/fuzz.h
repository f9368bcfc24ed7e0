/*
 * fuzz.h - what every fuzz target of mha-tui provides, and how a target
 * says that it found a bug. The same target files build two ways: with
 * libFuzzer (clang, tools/fuzz.sh) and with replay.c, which feeds every
 * corpus file to the target in each `meson test` (suite fuzz).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which, then abort so that libFuzzer (or the
 * replay test) records the input as a crash. */
#define FUZZ_REQUIRE(cond, what)                                                  \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__,    \
			        __LINE__, (what));                                \
			abort();                                                  \
		}                                                                 \
	} while (0)

/* The input as a NUL-terminated copy (free it), or NULL when out of memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
