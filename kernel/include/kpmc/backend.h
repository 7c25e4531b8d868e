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

/**
 * struct kpmc_hw_config - a configuration encoded for the backend's registers
 * @mask: the counters in use, pmcN bits
 * @nr: the number of bits in @mask
 * @slot: the used counters, in order: slot order, by which the per-counter
 *	members and the operations' indexes go
 * @width_mask: per counter, by slot: its width, as a mask of its bits
 * @selector: per counter, by slot: its event-select register value
 * @enable_bits: the backend's mask for its enable register
 * @sampling: event-based sampling: a counter interrupts
 * @sampling_index: which one (index in slot order)
 * @irq_bits: the backend's mask for its interrupt enable
 * @sampling_external: the samples are triggered by a sampler beside the
 *	counters (AMD's IBS), programmed from the sampling counter's value by
 *	load() and write(): the counter itself never interrupts, and a sample is
 *	due when the backend says so (mem_pending), not when the counter passes
 *	its overflow
 * @priv: the backend's own, freed by its release()
 *
 * Built by the backend's encode(), immutable once built: the core shares it
 * between the threads of the configuration.
 */
struct kpmc_hw_config {
	u32 mask;
	unsigned int nr;
	u8 slot[KPMC_MAX_COUNTERS];
	u64 width_mask[KPMC_MAX_COUNTERS];
	u64 selector[KPMC_MAX_COUNTERS];
	u64 enable_bits;
	bool sampling;
	unsigned int sampling_index;
	u64 irq_bits;
	bool sampling_external;
	void *priv;
};

/**
 * kpmc_pmu_overflow() - the core's entry for overflow interrupts
 *
 * Description: a backend calls it from its PMU interrupt after clearing the
 * overflow flags of the counters it claimed for kpmc.
 *
 * Context: hard IRQ, on the CPU whose counter overflowed.
 */
void kpmc_pmu_overflow(void);

/**
 * struct kpmc_backend - a PMU backend's operations
 *
 * Hot path: the core calls the operation with preemption disabled, on the
 * CPU whose counters it touches. Optional operations may be %NULL.
 */
struct kpmc_backend {
	/** @name: what the backend= module parameter names it by; /proc/kpmc/info shows it. */
	const char *name;
	/**
	 * @probe: at module load, in the table's order (the first direct
	 * backend that probes is taken, the generic perf backend is the last):
	 * is this CPU's PMU ours? Fill desc and return 0, or return a negative
	 * errno with a plain-words reason in why (/proc/kpmc/info keeps it).
	 */
	int (*probe)(struct kpmc_pmu_desc *desc, char *why, size_t len);
	/** @remove: optional: at module exit, the backend's own state goes. */
	void (*remove)(void);
	/**
	 * @claim: take the counters of mask from the kernel's perf on every CPU
	 * (process context, CPU hotplug lock held), for kpmc's first user, or
	 * explain in why who holds them. From then until @unclaim, overflow
	 * interrupts of those counters go to kpmc_pmu_overflow().
	 */
	int (*claim)(u32 mask, char *why, size_t len);
	/**
	 * @unclaim: give the counters of mask back to perf on every CPU after
	 * kpmc's last user (process context, CPU hotplug lock held).
	 */
	void (*unclaim)(u32 mask);
	/**
	 * @encode: turn a parsed configuration into register values (process
	 * context); or a negative errno with the reason in why.
	 */
	int (*encode)(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
		      char *why, size_t len);
	/**
	 * @prepare: optional: what counting hw needs beyond its encoding, made
	 * at the first enable of its configuration, after the privilege check
	 * (process context; later calls find it made). A configuration write
	 * is open to any user: resources that count or cost (the perf
	 * backend's events) belong here, not in @encode. user_limited: the
	 * current user has no CAP_PERFMON, and the backend's per-user limit
	 * applies. Until it succeeds, the hot-path operations on hw must be
	 * harmless.
	 */
	int (*prepare)(const struct kpmc_hw_config *hw, bool user_limited, char *why, size_t len);
	/**
	 * @release: optional: free what @encode and @prepare allocated (process
	 * context).
	 */
	void (*release)(struct kpmc_hw_config *hw);
	/** @load: hot path: program selectors, start counters of hw from value start[]. */
	void (*load)(const struct kpmc_hw_config *hw, const u64 *start);
	/** @start: hot path: restart the counters of hw, as @load left them. */
	void (*start)(const struct kpmc_hw_config *hw);
	/** @stop: hot path: stop the counters of hw. */
	void (*stop)(const struct kpmc_hw_config *hw);
	/** @read: hot path: raw values of the counters of hw, in hw->slot order. */
	void (*read)(const struct kpmc_hw_config *hw, u64 *raw);
	/** @write: hot path: set counter index (slot order) of hw, loaded, to value. */
	void (*write)(const struct kpmc_hw_config *hw, unsigned int index, u64 value);
	/**
	 * @uncounted: optional, hot path: the counters of hw (bits by hw->mask,
	 * pmcN) that do not count on this CPU (a hybrid part's core type lacks
	 * them); the core reports them in its records as not counted.
	 */
	u32 (*uncounted)(const struct kpmc_hw_config *hw);
	/**
	 * @user_index: optional, the fast read path: where user space reads
	 * counter index (slot order) of hw (the ABI's kpmc_page_counter.index),
	 * or -1 if it cannot.
	 */
	int (*user_index)(const struct kpmc_hw_config *hw, unsigned int index);
	/**
	 * @user_access: optional, the fast read path (hot path, this CPU):
	 * grant or revoke user-space reads of the counters; a backend without
	 * it never grants.
	 */
	void (*user_access)(bool grant);
	/*
	 * The CPU lifecycle: kernel/cpu_state.c calls these three, all
	 * optional.
	 */
	/**
	 * @cpu_came_online: process context, on CPU cpu as it comes online (CPU
	 * hotplug), after the kernel's own PMU driver set that CPU's PMU up and
	 * before any task but per-CPU kthreads runs there. Discover the CPU's
	 * PMU if it is new, and do there what @claim did on every CPU, if the
	 * counters are claimed; then as @cpu_reset. May sleep. An error does
	 * not refuse the CPU: kpmc warns, and threads count nothing there.
	 */
	int (*cpu_came_online)(unsigned int cpu);
	/**
	 * @cpu_going_offline: process context, on CPU cpu as it goes offline;
	 * may sleep.
	 */
	void (*cpu_going_offline)(unsigned int cpu);
	/**
	 * @cpu_reset: IRQs off, this CPU: its PMU lost its state (back from a
	 * power-down idle state or from suspend; the kernel's driver has reset
	 * it). Make it ready for @load again, as @claim left it. The core then
	 * reloads what was counting.
	 */
	void (*cpu_reset)(void);
	/**
	 * @mem_sample: optional, memory sampling (mem=1; the PMU desc's
	 * mem_source says from where): the data access of the sample that the
	 * overflow interrupt took at regs, the interrupted context of the
	 * current task (hard IRQ, this CPU): fill out (zeroed) with ip, addr,
	 * size, op, flags, skid, and latency and source where the hardware
	 * gives them. A hardware sampler (PEBS, IBS) hands over the record its
	 * interrupt kept for this CPU, once; the decoded source reads user
	 * memory without faulting. No sleeping, no allocation. A backend
	 * without it refuses mem=1. kernel_allowed: the sample's set may count
	 * kernel mode; if not, a sample of kernel code carries no address
	 * (neither ip nor addr): its owner may not learn where the kernel is.
	 */
	void (*mem_sample)(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out);
	/**
	 * @mem_pending: optional, for hw->sampling_external (hard IRQ, this
	 * CPU): does this CPU hold a sample its hardware sampler took since hw
	 * was loaded?
	 */
	bool (*mem_pending)(const struct kpmc_hw_config *hw);
};

/* Backends built for this architecture, NULL-terminated (backends/registry.c). */
extern const struct kpmc_backend *const kpmc_backend_table[];
/* The one chosen at load (kernel/pmu.c): what a built-in format asks for samples. */
extern const struct kpmc_backend *kpmc_backend;

#endif /* KPMC_BACKEND_H */
