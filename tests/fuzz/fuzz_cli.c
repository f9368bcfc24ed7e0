/*
 * fuzz_cli.c - libFuzzer target for cli_parse. The input is an argument
 * vector: arguments separated by NUL bytes (argv[0] is added). Promises
 * checked: it returns 0 or 2; on 0 the configuration is valid and every
 * string it keeps points into argv; on 2 the message is one non-empty
 * line. It does not run the program.
 */
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"

enum { FUZZ_MAX_ARGS = 64 };

static int points_into(const char *p, const char *buf, size_t size)
{
	return p == NULL || (p >= buf && p <= buf + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_cstring(data, size);
	if (!buf)
		return 0;
	char prog[] = "mha-tui";
	char *argv[FUZZ_MAX_ARGS + 2] = { prog };
	int argc = 1;
	for (char *p = buf; p <= buf + size && argc <= FUZZ_MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	struct cli cl;
	char msg[512];
	memset(msg, 'x', sizeof msg);
	int rc = cli_parse(argc, argv, &cl, msg, sizeof msg);
	FUZZ_REQUIRE(rc == 0 || rc == 2, "cli_parse returns 0 or 2");
	if (rc == 0) {
		char why[MHA_MSG_MAX];
		FUZZ_REQUIRE(cl.mode >= CLI_TUI && cl.mode <= CLI_MODE_LAST, "a known mode");
		/* --help and --version answer whatever else the line holds */
		if (cl.mode == CLI_TUI || cl.mode == CLI_DUMP || cl.mode == CLI_EXPORT) {
			FUZZ_REQUIRE(mha_config_check(&cl.cfg, why, sizeof why) == MHA_OK,
			             "an accepted configuration is valid");
			FUZZ_REQUIRE(!(cl.load && cl.config_given),
			             "--load is never mixed with configuration flags");
		}
		bool answers_anything = cl.mode == CLI_HELP || cl.mode == CLI_VERSION;
		FUZZ_REQUIRE(answers_anything ||
		             (cl.mode == CLI_CIRCUITS ? cl.circuits.model != NULL && cl.circuits.position < MHA_MAX_TOKENS
		                                      : !cl.circuits.json && cl.circuits.position == -1),
		             "--json and --position only with --circuits MODEL");
		FUZZ_REQUIRE(points_into(cl.load, buf, size) && points_into(cl.lesson, buf, size) &&
		             points_into(cl.lessons_dir, buf, size) && points_into(cl.check_dir, buf, size) &&
		             points_into(cl.text, buf, size) && points_into(cl.export_file, buf, size) &&
		             points_into(cl.kv_text, buf, size) &&
		             points_into(cl.circuits.model, buf, size),
		             "kept strings point into argv");
	} else {
		FUZZ_REQUIRE(memchr(msg, '\0', sizeof msg) != NULL, "the message is terminated");
		FUZZ_REQUIRE(msg[0] != '\0', "a usage error says why");
	}
	free(buf);
	return 0;
}
