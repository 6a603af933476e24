#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Is a tmpfs fallocate interrupted when its process is stopped and
# continued (what the gang controller does to a job, mpiexec included)?
# As root in a guest, per kernel:
#   tests/vm/vmrun.sh --kernel 6.1 --smp 2 --timeout 600 -- \
#       Documentation/results/calibration/validation/6.1-1ms/fallocate-stop.sh
e=/tmp/fallocate-err; : >"$e"; n=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	fallocate -l 256M /dev/shm/f 2>>"$e" & p=$!
	sleep 0.1; kill -STOP $p; sleep 0.05; kill -CONT $p
	wait $p || n=$((n + 1))
	rm -f /dev/shm/f
done
sort -u "$e"
echo "$(uname -r): fallocate of 256 MiB on /dev/shm interrupted by SIGSTOP/SIGCONT in $n of 10"
