# kpmc — top-level build.
#
#   make            module for the arm64 and x86_64 guest kernels, the CLI for the
#                   host and (static) for arm64, the guest test programs
#   make module KDIR=/lib/modules/$(uname -r)/build [ARCH=arm64|x86_64]
#                   module for a real kernel (build/custom/kpmc.ko)
#   make test       install deps, build, unit and host tests, the guests: Debian's 6.1
#                   (arm64 1 and 2 CPUs, x86_64), 5.10, 6.12, 6.12-rt (arm64) and 7.x
#                   kernels; 6.12 debug kernels with the scheduler patch (arm64
#                   PREEMPT_RT 1 and 2 CPUs, x86_64); the Debian packages with DKMS
#                   (make test-packages); bench-smoke; "N passed, N failed"
#   make test-patched-6.1  the scheduler patch's 6.1 debug kernels (not in make test)
#   make demo       install deps, build, boot the arm64 guest, trace a workload
#   make fuzz [OPS=N] [SEED=S] [FUZZ_KERNEL=debug|rt|stock] [FUZZ_CPUS=N]  the stateful fuzzer alone
#   make bench      one arm64 guest boot: kpmc vs perf vs nothing, tables (bench/run.sh)
#   make bench-smoke the same driver on tiny inputs (part of make test)
#   make papi       PAPI (Debian's papi source package) with kpmc's component
#                   (userland/papi/), libpapi and its utilities in build/papi (doc/papi.md);
#                   make papi-arm64: the same cross-built for the arm64 guest (build/papi-arm64);
#                   KPMC_PAPI_CPU=kpmc: kpmc as PAPI's CPU component (presets), build/papi*-cpu-kpmc
SHELL := /bin/bash
BUILD := $(CURDIR)/build
GUEST_ARCHES := arm64 x86_64
USER_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2
CROSS_arm64 := aarch64-linux-gnu-
CROSS_x86_64 :=
# libkpmc as the guest programs link it (static, with libpfm4).
include userland/files.mk
LIBKPMC_LIBS := -lpfm -lelf -lz -lpthread -lm
# Call-stack tests (callchain): frame records in every function, calls kept calls.
STACK_CFLAGS := -fno-omit-frame-pointer -fno-optimize-sibling-calls
# twophase_fn: twophase's region "work" from the function's entry and exit
# (KPMC_FOLD_FUNCTIONS=work), its own file instrumented, not libkpmc's; spin.h's
# inline loops are not (their hooks would cost every getppid instructions).
FN_CFLAGS := -finstrument-functions -finstrument-functions-exclude-file-list=spin.h
PROGS := fmtcheck loop runas perfhold wakeups ringloss mmapring spawnmany manyalive forktree outlive yield sleepyield loopsleep ampmix perfcount spinsleep cpuhop forkstorm memobjects memcheck loopnest loopcheck kpmcattack el0peek nofork cgwork cgmove

.PHONY: all deps modules userland progs stage unit guest-arm64 guest-x86_64 \
	test demo module clean bench bench-smoke guest-arm64-smp guest-x86_64-patched host-tests \
	guest-arm64-patched guest-arm64-patched-smp pmda slurm

all: modules userland progs pmda slurm

deps:
	scripts/install-deps.sh

modules:
	@for a in $(GUEST_ARCHES); do scripts/build-module.sh $$a $(BUILD)/$$a || exit 1; done

module:
	@test -n "$(KDIR)" || { echo "make module needs KDIR=<kernel build tree>"; exit 2; }
	scripts/build-module.sh $(or $(ARCH),$(shell uname -m | sed 's/aarch64/arm64/')) $(BUILD)/custom $(KDIR)

userland:
	$(MAKE) -C userland OUT=$(BUILD)/host CC=gcc all top lib flame fold foldlib
	$(MAKE) -C userland OUT=$(BUILD)/arm64/bin CC="$(CROSS_arm64)gcc" \
		LDFLAGS="-Wl,-rpath-link=/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu"
	$(MAKE) -C userland OUT=$(BUILD)/x86_64/bin CC="gcc"

# pmdakpmc, the PCP agent (x86_64 host only: Debian's libpcp3 is not
# Multi-Arch: same, so libpcp-pmda3-dev:arm64 cannot sit beside pcp).
pmda:
	$(MAKE) -C pmda OUT=$(BUILD)/host

# kpmc.so, the Slurm SPANK plugin (libslurm-dev), for the machine it is
# built on: the x86_64 cluster guests run Debian's amd64 Slurm (doc/cluster.md).
slurm:
	$(MAKE) -C userland/slurm OUT=$(BUILD)/host/slurm

progs:
	@for a in $(GUEST_ARCHES); do \
		mkdir -p $(BUILD)/$$a/progs; \
		cc=gcc; [ $$a = arm64 ] && cc=$(CROSS_arm64)gcc; \
		for p in $(PROGS); do \
			$$cc -static $(USER_CFLAGS) -Iinclude -g -o $(BUILD)/$$a/progs/$$p tests/progs/$$p.c -lpthread -lm || exit 1; \
		done; \
		$$cc -static $(USER_CFLAGS) -Iinclude -o $(BUILD)/$$a/progs/kpmc_fuzz tests/fuzz/kpmc_fuzz.c -lpthread || exit 1; \
		$$cc -static $(USER_CFLAGS) -o $(BUILD)/$$a/progs/phases bench/progs/phases.c || exit 1; \
		$$cc -static $(USER_CFLAGS) $(STACK_CFLAGS) $$([ $$a = arm64 ] && echo -mno-omit-leaf-frame-pointer) \
			-Iinclude -g -o $(BUILD)/$$a/progs/callchain tests/progs/callchain.c || exit 1; \
		for p in regions fastpath libkpmc_more selffork memlib twophase regionmetric cgcount; do \
			$$cc -static $(USER_CFLAGS) -Iinclude -Iuserland -Iuserland/libkpmc/include -o $(BUILD)/$$a/progs/$$p \
				tests/progs/$$p.c $(LIBKPMC_SRCS) $(LIBKPMC_LIBS) || exit 1; \
		done; \
		$$cc $(USER_CFLAGS) -Iinclude -Iuserland/libkpmc/include -DTWOPHASE_FUNCTION_REGIONS $(FN_CFLAGS) \
			-c -o $(BUILD)/$$a/progs/twophase_fn.o tests/progs/twophase.c || exit 1; \
		$$cc -static $(USER_CFLAGS) -Iinclude -Iuserland -Iuserland/libkpmc/include -o $(BUILD)/$$a/progs/twophase_fn \
			$(BUILD)/$$a/progs/twophase_fn.o $(LIBKPMC_SRCS) $(LIBKPMC_LIBS) || exit 1; \
		rm -f $(BUILD)/$$a/progs/twophase_fn.o; \
	done

# The guest's root tree: module, CLI, test programs, guest test scripts.
stage: all papi-guest
	@for a in $(GUEST_ARCHES); do \
		r=$(BUILD)/$$a/root; rm -rf $$r; mkdir -p $$r/bin $$r/tests/bin $$r/tests/guest; \
		cp $(BUILD)/$$a/kpmc.ko $(BUILD)/$$a/kpmc_fmt_example.ko $$r/; cp $(BUILD)/$$a/bin/kpmc $$r/bin/; \
		if [ -f $(BUILD)/$$a/kpmc_cgq.ko ]; then cp $(BUILD)/$$a/kpmc_cgq.ko $$r/; fi; \
		scripts/guest-libs.sh $$a $$r $$r/bin/kpmc || exit 1; \
		if [ $$a = arm64 ]; then \
			scripts/build-papi.sh stage $$r $(BUILD)/papi-arm64 perf_event && \
			scripts/build-papi.sh stage $$r $(BUILD)/papi-arm64-cpu-kpmc kpmc || exit 1; \
		fi; \
		cp $(BUILD)/$$a/progs/* $$r/tests/bin/; cp tests/guest/*.sh $$r/tests/guest/; \
		mkdir -p $$r/usr/share/kpmc; cp -r share/kpmc/groups share/kpmc/models $$r/usr/share/kpmc/; \
	done

unit:
	$(MAKE) -C tests/unit OUT=$(BUILD)/unit
	scripts/run-unit-tests.sh $(BUILD)/unit

# PAPI with kpmc's component built in (scripts/build-papi.sh, doc/papi.md):
# for the host, build/papi/bin/papi_component_avail etc.; for the arm64
# guest, build/papi-arm64. KPMC_PAPI_CPU=kpmc: kpmc as component 0, which
# PAPI's presets (PAPI_TOT_INS...) need, in build/papi-cpu-kpmc and
# build/papi-arm64-cpu-kpmc. make stage builds both arm64 ones (papi-guest:
# about 30 s each from nothing, the source package cached; a second or less
# when built) for the arm64 guest's root (/papi/perf_event, /papi/kpmc:
# tests/guest/t_arm64_papi.sh).
KPMC_PAPI_CPU ?= perf_event
PAPI_VARIANT := $(if $(filter kpmc,$(KPMC_PAPI_CPU)),-cpu-kpmc)
.PHONY: papi papi-arm64 papi-guest papi-host
papi-guest:
	scripts/build-papi.sh arm64 $(BUILD)/papi-arm64 perf_event
	scripts/build-papi.sh arm64 $(BUILD)/papi-arm64-cpu-kpmc kpmc
# Both amd64 builds, for the host tests' check of the component on a fake
# /proc/kpmc (tests/host/papi_component.sh): about a minute each from
# nothing, seconds when built.
papi-host:
	scripts/build-papi.sh amd64 $(BUILD)/papi perf_event
	scripts/build-papi.sh amd64 $(BUILD)/papi-cpu-kpmc kpmc
papi:
	scripts/build-papi.sh amd64 $(BUILD)/papi$(PAPI_VARIANT) $(KPMC_PAPI_CPU)
papi-arm64:
	scripts/build-papi.sh arm64 $(BUILD)/papi-arm64$(PAPI_VARIANT) $(KPMC_PAPI_CPU)

# The CLI's table, CSV and JSON forms of one record stream, checked by python3.
host-tests: userland papi-host
	tests/host/run.sh $(BUILD)/host/kpmc $(BUILD)/host-tests

guest-arm64 guest-x86_64: guest-%: stage
	scripts/run-guest-tests.sh $* $(BUILD)/$*/root $(BUILD)/$*/run

# Kernels built from linux-source-6.1 with patches/ and the debug options
# (cached): kpmc on pmc_ops, the whole suite of the arch plus the patched
# tests; arm64 with 2 CPUs: the placement policy.
guest-x86_64-patched guest-arm64-patched: guest-%-patched: stage
	scripts/run-patched-tier.sh $* $(BUILD)

guest-arm64-patched-smp: stage
	scripts/run-patched-tier.sh arm64 $(BUILD) 2

# The same on Linux 6.12 (patches/6.12, linux-source-6.12 from
# bookworm-backports): arm64 PREEMPT_RT (1 CPU: suite + patched tests;
# 2 CPUs: the policy), x86_64 non-RT. Results in build/<arch>-patched-6.12[-rt]/.
.PHONY: guest-arm64-patched-6.12-rt guest-arm64-patched-6.12-rt-smp guest-x86_64-patched-6.12
guest-arm64-patched-6.12-rt: stage
	scripts/run-patched-tier.sh arm64 $(BUILD) 1 6.12 rt

guest-arm64-patched-6.12-rt-smp: stage
	scripts/run-patched-tier.sh arm64 $(BUILD) 2 6.12 rt

guest-x86_64-patched-6.12: stage
	scripts/run-patched-tier.sh x86_64 $(BUILD) 1 6.12

# The same arm64 guest with 2 CPUs: the system-wide, CPU hotplug and
# idle/suspend tests (t_smp_*), booted with a PSCI power-down idle state
# (scripts/idle-dtb.sh) so that every idle exit resets the PMU, as on
# real ARM SoCs.
guest-arm64-smp: stage
	KPMC_GUEST_IDLE=powerdown KPMC_GUEST_SMP=2 scripts/run-guest-tests.sh arm64 $(BUILD)/arm64/root $(BUILD)/arm64/run-smp

# 4 and 8 CPUs (t_smpn_*), held to perf's counts of the same runs; not in
# make test (an 8-vCPU guest under -icount runs its vCPUs one at a time).
.PHONY: guest-arm64-smp4 guest-arm64-smp8
guest-arm64-smp4 guest-arm64-smp8: guest-arm64-smp%: stage
	KPMC_GUEST_SMP=$* scripts/run-guest-tests.sh arm64 $(BUILD)/arm64/root $(BUILD)/arm64/run-smp$*

# The stateful fuzzer (tests/fuzz/) alone: OPS operations from SEED, on the
# x86_64 6.12 debug kernel (lockdep, KASAN, kmemleak; perf backend) by
# default, FUZZ_KERNEL=rt on the arm64 PREEMPT_RT debug kernel (the real
# PMU; about 25 times slower), FUZZ_KERNEL=stock on Debian's 6.1 arm64.
# Results: build/<arch>-patched-6.12[-rt]/run-fuzz, build/arm64/run-fuzz.
# FUZZ_CPUS: the debug kernels' guest CPUs (x86_64 runs them in parallel on
# the host's cores; more races between the workers, too).
OPS ?= 1000000
SEED ?= 1
FUZZ_KERNEL ?= debug
FUZZ_CPUS ?= 1
.PHONY: fuzz fuzz-smoke
fuzz: stage
	@case "$(FUZZ_KERNEL)" in \
	stock) KPMC_GUEST_APPEND="kpmc.fuzz=$(OPS),$(SEED)" KPMC_GUEST_TIMEOUT=7200 \
		scripts/run-guest-tests.sh arm64 $(BUILD)/arm64/root $(BUILD)/arm64/run-fuzz ;; \
	rt) KPMC_FUZZ=$(OPS),$(SEED) KPMC_GUEST_TIMEOUT=7200 scripts/run-patched-tier.sh arm64 $(BUILD) $(FUZZ_CPUS) 6.12 rt ;; \
	*) KPMC_FUZZ=$(OPS),$(SEED) KPMC_GUEST_TIMEOUT=7200 scripts/run-patched-tier.sh x86_64 $(BUILD) $(FUZZ_CPUS) 6.12 ;; \
	esac

# make test's fuzzer on Debian's 6.1 arm64 guest: 50,000 operations, then
# counts still exact on the real (emulated) PMU. 100,000 took 25 guest s, 6
# min of a lane; its rarest accepted operations, ring data mmap 16, detach
# 24, attach-exec 26 times: half as many keep each far from never.
fuzz-smoke: stage
	@$(MAKE) --no-print-directory -o stage fuzz FUZZ_KERNEL=stock OPS=50000 SEED=2

# The x86_64 debug kernel's suite, then 25,000 fuzzer operations on it,
# then stress-ng: one stage, since all use its build directory. Under KASAN
# an operation costs 20 to 35 ms of this machine's time: 25,000 take 8 to 14
# minutes of one lane and still see every kind of operation accepted (the
# rarest, an attach across exec, 4 times of 68); fewer would not.
# make fuzz OPS=1000000 is the long run.
.PHONY: patched-x86_64-6.12-both
patched-x86_64-6.12-both: stage
	-@$(MAKE) --no-print-directory -o stage guest-x86_64-patched-6.12
	-@$(MAKE) --no-print-directory -o stage fuzz FUZZ_KERNEL=debug OPS=25000 SEED=1
	-@$(MAKE) --no-print-directory -o stage stress-x86_64-debug

bench: stage
	bench/run.sh full

# Benchmarks never fail on a figure; the smoke run fails only if the driver,
# the guest or a monitored run broke.
bench-smoke: stage
	@mkdir -p $(BUILD)/bench
	@if bench/run.sh smoke >$(BUILD)/bench/smoke.out 2>&1; then \
		echo "bench-smoke: PASS"; echo "1 0" >$(BUILD)/bench/result; \
	else \
		tail -n 30 $(BUILD)/bench/smoke.out; echo "bench-smoke: FAIL"; echo "0 1" >$(BUILD)/bench/result; \
	fi

# pmdakpmc on two x86_64 guests (Debian root with PCP, cached by
# scripts/pcp-root.sh), scraped by Prometheus on the host, with pmlogger and
# the kpmc CLI in the guests (tests/pmda/two-nodes.sh): build/pmda/result.
.PHONY: pmda-two-nodes
pmda-two-nodes: stage
	@mkdir -p $(BUILD)/pmda
	@if KPMC_MODULE=$(BUILD)/x86_64/kpmc.ko tests/pmda/two-nodes.sh $(BUILD)/pmda/work \
			>$(BUILD)/pmda/two-nodes.out 2>&1; then \
		cat $(BUILD)/pmda/two-nodes.out; echo "1 0" >$(BUILD)/pmda/result; \
	else \
		cat $(BUILD)/pmda/two-nodes.out; echo "0 1" >$(BUILD)/pmda/result; \
	fi

# A Slurm cluster of two x86_64 guests (slurmctld, slurmd, munge; the PCP
# root has Slurm) counting job steps with kpmc's SPANK plugin, pmdakpmc
# serving the steps, Prometheus on the host (tests/pmda/slurm-cluster.sh):
# build/slurm-cluster/result.
.PHONY: slurm-cluster
slurm-cluster: stage
	@mkdir -p $(BUILD)/slurm-cluster
	@if KPMC_MODULE=$(BUILD)/x86_64/kpmc.ko tests/pmda/slurm-cluster.sh $(BUILD)/slurm-cluster/work \
			>$(BUILD)/slurm-cluster/out 2>&1; then \
		cat $(BUILD)/slurm-cluster/out; echo "1 0" >$(BUILD)/slurm-cluster/result; \
	else \
		cat $(BUILD)/slurm-cluster/out; echo "0 1" >$(BUILD)/slurm-cluster/result; \
	fi

# pmdakpmc with 5,000 selected processes alive and through a 10,000-process
# fork storm, in one x86_64 guest (tests/pmda/scale.sh): fetch latency, the
# agent's CPU time and RSS, instances and records accounted, never dropped
# by pmcd. Not in make test (a measurement): build/pmda-scale/result.
.PHONY: pmda-scale
pmda-scale: stage
	@mkdir -p $(BUILD)/pmda-scale
	@if KPMC_MODULE=$(BUILD)/x86_64/kpmc.ko tests/pmda/scale.sh $(BUILD)/pmda-scale/work \
			>$(BUILD)/pmda-scale/scale.out 2>&1; then \
		cat $(BUILD)/pmda-scale/scale.out; echo "1 0" >$(BUILD)/pmda-scale/result; \
	else \
		cat $(BUILD)/pmda-scale/scale.out; echo "0 1" >$(BUILD)/pmda-scale/result; \
	fi

# Debian's stock kernels besides 6.1, each with kpmc.ko built against its
# own headers by its own compiler (scripts/fetch-kernel.sh: 5.10 bullseye,
# 6.12 and 6.12-rt bookworm-backports, 7 = the newest 7.x of
# trixie-backports), booting the whole suite of the architecture:
# build/tiers/<arch>-<tier>/run/result.
KERNEL_TIERS_arm64 := 5.10 6.12 6.12-rt 7
KERNEL_TIERS_x86_64 := 5.10 6.12 7
# make test's: all but Debian's stock 6.12 PREEMPT_RT on arm64, whose suite
# make test runs on the same 6.12 PREEMPT_RT source with the scheduler patch
# and the debug options (guest-arm64-patched-6.12-rt): two whole arm64 suites
# of one kernel did not fit make test's time on 2 cores. make
# tier-arm64-6.12-rt runs the stock one.
TEST_TIERS_arm64 := 5.10 6.12 7
TEST_TIERS_x86_64 := $(KERNEL_TIERS_x86_64)
tier-arm64-%: stage
	scripts/run-kernel-tier.sh $* arm64 $(BUILD)
tier-x86_64-%: stage
	scripts/run-kernel-tier.sh $* x86_64 $(BUILD)
# The 6.12 tier's 2-CPU run, as guest-arm64-smp: build/tiers/arm64-6.12-smp.
.PHONY: tier-smp-arm64-6.12
tier-smp-arm64-6.12: stage
	KPMC_GUEST_IDLE=powerdown KPMC_GUEST_SMP=2 scripts/run-kernel-tier.sh 6.12 arm64 $(BUILD)

# Programs nobody here wrote: Debian's stress-ng under kpmc beside perf
# (tests/guest/t_stress_ng.sh), on Debian's 6.1 arm64 (exact instruction
# counts) and on the x86_64 debug kernel (lockdep, KASAN, kmemleak):
# build/arm64-stress/run, build/x86_64-patched-6.12/run-stress.
.PHONY: stress-arm64 stress-x86_64-debug
stress-arm64: stage
	scripts/run-stress-tier.sh arm64 $(BUILD)
stress-x86_64-debug: stage
	KPMC_STRESS=1 scripts/run-patched-tier.sh x86_64 $(BUILD) 1 6.12

# A patched arm64 kernel's 1-CPU and 2-CPU runs share its build directory:
# one stage runs both, one after the other.
patched-arm64-both: stage
	-@$(MAKE) --no-print-directory -o stage guest-arm64-patched
	-@$(MAKE) --no-print-directory -o stage guest-arm64-patched-smp
patched-arm64-6.12-rt-both: stage
	-@$(MAKE) --no-print-directory -o stage guest-arm64-patched-6.12-rt
	-@$(MAKE) --no-print-directory -o stage guest-arm64-patched-6.12-rt-smp

# The guest stages of make test, slowest first: run-stages.sh runs them two
# at a time (one -icount guest is one QEMU thread); on a cold machine the two
# patched kernels build one after the other (run-patched-tier.sh), so the
# package test runs beside the first build. The 6.1 patched tiers
# are not among them (make test-patched-6.1): the 6.12 ones test the same
# patch and module code on debug kernels, and both pairs of kernel builds
# would not fit make test's cold budget on 2 cores.
GUEST_STAGES := patched-arm64-6.12-rt-both test-packages patched-x86_64-6.12-both \
	$(addprefix tier-arm64-,$(TEST_TIERS_arm64)) guest-arm64 guest-arm64-smp tier-smp-arm64-6.12 \
	guest-x86_64 $(addprefix tier-x86_64-,$(TEST_TIERS_x86_64)) stress-arm64 pmda-two-nodes slurm-cluster fuzz-smoke \
	bench-smoke
GUEST_RESULTS := $(BUILD)/arm64/run/result $(BUILD)/arm64/run-smp/result $(BUILD)/x86_64/run/result \
	$(BUILD)/arm64-patched-6.12-rt/run/result $(BUILD)/arm64-patched-6.12-rt/run-smp/result \
	$(BUILD)/x86_64-patched-6.12/run/result \
	$(foreach a,arm64 x86_64,$(foreach t,$(TEST_TIERS_$(a)),$(BUILD)/tiers/$(a)-$(t)/run/result)) \
	$(BUILD)/tiers/arm64-6.12-smp/run/result \
	$(BUILD)/packages/result $(BUILD)/arm64/run-fuzz/result $(BUILD)/x86_64-patched-6.12/run-fuzz/result \
	$(BUILD)/bench/result $(BUILD)/pmda/result $(BUILD)/slurm-cluster/result \
	$(BUILD)/arm64-stress/run/result $(BUILD)/x86_64-patched-6.12/run-stress/result

# The scheduler patch's 6.1 series on its debug kernels (x86_64; arm64 with
# 1 and 2 CPUs), two at a time.
.PHONY: test-patched-6.1
test-patched-6.1: stage
	@rm -f $(BUILD)/x86_64-patched/run/result $(BUILD)/arm64-patched/run/result $(BUILD)/arm64-patched/run-smp/result
	@scripts/run-stages.sh 2 patched-arm64-both guest-x86_64-patched
	@scripts/test-summary.sh $(BUILD)/x86_64-patched/run/result $(BUILD)/arm64-patched/run/result \
		$(BUILD)/arm64-patched/run-smp/result

# Every stage runs even if an earlier one failed, so one run shows everything;
# the summary line decides. Before the guests, both cores: the build and the
# guest roots (stage builds all), then the unit and host tests side by side
# (one after the other, with all built twice, they took 10 of make test's
# minutes here).
test: deps
	@rm -f $(BUILD)/unit/result $(BUILD)/host-tests/result $(GUEST_RESULTS)
	-@$(MAKE) --no-print-directory -j2 stage
	-@$(MAKE) --no-print-directory -j2 -k --output-sync=target unit host-tests
	@scripts/run-stages.sh 2 $(GUEST_STAGES)
	@scripts/test-summary.sh $(BUILD)/unit/result $(BUILD)/host-tests/result $(GUEST_RESULTS)

# Debian packages (kpmc-dkms, kpmc, libkpmc0, libkpmcfold1, libkpmc-dev) into build/deb/, and
# the test of them as users install them (bookworm and trixie chroots, DKMS,
# the DKMS-built module's guest smoke suite): build/packages/result.
.PHONY: deb test-packages
deb:
	scripts/build-deb.sh $(BUILD)/deb
test-packages: deb userland progs
	scripts/test-packages.sh $(BUILD)

demo: deps stage
	scripts/mkinitramfs.sh arm64 $(BUILD)/arm64/root $(BUILD)/arm64/demo.cpio.gz
	scripts/boot-guest.sh arm64 $(BUILD)/arm64/demo.cpio.gz $(BUILD)/arm64/demo.log demo

clean:
	rm -rf $(BUILD)
