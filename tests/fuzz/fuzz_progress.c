/*
 * fuzz_progress.c - libFuzzer target for progress_parse, the reader of the
 * learner's progress file (read at every start). Promises checked: it
 * returns; a refusal names the file and leaves the progress empty; an
 * accepted file holds at most PROGRESS_DONE_MAX keys, each one that
 * progress_mark_done would accept, without duplicates that matter (every
 * key is found by progress_is_done), and terminated place strings.
 */
#include <string.h>

#include "fuzz.h"
#include "progress.h"

static void check_key(const char *k)
{
	size_t n = strlen(k);
	FUZZ_REQUIRE(n > 0 && n < PROGRESS_KEY_MAX, "a key has a sane length");
	for (size_t i = 0; i < n; i++)
		FUZZ_REQUIRE((unsigned char)k[i] > ' ' && k[i] != 0x7f, "a key has no blanks or controls");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct progress p;
	char msg[512];
	memset(msg, 'x', sizeof msg);
	progress_init(&p);
	if (progress_parse("in", (const char *)data, size, &p, msg, sizeof msg) != 0) {
		FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
		FUZZ_REQUIRE(strncmp(msg, "in", 2) == 0, "a refusal names the file");
		FUZZ_REQUIRE(p.ndone == 0, "a refused file leaves nothing done");
		progress_free(&p);
		return 0;
	}
	FUZZ_REQUIRE(p.ndone >= 0 && p.ndone <= PROGRESS_DONE_MAX, "the done list is bounded");
	FUZZ_REQUIRE(memchr(p.lesson, '\0', sizeof p.lesson) && memchr(p.step, '\0', sizeof p.step),
	             "the place is terminated");
	for (int i = 0; i < p.ndone; i++) {
		check_key(p.done[i]);
		FUZZ_REQUIRE(progress_is_done(&p, p.done[i]), "every key read is found");
	}
	progress_free(&p);
	return 0;
}
