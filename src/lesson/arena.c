/*
 * arena.c - the memory of one parsed lesson: many small strings and arrays,
 * freed together by lesson_free. Blocks are chained; nothing is freed one
 * by one. Also the error list every loader appends to. Not a general
 * allocator: no realloc in place, no alignment beyond max_align_t.
 */
#include "lesson_int.h"

#include <stdarg.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_MIN = 16 * 1024 };

struct block {
	struct block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

struct lesson_arena {
	struct block *head;
};

struct lesson_arena *lesson_arena_new(void)
{
	return calloc(1, sizeof(struct lesson_arena));
}

void lesson_arena_free(struct lesson_arena *a)
{
	if (!a)
		return;
	for (struct block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

size_t lesson_arena_size(const struct lesson_arena *a)
{
	size_t n = 0;
	for (const struct block *b = a->head; b; b = b->next)
		n += b->cap;
	return n;
}

void *lesson_arena_alloc(struct lesson_arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	size = (size + align - 1) / align * align;
	if (size == 0)
		size = align;
	struct block *b = a->head;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > BLOCK_MIN ? size : BLOCK_MIN;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *lesson_arena_strndup(struct lesson_arena *a, const char *s, size_t n)
{
	char *p = lesson_arena_alloc(a, n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

char *lesson_arena_strdup(struct lesson_arena *a, const char *s)
{
	return lesson_arena_strndup(a, s, strlen(s));
}

void *lesson_arena_push(struct lesson_arena *a, void **array, int *count, int *cap, size_t elem)
{
	if (*count == *cap) {
		int ncap = *cap ? *cap * 2 : 4;
		void *bigger = lesson_arena_alloc(a, (size_t)ncap * elem);
		if (!bigger)
			return NULL;
		if (*count)
			memcpy(bigger, *array, (size_t)*count * elem);
		*array = bigger;
		*cap = ncap;
	}
	unsigned char *slot = (unsigned char *)*array + (size_t)(*count)++ * elem;
	memset(slot, 0, elem);
	return slot;
}

void lesson_errors_add(struct lesson_errors *e, const char *fmt, ...)
{
	if (e->count >= LESSON_ERRORS_MAX) {
		e->dropped++;
		return;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char **grown = realloc(e->msg, (size_t)(e->count + 1) * sizeof *grown);
	char *copy = grown ? strdup(buf) : NULL;
	if (grown)
		e->msg = grown;
	if (!copy) {
		e->dropped++;
		return;
	}
	e->msg[e->count++] = copy;
}

void lesson_errors_free(struct lesson_errors *e)
{
	for (int i = 0; i < e->count; i++)
		free(e->msg[i]);
	free(e->msg);
	memset(e, 0, sizeof *e);
}
