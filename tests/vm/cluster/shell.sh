#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shell.sh ROWS COLS TERM: node 0's CMD under tests/vm/cluster.sh --shell
# (make cluster-shell): an interactive login-like bash on ttyS3, the serial
# port cluster.sh connects to the person's terminal.  Ends when that shell
# exits, or when cluster.sh drops "stop" in the node's share (Ctrl-] on
# the terminal side).
tty=/dev/ttyS3
[ -c $tty ] || { echo "shell.sh: no $tty" >&2; exit 1; }
stty -F $tty sane rows "${1:-24}" cols "${2:-80}"
cd /tmp || exit 1
echo "node0: shell on $tty (hosts $COSCHED_HOSTS; cosched-rexec HOST CMD runs CMD on HOST; exit ends the cluster)" >&2
printf '\r\ncluster: %s up; cosched-rexec HOST CMD runs CMD there; "exit" ends the cluster\r\n' "$COSCHED_HOSTS" >$tty
TERM=${3:-dumb} setsid -c bash -i <$tty >$tty 2>&1 &
sh=$!
while kill -0 $sh 2>/dev/null; do
	[ -e "$COSCHED_VMOUT/stop" ] && kill -HUP -- -$sh 2>/dev/null
	sleep 1
done
wait $sh
