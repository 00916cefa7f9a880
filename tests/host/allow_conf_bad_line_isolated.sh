#!/bin/bash
# A bad line of allow.conf costs that line only (issue 25, point 7):
# `shiftbind apply-config` (the command of shiftbind-allow.service) tries
# every other line, says each bad one with FILE:LINE and its reason, and
# exits 1 so that the unit shows as failed.  The host's kernel has no
# configfd, so a line that passes every check is seen reaching the kernel
# ("this kernel has no configfd"): that line was applied, as far as this
# kernel allows.  e2e.allow_conf_bad_line_isolated marks for real.
#   - an unknown owner, an owner range backwards, an unknown word, a
#     relative path, a missing store, a refused store (below /usr,
#     writable by others), a store listed on two lines (/x and /x/ too):
#     each refused on its own line, in file order, with the good lines
#     between them tried
#   - a NUL byte refuses its line, and the lines after it are still read
#   - the summary names the failed lines; nothing is mounted
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
nokernel=$NO_CONFIGFD

store_base conf
mkdir -p "$BASE/a" "$BASE/b" "$BASE/c" "$BASE/d" "$BASE/open/store"
chmod 0777 "$BASE/open"
before=$(cat /proc/self/mountinfo)

conf=$SCRATCH/allow.conf
cat >"$conf" <<EOF
# stores
$BASE/a owner=root owner=1001
$BASE/b owner=root owner=no-such-user-x
$BASE/c rw
$BASE/nope
$BASE/b owner=9-3

/usr/share
$BASE/open/store
$BASE/a/ fast
relative/store
$BASE/d
$BASE/d suid
$BASE/c/../c
EOF
assert_status 1 "$cli" apply-config "$conf"
# Every line, in file order: the good ones reached the kernel.
expected="shiftbind: $conf:2: $BASE/a is listed on line 10 too: a store listed twice is marked by none of its lines; keep one line for it
shiftbind: $conf:3: owner=no-such-user-x: no such user in /etc/passwd (give a uid or a range FIRST-LAST for users it does not list)
shiftbind: $conf:4: $nokernel
shiftbind: $conf:5: open \`$BASE/nope\`: No such file or directory
shiftbind: $conf:6: owner=9-3: the range ends before it starts (write FIRST-LAST, FIRST <= LAST)
shiftbind: $conf:8: refusing to mark \`/usr/share\` allow-shift: it is below /usr (the host's programs and libraries), and a mark lends every file under the store to the containers' root; keep the images in a directory of their own outside the system directories (under /srv, see shiftbind(8)) and mark that, or give --force (allow.conf: force) to lend it anyway
shiftbind: $conf:9: \`$BASE/open\` (on the way to \`$BASE/open/store\`) is writable by its group and others (mode 0777): they could replace the store; chmod go-w it or choose a store whose directories only root can write
shiftbind: $conf:10: unknown option \"fast\" (known: rw, suid, suid-host, force, owner=WHO, group=NAME)
shiftbind: $conf:11: \"relative/store\" is not an absolute path
shiftbind: $conf:12: $BASE/d is listed on line 13 too: a store listed twice is marked by none of its lines; keep one line for it
shiftbind: $conf:13: $BASE/d is listed on line 12 too: a store listed twice is marked by none of its lines; keep one line for it
shiftbind: $conf:14: \`$BASE/c/../c\`: \"..\" in the path; name the store without it
shiftbind apply-config: $conf: 12 of 12 stores could not be marked (lines 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13 and 14, said above); fix those lines and run \`shiftbind apply-config\` again"
assert_eq "$expected" "$OUTPUT" "apply-config's lines"

# One bad line among good ones: the good ones are tried, the count says it.
printf '%s\n' "$BASE/a" "$BASE/b owner=no-such-user-x" "$BASE/c" >"$conf"
assert_status 1 "$cli" apply-config "$conf"
assert_eq "shiftbind: $conf:1: $nokernel
shiftbind: $conf:2: owner=no-such-user-x: no such user in /etc/passwd (give a uid or a range FIRST-LAST for users it does not list)
shiftbind: $conf:3: $nokernel
shiftbind apply-config: $conf: 3 of 3 stores could not be marked (lines 1, 2 and 3, said above); fix those lines and run \`shiftbind apply-config\` again" \
	"$OUTPUT" "one unknown owner"

# A NUL byte refuses its line; the lines after it are read and tried.
printf '%s\n' "$BASE/a" "$BASE/b rw" "$BASE/c" | sed '2s/ rw/\x00 rw/' >"$conf"
assert_status 1 "$cli" apply-config "$conf"
assert_eq "shiftbind: $conf:1: $nokernel
shiftbind: $conf:2: a NUL byte at column $((${#BASE} + 3)): the line cannot be read as text, and what follows the byte would be lost; remove the byte and check the line
shiftbind: $conf:3: $nokernel
shiftbind apply-config: $conf: 3 of 3 stores could not be marked (lines 1, 2 and 3, said above); fix those lines and run \`shiftbind apply-config\` again" \
	"$OUTPUT" "a NUL byte"

# Nothing listed, nothing to fail.
printf '# none yet\n\n' >"$conf"
assert_status 0 "$cli" apply-config "$conf"
assert_eq "$conf: no stores listed" "$OUTPUT" "an empty allow.conf"
# An unreadable file marks nothing, and says so.
assert_status 1 "$cli" apply-config "$SCRATCH/none.conf"
assert_contains "shiftbind apply-config: " "$OUTPUT"
assert_contains "none.conf" "$OUTPUT"

assert_eq "$before" "$(cat /proc/self/mountinfo)" "mount table after apply-config"
echo "allow.conf: each bad line refused on its own, the others tried"
