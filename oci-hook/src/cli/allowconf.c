// SPDX-License-Identifier: GPL-2.0
/* allowconf.c: see allowconf.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"

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
#define BLANKS " \t\r"

void allow_list_free(struct allow_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		free(list->entry[i].path);
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
			 "unknown option \"%.64s\" (known: rw, suid, suid-host, force, owner=WHO)",
			 word);
}

static int parse_word(const char *word, unsigned int *seen,
		      struct owner_list *owners, struct error *e)
{
	size_t i;

	if (!strncmp(word, OWNER_PREFIX, strlen(OWNER_PREFIX)))
		return owner_list_add(owners, OWNER_PREFIX, word + strlen(OWNER_PREFIX), e);
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
 * One line, cut in place into words, as the next entry of list: a
 * store, or a refused line with its reason.  A blank or comment line
 * adds nothing.  Fails only for lack of memory.
 */
static int parse_line(char *text, size_t line, struct allow_list *list)
{
	struct allow_entry *x = &list->entry[list->count];
	struct error why = { 0, "" };
	char *save = NULL, *path;
	int ret;

	path = strtok_r(text, BLANKS, &save);
	if (!path || path[0] == '#')
		return 0;
	memset(x, 0, sizeof(*x));
	x->line = line;
	list->count++;
	if (path[0] != '/') {
		error_msg(&why, EINVAL, "\"%.256s\" is not an absolute path", path);
		return refuse_entry(x, &why);
	}
	/* Kept even when a word is bad: a store listed twice is found so. */
	x->path = strdup(path);
	if (!x->path)
		return -ENOMEM;
	ret = parse_words(&save, x, &why);
	return ret < 0 ? refuse_entry(x, &why) : 0;
}

/* The first entry other than x that lists x's path, or NULL. */
static const struct allow_entry *other_listing(const struct allow_list *list,
					       const struct allow_entry *x)
{
	size_t i;

	for (i = 0; x->path && i < list->count; i++)
		if (&list->entry[i] != x && list->entry[i].path &&
		    !strcmp(list->entry[i].path, x->path))
			return &list->entry[i];
	return NULL;
}

/*
 * A store listed twice, with two sets of options: which one the admin
 * meant cannot be told, so neither line marks it.
 */
static int refuse_duplicates(struct allow_list *list)
{
	struct error why = { 0, "" };
	const struct allow_entry *other;
	size_t i;

	for (i = 0; i < list->count; i++) {
		struct allow_entry *x = &list->entry[i];

		other = other_listing(list, x);
		if (!other || x->error)
			continue;
		error_msg(&why, EINVAL,
			  "%.256s is listed on line %zu too: a store listed twice is marked by neither line; keep one line for it",
			  x->path, other->line);
		if (refuse_entry(x, &why) < 0)
			return -ENOMEM;
	}
	return 0;
}

static size_t count_lines(const char *text)
{
	size_t n = 1;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

int allowconf_parse(const char *text, const char *file, struct allow_list *list,
		    struct error *e)
{
	_cleanup_free_ char *copy = strdup(text);
	char *line, *next;
	size_t lineno = 0;
	int ret = 0;

	list->count = 0;
	list->entry = copy ? calloc(count_lines(text), sizeof(*list->entry)) : NULL;
	if (!list->entry)
		return error_errno(e, ENOMEM, "%s", file);
	for (line = copy; line && ret == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ret = parse_line(line, ++lineno, list);
	}
	if (ret == 0)
		ret = refuse_duplicates(list);
	if (ret < 0) {
		allow_list_free(list);
		return error_errno(e, -ret, "%s", file);
	}
	return 0;
}
