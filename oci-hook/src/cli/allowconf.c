// SPDX-License-Identifier: GPL-2.0
/* allowconf.c: see allowconf.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"
#include "storepath.h"

/* The words that stand alone; each sets one bit of a line's words. */
enum word_bit {
	WORD_RW = 1 << 0,
	WORD_SUID = 1 << 1,
	WORD_FORCE = 1 << 2,
	WORD_SUID_HOST = 1 << 3,
};

static const struct {
	const char *name;
	unsigned int bit;
} words[] = {
	{ "rw", WORD_RW },
	{ "suid", WORD_SUID },
	{ "force", WORD_FORCE },
	{ "suid-host", WORD_SUID_HOST },
};

/* Words of earlier versions, now the defaults: a hint instead of "unknown". */
static const struct {
	const char *name;
	const char *meaning;
	const char *opposite;
} retired[] = {
	{ "ro", "read-only", "rw" },
	{ "nosuid", "nosuid", "suid" },
};

#define OWNER_PREFIX "owner="
#define GROUP_PREFIX "group="
#define BLANKS " \t\r"

void allow_list_free(struct allow_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		free(list->entry[i].path);
		free(list->entry[i].written);
		free(list->entry[i].error);
	}
	free(list->entry);
	list->entry = NULL;
	list->count = 0;
}

static int unknown_word(const char *word, struct error *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(retired); i++)
		if (!strcmp(word, retired[i].name))
			return error_msg(e, EINVAL,
					 "\"%s\" is no option any more: stores are marked %s unless \"%s\" is given; remove it",
					 word, retired[i].meaning, retired[i].opposite);
	return error_msg(e, EINVAL,
			 "unknown option \"%.64s\" (known: rw, suid, suid-host, force, owner=WHO, group=NAME)",
			 word);
}

static int parse_word(const char *word, unsigned int *seen,
		      struct owner_list *owners, struct error *e)
{
	size_t i;

	if (!strncmp(word, OWNER_PREFIX, strlen(OWNER_PREFIX)))
		return owner_list_add(owners, OWNER_PREFIX, word + strlen(OWNER_PREFIX), e);
	if (!strncmp(word, GROUP_PREFIX, strlen(GROUP_PREFIX)))
		return owner_list_add_group(owners, GROUP_PREFIX, word + strlen(GROUP_PREFIX), e);
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strcmp(word, words[i].name))
			continue;
		if (*seen & words[i].bit)
			return error_msg(e, EINVAL, "option \"%s\" given twice", word);
		*seen |= words[i].bit;
		return 0;
	}
	return unknown_word(word, e);
}

/*
 * The words after the path, cut from the line by save; a comment ends
 * them.  Fills x's mark and force.
 */
static int parse_words(char **save, struct allow_entry *x, struct error *e)
{
	unsigned int seen = 0;
	char *word;
	int ret;

	while ((word = strtok_r(NULL, BLANKS, save)) && word[0] != '#') {
		ret = parse_word(word, &seen, &x->mark.owners, e);
		if (ret < 0)
			return ret;
	}
	x->mark.flags = (seen & WORD_RW ? MARK_WRITABLE : 0) |
			(seen & WORD_SUID ? MARK_SUID : 0) |
			(seen & WORD_SUID_HOST ? MARK_SUID_HOST : 0);
	x->force = seen & WORD_FORCE;
	return 0;
}

/*
 * x refused: its reason kept, its mark emptied so that nothing can use
 * it.  Fails only for lack of memory.
 */
static int refuse_entry(struct allow_entry *x, const struct error *why)
{
	memset(&x->mark, 0, sizeof(x->mark));
	x->force = false;
	x->error = strdup(why->msg);
	return x->error ? 0 : -ENOMEM;
}

/*
 * x's path, the absolute path as written, made plain (no empty or "."
 * component, no trailing slash), so that one store written two ways is
 * found listed twice; the text as written is kept in x->written when it
 * differs.  A path with ".." is refused here, as `shiftbind allow`
 * refuses it, and compared as written.
 */
static int set_path(struct allow_entry *x, const char *path, struct error *why)
{
	char plain[PATH_MAX];

	if (store_path_normalize(path, plain, sizeof(plain), why) < 0) {
		x->path = strdup(path);
		return x->path ? -EINVAL : -ENOMEM;
	}
	x->path = strdup(plain);
	if (x->path && strcmp(plain, path))
		x->written = strdup(path);
	return !x->path || (strcmp(plain, path) && !x->written) ? -ENOMEM : 0;
}

/*
 * One line, cut in place into words, as the next entry of list: a
 * store, or a refused line with its reason.  A blank or comment line
 * adds nothing, unless it holds a NUL byte (nul: its column, from 1, or
 * 0): the line cannot be read as text, and is refused whatever came
 * before the byte (its path, if any, still counts as listed).  Fails
 * only for lack of memory.
 */
static int parse_line(char *text, size_t line, size_t nul, struct allow_list *list)
{
	struct allow_entry *x = &list->entry[list->count];
	struct error why = { 0, "" };
	char *save = NULL, *path;
	int ret;

	path = strtok_r(text, BLANKS, &save);
	if ((!path || path[0] == '#') && !nul)
		return 0;
	memset(x, 0, sizeof(*x));
	x->line = line;
	list->count++;
	if (path && path[0] != '/' && path[0] != '#')
		error_msg(&why, EINVAL, "\"%.256s\" is not an absolute path", path);
	/* Kept even when a word is bad: a store listed twice is found so. */
	if (path && path[0] == '/') {
		ret = set_path(x, path, &why);
		if (ret == -ENOMEM)
			return ret;
		if (ret == 0)
			ret = parse_words(&save, x, &why);
	}
	if (nul)
		error_msg(&why, EINVAL,
			  "a NUL byte at column %zu: the line cannot be read as text, and what follows the byte would be lost; remove the byte and check the line",
			  nul);
	return why.code ? refuse_entry(x, &why) : 0;
}

/* "line 3" or "lines 3, 5 and 9": the other lines that list x's store. */
static void other_lines(const struct allow_list *list, const struct allow_entry *x,
			char *buf, size_t size)
{
	size_t i, n = 0, said = 0, len;

	for (i = 0; i < list->count; i++)
		n += &list->entry[i] != x && list->entry[i].path &&
		     !strcmp(list->entry[i].path, x->path);
	len = (size_t)snprintf(buf, size, "line%s", n == 1 ? "" : "s");
	for (i = 0; i < list->count && len < size; i++) {
		if (&list->entry[i] == x || !list->entry[i].path ||
		    strcmp(list->entry[i].path, x->path))
			continue;
		said++;
		len += (size_t)snprintf(buf + len, size - len, "%s%zu",
					said == 1 ? " " : said == n ? " and " : ", ",
					list->entry[i].line);
	}
	if (len >= size)
		snprintf(buf + size - 4, 4, "...");
}

/* Whether another entry than x lists x's path. */
static bool listed_elsewhere(const struct allow_list *list,
			     const struct allow_entry *x)
{
	size_t i;

	for (i = 0; x->path && i < list->count; i++)
		if (&list->entry[i] != x && list->entry[i].path &&
		    !strcmp(list->entry[i].path, x->path))
			return true;
	return false;
}

/*
 * A store listed twice, with two sets of options: which one the admin
 * meant cannot be told, so no line marks it.  Each such line says which
 * others list it; one refused already for another reason keeps that
 * reason (and still keeps the store unmarked by the others).
 */
static int refuse_duplicates(struct allow_list *list)
{
	struct error why = { 0, "" };
	char lines[128], as[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < list->count; i++) {
		struct allow_entry *x = &list->entry[i];

		if (!listed_elsewhere(list, x) || x->error)
			continue;
		other_lines(list, x, lines, sizeof(lines));
		as[0] = '\0';
		if (x->written)
			snprintf(as, sizeof(as), " (written %.256s)", x->written);
		error_msg(&why, EINVAL,
			  "%.256s%s is listed on %s too: a store listed twice is marked by none of its lines; keep one line for it",
			  x->path, as, lines);
		if (refuse_entry(x, &why) < 0)
			return -ENOMEM;
	}
	return 0;
}

static size_t count_lines(const char *text, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

int allowconf_parse(const char *text, size_t len, const char *file,
		    struct allow_list *list, struct error *e)
{
	_cleanup_free_ char *copy = malloc(len + 1);
	char *line, *end, *nl, *nul;
	size_t lineno = 0;
	int ret = 0;

	list->count = 0;
	list->entry = copy ? calloc(count_lines(text, len), sizeof(*list->entry)) : NULL;
	if (!list->entry)
		return error_errno(e, ENOMEM, "%s", file);
	memcpy(copy, text, len);
	copy[len] = '\0';
	end = copy + len;
	for (line = copy; line < end && ret == 0; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		*nl = '\0';
		nul = memchr(line, '\0', (size_t)(nl - line));
		ret = parse_line(line, ++lineno, nul ? (size_t)(nul - line) + 1 : 0, list);
	}
	if (ret == 0)
		ret = refuse_duplicates(list);
	if (ret < 0) {
		allow_list_free(list);
		return error_errno(e, -ret, "%s", file);
	}
	return 0;
}
