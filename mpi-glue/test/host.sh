#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The MPI glue on a host without the module (make -C mpi-glue check):
# for each MPI built, the suite and the threads test under the glue must
# give the output of the plain run, with exactly one warning for the job
# and no libcosched notice; collectives with one rank unlike the other
# (COSCHED_MPI=0 in rank 1, a second thread) must complete, and
# MPI_Sendrecv_replace give the plain run's results.
# Last line "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
RUN=mpi-glue/cosched-run
T=build/mpi-glue/test
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
check() {
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $((pass + fail)) - $2"
	else
		fail=$((fail + 1))
		echo "not ok $((pass + fail)) - $2"
	fi
}
# MPICH 4.0.2 over UCX TCP may hang in MPI_Finalize after all the work
# (with or without the glue): complete output then counts as finished.
job() { # name mark args...
	name=$1
	mark=$2
	shift 2
	timeout -k 5 60 "$RUN" "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	if [ $rc = 124 ] && grep -q "^$mark" "$W/$name.out"; then
		echo "# $name: hang in MPI_Finalize after complete output (MPICH/UCX, known)"
		# mpiexec's banner about the killed ranks is not the program's
		awk '/^=====/ { exit } { print }' "$W/$name.out" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$W/$name.cut"
		mv "$W/$name.cut" "$W/$name.out"
		rc=0
	fi
	return $rc
}
if [ -e /dev/cosched ]; then
	echo "# this host has /dev/cosched: the fallback is tested in guests"
	echo "0 passed, 0 failed"
	exit 0
fi
for m in mpich openmpi; do
	[ -x "$T/suite.$m" ] || { echo "# $m not built: skipped"; continue; }
	job ref-$m "suite: " -N -m $m -n 2 "$T/suite.$m" -d 2000
	check $? "$m: plain suite"
	job glue-$m "suite: " -m $m -n 2 "$T/suite.$m" -d 2000
	check $? "$m: suite under the glue without the module"
	cmp -s "$W/ref-$m.out" "$W/glue-$m.out"
	check $? "$m: same output as the plain run"
	[ "$(grep -c 'the job waits the plain MPI way: no cosched module' "$W/glue-$m.err")" = 1 ] &&
		! grep -q libcosched "$W/glue-$m.err"
	check $? "$m: one warning for the job"
	job threads-$m "threads: " -m $m -n 2 "$T/threads.$m" -i 50
	check $? "$m: MPI_THREAD_MULTIPLE under the glue: $(head -1 "$W/threads-$m.out")"
	job off-$m "mixed: " -m $m -n 2 mpi-glue/test/onerank.sh 1 off "$T/mixed.$m" -i 20
	[ $? = 0 ] && grep -q '^mixed: .* 0 failed' "$W/off-$m.out" &&
		grep -q 'COSCHED_MPI=0 in 1 of 2 ranks' "$W/off-$m.err"
	check $? "$m: collectives with COSCHED_MPI=0 in rank 1 only: $(head -1 "$W/off-$m.out")"
	job thread-$m "mixed: " -m $m -n 2 "$T/mixed.$m" -i 20 -t 0
	[ $? = 0 ] && grep -q '^mixed: .* 0 failed' "$W/thread-$m.out"
	check $? "$m: collectives from a second thread in rank 0: $(head -1 "$W/thread-$m.out")"
	job ref-replace-$m "replace: " -N -m $m -n 2 "$T/replace.$m"
	job replace-$m "replace: " -m $m -n 2 "$T/replace.$m"
	[ $? = 0 ] && grep -q '^replace: 0 failed' "$W/replace-$m.out" &&
		cmp -s "$W/ref-replace-$m.out" "$W/replace-$m.out"
	check $? "$m: MPI_Sendrecv_replace as plain MPI: $(tail -1 "$W/replace-$m.out")"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
