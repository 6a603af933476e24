#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The glue's ping-pong p50 (MPICH by default, MPI=openmpi for Open MPI;
# SIZE bytes, default 8) in five cases, each round in its own order (a
# permutation drawn with a seed from /dev/urandom, printed; SEED=N
# repeats a run's orders) and each case after the same preamble (module
# out, checked, in again where the case has it, policy local, SETTLE
# seconds, default 1), so
# that neither its place in the round nor a fresh insmod favours a
# case.  pairs.py reads the output.  Cases:
#   plain-nomod  plain MPI, no module
#   glue-nomod   the glue preloaded, no module (its wrappers, no endpoint)
#   plain        plain MPI beside the loaded module
#   off          the glue preloaded but off (COSCHED_MPI=0)
#   on           the glue on with the module (an endpoint, sockets parked)
# As root in a guest (ROUNDS, default 12; MPI, SIZE, SETTLE through --env):
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 1800 -- \
#       Documentation/results/mpi-glue/zero-cost/glue-order-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
# shellcheck source=bench/mpi_launch.sh
. bench/mpi_launch.sh
# shellcheck source=Documentation/results/mpi-glue/zero-cost/pp.sh
. Documentation/results/mpi-glue/zero-cost/pp.sh
KO=build/$(uname -r)/cosched.ko
run() { # round case
	scripts/rmmod-cosched -q 2>/dev/null
	[ ! -d /sys/kernel/cosched ] || { echo "glue-order-pp: the module stays loaded" >&2; exit 1; }
	case $2 in
	*-nomod) ;;
	*) { insmod "$KO" && echo local >/sys/kernel/cosched/policy; } || exit 1 ;;
	esac
	sleep "${SETTLE:-1}"
	case $2 in
	plain-nomod) how=plain ;;
	glue-nomod | on) how=glue ;;
	*) how=$2 ;;
	esac
	echo "round $1 $2 p50_ns $(p50 "${MPI:-mpich}" $how "${SIZE:-8}") at $(date +%T)"
}
seed=${SEED:-$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')}
echo "# glue-order-pp: MPI ${MPI:-mpich}, SIZE ${SIZE:-8}, SETTLE ${SETTLE:-1}, seed $seed, $(uname -r), $(date -u +%FT%TZ)"
r=1
while [ "$r" -le "${ROUNDS:-12}" ]; do
	for c in $(printf '%s\n' plain-nomod glue-nomod plain off on |
		awk -v s="$((seed + r))" 'BEGIN { srand(s) } { print rand(), $0 }' |
		sort -n | cut -d' ' -f2); do
		run "$r" "$c"
	done
	r=$((r + 1))
done
