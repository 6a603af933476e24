#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo mix across two cluster guests, every job started by Slurm
# (bench/run-mix --slurm, issue 13): the policies with the glue through
# srun --cosched, busy-polling and Open MPI's yield mode with
# --cosched=off.  Run on node 0:
#   tests/vm/cluster.sh --nodes 2 --slurm --timeout 5400 --outdir DIR -- \
#     Documentation/results/cluster/slurm-mix/run.sh [MIX] [COLUMNS] [REPEATS] [SECONDS]
# (Slurm's gang baseline needs a cluster.sh --slurm-gang cluster and
# COLUMNS=slurm-gang: results/cluster/slurm-gang-trial/ says why it has
# no numbers yet.)
set -eu
cd "$(dirname "$0")/../../../.."
mix=${1:-12}
cols=${2:-local,dcs,pb,dcs-sb,busy-poll,mpi-yield}
reps=${3:-3}
secs=${4:-5}
bench/run-mix --slurm --remote cosched-rexec --net-if eth0 \
	-p "$cols" -r "$reps" -t "$secs" --no-monitor \
	-o "${COSCHED_VMOUT:-/tmp}/slurm-mix" --report "$mix"
