# SPDX-License-Identifier: GPL-2.0
# chain-counts.awk -v tools=1|0 PROGRAM.out GLUE.err: the lines of
# launcher_chain.c ("chain: rank R allreduce A send S recv R barrier B
# wait W io I failed F"), of the PMPI tool test/pmpi/counter.c
# ("pmpi-counter: rank R init 1 allreduce A ...") and the glue's calls
# lines (COSCHED_MPI_VERBOSE): for each of 2 ranks the program's results
# right, the glue's counts the program's (its MPI_Irecv calls, which
# the tool does not count, too; and no other call), the
# tool's too (tools=1) or no tool line (tools=0).  Prints "program P,
# tool T, glue G of N ranks, mpi-internal X"; exits 0 when all agree.
# Used by chain.sh and guest.sh.
$1 == "chain:" {
	r = $3
	want[r] = $5 " " $7 " " $9 " " $11 " " $13
	# each of its MPI_Wait calls is on an MPI_Irecv's request
	want_irecv[r] = $13
	prog += $17 == 0
}
$1 == "pmpi-counter:" && $5 == 1 {
	tool[$3] = $7 " " $9 " " $11 " " $13 " " $15
}
$1 == "cosched-mpi:" && $2 == "calls" {
	r = $5 + 0
	split("Allreduce Send Recv Barrier Wait Irecv", name)
	for (i = 1; i <= 6; i++)
		c[name[i]] = 0
	other[r] = ""
	for (i = 6; i < NF; i += 2)
		if ($i in c)
			c[$i] = $(i + 1)
		else if ($i == "mpi-internal")
			internal += $(i + 1)
		else
			other[r] = other[r] " " $i
	glue[r] = c["Allreduce"] " " c["Send"] " " c["Recv"] " " c["Barrier"] " " c["Wait"]
	irecv[r] = c["Irecv"]
}
END {
	for (r in want) {
		n++
		z += !(r in tool)
		t += tool[r] == want[r]
		g += glue[r] == want[r] && irecv[r] == want_irecv[r] && other[r] == ""
	}
	printf "program %d, tool %d, glue %d of %d ranks, mpi-internal %d", prog, t, g, n, internal + 0
	exit !(n == 2 && prog == n && g == n &&
	       (tools ? t == n : z == n))
}
