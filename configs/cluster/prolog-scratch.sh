#!/bin/sh
# Slurm Prolog (slurm.conf): the job's scratch directory on this node's
# local disk, /scratch/job-ID, the job user's alone.  Runs as root on
# each node of the job before its first step there.
set -eu
dir=/scratch/job-$SLURM_JOB_ID
install -d -m 0755 -o root -g root /scratch
install -d -m 0700 -o "$SLURM_JOB_UID" -g "$SLURM_JOB_GID" "$dir" || {
	echo "prolog-scratch: cannot create $dir for uid $SLURM_JOB_UID on $(hostname)" >&2
	exit 1
}
