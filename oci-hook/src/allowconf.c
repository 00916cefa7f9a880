// SPDX-License-Identifier: GPL-2.0
/* allowconf.c: see allowconf.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"
#include "privileged.h"

static const struct {
	const char *name;
	unsigned int flag;
} options[] = {
	{ "ro", MARK_READ_ONLY },
	{ "nosuid", MARK_NOSUID },
};

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

void mark_flags_format(unsigned int flags, char *buf, size_t size)
{
	size_t i, len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		int n;

		if (!(flags & options[i].flag))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
			     options[i].name);
		if (n < 0 || (size_t)n >= size - len)
			return;	/* the names are short; buf is sized for all */
		len += (size_t)n;
	}
}

static int parse_option(const char *word, const char *file, size_t line,
			unsigned int *flags, struct error *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(options); i++) {
		if (strcmp(word, options[i].name))
			continue;
		if (*flags & options[i].flag)
			return error_msg(e, EINVAL, "%s:%zu: option \"%s\" given twice",
					 file, line, word);
		*flags |= options[i].flag;
		return 0;
	}
	return error_msg(e, EINVAL, "%s:%zu: unknown option \"%.64s\" (known: ro, nosuid)",
			 file, line, word);
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
	*x = (struct allow_entry){ NULL, 0, line };
	while ((word = strtok_r(NULL, BLANKS, &save)) && word[0] != '#') {
		ret = parse_option(word, file, line, &x->flags, e);
		if (ret < 0)
			return ret;
	}
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
