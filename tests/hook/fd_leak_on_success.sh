#!/bin/bash
# The hook closes every fd it opens.  crun runs it at prestart through
# hook-fds.bash, which holds it at exit_group (strace) and lists its open
# fds: they must be exactly those /bin/true has when started the same
# way, after a successful shift (state, config.json, /proc, mount
# namespace, rootfs, configfd, log file, syslog socket all opened).
# The measurement is checked first: a program that leaks one fd shows it.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

# The instrument sees a leak.
echo '{}' >"$SCRATCH/in"
fds_at_exit "$SCRATCH/true.fds" /bin/true <"$SCRATCH/in"
fds_at_exit "$SCRATCH/leak.fds" /bin/sh -c 'exec 7</etc/hostname; exec /bin/true' <"$SCRATCH/in"
assert_eq "7 /etc/hostname" "$(comm -13 "$SCRATCH/true.fds" "$SCRATCH/leak.fds")" \
	"fd a leaking program has open at exit, beyond /bin/true's"

id=hook-fds-ok-$$
mkdir "$SCRATCH/fds"
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_wrapper_hook "$SCRATCH/c" hook-fds.bash "$SCRATCH/fds"
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "container failed ($status): $out; hook: $(cat "$SCRATCH/fds/stderr")"
assert_eq "$REAL_OWNERS" "$out" "owners inside (the hook ran under strace)"
assert_contains "container $id: done: 1 mount(s) shifted" "$(cat "$SCRATCH/fds/stderr")" "hook's stderr"
assert_match '^0 ' "$(cat "$SCRATCH/fds/baseline.fds")" "baseline fds"
assert_eq "$(cat "$SCRATCH/fds/baseline.fds")" "$(cat "$SCRATCH/fds/hook.fds")" \
	"fds open when the hook exits (expected those of /bin/true)"
