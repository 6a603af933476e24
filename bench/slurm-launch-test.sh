#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/run-mix --slurm on the host, in seconds, with no Slurm: the srun
# line each column gets (bench/runner/launch.py; and gang's command line
# on hosts without Slurm), the columns --slurm
# refuses and adds, and a fake sweep (COSCHED_MIX_FAKE) over the Slurm
# baselines.  The real thing runs in the guest cluster
# (tests/vm/cluster/slurm-smoke.sh, Documentation/results/cluster/).
# bench/mix-smoke.sh runs it.  Prints "ok"/"not ok" lines and "N passed,
# N failed".
set -u
cd "$(dirname "$0")/.."
. bench/tap.sh

# srun_line COLUMN MPI: the command run-mix --slurm starts for job 1 of
# a 2-node mix (net-if eth0), one word per line.
srun_line() {
	python3 - "$1" "$2" <<'EOF'
import sys
sys.path.insert(0, "bench")
from runner import columns, launch, mix
col = columns.parse_one(sys.argv[1], 100)
cluster = launch.Cluster(".", 2, ["node0", "node1"], net_if="eth0", slurm=True)
paths = launch.Paths("/r", sys.argv[2])
job = mix.Job(0, "life", ["-v", "hi"])
cmd, _ = launch.job_command(paths, cluster, col, job, 1, ["-n", "7"])
print("\n".join(cmd))
EOF
}

has() { printf '%s\n' "$1" | grep -qx -- "$2"; }
lacks() { ! printf '%s\n' "$1" | grep -q -- "$2"; }

l=$(srun_line dcs openmpi)
if has "$l" srun && has "$l" --cosched && has "$l" --mpi=pmix && has "$l" -N &&
   has "$l" --cpu-bind=none && has "$l" -J && printf "%s\n" "$l" | grep -qx "run-mix-[0-9]*-1:life-hi" &&
   has "$l" OMPI_MCA_btl_tcp_if_include=eth0 && has "$l" /r/build/bench/workloads/openmpi/life &&
   [ "$(printf '%s\n' "$l" | tail -n 4 | tr '\n' ' ')" = "hi -n 7 -q " ] && lacks "$l" '^-p$'; then
	ok "dcs: srun --cosched --mpi=pmix --cpu-bind=none, named after this runner and the job, Open MPI on eth0, the job's arguments and size"
else
	nok "dcs: srun line"; printf '%s\n' "$l" | tr '\n' ' ' | sed 's/^/#   /'; echo
fi
l=$(srun_line busy-poll mpich)
if has "$l" --cosched=off && has "$l" --mpi=pmi2 && has "$l" COSCHED_MPI_IMPL=mpich &&
   has "$l" MPIR_CVAR_NOLOCAL=1 &&
   has "$l" UCX_NET_DEVICES=eth0 && has "$l" /r/build/bench/workloads/mpich/life; then
	ok "busy-poll with MPICH: --cosched=off, --mpi=pmi2, UCX on eth0, no shared memory"
else
	nok "busy-poll with MPICH: srun line"; printf '%s\n' "$l" | tr '\n' ' ' | sed 's/^/#   /'; echo
fi
l=$(srun_line mpi-yield mpich)
if has "$l" OMPI_MCA_mpi_yield_when_idle=1 && has "$l" --mpi=pmix && has "$l" --cosched=off; then
	ok "mpi-yield: Open MPI whatever -m says, yield_when_idle through the environment"
else
	nok "mpi-yield: srun line"; printf '%s\n' "$l" | tr '\n' ' ' | sed 's/^/#   /'; echo
fi
# gang on hosts (not Slurm): an agent on every host, the jobs' ids as
# cosched-run -j gives them, through run-mix's remote shell.
l=$(python3 - <<'EOF'
import sys
sys.path.insert(0, "bench")
from runner import columns, launch
col = columns.parse_one("gang:50", 100)
cluster = launch.Cluster(".", 2, ["node0", "node1"], net_if="eth0",
                         remote=["cosched-rexec"])
argv = launch.gang_argv(launch.Paths("/r", "openmpi"), cluster, col,
                        [["job1"], ["job2"]], [1, 2])
print("\n".join(argv))
EOF
)
if [ "$(printf '%s\n' "$l" | tr '\n' ' ')" = "/r/build/bench/workloads/gang -s 50ms -R -H node0,node1 -k COSCHED_JOB=1,2 -r cosched-rexec -- job1 -- job2 " ]; then
	ok "gang on hosts: ranks only (-R), an agent on each host through the remote shell, the jobs marked by COSCHED_JOB"
else
	nok "gang on hosts: gang's command line"; printf '%s\n' "$l" | tr '\n' ' ' | sed 's/^/#   /'; echo
fi
# The jobs' pids as gang names them, in the jobs' order: a stand-in gang
# that names job 0 with the larger pid (as after a pid wrap), then the
# real gang with two sleeps.
start_gang() { # ROOT
	python3 - "$1" <<'EOF'
import sys
sys.path.insert(0, "bench")
from runner import columns, launch
col = columns.parse_one("gang:50", 100)
cluster = launch.Cluster(".", 2, [], net_if=None)
p, pids = launch.start_gang(launch.Paths(sys.argv[1], "openmpi"), cluster, col,
                            [["sleep", "0.5"], ["sleep", "0.5"]], [1, 2],
                            sys.argv[1] + "/run", 0)
p.wait()
print(" ".join(map(str, pids)))
EOF
}
tg=$(mktemp -d)
mkdir -p "$tg/build/bench/workloads"
printf '#!/bin/sh\necho "gang started job=1 pid=4100"\necho "gang started job=0 pid=4200"\n' \
	>"$tg/build/bench/workloads/gang"
chmod +x "$tg/build/bench/workloads/gang"
l=$(start_gang "$tg")
if [ "$l" = "4200 4100" ]; then
	ok "run-mix's gang: the jobs' pids as gang names them, not in pid order"
else
	nok "run-mix's gang: the jobs' pids as gang names them ($l)"
fi
ln -sf "$PWD/build/bench/workloads/gang" "$tg/build/bench/workloads/gang"
l=$(start_gang "$tg")
ends=$(sed -n 's/^job=\([0-9]\) pid=\([0-9]*\) .*/\1 \2/p' "$tg/run_gang.out" | sort | cut -d' ' -f2 | tr '\n' ' ')
if [ -n "$l" ] && [ "$l " = "$ends" ]; then
	ok "run-mix's gang: with gang itself, the pids of its per-job lines ($l)"
else
	nok "run-mix's gang: with gang itself ($l against $ends)"; sed 's/^/#   /' "$tg/run_gang.out"
fi
rm -rf "$tg"
l=$(srun_line slurm-gang openmpi)
if has "$l" --cosched=off && lacks "$l" '^-p$'; then
	ok "slurm-gang: no glue, Slurm's default partition"
else
	nok "slurm-gang: srun line"; printf '%s\n' "$l" | tr '\n' ' ' | sed 's/^/#   /'; echo
fi

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export COSCHED_MIX_FAKE="$t/runs.log" COSCHED_MIX_FAKE_S=0.01
out=$(bench/run-mix --slurm -o "$t/a" -p dcs,gang -r 1 -t 1 12 2>&1)
st=$?
if [ "$st" = 1 ] && printf '%s' "$out" | grep -q "'gang' stops the mpiexec trees it starts, not Slurm's steps; with --slurm use slurm-gang"; then
	ok "--slurm refuses gang, naming slurm-gang"
else
	nok "--slurm refuses gang (status $st: $out)"
fi
out=$(bench/run-mix -o "$t/b" -p slurm-gang -r 1 -t 1 12 2>&1)
st=$?
if [ "$st" = 1 ] && printf '%s' "$out" | grep -q "'slurm-gang' needs --slurm"; then
	ok "slurm-gang without --slurm refused"
else
	nok "slurm-gang without --slurm refused (status $st: $out)"
fi
out=$(bench/run-mix --slurm -o "$t/d" -p busy-poll,slurm-gang -r 1 -t 1 12 2>&1)
st=$?
if [ "$st" = 1 ] && printf '%s' "$out" | grep -q "'slurm-gang': this Slurm does not gang-schedule"; then
	ok "slurm-gang refused where Slurm does not gang-schedule"
else
	nok "slurm-gang refused where Slurm does not gang-schedule (status $st: $out)"
fi
out=$(COSCHED_MIX_FAKE_SLURM_GANG=1 bench/run-mix --slurm -o "$t/e" -p busy-poll,slurm-gang -r 1 -t 1 12 2>&1)
st=$?
if [ "$st" = 1 ] && printf '%s' "$out" | grep -q "'busy-poll': this Slurm time-slices every job"; then
	ok "busy-poll refused where Slurm gang-schedules every job"
else
	nok "busy-poll refused where Slurm gang-schedules (status $st: $out)"
fi
COSCHED_MIX_FAKE_SLURM_GANG=1 bench/run-mix --slurm -o "$t/f" -p slurm-gang -r 1 -t 1 12 >"$t/outf" 2>&1
st=$?
if [ "$st" = 0 ] && [ "$(tail -n +2 "$t/f/runs.csv" | cut -d, -f2)" = slurm-gang ]; then
	ok "slurm-gang runs where Slurm gang-schedules"
else
	nok "slurm-gang where Slurm gang-schedules (status $st)"; tail -n 3 "$t/outf" | sed 's/^/#   /'
fi
bench/run-mix --slurm -o "$t/c" -p dcs,slurm-baselines -r 1 -t 1 12 >"$t/out" 2>&1
st=$?
cols=$(tail -n +2 "$t/c/runs.csv" | cut -d, -f2 | sort | tr '\n' ' ')
if [ "$st" = 0 ] && [ "$cols" = "busy-poll dcs mpi-yield " ] &&
   grep -q '"slurm": {' "$t/c/meta.json"; then
	ok "--slurm -p dcs,slurm-baselines: dcs, busy-poll, mpi-yield; meta.json records Slurm's settings"
else
	nok "--slurm fake sweep (status $st, columns: $cols)"
	tail -n 3 "$t/out" | sed 's/^/#   /'
fi

tap_end
