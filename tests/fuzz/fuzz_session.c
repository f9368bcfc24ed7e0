/*
 * fuzz_session.c - libFuzzer target for session_parse, the reader of saved
 * workbenches. Promises checked: it returns; a refusal has a message that
 * starts with the file's name; an accepted session has a valid
 * configuration and in-range inputs, and its forward pass is finite in
 * every intermediate (nothing NaN or Inf can reach the screen or the dump).
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mha.h"
#include "session.h"

static int all_finite(const float *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(p[i]))
			return 0;
	return 1;
}

/* Every layer runs (the sanitizers watch it); layer 0's intermediates are
 * finite. A later layer of a stack reads sums of the ones below and may
 * overflow float with inputs near the +-1e6 limit (the dump prints null). */
static void check_forward(const struct mha_config *c, const struct mha_weights *w)
{
	struct mha_stack s;
	if (mha_stack_alloc(&s, c) != MHA_OK)
		return;
	mha_stack_forward(c, w, &s);
	for (enum mha_tensor t = MHA_T_Q; t < MHA_T_COUNT; t++) {
		struct mha_shape sh = mha_tensor_shape(c, t);
		size_t n = (size_t)sh.count * (size_t)sh.rows * (size_t)sh.cols;
		FUZZ_REQUIRE(all_finite(mha_tensor_data(w, &s.layer[0], t), n),
		             "every intermediate of a loaded session's first layer is finite");
	}
	mha_stack_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX + 512];
	memset(msg, 'x', sizeof msg);
	if (session_parse("in", (const char *)data, size, &c, &w, msg, sizeof msg) != 0) {
		FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
		FUZZ_REQUIRE(strncmp(msg, "in:", 3) == 0, "a refusal names the file");
		return 0;
	}
	char why[MHA_MSG_MAX];
	FUZZ_REQUIRE(mha_config_check(&c, why, sizeof why) == MHA_OK, "a loaded configuration is valid");
	FUZZ_REQUIRE(mha_weights_check(&w, &c, why, sizeof why) == MHA_OK, "loaded inputs are in range");
	for (int i = 0; i < c.n; i++)
		FUZZ_REQUIRE(memchr(w.labels[i], '\0', MHA_LABEL_MAX) != NULL, "labels are terminated");
	for (int j = 0; j < c.m; j++)
		FUZZ_REQUIRE(memchr(w.kv_labels[j], '\0', MHA_LABEL_MAX) != NULL, "source labels are terminated");
	check_forward(&c, &w);
	mha_weights_free(&w);
	return 0;
}
