/*
 * test_torch_fixture.c - a real PyTorch layer in: the session that
 * tools/import_torch.py wrote from a torch.nn.MultiheadAttention (biases,
 * batch_first, a causal attn_mask and a key_padding_mask), loaded and run
 * by the core, gives PyTorch's own output and per-head weights within
 * 1e-5. Both files are committed (tests/fixtures/torch_mha.*), so this runs
 * everywhere without Python; test_import_torch.sh redoes it end to end
 * where torch is installed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "mha.h"
#include "session.h"

/* The next "matrix NAME COUNT ROWS COLS" block of f into a new array. */
static double *read_block(FILE *f, const char *name, size_t want)
{
	char line[256], got[64];
	int count, rows, cols;
	while (fgets(line, sizeof line, f) && line[0] == '#')
		;
	if (sscanf(line, "matrix %63s %d %d %d", got, &count, &rows, &cols) != 4 || strcmp(got, name) != 0)
		fail_msg("expect file: wanted matrix %s, got '%s'", name, line);
	if ((size_t)count * rows * cols != want)
		fail_msg("expect file: %s has %d x %d x %d values, the session %zu", name, count, rows, cols, want);
	double *a = calloc(want, sizeof *a);
	assert_non_null(a);
	for (size_t i = 0; i < want; i++)
		if (fscanf(f, "%lf", &a[i]) != 1)
			fail_msg("expect file: %s ends early", name);
	while (fgetc(f) != '\n' && !feof(f))
		;
	return a;
}

static void test_imported_layer_gives_pytorchs_numbers(void **state)
{
	(void)state;
	const char *root = getenv("MHA_SOURCE_ROOT");
	assert_non_null(root);
	char path[4096], msg[1024];
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	snprintf(path, sizeof path, "%s/tests/fixtures/torch_mha.session", root);
	if (session_load(path, &c, &w, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_true(c.bias && c.causal && mha_is_pad(&c, 5));
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	snprintf(path, sizeof path, "%s/tests/fixtures/torch_mha_expect.txt", root);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t ny = (size_t)c.n * c.d, np = (size_t)c.h * c.n * c.n;
	double *y = read_block(f, "output", ny), *p = read_block(f, "weights", np);
	fclose(f);
	check_close_d(a.y, y, ny, 1e-5, "Y against PyTorch's attn_output");
	check_close_d(a.weights, p, np, 1e-5, "P against PyTorch's per-head weights");
	mha_forward_naive(&c, &w, &a);
	check_close_d(a.y, y, ny, 1e-5, "Y (naive) against PyTorch's attn_output");
	free(y);
	free(p);
	mha_acts_free(&a);
	mha_weights_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imported_layer_gives_pytorchs_numbers),
	};
	return cmocka_run_group_tests_name("torch_fixture", tests, NULL, NULL);
}
