/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one interface between the core and a PMU backend. A backend programs
 * and reads registers; it knows nothing of threads, sessions, records or
 * /proc. The core calls the hot-path operations (load, stop, read) with
 * preemption disabled on the CPU whose counters they touch.
 */
#ifndef KPMC_BACKEND_H
#define KPMC_BACKEND_H

#include "config.h"

struct pt_regs;
struct kpmc_mem_access;

/* A configuration encoded for the backend's registers, immutable once built. */
struct kpmc_hw_config {
	u32 mask;				/* counters in use */
	unsigned int nr;			/* number of bits in mask */
	u8 slot[KPMC_MAX_COUNTERS];		/* the used counters, in order */
	u64 width_mask[KPMC_MAX_COUNTERS];	/* per counter, by slot */
	u64 selector[KPMC_MAX_COUNTERS];	/* event-select register value, by slot */
	u64 enable_bits;			/* backend's mask for its enable register */
	/* Event-based sampling: the counter (index in slot order) that interrupts. */
	bool sampling;
	unsigned int sampling_index;
	u64 irq_bits;				/* backend's mask for its interrupt enable */
	/*
	 * The samples are triggered by a sampler beside the counters (AMD's
	 * IBS), programmed from the sampling counter's value by load() and
	 * write(): the counter itself never interrupts, and a sample is due
	 * when the backend says so (mem_pending), not when the counter passes
	 * its overflow.
	 */
	bool sampling_external;
	void *priv;				/* backend's own, freed by its release() */
};

/*
 * The core's entry for overflow interrupts. A backend calls it from its PMU
 * interrupt (hard IRQ, on the CPU whose counter overflowed) after clearing
 * the overflow flags of the counters it claimed for kpmc.
 */
void kpmc_pmu_overflow(void);

struct kpmc_backend {
	const char *name;
	/*
	 * Is this CPU's PMU ours? Fill desc and return 0, or return a negative
	 * errno with a plain-words reason in why.
	 */
	int (*probe)(struct kpmc_pmu_desc *desc, char *why, size_t len);
	void (*remove)(void);
	/*
	 * Take the counters of hw->mask from the kernel's perf on every CPU
	 * (process context), or explain in why who holds them. From then until
	 * unclaim, overflow interrupts of those counters go to
	 * kpmc_pmu_overflow().
	 */
	int (*claim)(u32 mask, char *why, size_t len);
	void (*unclaim)(u32 mask);
	/*
	 * Turn a parsed configuration into register values (process context);
	 * or a negative errno with the reason in why.
	 */
	int (*encode)(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
		      char *why, size_t len);
	/*
	 * Optional: what counting hw needs beyond its encoding, made at the
	 * first enable of its configuration, after the privilege check
	 * (process context; later calls find it made). A configuration write
	 * is open to any user: resources that count or cost (the perf
	 * backend's events) belong here, not in encode(). user_limited: the
	 * current user has no CAP_PERFMON, and the backend's per-user limit
	 * applies. Until it succeeds, the hot-path operations on hw must be
	 * harmless.
	 */
	int (*prepare)(const struct kpmc_hw_config *hw, bool user_limited, char *why, size_t len);
	/* Optional: free what encode() and prepare() allocated (process context). */
	void (*release)(struct kpmc_hw_config *hw);
	/* Hot path: program selectors, start counters of hw from value start[]. */
	void (*load)(const struct kpmc_hw_config *hw, const u64 *start);
	/* Hot path: restart the counters of hw, as load() left them. */
	void (*start)(const struct kpmc_hw_config *hw);
	/* Hot path: stop the counters of hw. */
	void (*stop)(const struct kpmc_hw_config *hw);
	/* Hot path: raw values of the counters of hw, in hw->slot order. */
	void (*read)(const struct kpmc_hw_config *hw, u64 *raw);
	/* Hot path: set counter index (slot order) of hw, loaded, to value. */
	void (*write)(const struct kpmc_hw_config *hw, unsigned int index, u64 value);
	/*
	 * Optional, hot path: the counters of hw (bits by hw->mask, pmcN) that
	 * do not count on this CPU (a hybrid part's core type lacks them); the
	 * core reports them in its records as not counted.
	 */
	u32 (*uncounted)(const struct kpmc_hw_config *hw);
	/*
	 * Optional, the fast read path. user_index: where user space reads
	 * counter index (slot order) of hw (the ABI's kpmc_page_counter.index),
	 * or -1 if it cannot. user_access (hot path, this CPU): grant or revoke
	 * user-space reads of the counters; a backend without it never grants.
	 */
	int (*user_index)(const struct kpmc_hw_config *hw, unsigned int index);
	void (*user_access)(bool grant);
	/*
	 * The CPU lifecycle (kernel/cpu_state.c calls these), all optional.
	 *
	 * cpu_came_online: process context, on CPU cpu as it comes online (CPU
	 * hotplug), after the kernel's own PMU driver set that CPU's PMU up and
	 * before any task but per-CPU kthreads runs there. Discover the CPU's
	 * PMU if it is new, and do there what claim() did on every CPU, if the
	 * counters are claimed; then as cpu_reset(). May sleep.
	 *
	 * cpu_going_offline: process context, on CPU cpu as it goes offline; may sleep.
	 *
	 * cpu_reset: IRQs off, this CPU: its PMU lost its state (back from a
	 * power-down idle state or from suspend; the kernel's driver has reset
	 * it). Make it ready for load() again, as claim() left it. The core then
	 * reloads what was counting.
	 */
	int (*cpu_came_online)(unsigned int cpu);
	void (*cpu_going_offline)(unsigned int cpu);
	void (*cpu_reset)(void);
	/*
	 * Optional, memory sampling (mem=1; the PMU desc's mem_source says
	 * from where): the data access of the sample that the overflow
	 * interrupt took at regs, the interrupted context of the current task
	 * (hard IRQ, this CPU): fill out (zeroed) with ip, addr, size, op,
	 * flags, skid, and latency and source where the hardware gives them.
	 * A hardware sampler (PEBS, IBS) hands over the record its interrupt
	 * kept for this CPU, once; the decoded source reads user memory
	 * without faulting. No sleeping, no allocation. A backend without it
	 * refuses mem=1. kernel_allowed: the sample's set may count kernel
	 * mode; if not, a sample of kernel code carries no address (neither
	 * ip nor addr): its owner may not learn where the kernel is.
	 */
	void (*mem_sample)(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out);
	/*
	 * Optional, for hw->sampling_external (hard IRQ, this CPU): does this
	 * CPU hold a sample its hardware sampler took since hw was loaded?
	 */
	bool (*mem_pending)(const struct kpmc_hw_config *hw);
};

/* Backends built for this architecture, NULL-terminated (backends/registry.c). */
extern const struct kpmc_backend *const kpmc_backend_table[];
/* The one chosen at load (kernel/pmu.c): what a built-in format asks for samples. */
extern const struct kpmc_backend *kpmc_backend;

#endif /* KPMC_BACKEND_H */
