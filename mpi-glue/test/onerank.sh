#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# onerank.sh RANK HOW program [args...]: run program, and in rank RANK
# of the job only (PMI_RANK or OMPI_COMM_WORLD_RANK) change one thing:
#   off    COSCHED_MPI=0 (the glue asked not to use cosched)
#   nodev  /dev/cosched hidden behind an empty file in a mount namespace
#          of its own, as on a node without the module (needs root and
#          unshare; without /dev/cosched there is nothing to hide)
# The glue must make the whole job agree on one form of the collectives.
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-}}
want=$1
how=$2
shift 2
[ "$r" = "$want" ] || exec "$@"
case $how in
off)
	COSCHED_MPI=0 exec "$@" ;;
nodev)
	[ -e /dev/cosched ] || exec "$@"
	exec unshare -m sh -c 'f=$(mktemp) && mount --bind "$f" /dev/cosched && exec "$@"' sh "$@" ;;
*)
	echo "onerank.sh: HOW is off or nodev" >&2
	exit 2 ;;
esac
