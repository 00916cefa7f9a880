#!/bin/bash
# hook-strace.bash OUTDIR STAGE: an OCI hook for hook.syslog_sink_works_confined.
#
# Runs `shiftbind-hook STAGE` under strace (the hook only, not its parser
# child), tracing prctl, seccomp, socket, connect and sendto into
# OUTDIR/trace; the hook's stderr goes to OUTDIR/stderr.  Exits with the
# hook's status.
set -u
. "$(dirname "$0")/hooklib.bash"
exec strace -o "$1/trace" -e trace=prctl,seccomp,socket,connect,sendto \
	"$HOOK" "$2" 2>"$1/stderr"
