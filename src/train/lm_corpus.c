/*
 * lm_corpus.c - the language model's corpus: WordNet 3.0's glosses, read
 * from the data files Debian's wordnet-base installs (/usr/share/wordnet),
 * one document a synset, and the fixed split into training and held-out
 * documents (doc/LANGUAGE_MODEL.md). This file reads and splits text; it
 * does not tokenize (lm_vocab.c).
 *
 * A data line is "offset lex_filenum ss_type w_cnt word lex_id ... | gloss";
 * the gloss (definitions, then examples in double quotes, separated by
 * "; ") is all the model reads. Lines that begin with two blanks are the
 * licence header and hold no synset.
 */
#include "lm.h"
#include "readfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* WordNet's own order of the parts of speech: n, v, a, r */
static const char *const data_files[] = { "data.noun", "data.verb", "data.adj", "data.adv" };
enum { DATA_FILES = 4, DATA_MAX_BYTES = 64 << 20 };

uint64_t lm_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

enum lm_split lm_doc_split(int k)
{
	return k % LM_HELDOUT_EVERY == LM_HELDOUT_EVERY - 1 ? LM_SPLIT_HELDOUT : LM_SPLIT_TRAIN;
}

const char *lm_gloss_of(const char *line, size_t *glen)
{
	if (line[0] == ' ')
		return NULL;
	size_t end = strcspn(line, "\n");
	const char *bar = NULL;
	for (size_t i = 0; i + 2 < end; i++)
		if (line[i] == ' ' && line[i + 1] == '|' && line[i + 2] == ' ') {
			bar = line + i + 3;
			break;
		}
	if (!bar)
		return NULL;
	size_t n = (size_t)(line + end - bar);
	while (n && (bar[n - 1] == ' ' || bar[n - 1] == '\r'))
		n--;
	if (!n)
		return NULL;
	*glen = n;
	return bar;
}

void lm_corpus_free(struct lm_corpus *c)
{
	free(c->doc);
	free(c->mem);
	memset(c, 0, sizeof *c);
}

int lm_corpus_read(struct lm_corpus *c, const char *dir, char *msg, size_t len)
{
	memset(c, 0, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "%s", dir);
	char *text[DATA_FILES] = { 0 };
	size_t size[DATA_FILES], total = 0;
	int rc = -1;
	for (int f = 0; f < DATA_FILES; f++) {
		char path[4200], why[256];
		snprintf(path, sizeof path, "%s/%s", dir, data_files[f]);
		if (readfile_all(path, DATA_MAX_BYTES, &text[f], &size[f], why, sizeof why) != 0) {
			snprintf(msg, len, "corpus: %.300s: %.200s%s", path, why,
			         errno == ENOENT ? " (install Debian's wordnet-base, or give --corpus DIR "
			                           "holding WordNet 3.0's data.noun ... data.adv)" : "");
			goto out;
		}
		total += size[f];
	}
	/* every document fits in the files' own bytes, a NUL each */
	size_t lines = 0;
	for (int f = 0; f < DATA_FILES; f++)
		for (size_t i = 0; i < size[f]; i++)
			lines += text[f][i] == '\n';
	c->mem = malloc(total + DATA_FILES);
	c->doc = malloc((lines + DATA_FILES) * sizeof *c->doc);
	if (!c->mem || !c->doc) {
		snprintf(msg, len, "corpus: out of memory");
		goto out;
	}
	char *at = c->mem;
	c->fingerprint[0] = c->fingerprint[1] = LM_FNV_START;
	for (int f = 0; f < DATA_FILES; f++) {
		for (char *line = text[f]; line < text[f] + size[f];) {
			char *nl = memchr(line, '\n', (size_t)(text[f] + size[f] - line));
			char *next = nl ? nl + 1 : text[f] + size[f];
			if (nl)
				*nl = '\0';
			else
				text[f][size[f]] = '\0'; /* readfile_all leaves room for it */
			size_t g;
			const char *gloss = lm_gloss_of(line, &g);
			if (gloss) {
				memcpy(at, gloss, g);
				at[g] = '\0';
				int k = c->ndocs++;
				c->doc[k] = at;
				/* the split's fingerprint: each document and a newline */
				uint64_t *fp = &c->fingerprint[lm_doc_split(k)];
				*fp = lm_fnv(lm_fnv(*fp, at, g), "\n", 1);
				c->bytes += g;
				at += g + 1;
			}
			line = next;
		}
	}
	if (c->ndocs < LM_HELDOUT_EVERY) {
		snprintf(msg, len, "corpus: %.300s: %d glosses found; WordNet 3.0 has 117,659 "
		         "(are these WordNet's data files?)", dir, c->ndocs);
		goto out;
	}
	rc = 0;
out:
	for (int f = 0; f < DATA_FILES; f++)
		free(text[f]);
	if (rc)
		lm_corpus_free(c);
	return rc;
}
