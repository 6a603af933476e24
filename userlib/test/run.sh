#!/bin/sh
# Run the host unit tests (TAP on stdout) and end with "N passed, N failed".
# A test that dies, or hangs for 300 s, without a failed check counts one
# more failure.
pass=0
fail=0
for t in "$@"; do
	out=$(timeout 300 "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
