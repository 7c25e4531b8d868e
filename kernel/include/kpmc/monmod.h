/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Monitoring modules: the one ops struct through which a module sees a
 * thread's samples and adds metrics and virtual counters to its records.
 * Exactly one module is active; /proc/kpmc/mm_manager switches it.
 * "monmod" in names: a monitoring module ("mm" is PMCTrack's word, kept
 * in the /proc file's name; in a kernel tree it reads as memory management).
 */
#ifndef KPMC_MONMOD_H
#define KPMC_MONMOD_H

#include "config.h"

#define KPMC_MAX_VIRT	8
/* Per-thread state a module may keep (zeroed when the active module changes). */
#define KPMC_MONMOD_SCRATCH	8

struct task_struct;

/**
 * struct kpmc_sample - what a module gets for each record the core is about
 *	to emit
 * @pmu: the PMU's description
 * @cfg: the configuration (event set) that counted
 * @task: the thread the record is for; %NULL for a CPU's (system-wide)
 *	record
 * @scratch: the module's state for @task (%KPMC_MONMOD_SCRATCH words); %NULL
 *	for a CPU's record
 * @counts: deltas since the previous record, by pmc index
 *	(%KPMC_MAX_COUNTERS): the record's own array, so that nothing is copied
 *	per sample
 * @counter_mask: the counters in use, pmcN bits: the entries of @counts that
 *	hold deltas
 * @run_ns: the on-CPU time the deltas cover
 * @last: the thread's last record (exit or detach): release what it holds
 * @virt: filled by the module: the record's array of virtual counters,
 *	zeroed (%KPMC_MAX_VIRT)
 * @virt_mask: filled by the module: the bits of @virt it wrote
 */
struct kpmc_sample {
	const struct kpmc_pmu_desc *pmu;
	const struct kpmc_config *cfg;
	struct task_struct *task;
	u64 *scratch;
	const u64 *counts;
	u32 counter_mask;
	u64 run_ns;
	bool last;
	u64 *virt;
	u32 virt_mask;
};

/**
 * struct kpmc_monitoring_module - a monitoring module's description and
 *	operations
 *
 * Modules are built into kpmc (kpmc_monmod_table[]); the operations marked
 * so may be %NULL.
 */
struct kpmc_monitoring_module {
	/** @name: its name in /proc/kpmc/mm_manager and /proc/kpmc/info. */
	const char *name;
	/** @description: what /proc/kpmc/mm_manager says of it. */
	const char *description;
	/**
	 * @virt_names: names of the virtual counters the module fills, %NULL
	 * for none.
	 */
	const char *virt_names[KPMC_MAX_VIRT];
	/**
	 * @capable_only: its values tell what other users run (RAPL energy per
	 * switch): only threads whose monitor is CAP_PERFMON get them (perf
	 * allows RAPL only CPU-wide, which needs CAP_PERFMON at
	 * perf_event_paranoid > 0).
	 */
	bool capable_only;
	/**
	 * @available: %NULL, or: can the module work on this machine? If not, a
	 * negative errno and why: /proc/kpmc/mm_manager shows it, and the
	 * activation fails with that error.
	 */
	int (*available)(char *why, size_t len);
	/**
	 * @activate: may be %NULL: called on activation (process context); an
	 * error refuses it.
	 */
	int (*activate)(void);
	/**
	 * @deactivate: may be %NULL: called on deactivation (process context),
	 * once no record in flight can still reach the module.
	 */
	void (*deactivate)(void);
	/**
	 * @on_sample: called with preemption disabled for every record; must
	 * not sleep. May be %NULL for a module that passes counts through.
	 */
	void (*on_sample)(struct kpmc_sample *s);
	/**
	 * @peek: may be %NULL. A thread reads its own virtual counters
	 * between records (read() of /proc/kpmc/self): fill @s->virt and
	 * @s->virt_mask with what @on_sample would give now, leaving the
	 * thread's baseline (@s->scratch) as it is. Only for values that add
	 * up over records (times, events, energy); a module whose values do
	 * not (rates, ratios, occupancy) leaves it %NULL. Called on the
	 * thread's own CPU, interrupts disabled; must not sleep. @s->pmu,
	 * @s->cfg and @s->counts are %NULL.
	 */
	void (*peek)(struct kpmc_sample *s);
	/**
	 * @thread_start: may be %NULL. A thread starts being monitored (or the
	 * module became active while it was): set the baseline in its zeroed
	 * scratch. Runs with preemption disabled; task may be another thread
	 * (not running).
	 */
	void (*thread_start)(struct task_struct *task, u64 *scratch);
	/**
	 * @on_switch: may be %NULL. The monitored thread on this CPU changes:
	 * out leaves it (%NULL: none was monitored), in takes it (%NULL: an
	 * unmonitored thread or idle follows). Called on that CPU with
	 * interrupts disabled, at every switch a monitored thread takes part
	 * in: no allocation, no sleeping, O(1) work (it is on the
	 * context-switch path).
	 */
	void (*on_switch)(struct task_struct *out, u64 *out_scratch,
			  struct task_struct *in, u64 *in_scratch);
};

/* Modules built into kpmc, NULL-terminated (modules/registry.c). */
extern const struct kpmc_monitoring_module *const kpmc_monmod_table[];

#endif /* KPMC_MONMOD_H */
