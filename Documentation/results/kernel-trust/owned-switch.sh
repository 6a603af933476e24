#!/bin/sh
# switch_cost with the switching thread owning 1 vs 10,001 endpoints, alternating
# Run in a guest, from the repository root:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --mem 2048 -- \
#     Documentation/results/kernel-trust/owned-switch.sh
set -eu
scripts/rmmod-cosched -q
insmod build/$(uname -r)/cosched.ko
echo 4 >/sys/kernel/cosched/ring_kb
echo 20000 >/sys/kernel/cosched/user_max_endpoints
for i in 1 2 3 4; do
	build/bench/switch_cost -r 5 -e
	build/bench/switch_cost -r 5 -O 10000
done
scripts/rmmod-cosched
