#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bounded.sh SECONDS CMD [ARGS...]: run CMD, in a session of its own, for at
# most SECONDS.  If it is still running then, print on stderr where each of
# its processes is (scheduling class and priority, state, CPU, kernel stack
# of every thread, user stack through gdb when installed), kill them all
# and exit 124; otherwise exit with CMD's status.  A benchmark step that
# hangs thus says where, instead of running into the guest's timeout.
set -u
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: bounded.sh SECONDS CMD [ARGS...]" >&2
	exit 2
fi
limit=$1
shift
# -w: if setsid has to fork, it still waits for CMD and returns its status.
setsid -w "$@" &
pid=$!
sleep "$limit" &
timer=$!
who=''
rc=0
wait -n -p who "$pid" "$timer" || rc=$?
if [ "$who" = "$pid" ]; then
	kill "$timer" 2>/dev/null
	exit "$rc"
fi

# pid and every process below it, parents first.
tree() {
	ps -e -o pid=,ppid= | awk -v top="$1" '
		{ parent[$1] = $2; order[NR] = $1 }
		END { keep[top] = 1; print top
		      do { more = 0
			   for (i = 1; i <= NR; i++) { p = order[i]
				if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; print p; more = 1 } }
		      } while (more) }'
}

procs=$(tree "$pid")
{
	echo "bounded.sh: still running after ${limit}s: $*"
	# shellcheck disable=SC2086 # one argument per pid
	ps -o pid,ppid,cls,rtprio,ni,stat,psr,time,wchan:32,comm -p "$(echo $procs | tr ' ' ,)"
	for p in $procs; do
		[ -d "/proc/$p" ] || continue
		echo "bounded.sh: pid $p ($(cat "/proc/$p/comm" 2>/dev/null)): $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
		for t in /proc/"$p"/task/*; do
			echo "  thread ${t##*/} $(cat "$t/comm" 2>/dev/null)," \
				"$(sed -n 's/^State:\t//p' "$t/status" 2>/dev/null)," \
				"syscall: $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
			sed 's/^/    /' "$t/stack" 2>/dev/null
		done
		# A shell waiting for its child says enough; gdb is slow in a guest.
		if command -v gdb >/dev/null && [ "$(cat "/proc/$p/wchan" 2>/dev/null)" != do_wait ]; then
			timeout 60 gdb -batch -nx -p "$p" -ex 'thread apply all bt 25' 2>/dev/null |
				grep -E '^(Thread |#)' | sed 's/^/    /'
		fi
	done
	echo "bounded.sh: end of the processes of: $*"
} >&2
# Quiet from here: bash would report the killed job on stderr.
exec 2>/dev/null
# shellcheck disable=SC2086
kill -KILL -- -"$pid" $procs
kill "$timer"
wait "$pid"
exit 124
