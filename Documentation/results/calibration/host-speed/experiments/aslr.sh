#!/bin/sh
# Does the guest's compute speed depend on the process's address layout?
cd "$(dirname "$0")/../../../../.." || exit 2
for round in 1 2 3 4 5 6; do
	for aslr in 2 0; do
		echo $aslr > /proc/sys/kernel/randomize_va_space
		printf '%s aslr=%s ' $round $aslr
		taskset -c 0 build/bench/calibrate -r 3 -s 2 2>/dev/null | grep -E "^compute(-int|-mem)? " | awk '{printf "%s %s  ", $1, $3}'
		echo
	done
done
echo 2 > /proc/sys/kernel/randomize_va_space
exit 0
