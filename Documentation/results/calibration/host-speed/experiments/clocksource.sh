#!/bin/sh
# The guest's speed under each clocksource: rows (build/speedprobe, from
# rows.c) five times per clocksource, pinned to guest CPU 0.
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 -- <this script>
cd "$(dirname "$0")/../../../../.." || exit 2
cs=/sys/devices/system/clocksource/clocksource0
echo "available: $(cat $cs/available_clocksource) current: $(cat $cs/current_clocksource)"
for src in tsc hpet acpi_pm; do
	echo $src > $cs/current_clocksource 2>/dev/null || continue
	echo "== $(cat $cs/current_clocksource)"
	for p in 1 2 3 4 5; do taskset -c 0 build/speedprobe; done
done
exit 0
