/*
 * lesson_int.h - every header of the lesson library's own pieces, for its
 * own files (not its users): one header per file.
 */
#ifndef LESSON_INT_H
#define LESSON_INT_H

#include "arena.h"
#include "asset.h"
#include "cond.h"
#include "edit.h"
#include "lesson.h"
#include "lex.h"
#include "names.h"
#include "ref.h"
#include "setup.h"
#include "suggest.h"
#include "wrap.h"

#endif
