/* Placeholder until the workbench lands: says so and exits 2. */
#include <stdio.h>

#include "tui.h"

int tui_run(const struct tui_options *o)
{
	(void)o;
	fputs("mha-tui: the interactive workbench is not built yet; use --dump json (see --help)\n", stderr);
	return 2;
}
