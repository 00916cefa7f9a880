#!/bin/bash
# A bad line of allow.conf costs that line only, on the patched kernel
# (issue 25, point 7; host.allow_conf_bad_line_isolated checks the same
# refusals where no mark can be made): with an unknown owner, a missing
# store, a refused store (below /var/lib) and an unknown word among
# them, `shiftbind apply-config` marks the stores of the good lines with
# their own owners and flags, marks none of the others, says each bad
# line with FILE:LINE, and exits 1 (what shiftbind-allow.service shows).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

good1=/srv/e2e-conf-good1-$$ good2=/srv/e2e-conf-good2-$$
badowner=/srv/e2e-conf-badowner-$$ badword=/srv/e2e-conf-badword-$$
refused=/var/lib/e2e-conf-refused-$$
stores=("$good1" "$good2" "$badowner" "$badword" "$refused")
cleanup() {
	local dir
	for dir in "${stores[@]}"; do
		while mountpoint -q "$dir"; do umount "$dir" || break; done
		rm -rf "$dir"
	done
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
mkdir -p "${stores[@]}"
chmod 0711 "${stores[@]}"
uid=$(id -u "$TEST_USER")

conf=$SCRATCH/allow.conf
cat >"$conf" <<EOF
$good1 owner=root owner=$TEST_USER
$badowner owner=root owner=no-such-user-x
/srv/e2e-conf-missing-$$
$refused
$badword fast
$good2
EOF
assert_status 1 shiftbind apply-config "$conf"
for want in \
	"marked $good1 allow-shift, read-only, nosuid" \
	"marked $good2 allow-shift, read-only, nosuid" \
	"shiftbind: $conf:2: owner=no-such-user-x: no such user in /etc/passwd" \
	"shiftbind: $conf:3: open \`/srv/e2e-conf-missing-$$\`: No such file or directory" \
	"shiftbind: $conf:4: refusing to mark \`$refused\` allow-shift: it is below /var/lib (every service's state)" \
	"shiftbind: $conf:5: unknown option \"fast\"" \
	"shiftbind apply-config: $conf: 4 of 6 stores could not be marked (lines 2, 3, 4 and 5, said above), the others are marked; fix those lines and run \`shiftbind apply-config\` again"; do
	assert_contains "$want" "$OUTPUT" "apply-config with bad lines"
done

# The good lines' marks, each with its own owners; the bad lines' none.
assert_match "(^|,)ro(,|$)" "$(mark_of "$good1")" "mark of line 1"
assert_match "(^|,)allow-shift=0:$uid(,|$)" "$(mark_of "$good1")" "owners of line 1"
assert_match "(^|,)allow-shift=0(,|$)" "$(mark_of "$good2")" "owners of line 6"
for dir in "$badowner" "$badword" "$refused"; do
	mountpoint -q "$dir" && fail "$dir of a bad line was mounted: $(grep " $dir " /proc/self/mountinfo)"
done

# Fixed, the file applies whole; the marked stores get their lines again.
sed -i -e "s/no-such-user-x/$TEST_USER/" -e '/missing/d' -e "\\|^$refused\$|d" \
	-e 's/ fast$//' "$conf"
assert_status 0 shiftbind apply-config "$conf"
assert_match "(^|,)allow-shift=0:$uid(,|$)" "$(mark_of "$badowner")" "owners of the fixed line"
assert_match "(^|,)allow-shift=0(,|$)" "$(mark_of "$badword")" "mark of the fixed line"
echo "allow.conf: bad lines refused, every good one marked"
