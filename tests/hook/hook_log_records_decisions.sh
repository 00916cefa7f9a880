#!/bin/bash
# crun discards a hook's stderr unless told otherwise; the hook's
# decisions are also in /run/shiftbind/hook.log, time-stamped and with the
# container's id: a shift, an opt-out, and a refusal (an identity
# mapping, which leaves nothing to shift).  The bundles here do not set
# run.oci.hooks.stderr.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

log=/run/shiftbind/hook.log
prefix='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z shiftbind-hook\[[0-9]+\]'

# log_of ID: the log's lines about container ID.
log_of() { grep -F "container $1: " "$log" || true; }

a=hook-log-shift-$$ b=hook-log-optout-$$ c=hook-log-refused-$$
make_bundle "$SCRATCH/a" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
make_bundle "$SCRATCH/b" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
annotate "$SCRATCH/b" org.shiftbind.shift false
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 0 65536" "0 0 65536" /bin/probe id
for x in a b c; do
	shiftbind patch-config "$SCRATCH/$x" >/dev/null
	[ "$(jq -r '.annotations["run.oci.hooks.stderr"] // "unset"' "$SCRATCH/$x/config.json")" = unset ] ||
		fail "bundle $x keeps the hook's stderr"
done

assert_status 0 crun_run "$SCRATCH/a" "$a"
assert_status 0 crun_run "$SCRATCH/b" "$b"
status=0
crun_run "$SCRATCH/c" "$c" >"$SCRATCH/c.out" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "container with an identity mapping started: $(cat "$SCRATCH/c.out")"

[ -f "$log" ] || fail "no $log"
assert_eq "640 root" "$(stat -c '%a %U' "$log")" "mode and owner of $log"

lines=$(log_of "$a")
assert_line "$prefix info: createRuntime: container $a: bundle $SCRATCH/a, rootfs $SHARED_IMAGE, user namespace yes" \
	"$lines" "log of the shifted container"
assert_line "$prefix info: createRuntime: container $a: shifted $SHARED_IMAGE" "$lines" "log of the shifted container"
assert_line "$prefix info: createRuntime: container $a: done: 1 mount\\(s\\) shifted" \
	"$(tail -n 1 <<<"$lines")" "last log line of the shifted container"

assert_line "$prefix info: createRuntime: container $b: org\\.shiftbind\\.shift=false: not shifting, nothing to do" \
	"$(log_of "$b" | tail -n 1)" "last log line of the opted-out container"

assert_line "$prefix error: createRuntime: container $c: config\\.json: linux\\.uidMappings: is the identity mapping, nothing to shift" \
	"$(log_of "$c" | tail -n 1)" "last log line of the refused container"
