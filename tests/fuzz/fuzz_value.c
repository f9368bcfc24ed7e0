/*
 * fuzz_value.c - libFuzzer target for mha_parse_value, the one parser of
 * numbers a learner types or a session file stores. Promises checked: it
 * returns, and a value it accepts is finite and within +-MHA_VALUE_MAX; a
 * refusal always carries a message. It does not judge the message's words.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mha.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parser takes a C string: cut at the first NUL, as a line
	 * read from a file or a typed buffer would be. */
	char *text = fuzz_cstring(data, size);
	if (!text)
		return 0;
	char msg[MHA_MSG_MAX];
	float v = 12345.0f;
	enum mha_status s = mha_parse_value(text, &v, msg, sizeof msg);
	if (s == MHA_OK) {
		FUZZ_REQUIRE(isfinite(v), "an accepted value is finite");
		FUZZ_REQUIRE(fabsf(v) <= MHA_VALUE_MAX, "an accepted value is within +-MHA_VALUE_MAX");
		FUZZ_REQUIRE(msg[0] == '\0', "success clears the message");
	} else {
		FUZZ_REQUIRE(s == MHA_ERANGE, "a refusal is MHA_ERANGE");
		FUZZ_REQUIRE(msg[0] != '\0', "a refusal says why");
		FUZZ_REQUIRE(v == 12345.0f, "a refusal leaves the output alone");
	}
	FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
	free(text);
	return 0;
}
