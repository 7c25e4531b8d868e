/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 PMUv3 backend's only contact with the machine: PMU system
 * registers, the kernel's arm_pmu drivers (one per core type: which PMU a
 * CPU has, its per-CPU counter allocator, its interrupt and enable hooks),
 * cross-CPU calls and per-CPU data. In the module these are the kernel's;
 * in the unit tests a register-level model of big.LITTLE PMUs
 * (tests/unit/arm64_model.c) provides them, so arm64_pmuv3.c runs unchanged
 * against it.
 */
#ifndef KPMC_ARM64_HW_H
#define KPMC_ARM64_HW_H

#include "kpmc/backend.h"

/* PMUv3 register fields (Arm ARM, D13/D23), independent of kernel headers. */
#define PMUV3_PMCR_E		(1u << 0)	/* enable all counters */
#define PMUV3_PMCR_LC		(1u << 6)	/* 64-bit cycle counter overflow */
#define PMUV3_PMCR_N(pmcr)	(((pmcr) >> 11) & 0x1f)	/* event counters */
#define PMUV3_USERENR_CR	(1u << 2)	/* EL0 reads PMCCNTR_EL0 */
#define PMUV3_USERENR_ER	(1u << 3)	/* EL0 reads event counters */
#define PMUV3_EVTYPE_P		(1u << 31)	/* do not count at EL1 */
#define PMUV3_EVTYPE_U		(1u << 30)	/* do not count at EL0 */
#define PMUV3_EVTYPE_NSH	(1u << 27)	/* count at EL2 */
#define PMUV3_CYCLE_BIT		31		/* PMCNTEN/PMINTEN/PMOVS bit of PMCCNTR */
#define PMUV3_DFR0_PMUVER(dfr0)	(((dfr0) >> 8) & 0xf)	/* ID_AA64DFR0_EL1.PMUVer */

/* The registers the backend reads or writes, besides the event counters. */
enum pmuv3_reg {
	PMUV3_PMCR,
	PMUV3_PMCNTENSET,
	PMUV3_PMCNTENCLR,
	PMUV3_PMINTENSET,
	PMUV3_PMINTENCLR,
	PMUV3_PMOVSCLR,
	PMUV3_PMUSERENR,
	PMUV3_PMCCNTR,
	PMUV3_PMCCFILTR,
	PMUV3_PMCEID0,
	PMUV3_PMCEID1,
	PMUV3_MIDR,
	PMUV3_DFR0,
};

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/perf/arm_pmu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <asm/barrier.h>
#include <asm/cputype.h>
#include <asm/sysreg.h>
#include <asm/virt.h>
#include "kpmc/compat.h"

/* The register is a constant at every call, so the switch folds away. */
static __always_inline u64 pmuv3_read(enum pmuv3_reg r)
{
	switch (r) {
	case PMUV3_PMCR:	return read_sysreg(pmcr_el0);
	case PMUV3_PMCNTENSET:	return read_sysreg(pmcntenset_el0);
	case PMUV3_PMCNTENCLR:	return read_sysreg(pmcntenclr_el0);
	case PMUV3_PMINTENSET:	return read_sysreg(pmintenset_el1);
	case PMUV3_PMINTENCLR:	return read_sysreg(pmintenclr_el1);
	case PMUV3_PMOVSCLR:	return read_sysreg(pmovsclr_el0);
	case PMUV3_PMUSERENR:	return read_sysreg(pmuserenr_el0);
	case PMUV3_PMCCNTR:	return read_sysreg(pmccntr_el0);
	case PMUV3_PMCCFILTR:	return read_sysreg_s(SYS_PMCCFILTR_EL0);
	case PMUV3_PMCEID0:	return read_sysreg(pmceid0_el0);
	case PMUV3_PMCEID1:	return read_sysreg(pmceid1_el0);
	case PMUV3_MIDR:	return read_cpuid_id();
	case PMUV3_DFR0:	return read_sysreg(id_aa64dfr0_el1);
	}
	return 0;
}

static __always_inline void pmuv3_write(enum pmuv3_reg r, u64 v)
{
	switch (r) {
	case PMUV3_PMCR:
		write_sysreg(v, pmcr_el0);
		break;
	case PMUV3_PMCNTENSET:
		write_sysreg(v, pmcntenset_el0);
		break;
	case PMUV3_PMCNTENCLR:
		write_sysreg(v, pmcntenclr_el0);
		break;
	case PMUV3_PMINTENSET:
		write_sysreg(v, pmintenset_el1);
		break;
	case PMUV3_PMINTENCLR:
		write_sysreg(v, pmintenclr_el1);
		break;
	case PMUV3_PMOVSCLR:
		write_sysreg(v, pmovsclr_el0);
		break;
	case PMUV3_PMUSERENR:
		write_sysreg(v, pmuserenr_el0);
		break;
	case PMUV3_PMCCNTR:
		write_sysreg(v, pmccntr_el0);
		break;
	case PMUV3_PMCCFILTR:
		write_sysreg_s(v, SYS_PMCCFILTR_EL0);
		break;
	default:	/* identification registers are read-only */
		break;
	}
}

static inline void pmuv3_isb(void)
{
	isb();
}

/*
 * Event counter registers are named by a constant in the instruction, so
 * the counter number goes through a switch. 15: the most kpmc exposes
 * (pmc1..pmc15).
 */
#define PMUV3_CASE(i, stmt)	case i: stmt(i); break
#define PMUV3_EACH_COUNTER(x, stmt)		\
	do {					\
		switch (x) {			\
		PMUV3_CASE(0, stmt);		\
		PMUV3_CASE(1, stmt);		\
		PMUV3_CASE(2, stmt);		\
		PMUV3_CASE(3, stmt);		\
		PMUV3_CASE(4, stmt);		\
		PMUV3_CASE(5, stmt);		\
		PMUV3_CASE(6, stmt);		\
		PMUV3_CASE(7, stmt);		\
		PMUV3_CASE(8, stmt);		\
		PMUV3_CASE(9, stmt);		\
		PMUV3_CASE(10, stmt);		\
		PMUV3_CASE(11, stmt);		\
		PMUV3_CASE(12, stmt);		\
		PMUV3_CASE(13, stmt);		\
		PMUV3_CASE(14, stmt);		\
		}				\
	} while (0)

static inline u64 pmuv3_read_evcntr(unsigned int n)
{
	u64 v = 0;

#define PMUV3_RD_CNTR(i) (v = read_sysreg_s(SYS_PMEVCNTRn_EL0(i)))
	PMUV3_EACH_COUNTER(n, PMUV3_RD_CNTR);
#undef PMUV3_RD_CNTR
	return v;
}

static inline void pmuv3_write_evcntr(unsigned int n, u64 v)
{
#define PMUV3_WR_CNTR(i) write_sysreg_s(v, SYS_PMEVCNTRn_EL0(i))
	PMUV3_EACH_COUNTER(n, PMUV3_WR_CNTR);
#undef PMUV3_WR_CNTR
}

static inline void pmuv3_write_evtyper(unsigned int n, u64 v)
{
#define PMUV3_WR_TYPER(i) write_sysreg_s(v, SYS_PMEVTYPERn_EL0(i))
	PMUV3_EACH_COUNTER(n, PMUV3_WR_TYPER);
#undef PMUV3_WR_TYPER
}

/* ---- CPUs, per-CPU data, cross-CPU calls ---- */

#define PMUV3_PER_CPU(type, name)	static DEFINE_PER_CPU(type, name)
#define pmuv3_this(name)		this_cpu_ptr(&(name))
#define pmuv3_on(name, cpu)		per_cpu_ptr(&(name), (cpu))
#define pmuv3_for_each_possible_cpu(cpu) for_each_possible_cpu(cpu)

/* Hot paths and IPIs only: preemption is off there. */
static inline unsigned int pmuv3_cpu(void)
{
	return smp_processor_id();
}

static inline bool pmuv3_cpu_is_online(unsigned int cpu)
{
	return cpu_online(cpu);
}

/* Run fn on cpu and wait (process context); 0 or -ENXIO if cpu is offline. */
static inline int pmuv3_call_on(unsigned int cpu, void (*fn)(void *info), void *info)
{
	return smp_call_function_single(cpu, fn, info, 1);
}

static inline void pmuv3_on_each_cpu(void (*fn)(void *info), void *info)
{
	on_each_cpu(fn, info, 1);
}

/* No CPU is still inside a handler kpmc stood in front of (hard IRQs are RCU readers). */
static inline void pmuv3_sync_irqs(void)
{
	synchronize_rcu();
}

static inline bool pmuv3_kernel_in_hyp(void)
{
	return is_kernel_in_hyp_mode();
}

/* ---- the kernel's arm_pmu drivers ---- */

/*
 * The arm_pmu of online CPU cpu, or NULL. perf's armpmu_event_init()
 * refuses an event for a CPU outside its supported_cpus, so a CPU-bound
 * event lands on that CPU's own PMU; a disabled event is never scheduled,
 * so this takes no counter.
 */
static inline struct arm_pmu *pmuv3_find_pmu(unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *ev;
	struct arm_pmu *pmu = NULL;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return NULL;
	if (ev->pmu && ev->pmu->name && !strncmp(ev->pmu->name, "armv8", 5))
		pmu = to_arm_pmu(ev->pmu);
	perf_event_release_kernel(ev);
	return pmu;
}

static inline const char *pmuv3_pmu_name(const struct arm_pmu *pmu)
{
	return pmu->name;
}

static inline bool pmuv3_pmu_has_cpu(const struct arm_pmu *pmu, unsigned int cpu)
{
	return cpumask_test_cpu(cpu, &pmu->supported_cpus);
}

/* perf's per-CPU counter allocator: a set bit is a counter perf must not take. */
static inline unsigned long *pmuv3_used_mask(struct arm_pmu *pmu, unsigned int cpu)
{
	return per_cpu_ptr(pmu->hw_events, cpu)->used_mask;
}

#else /* the unit tests */
#include "arm64_model.h"
#endif

/*
 * Memory sampling (the backend's mem_sample): the access of the sample an
 * overflow interrupt took at regs (backends/arm64/mem.c). Not part of the
 * register model: the unit tests test its decoding (test_a64_decode.c).
 */
void kpmc_arm64_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out);

#endif /* KPMC_ARM64_HW_H */
