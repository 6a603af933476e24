#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hooks-bpf.sh: the BPF arrival hooks and their admin command
# (bpf/hooks/cosched-hooks, built by make -C bpf/hooks).
#   - Where the module has kfuncs (6.12): attach loads arrival.bpf.o (the
#     verifier accepts every program: the host, without cosched.ko, cannot
#     resolve the kfuncs, so this is where it is load-tested), pins three
#     links under /sys/fs/bpf/cosched and switches the built-in hooks off;
#     a second attach changes nothing; the hooks test runs with the BPF
#     path (-B, with the blocked receiver's wake latency); rmmod is refused
#     while programs use the kfuncs; detach removes every link and turns
#     the built-in hooks on; a second detach changes nothing; then rmmod.
#   - Without kfuncs (6.1): attach says so, exits 0 and pins nothing.
#
# usage: hooks-bpf.sh [wake samples]    (as root, repository root)

BIN=${BIN:-build/tests}
H=build/bpf/hooks/cosched-hooks
P=/sys/module/cosched/parameters
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
WN=${1:-200}
. "$(dirname "$0")/lib/tap.sh"

[ -x "$H" ] || { echo "not ok 1 - no $H (make -C bpf/hooks)"; exit 1; }
pinned() { ls /sys/fs/bpf/cosched 2>/dev/null | wc -l; }

if [ "$(cat $P/bpf_kfuncs)" != Y ]; then
	out=$($H attach); rc=$?
	echo "$out" | sed 's/^/# /'
	tap "$([ $rc = 0 ] && echo 1)" "attach without kfuncs exits 0" "rc $rc"
	case $out in *"built-in hooks are active; nothing to attach"*) r=1 ;; *) r=0 ;; esac
	tap $r "it says the built-in hooks are active" "$out"
	tap "$([ "$(pinned)" = 0 ] && echo 1)" "nothing pinned" "$(ls /sys/fs/bpf/cosched 2>&1)"
	tap "$([ "$(cat $P/builtin_hooks)" = Y ] && echo 1)" "built-in hooks still on" ""
	$H status | sed 's/^/# /'
	echo "1..$num"; exit $fail
fi

out=$($H attach 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
tap "$([ $rc = 0 ] && [ "$(pinned)" = 3 ] && echo 1)" "attach: loaded, attached, 3 links pinned" "rc $rc"
tap "$([ "$(cat $P/builtin_hooks)" = N ] && echo 1)" "attach turned the built-in hooks off" ""
out=$($H attach 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
case $out in *already*) r=1 ;; *) r=0 ;; esac
tap "$([ $rc = 0 ] && [ $r = 1 ] && [ "$(pinned)" = 3 ] && echo 1)" "attach again: already attached, nothing changed" "$out"
$H status | sed 's/^/# /'
bpftool prog show 2>/dev/null | grep -E "cosched_(tcp|ring)" | sed 's/^/# /'

"$BIN/hooks" -B -w "$WN" -n 0 > /tmp/hooks-bpf.out 2>&1; rc=$?
sed 's/^/#   /' /tmp/hooks-bpf.out
tap "$([ $rc = 0 ] && echo 1)" "hooks test with the BPF path (-B)" "exit $rc"

"$(dirname "$0")/../../scripts/rmmod-cosched" -q
tap "$([ -d /sys/module/cosched ] && echo 1)" "rmmod refused while BPF programs use the kfuncs" ""

out=$($H detach 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
tap "$([ $rc = 0 ] && [ "$(pinned)" = 0 ] && [ ! -d /sys/fs/bpf/cosched ] && echo 1)" "detach: no link left" "rc $rc"
tap "$([ "$(cat $P/builtin_hooks)" = Y ] && echo 1)" "detach turned the built-in hooks on" ""
out=$($H detach 2>&1); rc=$?
case $out in *"not attached"*) r=1 ;; *) r=0 ;; esac
tap "$([ $rc = 0 ] && [ $r = 1 ] && echo 1)" "detach again: nothing to do" "$out"
# The programs go once their links do (freed asynchronously).
i=0
while [ $i -lt 50 ] && bpftool prog show 2>/dev/null | grep -q cosched_tcp; do
	sleep 0.1; i=$((i + 1))
done
"$(dirname "$0")/../../scripts/rmmod-cosched"
tap "$([ ! -d /sys/module/cosched ] && echo 1)" "rmmod after detach" ""
insmod "$KO"
echo "1..$num"
exit $fail
