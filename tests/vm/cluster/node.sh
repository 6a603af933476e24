#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# node.sh: one node of tests/vm/cluster.sh, run by vmrun.sh inside its guest
# (as root, host root read-only over 9p, $COSCHED_VMOUT the node's own
# writable share).  Not meant to be run by hand.
#
#   node.sh INDEX NODES pkg|insmod [-- CMD [ARGS...]]
#
# 1. Network: the NIC (virtio-net on the run's private switch) as eth0,
#    10.77.0.(10+INDEX)/24, hostname nodeINDEX.
# 2. A writable root: an overlay whose lower layer is the host root and
#    whose upper layer is a tmpfs (so dpkg can install; nothing reaches the
#    host), with /etc/hosts naming every node; the kernel's modules
#    directory gets an overlay of its own (DKMS installs there).
# 3. Inside it (stage 2): pkg: dpkg -i of the .debs in $COSCHED_VMOUT/debs
#    (DKMS builds cosched.ko for the running kernel, or takes the build
#    cluster.sh left in $COSCHED_VMOUT/dkms), then modprobe cosched;
#    insmod: insmod build/<release>/cosched.ko of the tree.
# 4. The remote-execution agent (cosched-rexec --serve).  Node 0 then
#    waits for every node's agent and runs CMD; the others serve until
#    cluster.sh drops a "stop" file in their share.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NET=10.77.0
M=/mnt/cluster

log() { echo "node$I: $*" >&2; }
die() { log "error: $*"; exit 1; }
# Seconds since boot, for the setup's timings.
up() { cut -d' ' -f1 /proc/uptime; }

stage1() {
	local rel d
	rel=$(uname -r)
	modprobe virtio_net || die "no virtio_net"
	ip link set eth0 up || die "no eth0"
	ip addr add "$NET.$((10 + I))/24" dev eth0 || die "ip addr"
	hostname "node$I"

	# What udev would have made: dkms reads from <(...), i.e. /dev/fd/N.
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	for d in stdin:0 stdout:1 stderr:2; do
		[ -e "/dev/${d%:*}" ] || ln -s "/proc/self/fd/${d#*:}" "/dev/${d%:*}"
	done
	modprobe overlay || die "no overlay module"
	mount -t tmpfs -o mode=755 tmpfs /mnt || die "tmpfs on /mnt"
	mkdir -p $M/upper $M/work $M/root $M/kup $M/kwork
	mount -t overlay overlay -o lowerdir=/,upperdir=$M/upper,workdir=$M/work $M/root ||
		die "cannot mount an overlay on the host root"
	# What vmrun.sh's init mounted stays as it is (tmpfs /tmp with the
	# results share, /run with the ctl share, devpts, tracefs, bpffs...).
	for d in /proc /sys /dev /tmp /run /var/tmp; do
		mount --rbind "$d" "$M/root$d" || die "bind $d"
	done
	# The host's build/source links to the kernel headers (installed by
	# kernels.sh), which DKMS needs to compile; the image has none.
	local links=()
	for d in build source; do
		[ -L "$M/root/lib/modules/$rel/$d" ] &&
			links+=("$d" "$(readlink "$M/root/lib/modules/$rel/$d")")
	done
	mount -t tmpfs -o mode=755 tmpfs "$M/root/lib/modules"
	mkdir -p "$M/root/lib/modules/$rel"
	mount -t overlay overlay \
		-o "lowerdir=/lib/modules/$rel,upperdir=$M/kup,workdir=$M/kwork" \
		"$M/root/lib/modules/$rel" || die "overlay on /lib/modules/$rel"
	for ((d = 0; d < ${#links[@]}; d += 2)); do
		ln -sfn "${links[d + 1]}" "$M/root/lib/modules/$rel/${links[d]}"
	done

	{
		echo "127.0.0.1 localhost"
		for ((d = 0; d < NODES; d++)); do echo "$NET.$((10 + d)) node$d"; done
	} >"$M/root/etc/hosts"
	echo "node$I" >"$M/root/etc/hostname"
	log "network and overlay root up at $(up) s"
	exec chroot $M/root /bin/bash "$HERE/node.sh" --stage2 "$I" "$NODES" "$MODE" "$PWD" -- "$@"
}

install_packages() {
	local t0 rel
	rel=$(uname -r)
	t0=$(up)
	ls "$COSCHED_VMOUT"/debs/*.deb >/dev/null 2>&1 || die "no .deb in $COSCHED_VMOUT/debs"
	# man-db's trigger would reindex every manual page under TCG.
	rm -f /var/lib/man-db/auto-update
	# A DKMS build cluster.sh made on the host for this kernel from the same
	# package, as a DKMS binaries tarball where the package's postinst
	# looks for one (dkms ldtarball instead of dkms build).
	if ls "$COSCHED_VMOUT"/dkms/*.dkms.tar.gz >/dev/null 2>&1; then
		mkdir -p /usr/share/cosched-dkms
		cp "$COSCHED_VMOUT"/dkms/*.dkms.tar.gz /usr/share/cosched-dkms/
	fi
	DEBIAN_FRONTEND=noninteractive dpkg -i "$COSCHED_VMOUT"/debs/*.deb >"$COSCHED_VMOUT/dpkg.log" 2>&1 || {
		tail -n 30 "$COSCHED_VMOUT/dpkg.log" >&2
		die "dpkg -i failed"
	}
	# dpkg's own log has the time of each step.
	cp /var/log/dpkg.log "$COSCHED_VMOUT/dpkg-steps.log" 2>/dev/null
	dkms status cosched | sed "s/^/node$I: dkms: /" >&2
	modprobe cosched || die "modprobe cosched failed"
	log "packages installed, module from $(modinfo -n cosched), in $(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.0f", b - a }') s"
}

stage2() {
	local rel agent i hosts=""
	rel=$(uname -r)
	cd "$CWD" || die "no $CWD"
	if [ "$MODE" = pkg ]; then
		install_packages
	else
		insmod "build/$rel/cosched.ko" || die "insmod build/$rel/cosched.ko failed"
		log "module from build/$rel/cosched.ko"
	fi
	ln -sf "$HERE/rexec" /usr/local/bin/cosched-rexec
	# Site defaults for Open MPI, as an admin would set them: start
	# remote daemons with cosched-rexec, talk over the cluster network.
	# (Debian's file has no newline at its end.)
	cat >>/etc/openmpi/openmpi-mca-params.conf <<EOF

plm_rsh_agent = /usr/local/bin/cosched-rexec
oob_tcp_if_include = eth0
btl_tcp_if_include = eth0
EOF
	for ((i = 0; i < NODES; i++)); do hosts="$hosts${hosts:+,}node$i"; done
	export COSCHED_HOSTS=$hosts COSCHED_NODE=$I COSCHED_NODES=$NODES
	export COSCHED_REXEC=/usr/local/bin/cosched-rexec
	/usr/bin/python3 "$HERE/rexec" --serve </dev/null >>"$COSCHED_VMOUT/agent.log" 2>&1 &
	agent=$!
	log "agent up at $(up) s"

	if ((I > 0)); then
		while [ ! -e "$COSCHED_VMOUT/stop" ]; do
			kill -0 "$agent" 2>/dev/null || die "the agent died"
			sleep 1
		done
		kill "$agent"
		exit 0
	fi

	# Node 0: every agent must answer before CMD runs (each node installs
	# and loads on its own; cluster.sh drops "abort" here if one gave up).
	for ((i = 1; i < NODES; i++)); do
		until "$COSCHED_REXEC" -n "node$i" true 2>/dev/null; do
			[ -e "$COSCHED_VMOUT/abort" ] && die "node$i failed to come up"
			sleep 2
		done
	done
	log "all $NODES nodes up at $(up) s"
	exec "$@"
}

if [ "${1:-}" = --stage2 ]; then
	I=$2 NODES=$3 MODE=$4 CWD=$5
	shift 5
	[ "${1:-}" = -- ] && shift
	stage2 "$@"
fi
I=${1:?index} NODES=${2:?nodes} MODE=${3:?pkg or insmod}
shift 3
[ "${1:-}" = -- ] && shift
stage1 "$@"
