#!/bin/bash
# One store on two lines of allow.conf, written two ways, is marked by
# neither line, on the patched kernel (issue 47, part 5): before, the two
# texts were two stores to apply-config, and the later line's mark (here
# read-write, for a user) replaced the earlier read-only, root-only one.
# The file is parsed whole before anything is marked; each line names
# the other, the good line between them is marked, the command exits 1
# (what shiftbind-allow.service shows), and the store carries no mark,
# nor any mount.  With one line left, the store is marked as it says.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

dup=/srv/e2e-conf-dup-$$ good=/srv/e2e-conf-dupgood-$$
stores=("$dup" "$good")
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
written=/srv//e2e-conf-dup-$$/./

conf=$SCRATCH/allow.conf
cat >"$conf" <<EOF2
$dup owner=root
$good
$written rw owner=$TEST_USER
EOF2
assert_status 1 shiftbind apply-config "$conf"
for want in \
	"marked $good allow-shift, read-only, nosuid" \
	"shiftbind: $conf:1: $dup is listed on line 3 too: a store listed twice is marked by none of its lines; keep one line for it" \
	"shiftbind: $conf:3: $dup (written $written) is listed on line 1 too: a store listed twice is marked by none of its lines; keep one line for it" \
	"shiftbind apply-config: $conf: 2 of 3 stores could not be marked (lines 1 and 3, said above), the others are marked; fix those lines and run \`shiftbind apply-config\` again"; do
	assert_contains "$want" "$OUTPUT" "apply-config with a store on two lines"
done
[ "$(grep -c "^marked " <<<"$OUTPUT")" -eq 1 ] || fail "apply-config marked more than the good line: $OUTPUT"
# No mark on the store, and nothing mounted on it; the good line's mark.
assert_eq "" "$(mark_of "$dup")" "mark of the store listed twice"
mountpoint -q "$dup" && fail "$dup was mounted: $(grep " $dup " /proc/self/mountinfo)"
assert_match "(^|,)allow-shift=0(,|$)" "$(mark_of "$good")" "mark of the good line"

# One line left for it: marked as that line says, read-only.
sed -i 3d "$conf"
assert_status 0 shiftbind apply-config "$conf"
assert_contains "marked $dup allow-shift, read-only, nosuid" "$OUTPUT" "apply-config with one line"
assert_match "(^|,)ro(,|$)" "$(mark_of "$dup")" "the store's mark, read-only"
assert_match "(^|,)allow-shift=0(,|$)" "$(mark_of "$dup")" "the store's owners, root only"
echo "allow.conf: a store on two lines is marked by neither, each line names the other"
