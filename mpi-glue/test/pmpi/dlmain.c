// SPDX-License-Identifier: GPL-2.0
/*
 * dlmain.c PLUGIN ARGS...: a program without MPI that dlopen()s an MPI
 * program built as a shared object (launcher_chain.c with main renamed
 * chain_main) and runs it, as an interpreter runs mpi4py: the MPI calls
 * come from an object the loader added after start-up, RTLD_LOCAL.
 * Built by chain.sh.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*chain_main)(int argc, char **argv);
	void *h;

	if (argc < 2) {
		fprintf(stderr, "usage: dlmain PLUGIN ARGS...\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 2;
	}
	*(void **)&chain_main = dlsym(h, "chain_main");
	if (!chain_main) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 2;
	}
	return chain_main(argc - 1, argv + 1);
}
