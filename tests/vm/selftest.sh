#!/usr/bin/env bash
# selftest.sh - test the VM harness itself (vmrun.sh + kernels.sh) on the host.
#
# usage: tests/vm/selftest.sh [kernel...]      (default: 6.1 6.12)
#
# Per kernel, one boot runs a batch of probes whose answers are checked here
# (repo visible, uname -r, module loading, results share, lo up, nproc, env,
# stdout/stderr kept apart), one boot checks that CMD's exit status comes
# back, and one that --calibrated exports the factor and stretches the
# scheduler's slice by the quantum rule (CFS: its latency too, and the
# wake-up granularity in proportion), two more boots its floor and
# --slice-rule scale, and on EEVDF one more a factor and quantum that
# bench/calibrate measures, skipped if it finds the host too busy.  On
# the first kernel, three more boots check that a kernel WARNING fails the run
# (exit 3), that --timeout kills the guest (exit 124), and that a guest
# hung on purpose has every task's stack printed before the kill.
# Prints "ok N - ..." / "not ok N - ..." lines and "N passed, N failed".
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VMRUN="$HERE/vmrun.sh"
KERNELS="$HERE/kernels.sh"
PASSED=0
FAILED=0
N=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vmselftest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# check <description> <command...>: one TAP line from the command's status.
check() {
	local what=$1
	shift
	N=$((N + 1))
	if "$@"; then
		echo "ok $N - $what"
		PASSED=$((PASSED + 1))
	else
		echo "not ok $N - $what"
		FAILED=$((FAILED + 1))
	fi
}

# skip <description> <reason>: one TAP line for a check that could not run.
skip() {
	N=$((N + 1))
	echo "ok $N - $1 # SKIP $2"
	PASSED=$((PASSED + 1))
}

# Show the end of a file as TAP diagnostics (after a failure).
diag() { [[ -f "$1" ]] && tail -n 20 "$1" | sed 's/^/#   /'; return 0; }

# The probes, run by bash inside the guest; each prints "key=value".
# shellcheck disable=SC2016 # expanded in the guest, not here
PROBES='
echo "pwd=$PWD"
echo "repo=$(sha256sum tests/vm/selftest.sh | cut -d" " -f1)"
echo "uname=$(uname -r)"
echo "kver=$COSCHED_KVER"
modprobe dummy && grep -q "^dummy " /proc/modules && echo "module=loaded"
echo "$SELFTEST_TOKEN" >"$COSCHED_VMOUT/token"
ip -o link show lo | grep -q "[<,]UP[,>]" && echo "lo=up"
echo "nproc=$(nproc)"
echo "token=$SELFTEST_TOKEN"
echo "tracing=$(test -e /sys/kernel/tracing/trace && echo yes)"
echo "bpffs=$(stat -f -c %T /sys/fs/bpf)"
echo "hung_task=$(cat /proc/sys/kernel/hung_task_timeout_secs)"
echo "stderr-probe" >&2
'
# The scheduler's slice (6.12: EEVDF's base slice; 6.1: CFS's minimum
# granularity, and its latency) and the factor vmrun.sh --calibrated
# exports; also part of the batch above.
# shellcheck disable=SC2016 # expanded in the guest, not here
SLICE='cd /sys/kernel/debug/sched && echo "slice=$(cat base_slice_ns 2>/dev/null || cat min_granularity_ns)"
echo "latency=$(cat latency_ns 2>/dev/null)"
echo "wakeup=$(cat wakeup_granularity_ns 2>/dev/null)"
echo "eevdf=$(test -e base_slice_ns && echo yes || echo no)"
echo "dilation=$COSCHED_DILATION"
echo "autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0)"'
PROBES+=$SLICE

streams_apart() { grep -qx stderr-probe "$2" && ! grep -q stderr-probe "$1"; }

summary_ok() {
	local line
	line=$(tail -n1 "$1")
	[[ "$line" =~ ^vmrun:\ (.*)\ smp=2\ exit=0\ in\ [0-9.]+s$ && "${BASH_REMATCH[1]}" == "$2" ]]
}

# slice_from_measured <status> <file> <tick ns> <own slice ns>: exit 0, a
# factor and a quantum exported, and the slice is factor x quantum - half
# a tick, or factor x the own slice if that is more (within 1 us: the
# guest rounds).
slice_from_measured() {
	[[ "$1" -eq 0 ]] || return 1
	awk -F= -v t="$3" -v own="$4" '$1 == "slice" { s = $2 } $1 == "dilation" { d = $2 }
		$1 == "quantum" { q = $2 }
		END { w = d * q * 1e6 - t / 2; if (d * own > w) w = d * own
			exit !(d > 0 && q > 0 && s - w < 1000 && w - s < 1000) }' "$2"
}

# exited_saying <status> <expected> <pattern> <file>
exited_saying() { [[ "$1" -eq "$2" ]] && grep -q "$3" "$4"; }

# fact <file> <key>: the value the guest printed for key.
fact() { sed -n "s/^$2=//p" "$1" | head -n1; }

test_kernel() {
	local k=$1 rel dir status out err token slice scaled tick
	rel=$("$KERNELS" resolve "$k")
	dir="$TMP/$k"
	mkdir -p "$dir/out"
	out="$dir/stdout"
	err="$dir/stderr"
	token="$k-$$-$RANDOM"

	status=0
	SELFTEST_TOKEN=$token "$VMRUN" --kernel "$k" --smp 2 --timeout 300 \
		--outdir "$dir/out" --env SELFTEST_TOKEN -- bash -c "$PROBES" >"$out" 2>"$err" || status=$?
	check "$k: probe batch exits 0 (like true)" test "$status" -eq 0 || diag "$err"
	check "$k: cwd is the host's \$PWD" test "$(fact "$out" pwd)" = "$PWD"
	check "$k: guest reads the host repo" \
		test "$(fact "$out" repo)" = "$(sha256sum "$HERE/selftest.sh" | cut -d' ' -f1)"
	check "$k: uname -r is $rel" test "$(fact "$out" uname)" = "$rel"
	check "$k: COSCHED_KVER is $rel" test "$(fact "$out" kver)" = "$rel"
	check "$k: modprobe dummy loads the guest kernel's module" test "$(fact "$out" module)" = loaded
	check "$k: \$COSCHED_VMOUT shows up in --outdir on the host" \
		test "$(cat "$dir/out/token" 2>/dev/null)" = "$token"
	check "$k: lo is UP" test "$(fact "$out" lo)" = up
	check "$k: --smp 2 gives nproc 2" test "$(fact "$out" nproc)" = 2
	check "$k: --env passes a variable" test "$(fact "$out" token)" = "$token"
	check "$k: tracefs at /sys/kernel/tracing" test "$(fact "$out" tracing)" = yes
	check "$k: bpffs at /sys/fs/bpf" test "$(fact "$out" bpffs)" = bpf_fs
	check "$k: hung-task detector armed at --timeout / 4 (75 s)" test "$(fact "$out" hung_task)" = 75
	check "$k: CMD's stderr on stderr, not stdout" streams_apart "$out" "$err"
	check "$k: vmrun's summary is the last stderr line" summary_ok "$err" "$rel"

	status=0
	"$VMRUN" --kernel "$k" --timeout 300 -- sh -c 'exit 7' >"$dir/exit.out" 2>&1 || status=$?
	check "$k: sh -c 'exit 7' exits 7" test "$status" -eq 7 || diag "$dir/exit.out"

	# A given factor and host quantum, so that nothing is measured here
	# (bench/calibrate's job).  The slice follows the quantum rule: 2.5 x
	# 4 ms less half a guest tick (its CONFIG_HZ); on CFS the latency is
	# that slice too, so that the slice is the same at any count of tasks.
	status=0
	COSCHED_DILATION=2.5 COSCHED_HOST_QUANTUM_MS=4 "$VMRUN" --kernel "$k" --calibrated \
		--timeout 300 -- sh -c "$SLICE" >"$dir/cal.out" 2>&1 || status=$?
	check "$k: --calibrated exits 0 and exports COSCHED_DILATION=2.5" \
		test "$status:$(fact "$dir/cal.out" dilation)" = 0:2.5 || diag "$dir/cal.out"
	# The host's autogroup, given as the opposite of the guest's own so
	# that the write shows (6.1 boots with it off, 6.12 on).
	local booted want
	booted=$(fact "$out" autogroup)
	want=$((1 - booted))
	status=0
	COSCHED_HOST_AUTOGROUP=$want COSCHED_DILATION=2.5 COSCHED_HOST_QUANTUM_MS=4 "$VMRUN" \
		--kernel "$k" --calibrated --timeout 300 -- sh -c "$SLICE" >"$dir/ag.out" 2>&1 || status=$?
	check "$k: --calibrated gives the guest the host's autogroup ($want; booted: $booted)" \
		test "$status:$(fact "$dir/ag.out" autogroup)" = "0:$want" || diag "$dir/ag.out"
	slice=$(fact "$out" slice)
	scaled=$(awk -v s="$slice" 'BEGIN { printf "%.0f", s * 2.5 }')
	tick=$("$KERNELS" tick "$rel") || tick=
	check "$k: the kernel's config gives its tick" test -n "$tick" || return 0
	check "$k: --calibrated sets the slice to 2.5 x 4 ms - half a tick ($tick ns)" \
		test "$(fact "$dir/cal.out" slice)" = $((10000000 - tick / 2)) || diag "$dir/cal.out"
	cfs=$([[ "$(fact "$out" eevdf)" == yes ]] || echo yes)
	if [[ $cfs ]]; then
		check "$k: CFS: the latency is that slice" \
			test "$(fact "$dir/cal.out" latency)" = $((10000000 - tick / 2)) || diag "$dir/cal.out"
		check "$k: CFS: the wake-up granularity keeps its ratio to the latency" \
			test "$(fact "$dir/cal.out" wakeup)" = "$(awk -v w="$(fact "$out" wakeup)" \
			-v l="$(fact "$out" latency)" -v s=$((10000000 - tick / 2)) \
			'BEGIN { printf "%.0f", w * s / l }')" || diag "$dir/cal.out"
	fi
	# A host quantum so short that the rule would shorten the slice: the
	# floor, factor x the guest's own slice.
	status=0
	COSCHED_DILATION=2.5 COSCHED_HOST_QUANTUM_MS=0.5 "$VMRUN" --kernel "$k" --calibrated \
		--timeout 300 -- sh -c "$SLICE" >"$dir/floor.out" 2>&1 || status=$?
	check "$k: the quantum rule never sets less than 2.5 x the own slice ($slice ns)" \
		test "$status:$(fact "$dir/floor.out" slice)" = "0:$scaled" || diag "$dir/floor.out"
	status=0
	COSCHED_DILATION=2.5 COSCHED_HOST_QUANTUM_MS=4 "$VMRUN" --kernel "$k" --calibrated \
		--slice-rule scale --timeout 300 -- sh -c "$SLICE" >"$dir/scale.out" 2>&1 || status=$?
	check "$k: --slice-rule scale scales the slice ($slice ns) by 2.5" \
		test "$status:$(fact "$dir/scale.out" slice)" = "0:$scaled" || diag "$dir/scale.out"
	if [[ $cfs ]]; then
		check "$k: CFS: --slice-rule scale scales the latency ($(fact "$out" latency) ns) by 2.5" \
			test "$(fact "$dir/scale.out" latency)" = \
			"$(awk -v s="$(fact "$out" latency)" 'BEGIN { printf "%.0f", s * 2.5 }')" ||
			diag "$dir/scale.out"
		# The factor and quantum's measurement is the same on every
		# kernel: tested once, on EEVDF.
		return 0
	fi
	# No factor given: bench/calibrate measures (or takes its cache), the
	# host's quantum too, as for `make demo` on a fresh machine.
	status=0
	env -u COSCHED_DILATION -u COSCHED_HOST_QUANTUM_MS "$VMRUN" --kernel "$k" --calibrated \
		--timeout 300 -- sh -c "$SLICE; echo quantum=\$COSCHED_HOST_QUANTUM_MS" \
		>"$dir/measured.out" 2>&1 || status=$?
	if grep -q "host too busy" "$dir/measured.out"; then
		skip "$k: --calibrated with a measured factor and quantum" \
			"bench/calibrate refused: $(grep -m1 "host too busy" "$dir/measured.out")"
	else
		check "$k: --calibrated with a measured factor and quantum: slice = factor x quantum - half a tick" \
			slice_from_measured "$status" "$dir/measured.out" "$tick" "$slice" ||
			diag "$dir/measured.out"
	fi
	# Refused before a guest boots: a rule or a host quantum that is no such thing.
	status=0
	"$VMRUN" --kernel "$k" --calibrated --slice-rule tick -- true >"$dir/badrule.out" 2>&1 || status=$?
	check "$k: --slice-rule tick is refused (exit 2)" test "$status" -eq 2 || diag "$dir/badrule.out"
	status=0
	COSCHED_DILATION=2.5 COSCHED_HOST_QUANTUM_MS=0 "$VMRUN" --kernel "$k" --calibrated \
		-- true >"$dir/badq.out" 2>&1 || status=$?
	check "$k: COSCHED_HOST_QUANTUM_MS=0 is refused (exit 1)" \
		exited_saying "$status" 1 "quantum: a positive number" "$dir/badq.out" || diag "$dir/badq.out"
}

# Failure paths, on one kernel only: they test vmrun.sh, not the kernel.
test_failures() {
	local k=$1 status
	status=0
	"$VMRUN" --kernel "$k" --timeout 300 -- \
		sh -c 'echo "WARNING: selftest fake warning" >/dev/kmsg' >"$TMP/warn.out" 2>&1 || status=$?
	check "$k: a WARNING in dmesg fails the run with 3" test "$status" -eq 3 || diag "$TMP/warn.out"
	status=0
	"$VMRUN" --kernel "$k" --timeout 3 -- sleep 60 >"$TMP/timeout.out" 2>&1 || status=$?
	check "$k: --timeout kills the guest with 124" test "$status" -eq 124 || diag "$TMP/timeout.out"

	# A guest that hangs on purpose: the sleeping task must show up in the
	# dump with its stack, on stderr and in --outdir.
	status=0
	mkdir -p "$TMP/hang"
	"$VMRUN" --kernel "$k" --timeout 20 --outdir "$TMP/hang" -- sleep 1000 >"$TMP/hang.out" 2>&1 || status=$?
	check "$k: a hung guest (sleep 1000, --timeout 20) exits 124" test "$status" -eq 124 || diag "$TMP/hang.out"
	check "$k: the timeout prints the sleeping task's stack on stderr" \
		stack_shown "$TMP/hang.out" || diag "$TMP/hang.out"
	check "$k: ... and keeps it in --outdir/vmrun-timeout.log" stack_shown "$TMP/hang/vmrun-timeout.log"
}

# stack_shown <file>: sysrq-t's entry for the task "sleep", with a stack
# that reaches its nanosleep system call within the next 20 lines.
stack_shown() {
	awk '/ task:sleep +state:/ { at = NR } at && NR - at <= 20 && /nanosleep/ { found = 1 }
		END { exit !found }' "$1" 2>/dev/null
}

main() {
	local kernels=("$@") k
	((${#kernels[@]})) || kernels=(6.1 6.12)
	cd "$HERE/../.."
	for k in "${kernels[@]}"; do test_kernel "$k"; done
	test_failures "${kernels[0]}"
	echo "$PASSED passed, $FAILED failed"
	((FAILED == 0))
}

main "$@"
