#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mpich-tests-guest.sh: MPICH's test suite (mpich-tests.sh) in a guest
# with the cosched module loaded, once per module policy: issue 12 asks
# for the same results with the glue as without under dcs and dcs-sb.
# As root in a guest, from anywhere, the builds made on the host first
# (mpich-tests.sh --build-only), e.g.
#   flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 \
#     --mem 2048 --timeout 3600 --outdir build/mpich-guest -- \
#     mpi-glue/mpich-tests-guest.sh --subset
#
# usage: mpich-tests-guest.sh [-p POLICIES] [-k KO] [-1|-R] [mpich-tests.sh options]
#   -p POLICIES  module policies, one run each (default "dcs dcs-sb")
#   -k KO        module (default $COSCHED_KO, else build/$(uname -r)/cosched.ko)
#   -1           plain runs once, before the first policy, instead of once
#                per policy (a plain run has no glue: the policy cannot reach it)
#   -R           as -1, but the plain runs of an earlier -1 run with the same
#                $COSCHED_VMOUT (plain/) are used, not run again
# mpich-tests.sh gets --no-build (the cache is read-only here), --out
# $COSCHED_VMOUT/mpich-tests/<policy> (plain/ for -1's plain runs) and the
# options given.  The module is reloaded before each policy.  Glue runs
# have COSCHED_MPI_VERBOSE=1 (each rank prints its wait counters before
# MPI_Finalize): <policy>/glue.tsv sums them per test, with the fallback
# warnings, so that a run the glue did not really reach shows; the
# module's stats after each policy go to <policy>/module-stats.txt.
# Exit 1 if a test that passes plain fails under the glue, a test named
# in a list was not built, or a glue run fell back to plain MPI waits.
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
SYS=/sys/kernel/cosched
KO=${COSCHED_KO:-$ROOT/build/$(uname -r)/cosched.ko}
POLICIES="dcs dcs-sb"
ONCE=0
while [ $# -gt 0 ]; do
	case $1 in
	-p) POLICIES=$2; shift ;;
	-k) KO=$2; shift ;;
	-1) ONCE=1 ;;
	-R) ONCE=2 ;;
	-h) sed -n '12,18s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "mpich-tests-guest: run as root in a guest" >&2; exit 2; }
[ -f "$KO" ] || { echo "mpich-tests-guest: no module $KO" >&2; exit 2; }
OUT=${COSCHED_VMOUT:-/tmp}/mpich-tests
mkdir -p "$OUT" || exit 2
# (the host's root's cache: a guest's HOME is not /root)
export COSCHED_CACHE="${COSCHED_CACHE:-/root/.cache/cosched}"
ip link set lo up 2>/dev/null

# A run's processes may hold the module for a moment after they end.
reload() {
	scripts/rmmod-cosched -q -w 10 && scripts/insmod-cosched "$KO"
}

# Per glue run: the MPI, the test, ranks expected (the test's np), ranks
# that printed their counters, their sums, and the fallback warnings ("the
# job waits the plain MPI way"; none may appear with the module loaded).
glue_check() { # dir
	awk -F'\t' '$3 == "glue" && $4 != "skip" { print $1 "\t" $2 "\t" $6 }' "$1/results.tsv" |
		while IFS='	' read -r m id file; do
			np=${id#* }
			np=${np%% *}
			awk -v m="$m" -v id="$id" -v np="$np" '
				$1 == "cosched-mpi:" && $2 == "rank" {
					n++
					for (i = 3; i < NF; i++) s[$i] += $(i + 1)
				}
				/the job waits the plain MPI way/ { fb++ }
				END {
					printf "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", m, id, np, n, s["waits"],
						s["cosched_waits"], s["blocks"], s["module_arrivals"], fb
				}' "$1/$file"
		done
}

echo "# mpich-tests in a guest: $(uname -r), $(nproc) CPUs, module $KO, policies: $POLICIES"
echo "# glue: ${COSCHED_MPI_GLUE_DIR:-$ROOT/build/mpi-glue}; options: $*"
if [ "$ONCE" = 2 ]; then
	[ -f "$OUT/plain/results.tsv" ] || { echo "mpich-tests-guest: -R: no $OUT/plain/results.tsv" >&2; exit 2; }
	echo "# ---- plain: the earlier runs in $OUT/plain"
elif [ "$ONCE" = 1 ]; then
	reload || { echo "mpich-tests-guest: cannot load $KO" >&2; exit 2; }
	echo "# ---- plain (once, policy $(cat $SYS/policy))"
	"$ROOT/mpi-glue/mpich-tests.sh" --no-build --modes plain --out "$OUT/plain" "$@"
	[ $? = 2 ] && exit 2
fi
bad=0
for p in $POLICIES; do
	reload || { echo "mpich-tests-guest: cannot load $KO" >&2; exit 2; }
	echo "$p" >$SYS/policy || exit 2
	echo "# ---- policy $(cat $SYS/policy)"
	modes="plain glue"
	[ "$ONCE" != 0 ] && modes=glue
	# (with -1 its verdict waits for the plain rows: --report below)
	COSCHED_MPI_VERBOSE=1 "$ROOT/mpi-glue/mpich-tests.sh" --no-build --modes "$modes" \
		--out "$OUT/$p" "$@"
	case $? in
	0) ;;
	2) exit 2 ;;
	*) [ "$ONCE" != 0 ] || bad=1 ;;
	esac
	(cd $SYS/stats && grep . ./*) >"$OUT/$p/module-stats.txt"
	if [ "$ONCE" != 0 ]; then
		# The plain rows of the one plain run, for the comparison (of
		# the MPIs run here).
		awk -F'\t' -v OFS='\t' 'FNR == NR { m[$1] = 1; next }
			$1 in m { $6 = "../plain/" $6; print }' "$OUT/$p/results.tsv" \
			"$OUT/plain/results.tsv" >"$OUT/$p/plain.tsv"
		cat "$OUT/$p/plain.tsv" >>"$OUT/$p/results.tsv"
		rm -f "$OUT/$p/plain.tsv"
		"$ROOT/mpi-glue/mpich-tests.sh" --report --out "$OUT/$p" >"$OUT/$p/report.txt" || bad=1
		grep '^# FAIL' -A50 "$OUT/$p/report.txt"
		grep '^#' "$OUT/$p/table.txt"
		echo "# outcome differs with the glue: $(wc -l <"$OUT/$p/diff.txt")"
		sed 's/^/#   /' "$OUT/$p/diff.txt"
	fi
	glue_check "$OUT/$p" >"$OUT/$p/glue.tsv"
	awk -F'\t' -v p="$p" '{ runs++; if ($4 == $3) all++; w += $5; cw += $6; b += $7; a += $8; fb += $9 }
		END { printf "# %s glue runs: %d, all ranks reporting in %d; waits %d, cosched_waits %d, blocks %d, endpoint arrivals %d; fallback warnings %d\n",
			p, runs, all, w, cw, b, a, fb }' "$OUT/$p/glue.tsv"
	awk -F'\t' '$9 > 0 { found = 1 } END { exit !found }' "$OUT/$p/glue.tsv" && bad=1
	echo "# module stats: $(sed 's|^\./||' "$OUT/$p/module-stats.txt" | tr '\n' ' ')"
done
[ "$bad" = 0 ]
