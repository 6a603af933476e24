# SPDX-License-Identifier: GPL-2.0
# The bench's shell tests' reporting; source it from the tree's root:
#   ok DESCRIPTION, nok DESCRIPTION  one "ok - ..." / "not ok - ..." line
#   tap_end                          "N passed, N failed", and the status
#                                    (0: none failed)
# tests/check.sh reads the summary line.
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $*"; failed=$((failed + 1)); }
tap_end() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; }
