/*
 * fuzz_lm_files.c - libFuzzer target for the language model's two file
 * readers (doc/LANGUAGE_MODEL.md): the first byte chooses the vocabulary
 * (even) or the model file (odd), the rest is the file. Promises checked:
 * it returns; a refusal names the file, leaves nothing allocated and a
 * terminated message; an accepted vocabulary finds every token under its
 * own id and starts with <unk> and <doc>; an accepted model's parameters
 * are all finite and within +-1e6, and its shape passes the shape check.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "lm.h"

static void check_refusal(int rc, const char *msg, size_t cap)
{
	FUZZ_REQUIRE(rc == -1, "a refusal returns -1");
	FUZZ_REQUIRE(memchr(msg, '\0', cap) != NULL, "the message is terminated");
	FUZZ_REQUIRE(strncmp(msg, "in:", 3) == 0, "a refusal names the file and the line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_cstring(data + 1, size - 1);
	if (!text)
		return 0;
	char msg[512];
	memset(msg, 'x', sizeof msg);
	if (data[0] % 2 == 0) {
		struct lm_vocab v;
		int rc = lm_vocab_parse("in", text, size - 1, &v, msg, sizeof msg);
		if (rc != 0) {
			check_refusal(rc, msg, sizeof msg);
			FUZZ_REQUIRE(v.word == NULL && v.slot == NULL && v.size == 0, "a refused vocabulary holds nothing");
		} else {
			FUZZ_REQUIRE(v.size > LM_SPECIALS && v.size <= LM_MAX_VOCAB, "the size is in range");
			FUZZ_REQUIRE(!strcmp(v.word[LM_UNK], "<unk>") && !strcmp(v.word[LM_DOC], "<doc>"), "the specials first");
			for (int id = 0; id < v.size; id++)
				FUZZ_REQUIRE(lm_vocab_id(&v, v.word[id], (int)strlen(v.word[id])) == id,
				             "every token is found under its own id");
			lm_vocab_free(&v);
		}
	} else {
		struct train_model m;
		struct lm_meta meta;
		int rc = lm_model_parse("in", text, size - 1, &m, &meta, msg, sizeof msg);
		if (rc != 0) {
			check_refusal(rc, msg, sizeof msg);
			FUZZ_REQUIRE(m.params == NULL, "a refused model holds nothing");
		} else {
			char why[256];
			FUZZ_REQUIRE(train_shape_check_limit(&m.s, LM_MAX_VOCAB, why, sizeof why) == MHA_OK,
			             "the shape is one the model can have");
			for (size_t e = 0; e < m.nparams; e++)
				FUZZ_REQUIRE(isfinite(m.params[e]) && fabsf(m.params[e]) <= 1e6f, "every parameter is sane");
			train_model_free(&m);
		}
	}
	free(text);
	return 0;
}
