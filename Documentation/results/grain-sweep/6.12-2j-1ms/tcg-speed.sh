#!/bin/sh
# Is the guest's compute speed the same with the other vCPU idle and busy?
cd "$(dirname "$0")/../../../.." || exit 2
for round in 1 2 3; do
	for mode in idle busy; do
		hog=
		if [ $mode = busy ]; then taskset -c 1 sh -c 'while :; do :; done' & hog=$!; fi
		sleep 1
		printf '%s %s ' $round $mode; taskset -c 0 build/bench/calibrate -r 7 2>/dev/null | grep -E "^compute " | head -1
		if [ -n "$hog" ]; then kill $hog; wait $hog 2>/dev/null; fi
	done
done
exit 0
