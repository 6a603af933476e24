#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mpich-tests.sh: MPICH's own test suite (test/mpi of Debian's MPICH
# 4.0.2 source: pt2pt, coll, threads, rma) run plain and under the glue,
# for each MPI, through cosched-run (-N for plain: the same transports,
# pinning and environment either way), and the outcomes compared.
#
# usage: mpich-tests.sh [options]
#   --subset        a fixed selection of about 20 tests (mpich-tests/subset)
#   --list NAME     the tests of mpich-tests/NAME (--subset: --list subset;
#                   prog: RMA synchronisation and non-blocking collectives)
#   --mpi LIST      MPIs, space- or comma-separated (default: mpich openmpi,
#                   those whose mpicc is installed)
#   --dirs LIST     test directories (default: pt2pt coll threads rma)
#   --timeout S     seconds per run when the testlist sets none (default 60)
#   --grace S       seconds a run may go on after printing " No Errors"
#                   before it counts as a hang in MPI_Finalize (default 10)
#   --out DIR       results (default: $CACHE/mpich-tests/results/<date>)
#   --build-only    fetch and build, run nothing
#   --no-build      run the builds as they are (a read-only cache: a guest)
#   --modes LIST    plain, glue or both (default "plain glue")
#   --report        no runs: the table and diff of --out DIR's results.tsv
#                   (e.g. plain rows of one run joined to glue rows of another)
# environment: COSCHED_CACHE (default ~/.cache/cosched): the source and
#   the builds go to $COSCHED_CACHE/mpich-tests, never into the tree;
#   COSCHED_MODE, COSCHED_MPI_GLUE_DIR and the rest pass on to
#   cosched-run (the caller sets the module's policy).
# Outcomes: pass (exit 0 and " No Errors"), fhang (" No Errors", then no
# exit: a hang in MPI_Finalize), fail, timeout, skip (listed in
# mpich-tests/skip-<mpi> or not built).  Writes results.tsv (mpi, test,
# mode, outcome, seconds, output file), table.txt and diff.txt to the
# results directory; exit 1 if a run that passes plain (pass or fhang),
# or has no plain row (--report of rows joined from two runs), fails or
# times out under the glue, or if a test named in a list was not built
# (unbuilt.txt).  mpich-tests-guest.sh runs it in a
# guest with the module loaded, under given policies.
set -u

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${COSCHED_CACHE:-$HOME/.cache/cosched}/mpich-tests
VER=4.0.2
SRC=$CACHE/src/mpich-$VER/test/mpi
LIST=
MPIS=
DIRS="pt2pt coll threads rma"
TMO=60
GRACE=10
OUT=
BUILDONLY=0
NOBUILD=0
MODES="plain glue"
REPORT=0

die() { echo "mpich-tests: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--subset) LIST=subset ;;
	--list) [ $# -ge 2 ] && [ -n "$2" ] || die "--list NAME"; LIST=$2; shift ;;
	--mpi) MPIS=$(echo "$2" | tr , ' '); shift ;;
	--dirs) DIRS=$(echo "$2" | tr , ' '); shift ;;
	--timeout) TMO=$2; shift ;;
	--grace) GRACE=$2; shift ;;
	--out) OUT=$2; shift ;;
	--build-only) BUILDONLY=1 ;;
	--no-build) NOBUILD=1 ;;
	--modes) MODES=$(echo "$2" | tr , ' '); shift ;;
	--report) REPORT=1 ;;
	*) sed -n '8,36s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
case $LIST in
*/* | skip-*) die "--list $LIST: a name in $here/mpich-tests" ;;
esac
[ -z "$LIST" ] || [ -f "$here/mpich-tests/$LIST" ] || die "--list $LIST: no $here/mpich-tests/$LIST"
if [ -z "$MPIS" ]; then
	for m in mpich openmpi; do
		command -v "mpicc.$m" >/dev/null && MPIS="$MPIS $m"
	done
fi
[ -n "$MPIS" ] || die "no mpicc.mpich or mpicc.openmpi"
OUT=${OUT:-$CACHE/results/$(date -u +%Y%m%dT%H%M%S)}

# The source, once: Debian's (the version the MPIs here come from),
# through a private apt configuration with deb-src, so that the host's
# own apt setup stays as it is.
fetch() {
	[ -f "$SRC/configure" ] && return 0
	a=$CACHE/apt
	mkdir -p "$a/lists/partial" "$a/archives/partial" "$CACHE/src" || return 1
	# shellcheck disable=SC1091 # the host's
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	echo "deb-src http://deb.debian.org/debian $suite main" >"$a/sources.list"
	set -- -q -o Dir::Etc::SourceList="$a/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$a/lists" \
		-o Dir::Cache="$a" -o Dir::Cache::archives="$a/archives"
	apt-get "$@" update >"$a/update.log" 2>&1 || { cat "$a/update.log" >&2; return 1; }
	(cd "$CACHE/src" && apt-get "$@" source "mpich=$VER-3") >"$a/source.log" 2>&1 ||
		{ cat "$a/source.log" >&2; return 1; }
	[ -f "$SRC/configure" ]
}

# The suite's own configure, per MPI, then each directory's programs
# (make -k: a program that does not build is a skip, not the end).
build() { # mpi [programs of the subset, dir/prog...]
	m=$1
	shift
	b=$CACHE/build-$m
	mkdir -p "$b"
	if [ ! -f "$b/Makefile" ]; then
		echo "# $m: configure (log: $b/configure.log)"
		(cd "$b" && nice -n 19 "$SRC/configure" CC="mpicc.$m" MPICC="mpicc.$m" \
			--disable-fortran --disable-cxx --disable-romio \
			--disable-spawn --disable-perftest \
			--enable-threads=multiple) >"$b/configure.log" 2>&1 ||
			{ tail -20 "$b/configure.log" >&2; return 1; }
	fi
	# Open MPI's mpi.h hides the MPI-1 calls that MPICH's dtpools still
	# uses (its library has them).
	cpp=
	[ "$m" = openmpi ] && cpp=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0
	echo "# $m: make (log: $b/make.log)"
	nice -n 19 make -C "$b/util" -j2 ${cpp:+"CPPFLAGS=$cpp"} >"$b/make.log" 2>&1 || return 1
	if [ $# -gt 0 ]; then
		for p in "$@"; do
			nice -n 19 make -C "$b/$(dirname "$p")" -k ${cpp:+"CPPFLAGS=$cpp"} \
				"$(basename "$p")" >>"$b/make.log" 2>&1
		done
	else
		for d in $DIRS; do
			nice -n 19 make -C "$b/$d" -k -j2 ${cpp:+"CPPFLAGS=$cpp"} \
				>>"$b/make.log" 2>&1
		done
	fi
	return 0
}

# The tests of a directory's testlist: "dir prog np key=value..." lines,
# subdirectories followed (threads/pt2pt...); xfail tests left out, as
# the suite's runtests does by default.
tests() { # builddir dir
	[ -f "$1/$2/testlist" ] || return 0
	sed -e 's/#.*//' -e 's/^[ \t]*//' "$1/$2/testlist" | while read -r prog np rest; do
		case $prog in '' | !* | @*) continue ;; esac
		if [ -z "$np" ] && [ -d "$1/$2/$prog" ]; then
			tests "$1" "$2/$prog"
			continue
		fi
		case " $rest " in *" xfail="*) continue ;; esac
		echo "$2 $prog ${np:-1} $rest"
	done
}

# End a run: mpiexec first (it takes its ranks down), then whatever
# process still carries this run's tag (ranks in sessions of their own).
stop() { # pid
	kill -TERM "$1" 2>/dev/null
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 5 ]; do
		sleep 1
		n=$((n + 1))
	done
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		grep -qsz "^MPICH_TESTS_TAG=$TAG\$" "$e" && kill -KILL "$p" 2>/dev/null
	done
}

# One run: the outcome, then the seconds it took.
run1() { # outfile timeout np prog args... (env and cosched-run options in RUNENV/RUNOPT)
	o=$1
	t=$2
	np=$3
	shift 3
	start=$(date +%s)
	TAG=$$.$(basename "$o")
	# shellcheck disable=SC2086 # RUNENV/RUNOPT: words
	env $RUNENV MPICH_TESTS_TAG="$TAG" "$here/cosched-run" $RUNOPT -m "$m" -n "$np" "$@" >"$o" 2>&1 &
	pid=$!
	seen=0
	out=
	while kill -0 "$pid" 2>/dev/null; do
		now=$(date +%s)
		if [ "$seen" = 0 ] && grep -qs '^ *No Errors' "$o"; then
			seen=$now
		fi
		if [ "$seen" != 0 ] && [ $((now - seen)) -ge "$GRACE" ]; then
			out=fhang
		elif [ $((now - start)) -ge "$t" ]; then
			out=timeout
		fi
		if [ -n "$out" ]; then
			stop "$pid"
			break
		fi
		sleep 1
	done
	wait "$pid"
	rc=$?
	if [ -z "$out" ]; then
		if [ "$rc" = 0 ] && grep -qs '^ *No Errors' "$o"; then
			out=pass
		else
			out=fail
		fi
	fi
	[ "$out" = timeout ] && grep -q '^ *No Errors' "$o" && out=fhang
	echo "$out $(($(date +%s) - start))"
}

[ "$REPORT" = 0 ] || [ -f "$OUT/results.tsv" ] || die "--report: no $OUT/results.tsv"
[ "$REPORT" = 1 ] || [ "$NOBUILD" = 1 ] || fetch || die "could not fetch the MPICH $VER source"
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
echo "# results: $OUT"
list=$OUT/list
[ "$REPORT" = 1 ] && MPIS=
[ "$REPORT" = 1 ] || { : >"$OUT/results.tsv"; rm -f "$OUT/unbuilt.txt"; }
for m in $MPIS; do
	b=$CACHE/build-$m
	if [ "$NOBUILD" = 1 ]; then
		[ -f "$b/Makefile" ] || die "$m: no build in $b (--no-build)"
	elif [ -n "$LIST" ]; then
		# shellcheck disable=SC2046 # dir/prog words
		build "$m" $(sed -e 's/#.*//' "$here/mpich-tests/$LIST" | awk 'NF { print $1 "/" $2 }' | sort -u) ||
			die "$m: build failed"
	else
		build "$m" || die "$m: build failed"
	fi
	[ "$BUILDONLY" = 1 ] && continue
	if [ -n "$LIST" ]; then
		sed -e 's/#.*//' "$here/mpich-tests/$LIST" | awk 'NF'
	else
		for d in $DIRS; do tests "$b" "$d"; done
	fi >"$list.$m"
	skip=$here/mpich-tests/skip-$m
	i=0
	while read -r dir prog np rest; do
		i=$((i + 1))
		args=
		RUNENV=
		t=$TMO
		for kv in $rest; do
			case $kv in
			arg=*) args="$args ${kv#arg=}" ;;
			env=*) RUNENV="$RUNENV ${kv#env=}" ;;
			timeLimit=*) [ "${kv#timeLimit=}" -gt "$t" ] && t=${kv#timeLimit=} ;;
			esac
		done
		# (a test's name: testlists run some programs under several
		# environments)
		id="$dir/$prog $np$args${RUNENV:+ [env$RUNENV]}"
		why=
		if [ -f "$skip" ]; then
			why=$(awk -v d="$dir/$prog" '$1 == d { $1 = ""; sub(/^ /, ""); print; exit }' "$skip")
		fi
		if [ -z "$why" ] && [ ! -x "$b/$dir/$prog" ]; then
			why="not built (see $b/make.log)"
			# a test named in a list is meant to run
			[ -n "$LIST" ] && echo "$m $id" >>"$OUT/unbuilt.txt"
		fi
		for mode in $MODES; do
			if [ -n "$why" ]; then
				res="skip 0"
			else
				RUNOPT=
				[ "$mode" = plain ] && RUNOPT=-N
				# shellcheck disable=SC2086 # args: words
				res=$(cd "$b/$dir" && run1 "$OUT/$m.$i.$mode.out" "$t" "$np" "./$prog" $args)
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$id" "$mode" "${res% *}" "${res#* }" \
				"$m.$i.$mode.out" >>"$OUT/results.tsv"
		done
		echo "$m $id: $(awk -F'\t' -v m="$m" -v id="$id" '$1 == m && $2 == id { printf "%s=%s ", $3, $4 }' "$OUT/results.tsv" | tail -c 200)"
	done <"$list.$m"
done
[ "$BUILDONLY" = 1 ] && exit 0
unbuilt() {
	[ -s "$OUT/unbuilt.txt" ] || return 0
	echo "# FAIL: $(wc -l <"$OUT/unbuilt.txt") tests named in a list not built (mpich-tests.sh --build-only --list NAME):"
	sed 's/^/#   /' "$OUT/unbuilt.txt"
	return 1
}
if [ "$MODES" != "plain glue" ]; then
	echo "# one mode: no comparison (join plain and glue rows, then --report)"
	unbuilt
	exit
fi

# The table (one line a test: plain, glue), the counts and the tests
# whose outcome differs.
awk -F'\t' '
	{ k = $1 "\t" $2; if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	  r[k, $3] = $4; cnt[$1, $3, $4]++; mp[$1] = 1 }
	END {
		printf "%-8s %-50s %-8s %-8s\n", "mpi", "test", "plain", "glue"
		for (i = 0; i < n; i++) {
			split(order[i], f, "\t")
			printf "%-8s %-50s %-8s %-8s%s\n", f[1], f[2], r[order[i], "plain"], r[order[i], "glue"], \
				r[order[i], "plain"] != r[order[i], "glue"] ? "  *" : ""
		}
		for (m in mp)
			for (md = 0; md < 2; md++) {
				mode = md ? "glue" : "plain"
				printf "# %s %s: pass %d, fhang %d, fail %d, timeout %d, skip %d\n", m, mode, \
					cnt[m, mode, "pass"], cnt[m, mode, "fhang"], cnt[m, mode, "fail"], \
					cnt[m, mode, "timeout"], cnt[m, mode, "skip"]
			}
	}' "$OUT/results.tsv" >"$OUT/table.txt"
awk -F'\t' '{ k = $1 "\t" $2; r[k, $3] = $4; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
	END { for (i = 0; i < n; i++) { k = order[i]
		if (r[k, "plain"] != r[k, "glue"]) print k "\t" r[k, "plain"] "\t" r[k, "glue"] } }' \
	"$OUT/results.tsv" >"$OUT/diff.txt"
grep '^#' "$OUT/table.txt"
echo "# outcome differs with the glue: $(wc -l <"$OUT/diff.txt")"
sed 's/^/#   /' "$OUT/diff.txt"
# plain passes (or only hangs in Finalize) or has no row (joined from
# another run), the glue fails or times out
if awk -F'\t' '($3 == "pass" || $3 == "fhang" || $3 == "") && ($4 == "fail" || $4 == "timeout") { bad = 1 }
	END { exit !bad }' "$OUT/diff.txt"; then
	echo "# FAIL: a test that passes plain (or was not run plain) fails under the glue"
	exit 1
fi
unbuilt || exit 1
echo "# no test that passes plain fails under the glue"
exit 0
