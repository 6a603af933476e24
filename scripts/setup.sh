#!/usr/bin/env bash
# setup.sh - install everything cosched's build and tests need on a Debian 12
# machine, as root. Idempotent: a second run installs nothing, runs no
# `apt-get update` and takes a few seconds.
#
#   - Debian packages: compiler, QEMU, busybox, BPF/io_uring libraries, sparse,
#     the kernel source (for checkpatch.pl), MPICH and Open MPI, ...
#   - for each test kernel (6.1, 6.12): its headers (installed) and its image
#     (downloaded and unpacked into $COSCHED_CACHE, never installed: see
#     tests/vm/kernels.sh)
#   - checkpatch.pl and its data files, extracted into $COSCHED_CACHE/checkpatch
#
# COSCHED_CACHE defaults to ~/.cache/cosched.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNELS="$ROOT/tests/vm/kernels.sh"
CACHE="${COSCHED_CACHE:-${HOME:-/root}/.cache/cosched}"
TEST_KERNELS=(6.1 6.12)
PACKAGES=(
	build-essential qemu-system-x86 busybox-static cpio xz-utils zstd kmod
	sparse linux-source-6.1 python3 clang llvm libbpf-dev bpftool
	liburing-dev dwarves iproute2
	# bpf/: cosched-monitor links -lbpf -lelf -lz; tests/bpf pins jobs
	# with taskset (util-linux)
	libelf-dev zlib1g-dev util-linux
	# The MPI baseline (bench/mpi_pingpong.*): both implementations side by
	# side, each reached through its own wrappers (mpicc.mpich,
	# mpiexec.openmpi, ...), so neither has to win the mpicc alternative.
	mpich libmpich-dev openmpi-bin libopenmpi-dev
	# tests/guest/rdma: verbs over soft-RoCE (rdma_rxe); rdma(8) is in
	# iproute2, the rxe provider in ibverbs-providers
	libibverbs-dev ibverbs-providers
	# bench/report: the PNG plots (it still writes Markdown and CSV without)
	python3-matplotlib
	# make deb: dpkg-buildpackage with debhelper and dh_dkms; dkms itself:
	# tests/vm/cluster.sh builds the module on the host with it, and its
	# guests install cosched-dkms from the host's dpkg database
	debhelper dh-dkms dkms
	# tests/vm/cluster.sh --slurm: the guests run the host's munged,
	# slurmctld and slurmd (not the host: see host_daemons_off); make slurm
	# builds the SPANK plugin against slurm/spank.h (libslurm-dev)
	munge slurmctld slurmd slurm-client libslurm-dev
)
# Installed for the cluster guests only: never left running on the host.
HOST_DAEMONS=(slurmctld slurmd munge)
export DEBIAN_FRONTEND=noninteractive

log() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

missing_packages() {
	local p
	for p in "$@"; do
		[[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" == installed ]] || echo "$p"
	done
}

# Called at most once per run; kernels.sh sees COSCHED_APT_UPDATED and does
# not update again.
apt_update() {
	[[ "${COSCHED_APT_UPDATED:-0}" == 1 ]] && return 0
	log "apt-get update"
	apt-get update -qq >/dev/null || die "apt-get update failed (is a Debian mirror reachable?)"
	export COSCHED_APT_UPDATED=1
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
	if ((${#missing[@]} == 0)); then
		log "all ${#PACKAGES[@]} packages already installed"
		return 0
	fi
	apt_update
	log "installing ${missing[*]}"
	apt-get install -y -q=2 --no-install-recommends "${missing[@]}" ||
		die "apt-get install failed"
	host_daemons_off
}

# The packages' postinsts start their services (where systemd or an init
# script lets them); the guests start their own, from a configuration
# made per run.
host_daemons_off() {
	local s
	for s in "${HOST_DAEMONS[@]}"; do
		if [[ -d /run/systemd/system ]]; then
			systemctl disable --now "$s" >/dev/null 2>&1 || true
		elif [[ -x "/etc/init.d/$s" ]]; then
			"/etc/init.d/$s" stop >/dev/null 2>&1 || true
			update-rc.d "$s" disable >/dev/null 2>&1 || true
		fi
	done
}

fetch_kernels() {
	local k rel
	for k in "${TEST_KERNELS[@]}"; do
		rel=$("$KERNELS" fetch "$k") || die "could not fetch kernel $k"
		log "kernel $k: $rel, headers $("$KERNELS" kdir "$rel"), image $CACHE/kernels/$rel"
	done
}

# checkpatch.pl reads spelling.txt and const_structs.checkpatch from its own
# directory; those three files are all we need from the 140 MB tarball. The
# layout ($CACHE/checkpatch/scripts/...) is the one tests/lint.sh expects.
extract_checkpatch() {
	local dir="$CACHE/checkpatch" tarball top ver stamp tmp f
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1.tar.*' | head -n1)
	[[ -n "$tarball" ]] || die "linux-source-6.1 installed but no /usr/src/linux-source-6.1.tar.*"
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	stamp="$dir/.cosched-version"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$ver" && -f "$dir/scripts/checkpatch.pl" ]]; then
		log "checkpatch: $dir/scripts/checkpatch.pl (cached)"
		return 0
	fi
	log "extracting checkpatch.pl from $tarball"
	# head closes the pipe early; tar's SIGPIPE is expected.
	top=$(tar -tf "$tarball" 2>/dev/null | head -n1 || true)
	top=${top%%/*}
	tmp=$(mktemp -d)
	# --occurrence: stop reading the archive once each member was found.
	tar -xf "$tarball" -C "$tmp" --occurrence \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" || { rm -rf "$tmp"; die "extracting checkpatch failed"; }
	mkdir -p "$dir/scripts"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		mv -f "$tmp/$top/scripts/$f" "$dir/scripts/$f"
	done
	rm -rf "$tmp"
	echo "$ver" >"$stamp"
	log "checkpatch: $dir/scripts/checkpatch.pl"
}

main() {
	local start=$SECONDS
	((EUID == 0)) || die "run as root (it installs Debian packages)"
	if ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
		die "this needs a Debian system (apt-get, dpkg-query)"
	fi
	install_packages
	fetch_kernels
	extract_checkpatch
	log "done in $((SECONDS - start)) s"
}

main "$@"
