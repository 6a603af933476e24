#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A mix across two cluster guests with bench/run-mix --hosts (issue 13):
# rank i of every job on node i, the module's sysfs written on each node
# through cosched-rexec, MPI over the virtual NIC.  Run on node 0:
#   tests/vm/cluster.sh --nodes 2 --insmod --timeout 1800 --outdir DIR -- \
#     Documentation/results/cluster/mix-2node/run.sh [MIX] [COLUMNS] [REPEATS]
set -eu
cd "$(dirname "$0")/../../../.."
mix=${1:-12}
cols=${2:-local,dcs,pb,dcs-sb,mpi-yield,busy-poll,gang}
reps=${3:-3}
tr , '\n' <<<"${COSCHED_HOSTS:?run it under tests/vm/cluster.sh}" >/tmp/hosts
bench/run-mix --hosts /tmp/hosts --remote cosched-rexec --net-if eth0 \
	-p "$cols" -r "$reps" -t 2 --no-monitor \
	-o "${COSCHED_VMOUT:-/tmp}/mix-2node" --report "$mix"
