#!/bin/sh
# Slurm Epilog (slurm.conf): the job's scratch directory goes with it.
set -eu
case ${SLURM_JOB_ID:-} in
'' | *[!0-9]*) echo "epilog-scratch: no job id" >&2; exit 1 ;;
esac
rm -rf "/scratch/job-$SLURM_JOB_ID"
