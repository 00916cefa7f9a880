#!/bin/bash
# The README is the front door and docs/ the rest of the manual: a link
# between them that leads nowhere loses the reader.  Every relative link
# of README.md and docs/*.md must name a file or directory inside the
# repository and, with a #fragment, a heading of that Markdown file by
# GitHub's slug rules (lowercase; punctuation but '-' and '_' removed;
# each space a '-'; a repeated heading gets -1, -2, ...) or an explicit
# <a id>.  Every `make TARGET` the README names in code must be a target
# of the Makefile (make's own database of it, not a grep).
#
# The checker first runs on a made-up tree with one break of each kind,
# and must fail naming each: a checker that passes everything would make
# the real tree's pass worthless.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

top=$(cd "$SHIFTBIND_TESTS/.." && pwd)

# make_targets ROOT: the explicit targets of ROOT/Makefile, one a line.
# -p prints make's database, -q and -n keep it from running any recipe;
# .DEFAULT is a goal that does nothing.  make -q exits 1 when a goal is
# out of date, so only the parsed list says whether this worked.  Under
# `make test` this runs below make: its MAKEFLAGS (-j, the jobserver's
# fds) are the outer make's, not this one's.
make_targets() {
	{ env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$1" -f Makefile -npq .DEFAULT \
		2>/dev/null || true; } | awk '
		/^# Files$/ { files = 1 }
		/^# Finished Make data base/ { files = 0 }
		files && prev != "# Not a target:" && /^[A-Za-z0-9][^#\t=%]*:([^=]|$)/ {
			sub(/:.*/, ""); print
		}
		{ prev = $0 }' | sort -u
}

# check_tree ROOT: check ROOT's README.md and docs/*.md; print each broken
# link or unknown target as FILE:LINE: ..., and exit 1 if there is any.
check_tree() {
	local root=$1 targets
	targets=$(make_targets "$root")
	[ -n "$targets" ] || {
		echo "$root/Makefile: make -p listed no targets"
		return 1
	}
	python3 - "$root" "$targets" <<'EOF'
import os, re, sys, unicodedata
from urllib.parse import unquote

root = os.path.realpath(sys.argv[1])
targets = set(sys.argv[2].split())
problems, links, named = [], 0, set()

FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
SPAN = re.compile(r'(`+)(?!`)(.+?)(?<!`)\1', re.S)

def unfence(text):
    """The text with fenced blocks blanked (newlines kept, so that line
    numbers stay), and the blocks' lines."""
    out, code, fence = [], [], None
    for line in text.splitlines(keepends=True):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            out.append('\n')
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            else:
                code.append(line)
            out.append('\n')
        else:
            out.append(line)
    return ''.join(out), code

def mask(text):
    """The text with fenced blocks and code spans blanked (offsets and
    line numbers stay), and those code parts."""
    masked, code = unfence(text)
    for m in SPAN.finditer(masked):
        if '\n\n' not in m.group(0):
            code.append(m.group(2))
    masked = SPAN.sub(lambda m: m.group(0) if '\n\n' in m.group(0)
                      else re.sub(r'[^\n]', ' ', m.group(0)), masked)
    return masked, code

def slug(heading):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link: its text
    text = re.sub(r'<[^>]+>', '', text).strip().lower()
    kept = ''.join(c for c in text if c in '-_ '
                   or unicodedata.category(c)[0] in 'LNM')
    return kept.replace(' ', '-')

anchors_of = {}
def anchors(path):
    """The fragments a Markdown file answers to."""
    if path not in anchors_of:
        # Code spans stay: a heading's slug keeps the words in them.
        masked, _ = unfence(open(path, encoding='utf-8').read())
        seen, found = {}, set()
        lines = masked.split('\n')
        for i, line in enumerate(lines):
            m = re.match(r'^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$', line)
            if not m and i + 1 < len(lines) and line.strip() \
                    and not line.lstrip().startswith(('|', '-', '*', '>')) \
                    and re.match(r'^ {0,3}(=+|-+)\s*$', lines[i + 1]):
                m = re.match(r'^\s*(.*?)\s*$', line)     # a setext heading
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else '%s-%d' % (s, n))
        found.update(re.findall(r'<a\s[^>]*(?:id|name)="([^"]+)"', masked))
        anchors_of[path] = found
    return anchors_of[path]

LINK = re.compile(r'\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)'
                  r'|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)'
                  r'|<(?:a|img)\s[^>]*(?:href|src)="([^"]*)"', re.M)

def check_links(rel):
    global links
    path = os.path.join(root, rel)
    masked, _ = mask(open(path, encoding='utf-8').read())
    for m in LINK.finditer(masked):
        target = next(g for g in m.groups() if g is not None)
        line = masked.count('\n', 0, m.start()) + 1
        where = '%s:%d: link %s' % (rel, line, target)
        if re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:|^//', target):
            continue                    # a URL, not the repository's
        links += 1
        part, _, frag = target.partition('#')
        part = unquote(part)
        if not part:
            dest = path
        elif part.startswith('/'):
            dest = os.path.join(root, part.lstrip('/'))
        else:
            dest = os.path.join(os.path.dirname(path), part)
        dest = os.path.realpath(dest)
        if os.path.commonpath([root, dest]) != root:
            problems.append('%s: leaves the repository' % where)
        elif not os.path.exists(dest):
            problems.append('%s: no such file %s' % (where, os.path.relpath(dest, root)))
        elif frag and dest.endswith('.md'):
            if unquote(frag) not in anchors(dest):
                problems.append('%s: no heading #%s in %s'
                                % (where, frag, os.path.relpath(dest, root)))
        elif frag and not re.match(r'^L\d+(-L\d+)?$', frag):
            problems.append('%s: #%s in a file that is not Markdown' % (where, frag))

def check_make(rel):
    text = open(os.path.join(root, rel), encoding='utf-8').read()
    _, code = mask(text)
    for chunk in code:
        for cmd in re.split(r'[;&|()\n]+', chunk):
            words = cmd.split('#')[0].split()
            if 'make' not in words:
                continue
            rest = words[words.index('make') + 1:]
            if any(w.startswith(('-C', '-f', '--directory', '--file')) for w in rest):
                continue                # another directory's Makefile
            for w in rest:
                if w.startswith('-') or '=' in w:
                    continue
                if not re.match(r'^[A-Za-z][A-Za-z0-9_.-]*$', w):
                    break
                named.add(w)
                if w not in targets:
                    at = re.search(r'\bmake\b[^\n]*?\s%s\b' % re.escape(w), text)
                    line = text.count('\n', 0, at.start()) + 1 if at else 0
                    problems.append('%s:%d: `make %s`: no such target in Makefile'
                                    % (rel, line, w))

docs = sorted('docs/' + f for f in os.listdir(os.path.join(root, 'docs'))
              if f.endswith('.md'))
for rel in ['README.md'] + docs:
    check_links(rel)
check_make('README.md')

for p in dict.fromkeys(problems):
    print(p)
if problems:
    sys.exit(1)
print('%d relative links in %d files resolve; the README names %d make targets, '
      'all in the Makefile: %s' % (links, 1 + len(docs), len(named), ' '.join(sorted(named))))
EOF
}

# A made-up tree: what resolves, and one break of each kind.
fake=$SCRATCH/fake
mkdir -p "$fake/docs" "$fake/sub"
printf 'demo:\n\t@true\n.PHONY: demo\n' >"$fake/Makefile"
: >"$fake/sub/page.7"
cat >"$fake/docs/guide.md" <<'EOF'
# Guide

## What `make demo` shows, (really)

## Notes

## Notes

<a id="by-hand"></a>Text. [Up](../README.md#front) and [here](#notes-1).
EOF
cat >"$fake/README.md" <<'EOF'
# Front

Run `make demo`, see [the guide](docs/guide.md#what-make-demo-shows-really),
[its second notes](docs/guide.md#notes-1), [by hand](docs/guide.md#by-hand),
[a page](sub/page.7), [a folder](sub/), [the web](https://example.org/x.md).
`[not a link](nowhere.md)` in code is not checked.

```sh
make demo   # make nothing-here is a comment
```
EOF
assert_status 0 check_tree "$fake"
assert_contains "7 relative links in 2 files resolve" "$OUTPUT" "the good made-up tree"

cat >>"$fake/README.md" <<'EOF'
[gone](docs/missing.md), [no heading](docs/guide.md#no-such-heading),
[outside](../outside.md), [fragment of a page](sub/page.7#x).

```sh
KERNEL=6.1 make no-such-target
```
EOF
: >"$SCRATCH/outside.md"
assert_status 1 check_tree "$fake"
assert_contains "README.md:11: link docs/missing.md: no such file docs/missing.md" "$OUTPUT"
assert_contains "link docs/guide.md#no-such-heading: no heading #no-such-heading in docs/guide.md" "$OUTPUT"
assert_contains "link ../outside.md: leaves the repository" "$OUTPUT"
assert_contains "link sub/page.7#x: #x in a file that is not Markdown" "$OUTPUT"
assert_contains "README.md:15: \`make no-such-target\`: no such target in Makefile" "$OUTPUT"
assert_eq 5 "$(grep -c . <<<"$OUTPUT")" "problems reported for the broken made-up tree"

# The repository's own README and docs.
assert_status 0 check_tree "$top"
echo "$OUTPUT"
