#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slurm-node.sh: one node's share of tests/vm/cluster.sh --slurm, run on
# every node through cosched-rexec by slurm-up.sh (not by hand):
#
#   tar -c munge.key slurm.conf plugstack.conf | cosched-rexec nodeI slurm-node.sh [ctld]
#
# Installs the run's munge key and Slurm configuration from the tar on
# stdin into the node's overlay root (/etc/munge, /etc/slurm: the host's
# files are untouched), starts munged, checks that it signs and checks a
# credential, starts slurmctld (with "ctld") and slurmd.  The daemons log
# into the node's share ($COSCHED_VMOUT/munged.log, slurmd.log,
# slurmctld.log; their stdio daemons.out), kept with cluster.sh --outdir.
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
install -m 0644 "$W/slurm.conf" "$W/plugstack.conf" /etc/slurm/
rm -rf "$W"

runuser -u munge -- /usr/sbin/munged --log-file="$LOGS/munged.log" \
	</dev/null >>"$LOGS/daemons.out" 2>&1 || die "munged did not start: $(tail -n 3 "$LOGS/munged.log")"
munge -n | unmunge >/dev/null || die "munge cannot sign and check a credential"

# Daemons detach; their stdio must not hold the agent's pipes open.
if [ "${1:-}" = ctld ]; then
	slurmctld -L "$LOGS/slurmctld.log" </dev/null >>"$LOGS/daemons.out" 2>&1 ||
		die "slurmctld did not start: $(tail -n 5 "$LOGS/slurmctld.log")"
fi
slurmd -L "$LOGS/slurmd.log" </dev/null >>"$LOGS/daemons.out" 2>&1 ||
	die "slurmd did not start: $(tail -n 5 "$LOGS/slurmd.log")"
log "munged and slurmd${1:+ and slurmctld} started"
