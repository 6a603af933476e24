#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mpi_launch.sh on the host, against stand-ins for mpiexec.mpich and
# mpiexec.openmpi that print what they were given: the launch lines the
# MPI benchmarks rely on (TCP over lo, never shared memory; CPUs 0 and 1;
# the preload and the ranks' variables, in order, empty values kept and
# never globbed; program arguments with spaces passed whole; mpiexec's
# status), and the cases of the zero-cost scripts' p50 (plain, off, on),
# where each case once ran with the glue on.  TAP.
# usage: bench/mpi_launch_test.sh
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FAKE=$(mktemp -d)
trap 'rm -rf "$FAKE"' EXIT
for m in mpich openmpi; do
	cat >"$FAKE/mpiexec.$m" <<'STUB'
#!/bin/sh
line=$(printf '%s|' "$(basename "$0")" "$@")
line="${line}env:NOLOCAL=${MPIR_CVAR_NOLOCAL:-} TLS=${UCX_TLS:-} DEV=${UCX_NET_DEVICES:-} ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-}/${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-}"
echo "$line" >"$(dirname "$0")/last"
echo "$line"
echo "bench=x size=8 lat_ns_p50=7"
exit "${FAKE_STATUS:-0}"
STUB
	chmod +x "$FAKE/mpiexec.$m"
done
# The stand-ins report these; the caller's own must not leak in.
unset MPIR_CVAR_NOLOCAL UCX_TLS UCX_NET_DEVICES OMPI_ALLOW_RUN_AS_ROOT \
	OMPI_ALLOW_RUN_AS_ROOT_CONFIRM MPI_LAUNCH_ENV
# shellcheck source=bench/mpi_launch.sh
. "$ROOT/bench/mpi_launch.sh"
# shellcheck source=Documentation/results/mpi-glue/zero-cost/pp.sh
. "$ROOT/Documentation/results/mpi-glue/zero-cost/pp.sh"
PATH=$FAKE:$PATH
n=0
pass=0
t() { # description expected actual
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
		pass=$((pass + 1))
	else
		echo "not ok $n - $1"
		echo "#   want: $2"
		echo "#   got:  $3"
	fi
}
launch() { mpi_launch "$@" | head -1; }
M="mpiexec.mpich|-n|2|-bind-to|user:0,1"
ME="env:NOLOCAL=1 TLS=tcp DEV=lo ROOT=/"
O="mpiexec.openmpi|-n|2|--map-by|core|--bind-to|core|--mca|pml|ob1|--mca|btl|tcp,self|--mca|btl_tcp_if_include|lo|--mca|oob_tcp_if_include|lo"
OE="env:NOLOCAL= TLS= DEV= ROOT=1/1"
G=$ROOT/build/mpi-glue
echo "1..15"
t "MPICH plain: no shared memory, TCP on lo, CPUs 0 and 1" \
	"$M|prog|-s|8|$ME" "$(launch mpich "" prog -s 8)"
t "Open MPI plain: ob1, tcp and self only, lo included, run as root allowed" \
	"$O|prog|$OE" "$(launch openmpi "" prog)"
t "MPICH with the glue and variables: the preload (glue, then the finalize fix) first, variables in order" \
	"$M|-genv|LD_PRELOAD|/g/libcosched-mpi-mpich.so:/g/libcosched-ucx-finalize.so|-genv|COSCHED_MPI|0|-genv|COSCHED_MPI_VERBOSE|1|prog|$ME" \
	"$(MPI_LAUNCH_ENV="COSCHED_MPI=0 COSCHED_MPI_VERBOSE=1" launch mpich "$(glue_preload mpich /g)" prog)"
t "Open MPI with the glue: -x for the preload and each variable" \
	"$O|-x|LD_PRELOAD=/g/libcosched-mpi-openmpi.so|-x|COSCHED_MPI=0|prog|$OE" \
	"$(MPI_LAUNCH_ENV=COSCHED_MPI=0 launch openmpi "$(glue_preload openmpi /g)" prog)"
t "an empty value stays a word, a '*' is not globbed" \
	"$M|-genv|A||-genv|B|*|prog|$ME" "$(cd "$ROOT" && MPI_LAUNCH_ENV="A= B=*" launch mpich "" prog)"
t "a program argument with spaces passed whole" \
	"$M|sh|-c|exec strace prog -s 8|$ME" "$(launch mpich "" sh -c "exec strace prog -s 8")"
FAKE_STATUS=3 mpi_launch mpich "" prog >/dev/null
t "mpiexec's status is the caller's" 3 "$?"
mpi_launch lam "" prog 2>/dev/null
t "an unknown MPI is refused" 2 "$?"
# The zero-cost scripts' cases (pp.sh), each MPI: what p50 ran (the
# stand-in's record, read before launch() below overwrites it) against
# the line each case should run.
ran() { # mpi case: the line p50 ran
	(cd "$ROOT" && p50 "$1" "$2" 8 >/dev/null)
	cat "$FAKE/last"
}
for m in mpich openmpi; do
	got=$(ran $m plain)
	t "p50 $m plain: no preload, no variable" \
		"$(launch $m "" build/bench/mpi_pingpong.$m -s 8 -n 1000)" "$got"
	got=$(ran $m off)
	t "p50 $m off: the glue preloaded with COSCHED_MPI=0" \
		"$(MPI_LAUNCH_ENV=COSCHED_MPI=0 launch $m "$(glue_preload $m "$G")" build/bench/mpi_pingpong.$m -s 8 -n 1000)" \
		"$got"
	got=$(ran $m on)
	t "p50 $m on: the glue preloaded, no variable" \
		"$(launch $m "$(glue_preload $m "$G")" build/bench/mpi_pingpong.$m -s 8 -n 1000)" "$got"
done
t "p50 prints the run's p50" 7 "$(cd "$ROOT" && p50 mpich plain 8)"
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
