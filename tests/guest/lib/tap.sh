# SPDX-License-Identifier: GPL-2.0
# TAP output for the guest tests written in sh; source it, then call
#   tap <1 if ok> <name> <why>
# and end with: echo "1..$num"; exit $fail
num=0
fail=0

tap() {
	num=$((num + 1))
	if [ "$1" = 1 ]; then
		echo "ok $num - $2"
	else
		echo "not ok $num - $2 # $(basename "$0"): $3"
		fail=1
	fi
}
