# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# pp.sh: what the zero-cost scripts share, sourced from the repository
# root after bench/mpi_launch.sh.
#   p50 MPI HOW SIZE: the p50 one-way latency (ns) of 1000 round trips of
#   SIZE bytes of build/bench/mpi_pingpong.MPI, HOW one of plain (no
#   preload), off (the glue preloaded, COSCHED_MPI=0) or anything else,
#   glue or on (the glue preloaded and on).
# shellcheck disable=SC2034 # MPI_LAUNCH_ENV is mpi_launch's
p50() {
	_pre=
	[ "$2" = plain ] || _pre=$(glue_preload "$1" "$(pwd)/build/mpi-glue")
	MPI_LAUNCH_ENV=
	[ "$2" != off ] || MPI_LAUNCH_ENV=COSCHED_MPI=0
	mpi_launch "$1" "$_pre" "build/bench/mpi_pingpong.$1" -s "$3" -n 1000 2>/dev/null |
		grep '^bench=' | head -1 | sed 's/.*lat_ns_p50=\([0-9]*\).*/\1/'
}
