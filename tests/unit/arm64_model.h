/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A register-level model of a big.LITTLE machine's PMUv3s, behind
 * backends/arm64/arm64_hw.h, so that backends/arm64/pmuv3.c runs unchanged in the
 * unit tests (arm64_model.c). Each CPU has its own register file; the
 * "current CPU" is selectable. The kernel's arm_pmu drivers are faked to the
 * extent the backend touches them: one struct arm_pmu per core type with
 * its supported CPUs, per-CPU used_mask, and the handle_irq/start hooks.
 */
#ifndef KPMC_ARM64_MODEL_H
#define KPMC_ARM64_MODEL_H

#include <stdbool.h>
#include <stdlib.h>
#include <errno.h>

#define ARM_MODEL_CPUS		4
#define ARM_MODEL_TYPES		2
#define ARM_MODEL_COUNTERS	31	/* PMEVCNTRn registers the architecture names */

/*
 * perf's counter numbering (compat.h picks the kernel's): 5.10-6.1 put the
 * cycle counter at 0 and event counter n at n + 1; later kernels event
 * counter n at n and the cycle counter at 31 (the test is built both ways).
 */
#ifdef ARM_MODEL_NEW_IDX
#define KPMC_ARMPMU_IDX_CYCLE	31
#define KPMC_ARMPMU_IDX_EVENT0	0
#else
#define KPMC_ARMPMU_IDX_CYCLE	0
#define KPMC_ARMPMU_IDX_EVENT0	1
#endif

/* ---- kernel primitives the backend uses ---- */
typedef enum { IRQ_NONE = 0, IRQ_HANDLED = 1 } irqreturn_t;
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
/* pure.h may have given them already. */
#ifndef READ_ONCE
#define READ_ONCE(x)	(*(volatile __typeof__(x) *)&(x))
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))

static inline bool test_bit(unsigned int nr, const unsigned long *addr)
{
	return addr[nr / 64] >> (nr % 64) & 1;
}

static inline bool test_and_set_bit(unsigned int nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	addr[nr / 64] |= 1UL << (nr % 64);
	return old;
}

static inline void clear_bit(unsigned int nr, unsigned long *addr)
{
	addr[nr / 64] &= ~(1UL << (nr % 64));
}

/* ---- the fake arm_pmu ---- */
struct arm_pmu {
	const char *name;
	irqreturn_t (*handle_irq)(struct arm_pmu *pmu);
	void (*start)(struct arm_pmu *pmu);
	unsigned int supported;			/* bit c: CPU c */
	unsigned long used_mask[ARM_MODEL_CPUS][1];	/* perf's, per CPU */
};

/* ---- the register file ---- */
struct arm_model_cpu {
	bool online;
	unsigned int type;			/* index in arm_model.pmu[] */
	u64 pmcr, cntenset, intenset, ovs, userenr, ccntr, ccfiltr;
	u64 evcntr[ARM_MODEL_COUNTERS], evtyper[ARM_MODEL_COUNTERS];
	u64 pmceid0, pmceid1, midr, dfr0;
	/* Accesses to PMEVCNTRn/PMEVTYPERn, n >= PMCR.N: UNPREDICTABLE, so they fail. */
	unsigned long beyond_n;
	unsigned long evcntr_writes[ARM_MODEL_COUNTERS];
};

struct arm_model {
	struct arm_model_cpu cpu[ARM_MODEL_CPUS];
	unsigned int cur;			/* the CPU the backend runs on */
	struct arm_pmu pmu[ARM_MODEL_TYPES];
	unsigned int nr_pmus;
	unsigned long find_pmu_calls;		/* perf events created to find a PMU */
	unsigned long overflows;		/* kpmc_pmu_overflow() calls */
	unsigned long perf_irqs, perf_starts;	/* perf's own handlers reached */
	bool in_hyp;
};

extern struct arm_model am;

/*
 * CPUs 0-1: "big" (Cortex-A57-like, 6 event counters), CPUs 2-3: "LITTLE"
 * (Cortex-A53-like, 4 event counters, a different PMCEID); all online.
 */
void arm_model_init(void);
/* Run on CPU cpu from now on. */
void arm_model_cpu(unsigned int cpu);
/* n occurrences of event ev on the current CPU, at EL0 (user) or EL1. */
void arm_model_event(unsigned int ev, bool user, u64 n);
/* n instructions at EL0 of the current CPU: INST_RETIRED n, CPU_CYCLES 2n, STALL_FRONTEND n/4. */
void arm_model_run(u64 n);
/* arm_pmu's reset on CPU PM exit or hotplug: counters zeroed, everything disabled. */
void arm_model_reset(unsigned int cpu);

/* ---- arm64_hw.h's interface ---- */
#define PMUV3_PER_CPU(type, name)	static type name[ARM_MODEL_CPUS]
#define pmuv3_this(name)		(&(name)[am.cur])
#define pmuv3_on(name, cpu)		(&(name)[(cpu)])
#define pmuv3_for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < ARM_MODEL_CPUS; (cpu)++)

u64 pmuv3_read(enum pmuv3_reg r);
void pmuv3_write(enum pmuv3_reg r, u64 v);
void pmuv3_isb(void);
u64 pmuv3_read_evcntr(unsigned int n);
void pmuv3_write_evcntr(unsigned int n, u64 v);
void pmuv3_write_evtyper(unsigned int n, u64 v);
unsigned int pmuv3_cpu(void);
bool pmuv3_cpu_is_online(unsigned int cpu);
int pmuv3_call_on(unsigned int cpu, void (*fn)(void *info), void *info);
void pmuv3_on_each_cpu(void (*fn)(void *info), void *info);
void pmuv3_sync_irqs(void);
bool pmuv3_kernel_in_hyp(void);
struct arm_pmu *pmuv3_find_pmu(unsigned int cpu);
const char *pmuv3_pmu_name(const struct arm_pmu *pmu);
bool pmuv3_pmu_has_cpu(const struct arm_pmu *pmu, unsigned int cpu);
unsigned long *pmuv3_used_mask(struct arm_pmu *pmu, unsigned int cpu);

#endif
