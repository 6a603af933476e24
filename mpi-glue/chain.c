// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * chain.c - the glue between PMPI tools and the MPI (Documentation/
 * cosched-run.rst, "Other PMPI tools").  The glue exports MPI_X and
 * PMPI_X of every call it intercepts (pmpi.c, generated), so that a tool
 * above it (mpiP, Darshan: their MPI_X calls PMPI_X) reaches the glue,
 * and a tool below it (preloaded after it, or linked to the program)
 * is called with the program's MPI_X and comes back to the glue through
 * PMPI_X.  Three look-ups make that work:
 *
 *  - glue_next(): the glue's own calls of PMPI_X (ld --wrap) go to the
 *    next object's PMPI_X, the MPI's, never back into the glue;
 *  - glue_below(): the MPI_X of a tool after the glue, if there is one;
 *  - glue_from_mpi(): is a caller of PMPI_X the MPI itself?  An MPI
 *    calls PMPI_ names to reach its own functions past any tool (MPICH's
 *    and Open MPI's ROMIO, Open MPI's intercommunicator code): those
 *    calls go straight to the MPI, as they would without the glue.
 *
 * Getting glue_from_mpi() wrong either way (a tail call to PMPI_X shows
 * its caller's caller) only decides whether the glue's waiting applies
 * to a call: the glue keeps MPI's semantics for any caller.
 */
#define _GNU_SOURCE
#include "glue.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The MPI's own library: the object defining a function no tool wraps. */
static const void *mpi_mark(void)
{
	return (const void *)&PMPI_Get_library_version;
}

/* The MPI's library, for a symbol RTLD_NEXT does not find. */
static void *mpi_handle(void)
{
	Dl_info info;

	if (!dladdr(mpi_mark(), &info) || !info.dli_fname)
		return NULL;
	return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

void *glue_next(void **cache, const char *sym)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	void *h;

	if (f)
		return f;
	/* After the glue in the lookup order: the MPI (or a tool below). */
	f = dlsym(RTLD_NEXT, sym);
	if (!f) {
		h = mpi_handle();
		f = h ? dlsym(h, sym) : NULL;
	}
	if (!f) {
		/* the program called a function its MPI does not have */
		fprintf(stderr, "cosched-mpi: %s: not in this MPI library\n",
			sym);
		abort();
	}
	__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	return f;
}

/*
 * Objects seen calling PMPI_ names, and whether each is the MPI: a few
 * (the program, a tool, the MPI, its components), classified once.  An
 * object unloaded and another loaded at its addresses would inherit its
 * class: harmless (see above).
 */
#define MAX_CALLERS 32

struct caller {
	uintptr_t lo, hi;
	bool mpi;
};

static struct caller callers[MAX_CALLERS];
static unsigned int ncallers;
static pthread_mutex_t callers_lock = PTHREAD_MUTEX_INITIALIZER;

struct find {
	uintptr_t addr, mark;
	struct caller c;
	const char *name;
	bool found, has_mark;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0, s, e;
	bool has_mark = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		s = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		e = s + info->dlpi_phdr[i].p_memsz;
		lo = s < lo ? s : lo;
		hi = e > hi ? e : hi;
		has_mark |= f->mark >= s && f->mark < e;
	}
	if (f->addr < lo || f->addr >= hi)
		return 0;
	f->c.lo = lo;
	f->c.hi = hi;
	f->name = info->dlpi_name;
	f->has_mark = has_mark;
	f->found = true;
	return 1;
}

/*
 * The MPI: its library, and Open MPI's components (mca_FRAMEWORK_
 * COMPONENT.so, dlopen'ed by libmpi: the ROMIO component calls PMPI_
 * names).
 */
static bool is_mpi(const struct find *f)
{
	const char *base = f->name ? strrchr(f->name, '/') : NULL;

	base = base ? base + 1 : f->name;
	return f->has_mark || (base && !strncmp(base, "mca_", 4));
}

bool glue_from_mpi(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int i, n = __atomic_load_n(&ncallers, __ATOMIC_ACQUIRE);
	struct find f = { .addr = a, .mark = (uintptr_t)mpi_mark() };

	for (i = 0; i < n; i++)
		if (a >= callers[i].lo && a < callers[i].hi)
			return callers[i].mpi;
	dl_iterate_phdr(find_object, &f);
	if (!f.found)
		return false;
	f.c.mpi = is_mpi(&f);
	pthread_mutex_lock(&callers_lock);
	n = ncallers;
	if (n < MAX_CALLERS) {
		callers[n] = f.c;
		__atomic_store_n(&ncallers, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&callers_lock);
	return f.c.mpi;
}

/* The cache's value for "the next MPI_X is the MPI's". */
static char no_tool;

void *glue_below(void **cache, const char *sym)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (f)
		return f == &no_tool ? NULL : f;
	f = dlsym(RTLD_NEXT, sym);
	if (!f || glue_from_mpi(f))
		f = &no_tool;
	__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	return f == &no_tool ? NULL : f;
}
