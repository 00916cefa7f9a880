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

	for (i = 0; i < list->count; i++)
		free(list->entry[i].path);
	free(list->entry);
	list->entry = NULL;
	list->count = 0;
}

static int unknown_word(const char *word, const char *file, size_t line,
			struct error *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(retired); i++)
		if (!strcmp(word, retired[i].name))
			return error_msg(e, EINVAL,
					 "%s:%zu: \"%s\" is no option any more: stores are marked %s unless \"%s\" is given; remove it",
					 file, line, word, retired[i].meaning,
					 retired[i].opposite);
	return error_msg(e, EINVAL,
			 "%s:%zu: unknown option \"%.64s\" (known: rw, suid, suid-host, force, owner=WHO)",
			 file, line, word);
}

static int parse_word(const char *word, const char *file, size_t line,
		      unsigned int *seen, struct owner_list *owners,
		      struct error *e)
{
	size_t i;

	if (!strncmp(word, OWNER_PREFIX, strlen(OWNER_PREFIX))) {
		if (owner_list_add(owners, OWNER_PREFIX, word + strlen(OWNER_PREFIX), e) < 0)
			return error_context(e, "%s:%zu", file, line);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strcmp(word, words[i].name))
			continue;
		if (*seen & words[i].bit)
			return error_msg(e, EINVAL, "%s:%zu: option \"%s\" given twice",
					 file, line, word);
		*seen |= words[i].bit;
		return 0;
	}
	return unknown_word(word, file, line, e);
}

static bool listed(const struct allow_list *list, const char *path, size_t *line)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (!strcmp(list->entry[i].path, path)) {
			*line = list->entry[i].line;
			return true;
		}
	return false;
}

/* One line, cut in place into words; a comment ends it. */
static int parse_line(char *text, const char *file, size_t line,
		      struct allow_list *list, struct error *e)
{
	struct allow_entry *x = &list->entry[list->count];
	char *save = NULL, *word, *path;
	unsigned int seen = 0;
	size_t first;
	int ret;

	path = strtok_r(text, BLANKS, &save);
	if (!path || path[0] == '#')
		return 0;
	if (path[0] != '/')
		return error_msg(e, EINVAL, "%s:%zu: \"%.256s\" is not an absolute path",
				 file, line, path);
	if (listed(list, path, &first))
		return error_msg(e, EINVAL, "%s:%zu: %.256s is already listed on line %zu",
				 file, line, path, first);
	memset(x, 0, sizeof(*x));
	x->line = line;
	while ((word = strtok_r(NULL, BLANKS, &save)) && word[0] != '#') {
		ret = parse_word(word, file, line, &seen, &x->mark.owners, e);
		if (ret < 0)
			return ret;
	}
	x->mark.flags = (seen & WORD_RW ? MARK_WRITABLE : 0) |
			(seen & WORD_SUID ? MARK_SUID : 0) |
			(seen & WORD_SUID_HOST ? MARK_SUID_HOST : 0);
	x->force = seen & WORD_FORCE;
	x->path = strdup(path);
	if (!x->path)
		return error_errno(e, ENOMEM, "%s:%zu", file, line);
	list->count++;
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

	if (!copy)
		return error_errno(e, ENOMEM, "%s", file);
	list->count = 0;
	list->entry = calloc(count_lines(text), sizeof(*list->entry));
	if (!list->entry)
		return error_errno(e, ENOMEM, "%s", file);
	for (line = copy; line && ret == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ret = parse_line(line, file, ++lineno, list, e);
	}
	if (ret < 0)
		allow_list_free(list);
	return ret;
}
