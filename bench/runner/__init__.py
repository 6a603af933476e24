# SPDX-License-Identifier: GPL-2.0
"""bench/run-mix and bench/report: the workload-mix runner of issue 6 and its
report.  Standard library only for running; the report uses matplotlib when
it is installed."""
