#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slurm-up.sh: Slurm for tests/vm/cluster.sh --slurm, run on node 0 in
# front of CMD once every node's agent answers (not by hand):
#
#   slurm-up.sh CMD [ARGS...]
#
# Writes the run's munge key (random, one for all nodes), slurm.conf
# (slurmctld on node0, every node one CPU, one shared partition, gang
# scheduling with COSCHED_SLURM_GANG=1, no
# cgroup tracking or confinement, no accounting, state on the nodes'
# tmpfs), cgroup.conf (cgroup v2 without systemd) and plugstack.conf
# (the tree's SPANK plugin, build/slurm/cosched_spank.so, if built), has
# every node install them and start munged and slurmd (slurm-node.sh,
# through cosched-rexec; node 0 slurmctld too), waits until sinfo shows
# every node idle, then runs CMD.  Documentation/cluster.rst, "Slurm".
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
R=${COSCHED_REXEC:?run me through tests/vm/cluster.sh --slurm}
LIMIT=${COSCHED_SLURM_UP_LIMIT:-300}
# COSCHED_SLURM_GANG=1 (cluster.sh --slurm-gang): Slurm's gang scheduler
# time-slices the jobs sharing a CPU (run-mix's slurm-gang baseline), at
# the least slice slurm.conf takes (COSCHED_SLURM_SLICE).  Without it the
# jobs share the CPUs under the kernel's scheduler.  Not both in one
# Slurm: a partition with PreemptMode=OFF beside a gang one under
# preempt/partition_prio (the only way to set it per partition) stopped
# sharing (the second job PENDING, "Resources").
SLICE=${COSCHED_SLURM_SLICE:-5}
GANG_CONF=
[ "${COSCHED_SLURM_GANG:-0}" = 1 ] &&
	GANG_CONF="PreemptMode=GANG
SchedulerTimeSlice=$SLICE"
IFS=, read -ra HOSTS <<<"${COSCHED_HOSTS:?}"
N=${#HOSTS[@]}
log() { echo "node0: slurm: $*" >&2; }
up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.0f", b - a }'; }

t0=$(up)
W=$(mktemp -d)
head -c 1024 /dev/urandom >"$W/munge.key"
# Below what slurmd finds (MemTotal), or it would drain the node.
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
cat >"$W/slurm.conf" <<CONF
ClusterName=cosched
SlurmctldHost=node0
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/cosched-slurm/ctld
SlurmdSpoolDir=/var/spool/cosched-slurm/d
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
PlugStackConfig=/etc/slurm/plugstack.conf
ReturnToService=2
# Emulated CPUs: generous timeouts.
SlurmctldTimeout=300
SlurmdTimeout=300
MessageTimeout=60
BatchStartTimeout=120
NodeName=node[0-$((N - 1))] CPUs=1 RealMemory=$mem State=UNKNOWN
PartitionName=cluster Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
$GANG_CONF
CONF
printf '%s\n' CgroupPlugin=cgroup/v2 IgnoreSystemd=yes >"$W/cgroup.conf"
# The glue the nodes have: the cosched-mpi package's, else the tree's.
glue=/usr/lib/x86_64-linux-gnu/cosched
[ -e "$glue/libcosched-mpi-openmpi.so" ] || glue=$ROOT/build/mpi-glue
plugin=$ROOT/build/slurm/cosched_spank.so
if [ -e "$plugin" ]; then
	echo "required $plugin glue_dir=$glue mpi=openmpi" >"$W/plugstack.conf"
else
	log "no $plugin (make slurm): srun has no --cosched"
	: >"$W/plugstack.conf"
fi

for h in "${HOSTS[@]}"; do
	role=
	[ "$h" = "${HOSTS[0]}" ] && role=ctld
	tar -C "$W" -c munge.key slurm.conf cgroup.conf plugstack.conf |
		"$R" "$h" "$HERE/slurm-node.sh" $role || { log "error: $h failed"; exit 1; }
done
rm -rf "$W"

t1=$(up)
until [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | sort -u | wc -l)" = "$N" ]; do
	if [ "$(since "$t1")" -ge "$LIMIT" ]; then
		log "error: not every node idle after $LIMIT s:"
		sinfo -N -l >&2
		tail -n 20 "$COSCHED_VMOUT/slurmctld.log" >&2
		exit 1
	fi
	sleep 1
done
log "$N nodes idle at $(up) s: daemons started in $(since "$t0") s, idle $(since "$t1") s later"
exec "$@"
