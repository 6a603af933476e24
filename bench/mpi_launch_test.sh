#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mpi_launch.sh on the host, against stand-ins for mpiexec.mpich and
# mpiexec.openmpi that print what they were given: the launch lines the
# MPI benchmarks rely on (TCP over lo, never shared memory; CPUs 0 and 1;
# the preload and the ranks' variables; program arguments with spaces
# passed whole).  TAP.  usage: bench/mpi_launch_test.sh
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FAKE=$(mktemp -d)
trap 'rm -rf "$FAKE"' EXIT
for m in mpich openmpi; do
	cat >"$FAKE/mpiexec.$m" <<'STUB'
#!/bin/sh
printf '%s|' "$(basename "$0")" "$@"
echo "env:NOLOCAL=${MPIR_CVAR_NOLOCAL:-} TLS=${UCX_TLS:-} DEV=${UCX_NET_DEVICES:-} ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-}"
STUB
	chmod +x "$FAKE/mpiexec.$m"
done
# shellcheck source=bench/mpi_launch.sh
. "$ROOT/bench/mpi_launch.sh"
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
echo "1..6"
t "MPICH plain: no shared memory, TCP on lo, CPUs 0 and 1" \
	"mpiexec.mpich|-n|2|-bind-to|user:0,1|prog|-s|8|env:NOLOCAL=1 TLS=tcp DEV=lo ROOT=" \
	"$(mpi_launch mpich "" prog -s 8)"
t "MPICH with the glue: its preload, then the finalize fix" \
	"mpiexec.mpich|-n|2|-bind-to|user:0,1|-genv|LD_PRELOAD|/g/libcosched-mpi-mpich.so:/g/libcosched-ucx-finalize.so|prog|env:NOLOCAL=1 TLS=tcp DEV=lo ROOT=" \
	"$(mpi_launch mpich "$(glue_preload mpich /g)" prog)"
t "MPICH: each of MPI_LAUNCH_ENV's variables through -genv" \
	"mpiexec.mpich|-n|2|-bind-to|user:0,1|-genv|COSCHED_MPI|0|-genv|COSCHED_MPI_VERBOSE|1|prog|env:NOLOCAL=1 TLS=tcp DEV=lo ROOT=" \
	"$(MPI_LAUNCH_ENV="COSCHED_MPI=0 COSCHED_MPI_VERBOSE=1" mpi_launch mpich "" prog)"
t "Open MPI with the glue: ob1, tcp and self only, lo included, -x for each variable" \
	"mpiexec.openmpi|-n|2|--map-by|core|--bind-to|core|--mca|pml|ob1|--mca|btl|tcp,self|--mca|btl_tcp_if_include|lo|--mca|oob_tcp_if_include|lo|-x|LD_PRELOAD=/g/libcosched-mpi-openmpi.so|-x|COSCHED_MPI=0|prog|env:NOLOCAL= TLS= DEV= ROOT=1" \
	"$(MPI_LAUNCH_ENV=COSCHED_MPI=0 mpi_launch openmpi "$(glue_preload openmpi /g)" prog)"
t "a program argument with spaces passed whole" \
	"mpiexec.mpich|-n|2|-bind-to|user:0,1|sh|-c|exec strace prog -s 8|env:NOLOCAL=1 TLS=tcp DEV=lo ROOT=" \
	"$(mpi_launch mpich "" sh -c "exec strace prog -s 8")"
mpi_launch lam "" prog 2>/dev/null
t "an unknown MPI is refused" 2 "$?"
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
