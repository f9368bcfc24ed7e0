/*
 * datadir.h - where the program's shipped files are: the one test of
 * whether it runs from a meson build directory (then the source tree's
 * lessons and assets are the ones to use, before the installed ones).
 */
#ifndef DATADIR_H
#define DATADIR_H

#include <stdbool.h>

/* build.ninja sits beside the executable or a few levels up (tests live
 * in build/tests/...). */
bool datadir_from_build(void);

#endif
