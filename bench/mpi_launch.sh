# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# mpi_launch.sh: how the single-guest MPI benchmarks start a 2-rank job,
# sourced by bench/mpi_pingpong.sh and the scripts of
# Documentation/results/mpi-glue/zero-cost/.  One place for the launch
# line, so that every measurement that compares them runs MPI alike.
#
#   mpi_launch MPI PRELOAD PROGRAM [ARGS...]
#     Two ranks of PROGRAM, pinned to CPUs 0 and 1, over TCP on lo.
#     MPI is mpich or openmpi; PRELOAD is the ranks' LD_PRELOAD (a
#     colon-separated list, empty for none); $MPI_LAUNCH_ENV, if set, is a
#     space-separated list of NAME=VALUE put in every rank's environment
#     (e.g. "COSCHED_MPI_VERBOSE=1 COSCHED_MPI=0").  Paths and values
#     must not contain spaces; a value may be empty.  The status is
#     mpiexec's, 2 for an unknown MPI.
#   glue_preload MPI DIR
#     The preload that puts the glue of DIR (build/mpi-glue) into an
#     MPI's ranks as cosched-run does (MPICH: the glue, then the UCX
#     finalize fix, libcosched-ucx-finalize.so).
#
# Why these options: the ranks stand for processes on different nodes,
# so every message must cross a kernel-visible transport, never shared
# memory.
# - MPICH (Debian bookworm: 4.0.2, device ch4:ucx): MPIR_CVAR_NOLOCAL=1
#   makes MPICH treat the other rank as remote, which turns off its own
#   shared-memory module; the traffic then goes to the UCX netmod, which
#   has shared-memory transports of its own (posix, sysv, cma), so
#   UCX_TLS=tcp keeps only TCP, and UCX_NET_DEVICES=lo puts it on
#   loopback (without it UCX picks any interface it finds).
# - Open MPI (4.1.4): the ob1 PML with only the tcp and self BTLs (vader,
#   its shared memory, is then not even opened); pml ob1 stated outright
#   so that a UCX PML cannot take over and bring its shared memory back.
#   Loopback is on Open MPI's default exclude list: include it explicitly.

mpi_launch() {
	_mpi=$1
	_pre=$2
	shift 2
	_vars=
	[ -z "$_pre" ] || _vars="LD_PRELOAD=$_pre"
	_vars="$_vars ${MPI_LAUNCH_ENV:-}"
	# Put each NAME=VALUE before the program, in the order given, as one
	# word each (no globbing: a value may hold a '*'; an empty VALUE stays).
	_rev=
	case $- in *f*) _glob=off ;; *) _glob=on ;; esac
	set -f
	for _kv in $_vars; do _rev="$_kv $_rev"; done
	for _kv in $_rev; do
		case $_mpi in
		mpich) set -- -genv "${_kv%%=*}" "${_kv#*=}" "$@" ;;
		*) set -- -x "$_kv" "$@" ;;
		esac
	done
	[ "$_glob" = off ] || set +f
	case $_mpi in
	mpich)
		env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo \
			mpiexec.mpich -n 2 -bind-to user:0,1 "$@"
		;;
	openmpi)
		env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			mpiexec.openmpi -n 2 --map-by core --bind-to core \
			--mca pml ob1 --mca btl tcp,self \
			--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$@"
		;;
	*)
		echo "mpi_launch: unknown MPI '$_mpi' (mpich, openmpi)" >&2
		return 2
		;;
	esac
}

glue_preload() {
	case $1 in
	mpich) echo "$2/libcosched-mpi-mpich.so:$2/libcosched-ucx-finalize.so" ;;
	openmpi) echo "$2/libcosched-mpi-openmpi.so" ;;
	*) return 2 ;;
	esac
}
