#!/bin/bash
# hook-fds.bash OUTDIR STAGE: an OCI hook for the fd_leak_* tests.
#
# Saves the runtime's state to OUTDIR/state.json, then runs
# `shiftbind-hook STAGE` on it under fds_at_exit (hooklib.bash): the fds
# the hook still has open when it exits go to OUTDIR/hook.fds.  /bin/true,
# run the same way, gives OUTDIR/baseline.fds: what any program started
# here inherits.  Exits with the hook's status; both programs' stderr is
# OUTDIR/stderr.
set -u
. "$(dirname "$0")/hooklib.bash"
out=$1 stage=$2
cat >"$out/state.json"
fds_at_exit "$out/baseline.fds" /bin/true <"$out/state.json" 2>>"$out/stderr"
fds_at_exit "$out/hook.fds" "$HOOK" "$stage" <"$out/state.json" 2>>"$out/stderr"
