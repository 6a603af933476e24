#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cosched-run on the host (no module needed: the glue's fallback):
#  - where a rank is: rank.c (the glue's) and cosched-run's own reading
#    of made-up Open MPI, Hydra, PMIx and Slurm environments, stale
#    outer ones among them, and of real mpiexec launches;
#  - what is preloaded where: the glue (and the user's LD_PRELOAD) in
#    the MPI ranks only, not in mpiexec, Hydra's proxy, the wrapper
#    shell or taskset (strace -ff when there), not in a non-MPI program,
#    through a script to the MPI program it runs; each rank on its CPU;
#    the same through srun (a stand-in srun that sets SLURM_*);
#  - the job id the glue agrees on at MPI_Init (gdb, when there).
# A second PMPI tool beside the glue: test/chain.sh.
# Last line "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
RUN=$PWD/mpi-glue/cosched-run
T=$PWD/build/mpi-glue/test
G=${COSCHED_MPI_GLUE_DIR:-$PWD/build/mpi-glue}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. mpi-glue/test/tap.sh
# MPICH 4.0.2 over UCX TCP may hang in MPI_Finalize after all the work
# (Documentation/mpi.rst): output with every rank's MARK line counts as
# finished.
job() { # name mark ranks args...
	name=$1
	mark=$2
	nr=$3
	shift 3
	timeout -k 5 40 "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	if [ $rc = 124 ] && [ "$(grep -c "^$mark" "$W/$name.out")" -ge "$nr" ]; then
		echo "# $name: hang in MPI_Finalize after complete output (MPICH/UCX, known)"
		rc=0
	fi
	return $rc
}

# 1. Derivation from made-up environments: C (rank.c) and shell
# (cosched-run --where) must say the same; "RANK SIZE" is what MPI
# would say (-1 -1: before MPI_Init).
cc -std=gnu11 -Wall -Wextra -Werror -o "$W/env" mpi-glue/test/launcher/env.c ||
	{ echo "not ok 1 - rank.c does not build"; echo "0 passed, 1 failed"; exit 1; }
derive() { # "RANK SIZE" VAR=VALUE... -> "$c" (C) and "$s" (shell)
	mpi=$1
	shift
	# shellcheck disable=SC2086 # mpi: two words
	c=$(env -i "$@" "$W/env" $mpi)
	s=$(env -i PATH="$PATH" "$@" sh "$RUN" --where)
}
expect() { # what "RANK SIZE" "SOURCE RANK SIZE LOCAL JOB" VAR=VALUE...
	what=$1
	want=$3
	shift 2
	shift
	derive "$mpi_says" "$@"
	[ "$c" = "$want" ] && { [ "$mpi_says" != "-1 -1" ] || [ "$s" = "${want% *}" ]; }
	check $? "where: $what: C '$c', shell '$s', want '$want'"
}
mpi_says="-1 -1"
expect "nothing" "" "- -1 -1 -1 0"
expect "Hydra" "" "pmi 1 4 1 0" PMI_RANK=1 PMI_SIZE=4 MPI_LOCALRANKID=1 PMI_FD=6
expect "Open MPI's mpirun (also PMIx)" "" "ompi 2 4 0 1507852289" \
	OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=0 \
	OMPI_MCA_ess_base_jobid=1507852289 PMIX_RANK=2 PMIX_NAMESPACE=1507852289
expect "srun, no PMI" "" "slurm 2 4 0 $((77 * 4294967296 + 5))" \
	SLURM_PROCID=2 SLURM_NTASKS=4 SLURM_LOCALID=0 SLURM_JOB_ID=77 SLURM_STEP_ID=5
expect "srun, old SLURM_NPROCS" "" "slurm 1 3 1 $((9 * 4294967296))" \
	SLURM_PROCID=1 SLURM_NPROCS=3 SLURM_LOCALID=1 SLURM_JOB_ID=9
expect "srun --mpi=pmi2: job from Slurm, same rank" "" "pmi 2 4 0 $((77 * 4294967296 + 5))" \
	PMI_RANK=2 PMI_SIZE=4 SLURM_PROCID=2 SLURM_NTASKS=4 SLURM_LOCALID=0 \
	SLURM_JOB_ID=77 SLURM_STEP_ID=5
expect "mpiexec.hydra in a batch script: Slurm's are not this job's" "" "pmi 1 2 1 0" \
	PMI_RANK=1 PMI_SIZE=2 MPI_LOCALRANKID=1 SLURM_PROCID=0 SLURM_NTASKS=1 \
	SLURM_LOCALID=0 SLURM_JOB_ID=77
expect "mpirun in an allocation" "" "ompi 1 2 1 88" \
	OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_MCA_ess_base_jobid=88 SLURM_PROCID=0 SLURM_NTASKS=8 SLURM_LOCALID=0 \
	SLURM_JOB_ID=77 SLURM_STEP_ID=4294967291
expect "not numbers" "" "slurm 3 4 -1 0" PMI_RANK=x1 OMPI_COMM_WORLD_RANK= \
	SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=-2
expect "COSCHED_JOB wins" "" "slurm 0 2 0 42" COSCHED_JOB=0x2a \
	SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_JOB_ID=77
# srun --mpi=pmix: PMIx's namespace names the job; Slurm's local rank.
derive "-1 -1" SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=1 SLURM_JOB_ID=77 \
	SLURM_STEP_ID=2 PMIX_RANK=3 PMIX_NAMESPACE=slurm.pmix.77.2
a=$c
derive "-1 -1" SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_LOCALID=0 SLURM_JOB_ID=77 \
	SLURM_STEP_ID=2 PMIX_RANK=0 PMIX_NAMESPACE=slurm.pmix.77.2
b=$c
derive "-1 -1" PMIX_RANK=0 PMIX_NAMESPACE=slurm.pmix.77.3
d=$c
[ "${a% *}" = "pmix 3 4 1" ] && [ "$s" = "pmix 0 -1 -1" ] &&
	[ "${a##* }" = "${b##* }" ] && [ "${a##* }" != "${d##* }" ] &&
	[ "${a##* }" != 0 ] && [ "${a##* }" != $((77 * 4294967296 + 2)) ]
check $? "where: srun --mpi=pmix: '$a' and '$b' (one step), '$d' (the next)"
# At MPI_Init the glue knows MPI's rank and size: stale sources go.
mpi_says="1 2"
expect "MPI says rank 1 of 2, a stale PMIX_RANK=0" "" "- 1 2 -1 0" \
	PMIX_RANK=0 PMIX_NAMESPACE=outer
expect "MPI says rank 1 of 2, a stale Slurm of 4 tasks" "" "pmi 1 2 1 0" \
	PMI_RANK=1 PMI_SIZE=2 MPI_LOCALRANKID=1 SLURM_PROCID=1 SLURM_NTASKS=4 \
	SLURM_JOB_ID=77
mpi_says="0 1"
expect "MPI says a singleton, OMPI_* left from a parent job" "" "slurm 0 1 0 $((5 * 4294967296 + 1))" \
	OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 SLURM_PROCID=0 \
	SLURM_NTASKS=1 SLURM_LOCALID=0 SLURM_JOB_ID=5 SLURM_STEP_ID=1

# A stand-in srun: -n N and options skipped, the command N times with
# what srun gives each task (no PMI: every task an MPI singleton).
mkdir "$W/bin"
cat >"$W/bin/srun" <<'SRUN'
#!/bin/sh
n=1
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
i=0
while [ $i -lt "$n" ]; do
	SLURM_PROCID=$i SLURM_LOCALID=$i SLURM_NTASKS=$n SLURM_JOB_ID=4242 \
		SLURM_STEP_ID=0 "$@" &
	i=$((i + 1))
done
wait
SRUN
chmod +x "$W/bin/srun"
printf '#!/bin/sh\nexec "$@"\n' >"$W/through.sh"
chmod +x "$W/through.sh"
ncpu=$(nproc)

# Each rank's maps line: glue (and WORD) as wanted in the rank, in no
# ancestor, and the rank on CPU rank % ncpu.
maps_ok() { # file ranks want-in-rank
	awk -v n="$2" -v want="$3" -v ncpu="$ncpu" '
		$1 != "maps:" { next }
		{ seen++; r = $3 }
		$5 != r % ncpu || $7 != want || $8 != "up" { bad++ }
		NF < 9 { bad++ }
		{ for (i = 9; i <= NF; i++) if ($i !~ /:0(,0)?$/) bad++ }
		END { exit !(seen == n && !bad) }' "$1"
}

for m in mpich openmpi; do
	[ -x "$T/launcher_maps.$m" ] || { echo "# $m not built: skipped"; continue; }
	mpicc.$m -O2 -Wall -Werror -shared -fPIC -o "$W/pmpi-counter-$m.so" \
		mpi-glue/test/pmpi/counter.c
	CNT=$W/pmpi-counter-$m.so

	# 2. What is preloaded where.
	job maps-$m "maps: " 2 env LD_PRELOAD="$CNT" "$RUN" -m $m -n 2 \
		"$T/launcher_maps.$m" $$ pmpi-counter
	[ $? = 0 ] && maps_ok "$W/maps-$m.out" 2 1,1
	check $? "$m: glue and the user's preload in the ranks only, rank i on CPU i: $(grep -m1 '^maps: rank 0' "$W/maps-$m.out")"
	if command -v strace >/dev/null; then
		mkdir "$W/st-$m"
		job strace-$m "maps: " 2 strace -ff -qq -e trace=execve,openat \
			-o "$W/st-$m/t" "$RUN" -m $m -n 2 "$T/launcher_maps.$m" $$
		# per process: the programs it ran until it opened the glue
		opened=$(for f in "$W/st-$m"/t.*; do
			awk '/^execve\(/ && / = 0$/ { split($0, a, "\""); exe = a[2] }
				/^openat\(.*libcosched-mpi-.*= [0-9]+$/ { print exe; exit }' "$f"
		done | sort | uniq -c | awk '{ printf "%s %s;", $1, $2 }')
		[ $? = 0 ] && [ "$opened" = "2 $T/launcher_maps.$m;" ]
		check $? "$m: strace: the glue opened by (count program) '$opened' only"
	fi
	job nompi-$m "pre=" 2 env LD_PRELOAD="$CNT" "$RUN" -m $m -n 2 sh -c \
		'echo "pre=$LD_PRELOAD glue=$(grep -q libcosched-mpi /proc/self/maps && echo 1 || echo 0)"'
	[ $? = 0 ] && [ "$(grep -cx "pre=$CNT glue=0" "$W/nompi-$m.out")" = 2 ]
	check $? "$m: a program without MPI (sh): no glue, the user's preload: $(head -1 "$W/nompi-$m.out")"
	job anyprog-$m "glue=" 2 "$RUN" -P -m $m -n 2 sh -c \
		'echo "glue=$(grep -q libcosched-mpi /proc/self/maps && echo 1 || echo 0)"'
	[ $? = 0 ] && [ "$(grep -cx "glue=1" "$W/anyprog-$m.out")" = 2 ]
	check $? "$m: -P: the glue in a program without MPI, which still works"
	job script-$m "maps: " 2 "$RUN" -m $m -n 2 "$W/through.sh" \
		"$T/launcher_maps.$m" $$
	[ $? = 0 ] && maps_ok "$W/script-$m.out" 2 1
	check $? "$m: through a script to the MPI program it runs"
	job plain-$m "maps: " 2 "$RUN" -N -m $m -n 2 "$T/launcher_maps.$m" $$
	[ $? = 0 ] && maps_ok "$W/plain-$m.out" 2 0
	check $? "$m: -N: no glue anywhere"
	job where-$m "" 0 "$RUN" -N -m $m -n 2 "$RUN" --where
	want="pmi 0 2 0,pmi 1 2 1,"
	[ $m = openmpi ] && want="ompi 0 2 0,ompi 1 2 1,"
	got=$(sort "$W/where-$m.out" | tr '\n' ,)
	[ "$got" = "$want" ]
	check $? "$m: a real launch, where each rank is: '$got'"
	PATH=$W/bin:$PATH job srun-$m "maps: " 2 "$RUN" -l srun -m $m -n 2 \
		"$T/launcher_maps.$m" $$
	# two singletons, each "rank 0", pinned by SLURM_LOCALID
	[ $? = 0 ] && [ "$(awk '/^maps: rank 0 cpus/ && $7 == 1 { print $5 }' \
		"$W/srun-$m.out" | sort | tr '\n' ,)" = "0,$((1 % ncpu))," ] &&
		! grep -q '^maps:.*:1' "$W/srun-$m.out"
	check $? "$m: srun: the glue in each task, CPU by SLURM_LOCALID: $(grep -c '^maps:' "$W/srun-$m.out") tasks"
done

# 2b. The job id the glue agrees on at MPI_Init (agree_job), read with
# gdb at PMPI_Finalize: one id in both ranks; -j's; and with a Slurm job
# left in the environment (mpiexec inside an allocation: SLURM_PROCID=0
# in every rank) not Slurm's.
if command -v gdb >/dev/null; then
	cat >"$W/gdbjob.sh" <<'GDB'
#!/bin/sh
exec gdb -q -batch -ex 'set breakpoint pending on' -ex 'break PMPI_Finalize' \
	-ex run -ex 'printf "gluejob %d %lu\n", glue.rank, glue.job' \
	-ex delete -ex continue --args "$@" 2>&1
GDB
	chmod +x "$W/gdbjob.sh"
	slurm=$((77 * 4294967296 + 3))
	for m in mpich openmpi; do
		[ -x "$T/launcher_chain.$m" ] || continue
		for how in plain "-j 42" slurm; do
			case $how in
			plain) set -- ;;
			slurm) set -- SLURM_JOB_ID=77 SLURM_STEP_ID=3 SLURM_PROCID=0 SLURM_NTASKS=2 ;;
			*) set -- COSCHED_JOB=42 ;;
			esac
			job gdbjob-$m gluejob 2 env "$@" "$RUN" -P -m $m -n 2 "$W/gdbjob.sh" \
				"$T/launcher_chain.$m" -i 2
			ids=$(awk '$1 == "gluejob" { print $3 }' "$W/gdbjob-$m.out" | sort -u)
			n=$(grep -c '^gluejob' "$W/gdbjob-$m.out")
			[ "$n" = 2 ] && [ "$(echo "$ids" | wc -l)" = 1 ] && [ "$ids" != 0 ] &&
				case $how in
				plain) true ;;
				slurm) [ "$ids" != "$slurm" ] ;;
				*) [ "$ids" = 42 ] ;;
				esac
			check $? "$m: job id at MPI_Init ($how): $n ranks, id(s) $(echo $ids)"
		done
	done
fi

tap_summary
[ "$fail" = 0 ]
