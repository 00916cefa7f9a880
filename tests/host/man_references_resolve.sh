#!/bin/bash
# The man pages are one manual: a reference to one of the project's pages
# must name a page of docs/man, and a reference to a section of one
# ("configfd-shift(7), "Revoking a mark"", or the page's own
# \fBSection\fR) a heading (.SH or .SS) of that page.  Checked in the man
# pages, the README, docs/ and the sources and scripts that cite pages,
# so that a page split, renamed or reorganised leaves no reader at a
# page or section that is not there.  Every page renders without a
# warning (groff -ww, mandoc -T lint when installed, man --warnings, as
# lintian runs it on the package).
#
# The checker first runs on a made-up tree with one broken reference of
# each kind, and must name each.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

top=$(cd "$SHIFTBIND_TESTS/.." && pwd)

# check_tree ROOT: print each broken reference of ROOT as FILE:LINE: ...,
# and exit 1 if there is any.
check_tree() {
	python3 - "$1" <<'EOF'
import os, re, sys

root = sys.argv[1]
mandir = os.path.join(root, 'docs/man')
pages = {}          # "name(N)" -> set of headings
PROJECT = re.compile(r'^(configfd|shiftbind|mount_setattr-)')

def plain(s):
    """Roff text as it reads: escapes that matter here, fonts dropped."""
    s = re.sub(r'\\f[BIRP]', '', s)
    s = s.replace('\\-', '-').replace('\\(aq', "'").replace('\\[aq]', "'")
    s = s.replace('\\[dq]', '"').replace('\\&', '').replace('\\ ', ' ')
    return s

def macro_args(line):
    return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', line)]

for f in sorted(os.listdir(mandir)):
    m = re.match(r'^(.+)\.([1-8])$', f)
    if not m:
        continue
    heads = set()
    for line in open(os.path.join(mandir, f), encoding='utf-8'):
        if line.startswith(('.SH ', '.SS ')):
            heads.add(' '.join(plain(' '.join(macro_args(line[4:]))).split()))
    pages['%s(%s)' % m.groups()] = heads

problems = []
REF = re.compile(r'(?<![\w/.-])([a-z][a-z0-9_-]*)\(([1-8])\)')
# "page(N), "Section"" with the section name possibly across lines.
SECREF = re.compile(r'([a-z][a-z0-9_-]*)\(([1-8])\)`?,\s+"([^"]+)"')

def check_text(path, text, lines_of):
    for m in REF.finditer(text):
        name = '%s(%s)' % m.groups()
        if PROJECT.match(m.group(1)) and name not in pages:
            problems.append('%s:%d: %s: no such page in docs/man' % (path, lines_of(m.start()), name))
    for m in SECREF.finditer(text):
        name = '%s(%s)' % m.groups()[:2]
        sect = ' '.join(m.group(3).split())
        if name in pages and sect not in pages[name]:
            problems.append('%s:%d: %s has no section "%s" (its sections: %s)' % (
                path, lines_of(m.start()), name, sect, '; '.join(sorted(pages[name]))))

def line_counter(text):
    return lambda pos: text.count('\n', 0, pos) + 1

targets = [os.path.join(root, 'README.md')]
for d in ('docs', 'rootfs-builder', 'oci-hook', 'tests', 'configs', 'scripts', 'debian'):
    for dirpath, dirs, files in os.walk(os.path.join(root, d)):
        for f in files:
            # Not C (a call such as f(8) reads as a page), not this test.
            if f == 'man_references_resolve.sh':
                continue
            if f.endswith(('.md', '.sh', '.bash', '.conf', '.service', 'init')) or \
               dirpath.endswith('docs/man'):
                targets.append(os.path.join(dirpath, f))
for path in targets:
    if not os.path.isfile(path):
        continue
    text = open(path, encoding='utf-8', errors='replace').read()
    rel = os.path.relpath(path, root)
    if rel.startswith('docs/man/'):
        src = text
        text = plain(re.sub(r'(?m)^\.(?:BR|B|IR|I|RB) +(\S+) +\(([1-8])\)(.*)$',
                            lambda m: m.group(1) + '(' + m.group(2) + ')' + m.group(3), text))
        # The page's own sections, named in bold after "see" or "in":
        # "(see \fBPermissions\fR)", "see\n.B "Safe use"".
        me = rel[len('docs/man/'):]
        mm = re.match(r'^(.+)\.([1-8])$', me)
        own = pages.get('%s(%s)' % mm.groups(), set()) if mm else set()
        for m in re.finditer(r'\b(?:see|in)\s+(?:\.BR? +"([^"\n]+)"|\.BR? +([A-Z][a-z]\S*)|\\fB([A-Z][a-z][^\\]*?)\\fR)', src):
            sect = ' '.join(plain(m.group(1) or m.group(2) or m.group(3)).split())
            if sect not in own:
                problems.append('%s:%d: "%s" names no section of this page' % (rel, line_counter(src)(m.start()), sect))
    check_text(rel, text, line_counter(text))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

# A made-up tree: two pages, and one broken reference of each kind.
fake=$SCRATCH/tree
mkdir -p "$fake/docs/man" "$fake/docs"
printf '.TH one 7\n.SH NAME\none \\- x\n.SH DESCRIPTION\n.SS Real section\nSee\n.BR configfd\\-two (7)\nand see\n.B "Gone section"\nand see \\fBReal section\\fR.\n' >"$fake/docs/man/configfd-one.7"
printf '# Doc\n\nSee configfd-one(7), "Real section", and configfd-one(7), "Moved\nsection", and shiftbind-three(8).\n' >"$fake/docs/notes.md"
: >"$fake/README.md"
status=0
out=$(check_tree "$fake") || status=$?
[ "$status" -eq 1 ] || fail "the checker passed a tree with broken references: $out"
assert_contains "docs/man/configfd-one.7:7: configfd-two(7): no such page" "$out" "a page that does not exist"
assert_contains 'docs/man/configfd-one.7:8: "Gone section" names no section of this page' "$out" "a section of the page itself"
assert_contains 'docs/notes.md:3: configfd-one(7) has no section "Moved section"' "$out" "a section of another page"
assert_contains "docs/notes.md:4: shiftbind-three(8): no such page" "$out" "a page named in Markdown"
[ "$(grep -c . <<<"$out")" -eq 4 ] || fail "the checker reported what is not broken: $out"

# The real tree.
out=$(check_tree "$top") || fail "references that lead nowhere:
$out"

# Every page renders without a warning.
for page in "$top"/docs/man/*.[1-8]; do
	warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	assert_eq "" "$warnings" "groff -ww of ${page##*/}"
	if command -v mandoc >/dev/null; then
		assert_status 0 mandoc -T lint -W warning "$page"
		assert_eq "" "$OUTPUT" "mandoc lint of ${page##*/}"
	fi
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	assert_eq "" "$warnings" "man --warnings of ${page##*/}"
done
