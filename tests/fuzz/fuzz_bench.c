/*
 * fuzz_bench.c - libFuzzer target for lessonbench_parse, the reader of a
 * lesson's bench kept between runs (src/store/lessonbench.h). Promises
 * checked: it returns; a refusal names the file, and a line when it has
 * one; an accepted bench names a lesson and a step that make a file name
 * (or none: a plain session of an older version), has a configuration
 * mha_config_check takes, labels a load takes back, and inputs finite
 * within +-1e6.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "lessonbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mha_config c;
	struct mha_weights w;
	char msg[512], lesson[LESSONBENCH_NAME_MAX], step[LESSONBENCH_NAME_MAX], why[MHA_MSG_MAX];
	memset(msg, 'x', sizeof msg);
	if (lessonbench_parse("in", (const char *)data, size, lesson, step, &c, &w, msg, sizeof msg) != 0) {
		FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
		FUZZ_REQUIRE(strncmp(msg, "in", 2) == 0, "a refusal names the file");
		return 0;
	}
	FUZZ_REQUIRE(memchr(lesson, '\0', sizeof lesson) && memchr(step, '\0', sizeof step), "names terminated");
	FUZZ_REQUIRE((lesson[0] != '\0') == (step[0] != '\0'), "a lesson and a step, or neither");
	if (lesson[0]) {
		char path[256];
		FUZZ_REQUIRE(lessonbench_path("/d", lesson, step, path, sizeof path) == 0, "the names make a file name");
	}
	FUZZ_REQUIRE(mha_config_check(&c, why, sizeof why) == MHA_OK, "the configuration is valid");
	for (int i = 0; i < c.n; i++)
		FUZZ_REQUIRE(mha_label_valid(w.labels[i]), "every label is one a load takes back");
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		struct mha_shape sh = mha_tensor_shape(&c, t);
		const float *p = mha_tensor_data(&w, NULL, t);
		for (size_t i = 0; i < (size_t)sh.rows * sh.cols; i++)
			FUZZ_REQUIRE(isfinite(p[i]) && fabsf(p[i]) <= MHA_VALUE_MAX, "every input finite within 1e6");
	}
	mha_weights_free(&w);
	return 0;
}
