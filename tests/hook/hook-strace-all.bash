#!/bin/bash
# hook-strace-all.bash OUTDIR STAGE: an OCI hook for
# hook.filter_refuses_nothing_the_hook_needs.
#
# Runs `shiftbind-hook STAGE` under `strace -ff`: every call of the hook
# and of its parser child, one file per process, OUTDIR/trace.PID.  The
# hook's stderr is this hook's (the run.oci.hooks.stderr annotation
# keeps it).  Exits with the hook's status.
set -u
. "$(dirname "$0")/hooklib.bash"
exec strace -ff -o "$1/trace" "$HOOK" "$2"
