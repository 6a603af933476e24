#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cluster.sh - boot N QEMU guests joined by a private virtual Ethernet
# switch, install the project's packages and load the module on each, and
# run one command on node 0 (Documentation/cluster.rst).
#
# usage: cluster.sh [options] -- CMD [ARGS...]
#   --nodes N       guests, one vCPU each (default 2)
#   --kernel K      6.1 | 6.12 | <release> (default: $COSCHED_KERNEL or 6.12)
#   --mem MB        memory per guest (default 768)
#   --timeout SEC   each guest's vmrun.sh --timeout (default 900; with
#                   --shell 86400)
#   --outdir DIR    keep the run's files (node logs, each node's share) in DIR;
#                   default: a temp dir, deleted at exit
#   --insmod        load build/<release>/cosched.ko of the tree (make modules)
#                   instead of installing build/deb/*.deb (make deb)
#   --dkms-in-guest let DKMS build the module in each guest (minutes under
#                   TCG) instead of loading a host-side DKMS build of it
#   --lock FILE     hold FILE (flock) for the run (default
#                   /tmp/cosched-guest.lock; "none": no lock)
#   --shell         no CMD: an interactive shell on node 0, on this terminal
#                   (through a fourth serial port; make cluster-shell);
#                   "exit" or Ctrl-] ends the cluster
#   --slurm         munged and slurmd on every node, slurmctld on node 0,
#                   CMD once sinfo shows all idle (cluster/slurm-up.sh)
#   --slurm-gang    the same with Slurm's gang scheduling on (PreemptMode=
#                   GANG, 5 s slices): jobs sharing a CPU take turns
#
# CMD runs as root on node 0 once every node is up, with $COSCHED_HOSTS
# (node0,node1,...), $COSCHED_NODE, $COSCHED_NODES and $COSCHED_REXEC (the
# remote shell: $COSCHED_REXEC node1 CMD). Its stdout and stderr are
# cluster.sh's; the other nodes' go to DIR/nodeI.log.
#
# exit status: CMD's; else 3 if a node's kernel log shows a BUG, Oops,
# WARNING... (vmrun.sh's check, on every node), 124 if a guest timed out,
# 125 if one died, 1 if the cluster could not be set up, 2 on bad usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
ROOT=$(cd "$HERE/../.." && pwd)
CACHE="${COSCHED_CACHE:-${HOME:-/root}/.cache/cosched}"

NODES=2
KERNEL=${COSCHED_KERNEL:-6.12}
MEM=768
TIMEOUT=
OUTDIR=
MODE=pkg
DKMS_HOST=1
LOCK=/tmp/cosched-guest.lock
SHELL_MODE=0
SLURM=0
SLURM_GANG=0
CMD=()
RUN=
KEEP=0
PIDS=()
HUBFD=

log() { echo "cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() {
	sed -n '7,34s/^# \{0,1\}//p' "$SELF" >&2
	exit "${1:-2}"
}

parse_args() {
	while (($#)); do
		case "$1" in
		--nodes) NODES=${2:?}; shift 2 ;;
		--kernel) KERNEL=${2:?}; shift 2 ;;
		--mem) MEM=${2:?}; shift 2 ;;
		--timeout) TIMEOUT=${2:?}; shift 2 ;;
		--outdir) OUTDIR=${2:?}; shift 2 ;;
		--insmod) MODE=insmod; shift ;;
		--dkms-in-guest) DKMS_HOST=0; shift ;;
		--lock) LOCK=${2:?}; shift 2 ;;
		--shell) SHELL_MODE=1; shift ;;
		--slurm) SLURM=1; shift ;;
		--slurm-gang) SLURM=1; SLURM_GANG=1; shift ;;
		-h | --help) usage 0 ;;
		--) shift; CMD=("$@"); break ;;
		*) log "unknown option '$1'"; usage ;;
		esac
	done
	if ((SHELL_MODE)); then
		((${#CMD[@]} == 0)) || { log "--shell takes no command"; usage; }
		CMD=("$HERE/cluster/shell.sh" "$(tput lines 2>/dev/null || echo 24)"
			"$(tput cols 2>/dev/null || echo 80)" "${TERM:-dumb}")
		TIMEOUT=${TIMEOUT:-86400}
	fi
	TIMEOUT=${TIMEOUT:-900}
	((${#CMD[@]})) || { log "no command given"; usage; }
	((SLURM)) && CMD=(env COSCHED_SLURM_GANG="$SLURM_GANG"
		COSCHED_SLURM_SLICE="${COSCHED_SLURM_SLICE:-5}" "$HERE/cluster/slurm-up.sh" "${CMD[@]}")
	[[ "$NODES" =~ ^[1-9][0-9]*$ && "$NODES" -le 200 && "$MEM" =~ ^[1-9][0-9]*$ &&
		"$TIMEOUT" =~ ^[1-9][0-9]*$ ]] ||
		{ log "--nodes (1-200), --mem and --timeout take positive integers"; usage; }
}

# The switch: built from tests/vm/cluster/hub.c when missing or older.
build_hub() {
	local src="$HERE/cluster/hub.c" bin="$ROOT/build/cluster/hub" tmp
	if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
		mkdir -p "$ROOT/build/cluster"
		tmp=$(mktemp "$ROOT/build/cluster/.hub.XXXXXX")
		cc -O2 -Wall -Wextra -Werror -o "$tmp" "$src" || { rm -f "$tmp"; die "cannot build the hub"; }
		mv "$tmp" "$bin"
	fi
	echo "$bin"
}

# The packages every node installs, copied at the start (a concurrent
# make deb empties build/deb/).
DEBS=(cosched-dkms libcosched1 libcosched-dev cosched-mpi cosched-tools)
collect_debs() {
	local dir=$1 p f
	mkdir -p "$dir"
	for p in "${DEBS[@]}"; do
		f=$(ls -t "$ROOT"/build/deb/"${p}"_*.deb 2>/dev/null | head -n1)
		[[ -n "$f" ]] || die "no build/deb/${p}_*.deb: run make deb (or use --insmod)"
		cp "$f" "$dir/"
	done
}

# dkms_prebuild <release> <debs dir> <out dir>: DKMS builds cosched.ko for
# the guest kernel on the host, from the cosched-dkms package's own source,
# into a DKMS tree of its own (cached by package and kernel); the nodes
# load it as a DKMS binary tarball, so installing the package there only
# installs the module. A TCG guest would take minutes to compile it.
dkms_prebuild() {
	local rel=$1 debs=$2 out=$3 deb ver key dir tmp kdir
	deb=$(ls "$debs"/cosched-dkms_*.deb)
	ver=$(dpkg-deb -f "$deb" Version)
	key=$(sha256sum <"$deb" | cut -c1-16)
	dir="$CACHE/cluster/dkms/$rel-$key"
	if [[ ! -s "$dir/cosched-$ver.dkms.tar.gz" ]]; then
		command -v dkms >/dev/null || die "dkms missing: run scripts/setup.sh"
		kdir=$("$HERE/kernels.sh" kdir "$rel")
		tmp=$(mktemp -d)
		dpkg-deb -x "$deb" "$tmp/pkg"
		local d=(--dkmstree "$tmp/tree" --sourcetree "$tmp/pkg/usr/src")
		mkdir -p "$tmp/tree"
		log "DKMS build of cosched $ver for $rel on the host (cached)"
		if ! { dkms add -m cosched -v "$ver" "${d[@]}" &&
			sign_file=/nonexistent nice -n 19 dkms build -m cosched -v "$ver" -k "$rel" \
				--kernelsourcedir "$kdir" "${d[@]}" &&
			dkms mktarball -m cosched -v "$ver" -k "$rel" --binaries-only "${d[@]}" \
				--archive "$tmp/cosched-$ver.dkms.tar.gz"; } >"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			find "$tmp/tree" -name make.log -exec tail -n 20 {} \; >&2
			rm -rf "$tmp"
			die "host-side DKMS build failed"
		fi
		mkdir -p "$dir"
		mv "$tmp/cosched-$ver.dkms.tar.gz" "$dir/"
		rm -rf "$tmp"
	fi
	mkdir -p "$out"
	cp "$dir/cosched-$ver.dkms.tar.gz" "$out/"
}

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	PIDS=()
	[[ -n "$HUBFD" ]] && exec {HUBFD}>&-
	HUBFD=
	[[ -n "$RUN" ]] && rm -rf "$RUN"
	RUN=
	((KEEP)) || [[ -z "$OUTDIR" ]] || rm -rf "$OUTDIR"
	return 0
}

on_signal() {
	log "interrupted by SIG$1"
	cleanup
	exit $((128 + $(kill -l "$1")))
}

main() {
	parse_args "$@"
	local rel hub i cpu extra who rc status=0 start elapsed ncpu
	local -A node_of=() rc_of=()
	rel=$("$HERE/kernels.sh" resolve "$KERNEL")
	hub=$(build_hub)

	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	trap cleanup EXIT
	if [[ -n "$OUTDIR" ]]; then
		KEEP=1
		mkdir -p "$OUTDIR"
	else
		OUTDIR=$(mktemp -d "${TMPDIR:-/tmp}/cluster-out.XXXXXX")
	fi
	OUTDIR=$(cd "$OUTDIR" && pwd)
	# Socket paths must stay short (108 bytes): a run dir of its own in /tmp.
	RUN=$(mktemp -d /tmp/cluster.XXXXXX)

	for ((i = 0; i < NODES; i++)); do
		rm -rf "$OUTDIR/node$i"
		mkdir -p "$OUTDIR/node$i"
	done
	if [[ $MODE == pkg ]]; then
		collect_debs "$RUN/debs"
		((DKMS_HOST)) && dkms_prebuild "$rel" "$RUN/debs" "$RUN/dkms"
		for ((i = 0; i < NODES; i++)); do
			cp -r "$RUN/debs" "$OUTDIR/node$i/"
			[[ -d "$RUN/dkms" ]] && cp -r "$RUN/dkms" "$OUTDIR/node$i/"
		done
	fi

	if [[ "$LOCK" != none ]]; then
		exec {lockfd}>>"$LOCK"
		flock -n "$lockfd" || { log "waiting for $LOCK"; flock "$lockfd"; }
	fi

	mkfifo "$RUN/hub.in"
	"$hub" "$RUN" "$NODES" <"$RUN/hub.in" 2>"$OUTDIR/hub.log" &
	exec {HUBFD}>"$RUN/hub.in"
	while [[ ! -S "$RUN/hub.sock" ]]; do sleep 0.1; done

	ncpu=$(nproc)
	start=$EPOCHREALTIME
	for ((i = 0; i < NODES; i++)); do
		extra="-netdev
dgram,id=net0,local.type=unix,local.path=$RUN/node$i.sock,remote.type=unix,remote.path=$RUN/hub.sock
-device
virtio-net-pci,netdev=net0,mac=$(printf '52:54:00:77:%02x:%02x' $((i / 256)) $((i % 256)))"
		((i == 0 && SHELL_MODE)) && extra+="
-chardev
socket,id=shell,path=$RUN/shell.sock,server=on,wait=off
-serial
chardev:shell"
		cpu=()
		((NODES <= ncpu)) && cpu=(taskset -c "$i")
		local vm=(env PATH="$HERE/cluster/qemu:$PATH" COSCHED_QEMU_EXTRA="$extra"
			"${cpu[@]}" "$HERE/vmrun.sh" --kernel "$rel" --smp 1 --mem "$MEM"
			--outdir "$OUTDIR/node$i")
		if ((i == 0 && SHELL_MODE)); then
			"${vm[@]}" --timeout "$TIMEOUT" -- "$HERE/cluster/node.sh" 0 "$NODES" "$MODE" -- "${CMD[@]}" \
				>"$OUTDIR/node0.log" 2>&1 &
		elif ((i == 0)); then
			"${vm[@]}" --timeout "$TIMEOUT" -- "$HERE/cluster/node.sh" 0 "$NODES" "$MODE" -- "${CMD[@]}" &
		else
			# The others outlive node 0 by its shutdown.
			"${vm[@]}" --timeout "$((TIMEOUT + 120))" -- "$HERE/cluster/node.sh" "$i" "$NODES" "$MODE" \
				>"$OUTDIR/node$i.log" 2>&1 &
		fi
		PIDS+=($!)
		node_of[$!]=$i
	done

	if ((SHELL_MODE)); then
		log "booting $NODES nodes; the shell starts when all are up (logs: $OUTDIR/node*.log)"
		"$HERE/cluster/console" "$RUN/shell.sock" || true
		touch "$OUTDIR/node0/stop"
	fi

	# Node 0 ends the run: then the others are told to stop. A node that
	# ends first has failed: node 0 is told so.
	local left=$NODES
	while ((left)); do
		rc=0
		wait -n -p who "${PIDS[@]}" || rc=$?
		[[ -n "${who:-}" && -n "${node_of[$who]:-}" ]] || continue
		i=${node_of[$who]}
		rc_of[$i]=$rc
		left=$((left - 1))
		local p alive=()
		for p in "${PIDS[@]}"; do ((p == who)) || alive+=("$p"); done
		PIDS=("${alive[@]}")
		if ((i == 0)); then
			for ((p = 1; p < NODES; p++)); do touch "$OUTDIR/node$p/stop"; done
		elif [[ -z "${rc_of[0]:-}" ]]; then
			log "node$i ended (status $rc) before node 0; its log:"
			tail -n 30 "$OUTDIR/node$i.log" | sed 's/^/  /' >&2
			touch "$OUTDIR/node0/abort"
		fi
	done
	elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

	status=${rc_of[0]}
	local summary="node0 $status"
	for ((i = 1; i < NODES; i++)); do
		summary+=", node$i ${rc_of[$i]}"
		rc=${rc_of[$i]}
		if ((rc != 0)); then
			log "node$i: exit $rc; the end of its log:"
			tail -n 40 "$OUTDIR/node$i.log" | sed 's/^/  /' >&2
			((status == 0 || rc == 3)) && status=$rc
		fi
	done
	exec {HUBFD}>&-
	HUBFD=
	wait
	log "$NODES nodes $rel exit=$status in ${elapsed}s ($summary; $(cat "$OUTDIR/hub.log" 2>/dev/null))"
	return "$status"
}

main "$@"
