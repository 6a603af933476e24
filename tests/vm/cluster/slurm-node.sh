#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slurm-node.sh: one node's share of tests/vm/cluster.sh --slurm, run on
# every node through cosched-rexec by slurm-up.sh (not by hand):
#
#   tar -c munge.key slurm.conf cgroup.conf plugstack.conf | cosched-rexec nodeI slurm-node.sh [ctld]
#
# Installs the run's munge key and Slurm configuration from the tar on
# stdin into the node's overlay root (/etc/munge, /etc/slurm: the host's
# files are untouched), starts munged, checks that it signs and checks a
# credential, starts slurmctld (with "ctld") and slurmd.  Slurm's daemons
# log into the node's share ($COSCHED_VMOUT/slurmd.log, slurmctld.log;
# their stdio daemons.out), kept with cluster.sh --outdir.
set -u
H=$(hostname)
LOGS=${COSCHED_VMOUT:-/tmp}
SPOOL=/var/spool/cosched-slurm
log() { echo "$H: slurm: $*" >&2; }
die() { log "error: $*"; exit 1; }

W=$(mktemp -d)
tar -x -C "$W" || die "no configuration on stdin"
# munged insists that its key and directories belong to it and nobody else.
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
install -o munge -g munge -m 0400 "$W/munge.key" /etc/munge/munge.key
install -d -m 0755 /etc/slurm "$SPOOL/ctld" "$SPOOL/d"
install -m 0644 "$W/slurm.conf" "$W/cgroup.conf" "$W/plugstack.conf" /etc/slurm/
# slurmd starts its cgroup plugin whatever the proctrack and task plugins
# (22.05): cgroup v2, no systemd in the guest (cgroup.conf IgnoreSystemd).
# Without systemd it wants system.slice there, with the controllers
# systemd would have delegated to it.
CG=/sys/fs/cgroup
mountpoint -q $CG || mount -t cgroup2 cgroup2 $CG || die "cannot mount cgroup2"
mkdir -p $CG/system.slice || die "cannot make $CG/system.slice"
for d in $CG $CG/system.slice; do
	for c in $(cat $d/cgroup.controllers); do echo "+$c" >$d/cgroup.subtree_control; done
done 2>/dev/null
rm -rf "$W"

# (Its log stays in /var/log/munge: munged checks who may write there.)
runuser -u munge -- /usr/sbin/munged </dev/null >>"$LOGS/daemons.out" 2>&1 ||
	die "munged did not start: $(tail -n 3 /var/log/munge/munged.log "$LOGS/daemons.out")"
munge -n | unmunge >/dev/null || die "munge cannot sign and check a credential"

# Daemons detach; their stdio must not hold the agent's pipes open.
if [ "${1:-}" = ctld ]; then
	slurmctld -L "$LOGS/slurmctld.log" </dev/null >>"$LOGS/daemons.out" 2>&1 ||
		die "slurmctld did not start: $(tail -n 5 "$LOGS/slurmctld.log")"
fi
slurmd -L "$LOGS/slurmd.log" </dev/null >>"$LOGS/daemons.out" 2>&1 ||
	die "slurmd did not start: $(tail -n 5 "$LOGS/slurmd.log")"
log "munged and slurmd${1:+ and slurmctld} started"
