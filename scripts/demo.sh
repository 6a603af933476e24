#!/usr/bin/env bash
# The newcomer's first command (`make demo`): install what is needed,
# build the module, libcosched and the benchmarks, boot a Debian 6.12
# guest with the module, and run two co-scheduled parallel jobs (two
# ranks each, one per CPU, computing and exchanging messages) under
# several policies: each job's completion time, the makespan, and the
# slowdown against perfect gang scheduling (bench/jobmix.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-6.12}
scripts/setup.sh
make -s modules bench
echo "demo: booting a $kernel guest; the jobs take a minute or two" >&2
tests/vm/vmrun.sh --kernel "$kernel" --smp 2 --timeout 900 -- bench/jobmix.sh
