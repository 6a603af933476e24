#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo mix across two cluster guests, every job started by Slurm
# (bench/run-mix --slurm, issue 13): the policies with the glue through
# srun --cosched, busy-polling and Open MPI's yield mode with
# --cosched=off, and Slurm's own gang scheduling (partition "gang",
# SchedulerTimeSlice 5 s, the shortest Slurm accepts).  Run on node 0:
#   tests/vm/cluster.sh --nodes 2 --slurm --timeout 5400 --outdir DIR -- \
#     Documentation/results/cluster/slurm-mix/run.sh [MIX] [COLUMNS] [REPEATS] [SECONDS]
# Jobs last SECONDS alone (default 15: three of gang's slices).
set -eu
cd "$(dirname "$0")/../../../.."
mix=${1:-12}
cols=${2:-local,dcs,pb,dcs-sb,busy-poll,mpi-yield,slurm-gang}
reps=${3:-3}
secs=${4:-15}
bench/run-mix --slurm --remote cosched-rexec --net-if eth0 \
	-p "$cols" -r "$reps" -t "$secs" --no-monitor \
	-o "${COSCHED_VMOUT:-/tmp}/slurm-mix" --report "$mix"
