# SPDX-License-Identifier: GPL-2.0
#
# make                  build kernel/cosched.ko for KDIR (default: the
#                       running kernel's build tree)
# make module KVER=R    build build/R/cosched.ko against release R's headers
# make modules          build for both Debian test kernels (6.1 and 6.12)
# make demo             set up, build, boot a guest, show the policies' effect
# make check            host tests, then the module suite in 6.1 and 6.12 guests
# make lint             W=1, sparse and checkpatch --strict on the module
# make bpf              the BPF programs and cosched-monitor, into build/bpf/
# make bench-latency    latency, bandwidth, CPU per message and system calls
#                       of libcosched under every policy, in a 6.12 guest
# make mpi-glue         the MPI glue for MPICH and Open MPI, its test programs
# make mpi-glue-matrix  its guest test under all thirteen policies, both MPIs,
#                       6.1 and 6.12 guests
# make mpi-effect       the glue's effect table (co-scheduled MPI jobs), 6.12
# make deb              the Debian packages into build/deb/
#                       (Documentation/packaging.rst)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ROOT := $(CURDIR)
KERNELS := $(ROOT)/tests/vm/kernels.sh
KSRC := $(wildcard kernel/*.c kernel/*.h kernel/Kbuild) include/uapi/linux/cosched.h

.PHONY: all module modules check lint clean tests bench bench-latency userlib demo bpf \
	mpi-glue mpi-glue-matrix mpi-effect

all:
	@test -d $(KDIR) || { echo "no kernel build tree at $(KDIR): set KDIR, or run 'make modules' for the test kernels"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(ROOT)/kernel COSCHED_ROOT=$(ROOT) modules

# Out-of-tree builds for several kernels need one object directory each:
# kbuild builds in M=, so the sources are linked into build/<release>/.
build/%/cosched.ko: $(KSRC)
	@mkdir -p build/$*
	@for f in kernel/*.c kernel/*.h kernel/Kbuild; do ln -sf $(ROOT)/$$f build/$*/; done
	$(MAKE) -C $$($(KERNELS) kdir $*) M=$(ROOT)/build/$* COSCHED_ROOT=$(ROOT) W=$(W) C=$(C) modules

# The guests' key holder (tests/vm/keyholder): test harness only.
build/%/keyholder/keyholder.ko: tests/vm/keyholder/keyholder.c tests/vm/keyholder/Kbuild
	@mkdir -p build/$*/keyholder
	@for f in tests/vm/keyholder/*; do ln -sf $(ROOT)/$$f build/$*/keyholder/; done
	$(MAKE) -C $$($(KERNELS) kdir $*) M=$(ROOT)/build/$*/keyholder modules

module: build/$(KVER)/cosched.ko build/$(KVER)/keyholder/keyholder.ko

modules:
	@for k in 6.1 6.12; do \
		rel=$$($(KERNELS) resolve $$k) && $(MAKE) --no-print-directory module KVER=$$rel || exit 1; \
	done

tests:
	$(MAKE) -C tests/guest
	$(MAKE) -C bpf/hooks

bench:
	$(MAKE) -C bench

# 5 rounds of every size under every policy: tens of minutes under TCG.
bench-latency: modules bench
	tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 3000 -- bench/latency.sh 5

# make bench-mix        the thesis's workload mixes under every policy and
#                       baseline (bench/run-mix, Documentation/bench.rst),
#                       one guest per kernel of MIX_KERNELS, then bench/report
#                       for each: a day or two; rerunning resumes where it
#                       stopped (MIXES, MIX_COLUMNS, MIX_REPEATS, MIX_KERNELS,
#                       MIX_ARGS, MIX_VMRUN_ARGS, MIX_OUT below)
# make bench-mix-smoke  the resume test on the host, then one tiny mix under
#                       local and dcs in a guest (a few minutes)
MIXES ?= 1 2 3 4 5 6 7 8 9 10 11 12
MIX_COLUMNS ?= all,baselines
MIX_REPEATS ?= 3
MIX_KERNELS ?= 6.1 6.12
# Calibrated guests (Documentation/calibration.rst): the scheduler's and
# the module's time constants stretched by the guest's dilation, and with
# --dilate the jobs' length and gang's slice too (-t 2: 2 native-equivalent
# seconds, about 16 s of a 6.12 guest's).  MIX_VMRUN_ARGS= MIX_ARGS="-t 10"
# runs the guests as they are.
MIX_VMRUN_ARGS ?= --calibrated
MIX_ARGS ?= --dilate -t 2
MIX_OUT ?= build/mix-results
# Per guest: 48 h, then the guest is stopped; rerunning resumes.
MIX_TIMEOUT ?= 172800
.PHONY: bench-mix bench-mix-smoke bench-mix-build
bench-mix-build: modules bench bpf
	$(MAKE) -C bench/workloads
	$(MAKE) -C mpi-glue

# Each kernel's cells in their own directory, $(MIX_OUT)/<kernel>/mix-results.
bench-mix: bench-mix-build
	@set -e; n=0; for k in $(MIX_KERNELS); do n=$$((n + 1)); \
		echo "bench-mix: kernel $$k ($$n of $(words $(MIX_KERNELS))): $(MIX_OUT)/$$k/mix-results"; \
		mkdir -p $(MIX_OUT)/$$k; \
		flock /tmp/cosched-guest.lock tests/vm/vmrun.sh $(MIX_VMRUN_ARGS) --kernel $$k --smp 2 \
			--timeout $(MIX_TIMEOUT) --outdir $(MIX_OUT)/$$k -- \
			bench/run-mix -p $(MIX_COLUMNS) -r $(MIX_REPEATS) \
			--sweeps-after $$(($(words $(MIX_KERNELS)) - n)) $(MIX_ARGS) $(MIXES); \
	done; \
	for k in $(MIX_KERNELS); do \
		bench/report --title "cosched: workload mixes, kernel $$k" $(MIX_OUT)/$$k/mix-results; \
	done

bench-mix-smoke: bench-mix-build
	bench/mix-smoke.sh

# make bench-validate   the testbed against native runs: the baselines at
#                       three grains natively and in calibrated 6.1 and 6.12
#                       guests, and the table of their ratios
#                       (bench/validate, Documentation/calibration.rst;
#                       about 2 hours; rerunning resumes)
# make bench-grain      slowdown against the grain under every policy and
#                       baseline in calibrated guests (bench/grain-sweep,
#                       GRAIN_KERNELS; a day per kernel; rerunning resumes)
GRAIN_KERNELS ?= 6.12 6.1
.PHONY: bench-validate bench-grain
bench-validate: bench-mix-build
	bench/validate

bench-grain: bench-mix-build
	@set -e; for k in $(GRAIN_KERNELS); do bench/grain-sweep $$k; done

userlib:
	$(MAKE) -C userlib

bpf:
	$(MAKE) -C bpf

mpi-glue:
	$(MAKE) -C mpi-glue

mpi-glue-matrix: modules mpi-glue
	for k in 6.1 6.12; do \
		flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel $$k --smp 2 \
			--timeout 3000 -- mpi-glue/test/guest.sh -p all || exit 1; \
	done

mpi-effect: modules mpi-glue
	flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 \
		--timeout 1800 -- mpi-glue/effect.sh

demo:
	scripts/demo.sh

.PHONY: deb
deb:
	packaging/build-deb.sh

check:
	tests/check.sh

lint:
	tests/lint.sh

clean:
	rm -rf build
	$(MAKE) -C kernel -f /dev/null clean 2>/dev/null; \
	rm -f kernel/*.o kernel/*.ko kernel/*.mod* kernel/.*.cmd kernel/Module.symvers kernel/modules.order

# make check-debug      the guest suite, the fuzzer and a kmemleak scan in a
#                       6.12 debug kernel (KASAN, lockdep, kmemleak, debug
#                       objects; tests/vm/debug-kernel.sh), built once into
#                       the cache; DEBUG_TESTS="abi sysfs" runs only those
DEBUG_TESTS ?=
.PHONY: check-debug
check-debug:
	tests/vm/check-debug.sh $(DEBUG_TESTS)

# make fuzz             the ABI fuzzer (tests/fuzz): 10^6 operations, then
#                       module reload cycles, in a 6.12 guest
.PHONY: fuzz fuzz-bin
fuzz-bin:
	$(MAKE) -C tests/fuzz

# The guest suite's short fuzz entry needs the binary too.
tests: fuzz-bin

fuzz: modules fuzz-bin
	flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 \
		--timeout 3000 -- tests/fuzz/run.sh --ops 1000000

# make sim              cosched-sim, the discrete-event model of many nodes
#                       (build/bench/cosched-sim, Documentation/simulator.rst)
# make sim-check        its tests (bench/sim/test, under 30 s)
.PHONY: sim sim-check
sim:
	$(MAKE) -C bench/sim

sim-check:
	$(MAKE) -C bench/sim check

.PHONY: mpich-tests
# make mpich-tests       MPICH's test suite (pt2pt coll threads rma) plain and
#                        under the glue, both MPIs; a long sweep, not in check
mpich-tests: mpi-glue
	mpi-glue/mpich-tests.sh

# make cluster-smoke    boot two guests on a private virtual switch, install
#                       build/deb's packages (make deb if there are none) and
#                       load the module on each, run one Open MPI job across
#                       them under dcs (tests/vm/cluster/smoke.sh)
# make cluster-shell    a shell on node 0 of such a cluster (Documentation/cluster.rst)
# CLUSTER_ARGS          more tests/vm/cluster.sh options: --nodes 3, --insmod, ...
CLUSTER_ARGS ?=
.PHONY: cluster-smoke cluster-shell cluster-debs
# The packages again when a packaged source is newer than them.
DEB_SRC_DIRS := debian packaging kernel include userlib mpi-glue bpf slurm tools scripts
cluster-debs:
	@d=$$(ls -t build/deb/cosched-dkms_*.deb 2>/dev/null | head -n1); \
	if [ -z "$$d" ] || [ -n "$$(git ls-files -z -- $(DEB_SRC_DIRS) | \
		xargs -0 sh -c 'find "$$@" -newer "$$0" -print -quit' "$$d")" ]; then \
		$(MAKE) deb; fi

cluster-smoke: modules mpi-glue cluster-debs
	tests/vm/cluster.sh $(CLUSTER_ARGS) -- tests/vm/cluster/smoke.sh

cluster-shell: modules mpi-glue cluster-debs
	tests/vm/cluster.sh --shell $(CLUSTER_ARGS)

# make slurm            the SPANK plugin for srun --cosched
#                       (build/slurm/cosched_spank.so) and its host test
# make cluster-slurm-smoke  the cluster with Slurm (cluster.sh --slurm):
#                       srun, srun --cosched with an Open MPI and an MPICH job,
#                       a short net_wake round (tests/vm/cluster/slurm-smoke.sh)
# make bench-net-wake   arrival-to-on-CPU latency across two nodes, plain TCP
#                       and io_uring, floor/local/dcs (bench/net_wake.sh)
.PHONY: slurm cluster-slurm-smoke bench-net-wake
slurm:
	$(MAKE) -C slurm all check

cluster-slurm-smoke: modules mpi-glue cluster-debs slurm
	$(MAKE) -C bench $(CURDIR)/build/bench/net_wake
	tests/vm/cluster.sh --slurm $(CLUSTER_ARGS) -- tests/vm/cluster/slurm-smoke.sh

bench-net-wake: modules
	$(MAKE) -C bench $(CURDIR)/build/bench/net_wake
	tests/vm/cluster.sh --insmod --timeout 1800 $(CLUSTER_ARGS) -- bench/net_wake.sh 5 200 5
