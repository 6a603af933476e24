#!/usr/bin/env bash
# vmrun.sh - run one command inside a throw-away QEMU guest booted on a Debian
# kernel, with the host's root filesystem as the guest's (read-only, over 9p).
#
# usage: vmrun.sh [options] -- CMD [ARGS...]
#   --kernel K      6.1 | 6.12 | 6.12-debug | <release> (default: $COSCHED_KERNEL or 6.1)
#   --smp N         guest CPUs (default 2)
#   --mem MB        guest memory (default 1024)
#   --timeout SEC   after SEC seconds, dump every guest task's stack
#                   (sysrq w, l, t) to stderr, then kill it (default 600)
#   --append STR    extra kernel command line
#   --outdir DIR    host dir shared writable as $COSCHED_VMOUT (/tmp/vmout);
#                   default: a fresh temp dir, deleted at exit.  vmrun.sh
#                   writes host-load.csv there meanwhile: every 2 s, how
#                   many host CPUs other processes kept busy (host-load.sh)
#   --env NAME      pass the host's $NAME into the guest (repeatable)
#   --verbose       kernel console (loglevel 7) to stderr as it happens
#   --calibrated    make the guest's time look like this host's: stretch the
#                   scheduler's slice constants by the guest's dilation factor
#                   and export it to CMD as COSCHED_DILATION, with the
#                   module's time tunables scaled alike as COSCHED_MODPARAMS
#                   (for insmod): a task that never sleeps keeps the CPU
#                   for the factor times this host's quantum (--slice-rule):
#                   6.12 (EEVDF) through base_slice_ns, 6.1 (CFS) through
#                   latency_ns and min_granularity_ns (wakeup_granularity_ns
#                   keeps its ratio to latency_ns).
#                   The guest also takes this host's autogroup, on if
#                   kernel.sched_autogroup_enabled is 1 and vmrun.sh runs
#                   in the root CPU cgroup (where autogroup applies), or
#                   $COSCHED_HOST_AUTOGROUP (0 or 1) if set: the 6.1 guest
#                   boots with it off, 6.12 and this host with it on, and
#                   it decides how a job in a session of its own shares
#                   a CPU with a hog in another.
#                   The factor and the host's quantum come from bench/calibrate
#                   (cached; measured first if absent), or from
#                   $COSCHED_DILATION and $COSCHED_HOST_QUANTUM_MS if set.
#                   Documentation/calibration.rst
#   --slice-rule R  with --calibrated: quantum (default): the guest's slice
#                   is factor x host quantum - half a guest tick, so that it
#                   runs out at the guest tick that ends that quantum (on CFS
#                   latency_ns = min_granularity_ns = that slice, whatever
#                   the count of tasks, and wakeup_granularity_ns in
#                   proportion); scale: the guest's own constants times
#                   the factor
#
# CMD runs as root in the host's $PWD (seen through 9p, read-only) with the
# guest kernel's own modules in /lib/modules/<release>. Its stdout and stderr
# come out on vmrun.sh's stdout and stderr.
#
# exit status: CMD's status; 3 if the guest's dmesg shows a kernel BUG, Oops,
# WARNING, hung task ... (printed to stderr); 124 on timeout (the task stacks
# also go to DIR/vmrun-timeout.log with --outdir); 125 if the guest died
# without reporting a status (panic, init failure); 2 on bad usage; 1 if the
# VM could not be set up.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
CACHE="${COSCHED_CACHE:-${HOME:-/root}/.cache/cosched}"

# Kernel log lines that make a run fail even when CMD succeeded.
DMESG_BAD='BUG:|Oops|WARNING:|Call Trace|general protection|KASAN|kmemleak|refcount_t|list_del corruption|UBSAN'
# ... except kmemleak's greetings at boot on a debug kernel (debug-kernel.sh)
# and its goodbye when debug-guest.sh turns the background scan off.
DMESG_OK='kmemleak: (Kernel memory leak detector initialized|Automatic memory scanning thread (started|ended))'
# What the guest init needs to mount the host root; modprobe resolves the
# rest (virtio_ring, netfs, fscache, ...) from modules.dep, and whatever is
# built into a kernel is simply skipped.
BOOT_MODULES=(virtio_pci 9pnet_virtio 9p)
# 9p message size: bigger means fewer round trips through QEMU; 512000 is
# the virtio transport's limit on these kernels.
MSIZE=512000

KERNEL=${COSCHED_KERNEL:-6.1}
SMP=2
MEM=1024
TIMEOUT=600
APPEND=
OUTDIR=
VERBOSE=0
CALIBRATED=0
SLICE_RULE=quantum
DILATION=
MODPARAMS=
HOST_QUANTUM_MS=
GUEST_TICK_NS=
ENV_NAMES=()
CMD=()
TMP=
QPID=
SPID=
LPID=
READERS=()

log() { echo "vmrun: $*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
	sed -n '4,43s/^# \{0,1\}//p' "$SELF" >&2
	exit "${1:-2}"
}

parse_args() {
	while (($#)); do
		case "$1" in
		--kernel) KERNEL=${2:?--kernel needs a value}; shift 2 ;;
		--smp) SMP=${2:?--smp needs a value}; shift 2 ;;
		--mem) MEM=${2:?--mem needs a value}; shift 2 ;;
		--timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2 ;;
		--append) APPEND=${2?--append needs a value}; shift 2 ;;
		--outdir) OUTDIR=${2:?--outdir needs a value}; shift 2 ;;
		--env) ENV_NAMES+=("${2:?--env needs a value}"); shift 2 ;;
		--verbose | -v) VERBOSE=1; shift ;;
		--calibrated) CALIBRATED=1; shift ;;
		--slice-rule) SLICE_RULE=${2:?--slice-rule needs a value}; shift 2 ;;
		-h | --help) usage 0 ;;
		--) shift; CMD=("$@"); break ;;
		*) log "unknown option '$1'"; usage ;;
		esac
	done
	((${#CMD[@]})) || { log "no command given"; usage; }
	[[ "$SLICE_RULE" == quantum || "$SLICE_RULE" == scale ]] ||
		{ log "--slice-rule: quantum or scale, not '$SLICE_RULE'"; usage; }
	[[ "$SMP" =~ ^[1-9][0-9]*$ && "$MEM" =~ ^[1-9][0-9]*$ && "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] ||
		{ log "--smp, --mem and --timeout take positive integers"; usage; }
	local n
	for n in "${ENV_NAMES[@]}"; do
		[[ "$n" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { log "bad --env name '$n'"; usage; }
	done
}

# Quote a string for POSIX sh (the guest runs the host's dash).
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# ---------------------------------------------------------------- initramfs

# The guest's /init. It only has to get the host root mounted and hand over;
# everything per run (paths, command) comes from the ctl share, so one
# initramfs per kernel serves every run.
guest_init() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys

# Any failure before the command runs: say why on the console and power off
# without a status file, which the host reports as exit 125.
die() { echo "vmrun-init: $*"; poweroff -f; sleep 10; }

while read -r m; do
	insmod "/modules/$m" || die "insmod $m failed"
done </modules/order

p9() { mount -t 9p -o "trans=virtio,version=9p2000.L,msize=@MSIZE@$3" "$1" "$2"; }
R=/newroot
p9 hostroot $R ,ro || die "cannot mount the host root over 9p"
p9 vmctl /ctl "" || die "cannot mount the ctl share"
. /ctl/guest.conf
# Hold on to the kernel's modules now: the cache may live under /tmp, which
# is about to be covered by a tmpfs.
mount --bind "$R$KMODS" /kmods || die "cannot find the modules in $KMODS"
mount -t proc proc $R/proc
mount -t sysfs sys $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $R/dev/pts
mount -t tmpfs tmpfs $R/dev/shm
for d in /tmp /run /var/tmp; do
	# A host $PWD under one of these (a CI clone in /tmp) must stay visible:
	# set its top directory aside and put it back on top of the tmpfs.
	keep=
	case "$HOSTPWD/" in "$d"/*/*) keep=${HOSTPWD#"$d"/} keep=$d/${keep%%/*} ;; esac
	[ -n "$keep" ] && mount --bind "$R$keep" /keep
	mount -t tmpfs -o mode=1777 tmpfs $R$d
	if [ -n "$keep" ]; then
		mkdir -p "$R$keep"
		mount --bind /keep "$R$keep" || die "cannot keep $keep visible"
		umount /keep
	fi
done
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
# QEMU's multi-threaded TCG can let one vCPU run a stale translation of
# kernel text that another vCPU is live-patching through int3
# (text_poke_bp): seen as "Oops: int3" in __schedule on 6.12 while
# insmod attached cosched's probe to sched_switch.  Keep that tracepoint's
# static key on from boot (event enabled, ring buffer off), so loading and
# unloading the module patch no kernel text.
ev=$R/sys/kernel/tracing/events/sched/sched_switch/enable
if [ -w "$ev" ]; then
	echo 0 >$R/sys/kernel/tracing/tracing_on
	echo 1 >"$ev"
fi
# The same race with the preempt notifiers' key, which cosched.ko takes at
# load: tests/vm/keyholder holds it from boot (built by make modules).
if [ -f "$R$KEYHOLDER" ]; then
	insmod "$R$KEYHOLDER" || die "insmod $KEYHOLDER failed"
else
	echo "vmrun-init: no $KEYHOLDER (make modules): module loads patch __schedule"
fi
# The kernel booted on one CPU (maxcpus=1) so that the patching above had
# no other vCPU to race with: bring the others up now.
for c in $R/sys/devices/system/cpu/cpu[0-9]*/online; do
	[ -e "$c" ] || continue
	[ "$(cat "$c")" = 1 ] || echo 1 >"$c" || die "cannot bring ${c%/online} online"
done
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null

mkdir -p $R/run/cosched $R/tmp/vmout
mount --bind /ctl $R/run/cosched
p9 vmout $R/tmp/vmout "" || die "cannot mount the results share"

# The host's /lib/modules has nothing for this kernel: put the unpacked
# image's modules (visible through the host root) in their place.
mount -t tmpfs -o mode=755 tmpfs $R/lib/modules
mkdir -p "$R/lib/modules/$KREL"
mount --bind /kmods "$R/lib/modules/$KREL" || die "cannot bind $KMODS"

ip link set lo up
hostname "$HOSTNAME"
# Raw ttys: no \n -> \r\n translation, no echo of anything back to the host.
stty -F /dev/ttyS1 raw -echo
stty -F /dev/ttyS2 raw -echo

chroot $R /usr/bin/env -i /bin/sh /run/cosched/run.sh </dev/null >/dev/ttyS1 2>/dev/ttyS2
echo $? >$R/run/cosched/status.tmp && mv $R/run/cosched/status.tmp $R/run/cosched/status
dmesg >$R/run/cosched/dmesg
poweroff -f
sleep 10
EOF
}

# build_initramfs <release> <unpacked image dir>: print the path of a cpio
# archive for that kernel, building it if the kernel, busybox or this script
# changed since the cached one was built.
build_initramfs() {
	local rel=$1 kdir=$2 dir="$CACHE/initramfs" key out stage line mod n=0
	key=$({
		sha256sum "$SELF" /bin/busybox
		cat "$kdir/.cosched-unpacked"
	} | sha256sum | cut -c1-16)
	out="$dir/$rel-$key.cpio"
	[[ -s "$out" ]] && { echo "$out"; return 0; }

	mkdir -p "$dir"
	exec 8>"$dir/.lock"
	flock 8
	[[ -s "$out" ]] && { echo "$out"; return 0; }
	stage=$(mktemp -d "$dir/.stage.XXXXXX")
	mkdir -p "$stage"/{bin,dev,proc,sys,modules,newroot,ctl,keep,kmods}
	cp /bin/busybox "$stage/bin/busybox"
	guest_init | sed "s/@MSIZE@/$MSIZE/" >"$stage/init"
	chmod 755 "$stage/init"
	# The kernel opens /dev/console for init before anything is mounted.
	mknod "$stage/dev/console" c 5 1 2>/dev/null || true

	# Modules in load order. busybox insmod cannot read .ko.xz/.ko.zst (6.12
	# ships .ko.xz), so decompress here.
	: >"$stage/modules/order"
	while read -r verb line _; do
		case "$verb" in
		builtin) continue ;; # e.g. virtio_pci on 6.12
		insmod) ;;
		*) rm -rf "$stage"; die "unexpected modprobe output: $verb $line" ;;
		esac
		mod=$(basename "$line")
		mod=$(printf '%02d-%s' "$n" "${mod%%.ko*}.ko")
		n=$((n + 1))
		case "$line" in
		*.ko.xz) xz -dc "$line" ;;
		*.ko.zst) zstd -qdc "$line" ;;
		*.ko.gz) gzip -dc "$line" ;;
		*.ko) cat "$line" ;;
		esac >"$stage/modules/$mod" || { rm -rf "$stage"; die "cannot decompress $line"; }
		echo "$mod" >>"$stage/modules/order"
	done < <(modprobe -d "$kdir" -S "$rel" -a --show-depends "${BOOT_MODULES[@]}" | awk '!seen[$2]++')

	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$stage.cpio" ||
		{ rm -rf "$stage" "$stage.cpio"; die "cpio failed"; }
	mv "$stage.cpio" "$out"
	rm -rf "$stage"
	# Old archives for this kernel are dead weight; leave recent ones in case a
	# run of another checkout is about to boot one.
	find "$dir" -maxdepth 1 -name "$rel-*.cpio" ! -name "$(basename "$out")" -mmin +60 -delete
	echo "$out"
}

# boot_kernel <release> <unpacked image dir>: print the kernel to boot.
# Debian's 6.1 vmlinuz is xz-compressed and decompressing it under TCG takes
# ~3.5 s of every boot, so boot the uncompressed ELF inside it instead: QEMU
# starts an ELF kernel through its PVH entry point (CONFIG_PVH=y in Debian),
# skipping the BIOS and the decompressor. Falls back to the vmlinuz.
boot_kernel() {
	local rel=$1 kdir=$2 vmlinuz="$2/boot/vmlinuz-$1" dir="$CACHE/initramfs" out tmp off
	out="$dir/vmlinux-$rel-$(sha256sum <"$kdir/.cosched-unpacked" | cut -c1-16)"
	[[ -s "$out" ]] && { echo "$out"; return 0; }
	mkdir -p "$dir"
	tmp=$(mktemp "$dir/.vmlinux.XXXXXX")
	# The payload starts at the first compression magic in the bzImage; the
	# decompressors complain about the trailing bytes after it, hence || true.
	for magic in '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -qdc' '\x1f\x8b\x08:gzip -dc'; do
		off=$(LC_ALL=C grep -obUaPm1 "${magic%%:*}" "$vmlinuz" | head -n1 | cut -d: -f1)
		[[ -n "$off" ]] || continue
		tail -c +"$((off + 1))" "$vmlinuz" | ${magic#*:} >"$tmp" 2>/dev/null || true
		# PVH needs the XEN_ELFNOTE_PHYS32_ENTRY (type 0x12) note.
		if readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
			mv "$tmp" "$out"
			echo "$out"
			return 0
		fi
	done
	rm -f "$tmp"
	echo "$vmlinuz"
}

# ---------------------------------------------------------------- one run

# Files the guest reads from the ctl share: guest.conf for /init, run.sh for
# the command (cwd, environment, argv).
write_ctl() {
	local ctl=$1 rel=$2 kdir=$3 n a
	{
		echo "KREL=$(shq "$rel")"
		echo "KMODS=$(shq "$kdir/lib/modules/$rel")"
		echo "HOSTNAME=$(shq "$(hostname)")"
		echo "HOSTPWD=$(shq "$PWD")"
		echo "KEYHOLDER=$(shq "$(cd "$HERE/../.." && pwd)/build/$rel/keyholder/keyholder.ko")"
	} >"$ctl/guest.conf"
	{
		echo "export PATH='/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'"
		echo "export HOME=/tmp TERM=dumb LANG=C.UTF-8"
		echo "export COSCHED_VMOUT=/tmp/vmout COSCHED_KVER=$(shq "$rel") COSCHED_VM=1"
		for n in "${ENV_NAMES[@]}"; do
			[[ -v "$n" ]] && echo "export $n=$(shq "${!n}")"
		done
		((CALIBRATED)) && calibrate_sh
		echo "cd $(shq "$PWD") || exit 126"
		printf 'exec'
		for a in "${CMD[@]}"; do printf ' %s' "$(shq "$a")"; done
		echo
	} >"$ctl/run.sh"
}

# 1 if this host's tasks are scheduled by autogroup: the sysctl on, and
# this process in the root CPU cgroup (a task elsewhere is scheduled by
# its cgroup, the sysctl notwithstanding).
host_autogroup() {
	local on cg
	on=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null) || on=0
	# cgroup v1: the line whose controllers include cpu; else v2's "0::".
	cg=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3; found = 1; exit }
		$1 == 0 && $2 == "" { v2 = $3 } END { if (!found) print v2 }' /proc/self/cgroup 2>/dev/null)
	[[ $on == 1 && $cg == / ]] && echo 1 || echo 0
}

# --calibrated: the guest's part of run.sh. Scale the slice constants that
# exist on this kernel, then rewrite tunable_scaling as it is: that stores
# the new values as the kernel's CPU-count-independent ones, so a CPU going
# on or offline keeps them scaled instead of resetting them.
#
# That a slice (EEVDF's base slice, CFS's ideal runtime) has run out is
# noticed at the next tick (or wake-up on that CPU), and the guest's tick is not dilated: a slice
# shorter than a tick (this host's) keeps a CPU hog on the CPU for the
# whole tick, so the host's effective quantum is its tick, while
# the guest's scaled slice ends at the first guest tick after it, far
# short of the factor times that quantum.  The quantum rule sets the
# slice half a guest tick short of factor x quantum (never below the
# scaled slice), so that the tick ending it is the one at factor x quantum.
calibrate_sh() {
	echo "export COSCHED_DILATION=$(shq "$DILATION") COSCHED_MODPARAMS=$(shq "$MODPARAMS")" \
		"COSCHED_HOST_QUANTUM_MS=$(shq "$HOST_QUANTUM_MS") COSCHED_SLICE_RULE=$(shq "$SLICE_RULE")"
	echo "tick_ns=$(shq "$GUEST_TICK_NS")"
	echo "autogroup=$(shq "${COSCHED_HOST_AUTOGROUP:-$(host_autogroup)}")"
	cat <<'EOF'
# Autogroup as on this host: each session's tasks share a CPU as one
# group, so a job spread over CPUs gets less of each than a one-CPU hog
# in a session of its own (Documentation/calibration.rst).
ag=/proc/sys/kernel/sched_autogroup_enabled
if [ -w $ag ]; then
	echo "$autogroup" >$ag || { echo "vmrun: --calibrated: cannot write $ag" >&2; exit 1; }
elif [ "$autogroup" != 0 ]; then
	echo "vmrun: --calibrated: this host schedules by autogroup; $ag is not writable here" >&2
	exit 1
fi
d=/sys/kernel/debug/sched
# put F V: write V into $d/F, or stop the guest's run.
put() { echo "$2" >$d/$1 || { echo "vmrun: --calibrated: cannot write $d/$1" >&2; exit 1; }; }
# scaled F: $d/F times the factor.
scaled() { awk -v x="$COSCHED_DILATION" '{ printf "%.0f", $1 * x }' $d/$1; }
# quantum FLOOR: the quantum rule's slice, factor x host quantum less half
# a guest tick, never below FLOOR.
quantum() {
	[ -n "$tick_ns" ] ||
		{ echo "vmrun: --calibrated: no CONFIG_HZ for $(uname -r): try --slice-rule scale" >&2; exit 1; }
	awk -v x="$COSCHED_DILATION" -v q="$COSCHED_HOST_QUANTUM_MS" -v t="$tick_ns" -v f="$1" \
		'BEGIN { w = q * 1e6 * x - t / 2; printf "%.0f", (w > f ? w : f) }'
}
if [ -e $d/base_slice_ns ]; then
	# EEVDF: every task's slice.
	v=$(scaled base_slice_ns) || exit 1
	[ "$COSCHED_SLICE_RULE" = quantum ] && { v=$(quantum "$v") || exit 1; }
	put base_slice_ns "$v"
elif [ -e $d/latency_ns ]; then
	# CFS: a task's slice is latency_ns shared among the runnable tasks,
	# never below min_granularity_ns.  The quantum rule makes both the
	# slice, so that it is the same at any count of tasks, as EEVDF's.
	# A waking task preempts when its sleeper credit (half latency_ns)
	# exceeds wakeup_granularity_ns: that one keeps its ratio to
	# latency_ns, as under the scale rule.
	l=$(scaled latency_ns) && m=$(scaled min_granularity_ns) &&
		w=$(scaled wakeup_granularity_ns) || exit 1
	if [ "$COSCHED_SLICE_RULE" = quantum ]; then
		m=$(quantum "$m") || exit 1
		w=$(awk -v m="$m" -v l="$(cat $d/latency_ns)" '{ printf "%.0f", $1 * m / l }' \
			$d/wakeup_granularity_ns) || exit 1
		l=$m
	fi
	put latency_ns "$l"
	put min_granularity_ns "$m"
	put wakeup_granularity_ns "$w"
else
	echo "vmrun: --calibrated: no slice constant in $d" >&2
	exit 1
fi
# Stores the values as the CPU-count-independent ones (and CFS's
# sched_nr_latency from latency_ns / min_granularity_ns).
s=$(cat $d/tunable_scaling) && echo "$s" >$d/tunable_scaling || exit 1
EOF
}

# Copy a FIFO's contents to a file descriptor in the background. If that fd
# goes away (`vmrun.sh ... | head`), keep draining the FIFO anyway: QEMU
# holds it open read-write, so instead of getting EPIPE it would wait for
# room in a full FIFO and stall the guest until the timeout. tee -p ignores
# EPIPE, and its second output (never failing) keeps it reading to EOF.
start_reader() {
	local fifo=$1 fd=$2 log=${3:-/dev/null}
	tee -p "$log" <"$fifo" >&"$fd" &
	READERS+=($!)
}

# Let the readers see EOF even if QEMU never opened their FIFOs, then wait.
stop_readers() {
	local f pid
	for f in "$TMP"/fifo/*.out; do
		[[ -p "$f" ]] || continue
		exec 7<>"$f"
		exec 7>&-
	done
	for pid in "${READERS[@]}"; do wait "$pid" 2>/dev/null || true; done
	READERS=()
}

cleanup() {
	[[ -n "$SPID" ]] && kill "$SPID" 2>/dev/null
	SPID=
	[[ -n "$LPID" ]] && kill "$LPID" 2>/dev/null
	LPID=
	[[ -n "$QPID" ]] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	QPID=
	[[ -n "$TMP" ]] && stop_readers
	[[ -n "$TMP" ]] && rm -rf "$TMP"
	return 0
}

on_signal() {
	log "interrupted by SIG$1"
	cleanup
	exit $((128 + $(kill -l "$1")))
}

qemu_cmd() {
	local kernel=$1 initrd=$2 ctl=$3 out=$4 loglevel=5
	# The console goes to a log that is shown only when the guest dies or
	# times out; loglevel 5 puts warnings and oopses there but keeps pr_info
	# off it, since printing to the serial console is synchronous and would
	# add latency to the code paths under test.
	((VERBOSE)) && loglevel=7
	local append="console=ttyS0 loglevel=$loglevel panic=-1 mitigations=off"
	# A bigger log buffer, so that a test flooding dmesg does not push an
	# early WARNING out before the end-of-run check reads it.
	append+=" log_buf_len=4M"
	# TCG is slow and the host may run several guests on 2 cores: give the
	# lockup and RCU stall detectors more slack so only real hangs trip them.
	append+=" watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60"
	# A stuck guest must explain itself: every sysrq (the timeout's stack
	# dump comes through the emulated keyboard), a soft lockup shows every
	# CPU, and a task blocked in D state is reported (not fatal) well
	# before --timeout: after TIMEOUT/4 s, 10 to 120 s (Debian's default).
	local hung=$((TIMEOUT / 4 < 10 ? 10 : TIMEOUT / 4 > 120 ? 120 : TIMEOUT / 4))
	append+=" sysrq_always_enabled softlockup_all_cpu_backtrace=1"
	append+=" hung_task_panic=0 sysctl.kernel.hung_task_timeout_secs=$hung"
	append+=" sysctl.kernel.hung_task_warnings=-1"
	# Boot on one CPU; the init brings the others up once it has switched
	# on the static keys whose live patching races under multi-threaded
	# TCG (see the init): "Oops: int3", or a guest wedged right after
	# insmod keyholder with both vCPUs deaf to sysrq (CI, 6.1).
	((SMP > 1)) && append+=" maxcpus=1"
	[[ -n "$APPEND" ]] && append+=" $APPEND"
	QEMU=(
		qemu-system-x86_64 -accel tcg -machine pc -cpu max
		-smp "$SMP" -m "$MEM"
		# Named threads ("CPU n/TCG"): host-load.sh tells QEMU's own
		# helpers' CPU from its vCPUs'.
		-name cosched,debug-threads=on
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$kernel" -initrd "$initrd" -append "$append"
		# ttyS0: kernel console, ttyS1: CMD's stdout, ttyS2: CMD's stderr.
		-chardev "pipe,id=con,path=$TMP/fifo/con" -serial chardev:con
		-chardev "pipe,id=out,path=$TMP/fifo/out" -serial chardev:out
		-chardev "pipe,id=err,path=$TMP/fifo/err" -serial chardev:err
		# The human monitor, for sendkey at a timeout.
		-chardev "pipe,id=mon,path=$TMP/fifo/mon" -mon "chardev=mon,mode=readline"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$ctl,mount_tag=vmctl,security_model=none"
		-virtfs "local,path=$out,mount_tag=vmout,security_model=none"
	)
}

# Print the kernel log from just before its first bad line; return 0 if bad.
check_dmesg() {
	local dmesg=$1 first
	first=$(grep -nE "$DMESG_BAD" "$dmesg" | grep -vE "$DMESG_OK" | head -n1 | cut -d: -f1)
	[[ -n "$first" ]] || return 1
	log "kernel problems in the guest's dmesg:"
	grep -E "$DMESG_BAD" "$dmesg" | grep -vE "$DMESG_OK" | sed 's/^/vmrun:   /' >&2
	log "dmesg from line $first:"
	tail -n +"$((first > 5 ? first - 5 : 1))" "$dmesg" | head -n 200 >&2
	return 0
}

console_tail() {
	log "last console lines:"
	tail -n 80 "$TMP/console.log" | tr -d '\r' >&2
	[[ -s "$TMP/qemu.log" ]] && { log "qemu said:"; cat "$TMP/qemu.log" >&2; }
	return 0
}

# size <file>: its size in bytes, 0 if missing.
size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# At a timeout, before the kill: press sysrq on the guest's keyboard
# through the QEMU monitor (9: console loglevel up, so the dumps, printed
# at KERN_INFO, reach the console; w: blocked tasks; l: every CPU's
# backtrace; t: every task's state and stack), wait until the console has
# been quiet for 3 s (at most 60 s), then print the console from before
# the timeout and the dump to stderr, and keep the whole console in
# --outdir.  A guest too wedged to take an interrupt prints nothing more.
dump_stacks() {
	local con="$TMP/console.log" at k quiet=0 n=0 last now
	at=$(size "$con")
	exec 9<>"$TMP/fifo/mon.in"
	for k in 9 w l t; do
		echo "sendkey alt-sysrq-$k" >&9
		sleep 0.5
	done
	exec 9>&-
	last=$(size "$con")
	while ((quiet < 3 && n < 60)) && kill -0 "$QPID" 2>/dev/null; do
		sleep 1
		now=$(size "$con")
		((now == last)) && quiet=$((quiet + 1)) || quiet=0
		last=$now n=$((n + 1))
	done
	log "last console lines before the timeout:"
	head -c "$at" "$con" | tr -d '\r' | tail -n 40 >&2
	if (($(size "$con") > at)); then
		log "task stacks (sysrq w, l, t):"
		tail -c +"$((at + 1))" "$con" | tr -d '\r' >&2
		log "end of task stacks"
	else
		log "the guest printed nothing after sysrq w, l, t"
	fi
	[[ -s "$TMP/qemu.log" ]] && { log "qemu said:"; cat "$TMP/qemu.log" >&2; }
	if [[ -n "$OUTDIR" ]]; then
		tr -d '\r' <"$con" >"$OUTDIR/vmrun-timeout.log"
		log "whole console with the stacks: $OUTDIR/vmrun-timeout.log"
	fi
	return 0
}

# Wait for QEMU, at most TIMEOUT s from its start; returns its status, or
# 124 after dumping the stacks and killing it.
wait_qemu() {
	local who='' rc=0 n=0
	sleep "$TIMEOUT" &
	SPID=$!
	wait -n -p who "$QPID" "$SPID" || rc=$?
	if [[ "$who" == "$QPID" ]]; then
		QPID=
		kill "$SPID" 2>/dev/null
		SPID=
		return "$rc"
	fi
	SPID=
	log "timeout: guest still running after ${TIMEOUT}s; dumping its task stacks, then killing it"
	dump_stacks
	kill "$QPID" 2>/dev/null
	# QEMU quits on SIGTERM; the KILL is for a QEMU that does not.
	while kill -0 "$QPID" 2>/dev/null && ((n++ < 50)); do sleep 0.1; done
	kill -KILL "$QPID" 2>/dev/null
	wait "$QPID" 2>/dev/null
	QPID=
	return 124
}

main() {
	parse_args "$@"
	local rel kdir initrd kernel ctl out start rc status f elapsed
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing; run scripts/setup.sh"
	rel=$("$HERE/kernels.sh" resolve "$KERNEL")
	kdir=$("$HERE/kernels.sh" image "$rel")
	initrd=$(build_initramfs "$rel" "$kdir")
	kernel=$(boot_kernel "$rel" "$kdir")
	if ((CALIBRATED)); then
		f=$("$HERE/../../bench/calibrate" --env --kernel "$rel" \
			${COSCHED_DILATION:+--dilation "$COSCHED_DILATION"}) || die "--calibrated: no factor for $rel"
		[[ -z ${COSCHED_HOST_AUTOGROUP+x} || $COSCHED_HOST_AUTOGROUP == [01] ]] ||
			die "--calibrated: COSCHED_HOST_AUTOGROUP is 0 or 1, not '$COSCHED_HOST_AUTOGROUP'"
		DILATION=$(sed -n 's/^COSCHED_DILATION=//p' <<<"$f")
		MODPARAMS=$(sed -n 's/^COSCHED_MODPARAMS=//p' <<<"$f")
		HOST_QUANTUM_MS=$(sed -n 's/^COSCHED_HOST_QUANTUM_MS=//p' <<<"$f")
		[[ -n "$DILATION" && -n "$HOST_QUANTUM_MS" ]] ||
			die "--calibrated: bench/calibrate gave no factor or no host quantum"
		# Empty if the kernel's config is not there: then the guest
		# refuses the quantum rule (only EEVDF needs the tick).
		GUEST_TICK_NS=$("$HERE/kernels.sh" tick "$rel") || GUEST_TICK_NS=
	fi

	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	trap cleanup EXIT
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/vmrun.XXXXXX")
	ctl="$TMP/ctl"
	out=${OUTDIR:-$TMP/out}
	mkdir -p "$ctl" "$out" "$TMP/fifo"
	out=$(cd "$out" && pwd)
	write_ctl "$ctl" "$rel" "$kdir"
	# QEMU's pipe chardev writes to <path>.out and reads <path>.in.
	for f in con out err mon; do mkfifo "$TMP/fifo/$f.in" "$TMP/fifo/$f.out"; done
	if ((VERBOSE)); then
		start_reader "$TMP/fifo/con.out" 2 "$TMP/console.log"
	else
		start_reader "$TMP/fifo/con.out" 1 "$TMP/console.log" >/dev/null
	fi
	start_reader "$TMP/fifo/out.out" 1
	start_reader "$TMP/fifo/err.out" 2
	start_reader "$TMP/fifo/mon.out" 1 "$TMP/monitor.log" >/dev/null

	qemu_cmd "$kernel" "$initrd" "$ctl" "$out"
	start=$EPOCHREALTIME
	"${QEMU[@]}" </dev/null >"$TMP/qemu.log" 2>&1 &
	QPID=$!
	# What else keeps the host busy meanwhile, for CMD to read
	# ($COSCHED_VMOUT/host-load.csv; bench/run-mix records it per run).
	"$HERE/host-load.sh" "$QPID" "$out/host-load.csv" &
	LPID=$!
	rc=0
	wait_qemu || rc=$?
	kill "$LPID" 2>/dev/null
	LPID=
	stop_readers
	elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

	if ((rc == 124)); then
		log "timeout: $rel guest still running after ${TIMEOUT}s, killed"
		status=124
	elif [[ ! -s "$ctl/status" ]]; then
		log "the $rel guest died without reporting a status (qemu exit $rc)"
		console_tail
		status=125
	else
		status=$(cat "$ctl/status")
		if [[ -f "$ctl/dmesg" ]] && check_dmesg "$ctl/dmesg"; then
			log "command exit=$status, failing the run because of the kernel log"
			status=3
		fi
	fi
	log "$rel smp=$SMP${DILATION:+ dilation=$DILATION} exit=$status in ${elapsed}s"
	return "$status"
}

main "$@"
