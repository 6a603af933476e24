# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP for the glue's shell tests; source it, then
#   check <status, 0 = ok> <description>   (returns 1 for a failure)
#   ok <description>, nok <description>
# and end with tap_summary, whose "N passed, N failed" line tests/check.sh
# reads.  For a job run with the glue's -v (COSCHED_MPI_VERBOSE):
#   has FILE RANK "Name N"...   rank RANK's "calls" line names each
# (its variables are has_*: it runs inside the callers' loops).
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $*"; }
nok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $*"; }
check() {
	if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; return 1; fi
}
tap_summary() { echo "$pass passed, $fail failed"; }
has() {
	has_f=$1
	has_r=$2
	shift 2
	has_line=" $(grep "^cosched-mpi: calls of rank $has_r:" "$has_f" | head -1) "
	for has_p in "$@"; do
		case $has_line in
		*" $has_p "*) ;;
		*) echo "# rank $has_r: no '$has_p' in:$has_line"; return 1 ;;
		esac
	done
}
