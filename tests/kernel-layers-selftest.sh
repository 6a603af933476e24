#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of tests/kernel-layers.py: the tree as it is passes, and each
# injected violation (a call up a layer, also through a local prototype,
# a shared mutable global of each kind) in a copy of kernel/ fails.
# Prints "ok"/"not ok" per case; exits 1 if any case is wrong.
root=$(cd "$(dirname "$0")/.." && pwd)
check="python3 $root/tests/kernel-layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

$check "$root/kernel" >/dev/null || { echo "not ok - the tree passes"; bad=1; }

inject() {	# inject <label> <file> <text appended to it>
	rm -rf "$tmp/k" && cp -r "$root/kernel" "$tmp/k"
	printf '%s\n' "$3" >> "$tmp/k/$2"
	if $check "$tmp/k" >/dev/null; then
		echo "not ok - caught: $1"
		bad=1
	else
		echo "ok - caught: $1"
	fi
}

inject "an object calling a mechanism" endpoint.c \
	'static void up(void) { cosched_pb_update(); }'
inject "an upward call through a local prototype" endpoint.c \
	'void cosched_pb_update(void);
static void up(void) { cosched_pb_update(); }'
inject "an upward include" job.c '#include "policy.h"'
inject "a shared variable" endpoint.c 'int cosched_shared_count;'
inject "a shared mutex" endpoint.c 'DEFINE_MUTEX(cosched_shared_lock);'
inject "a shared list" endpoint.c 'LIST_HEAD(cosched_shared_list);'
inject "a mutable pointer to const" tunables.c \
	'const struct cosched_policy_desc *cosched_cur_policy;'
inject "a shared function pointer" task.c 'void (*cosched_hook_fn)(void);'
inject "an extern of a mutable global" endpoint.h 'extern int cosched_shared_count;'
inject "a cycle within a layer" boost.c \
	'static void cyc(void) { cosched_pick_local(NULL); }'
exit $bad
