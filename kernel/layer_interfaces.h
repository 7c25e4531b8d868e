/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interfaces layer's functions (tests/host/kernel_layers.txt): kernel_api.c, proc.c: the in-kernel metric API and /proc/kpmc.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_INTERFACES_H
#define KPMC_LAYER_INTERFACES_H

#include "types.h"

struct proc_dir_entry;

/*
 * The in-kernel metric API: what kpmc has counted for a monitored thread.
 * Scheduling code (policies/amp/ is one) reaches it through the patched
 * kernel's pmc_ops (patches/): pmc_ops_get_metric() and
 * pmc_ops_get_metrics(), in hooks_pmcops.c.
 */
/**
 * struct kpmc_thread_metrics - what kpmc has counted for a monitored thread
 * @has_instructions: a counter of the thread's configuration counts the
 *	PMU's instructions event: @instructions holds it
 * @has_cycles: the same for the cycles event and @cycles
 * @instructions: instructions since its monitoring began
 * @cycles: cycles since its monitoring began
 * @run_ns: its monitored on-CPU time
 * @migrations: its CPU changes while monitored
 * @nsample: the records taken of it so far
 * @virt_mask: the active monitoring module's values in its last record:
 *	bit N set, @virt[N] holds virtual counter N
 * @virt: those values
 */
struct kpmc_thread_metrics {
	bool has_instructions, has_cycles;
	u64 instructions, cycles;
	u64 run_ns;
	u64 migrations;
	u64 nsample;
	u32 virt_mask;
	u64 virt[KPMC_MAX_VIRT];
};
/**
 * kpmc_thread_metrics() - what kpmc has counted for a thread
 * @task: the thread: monitored by a session, or at the kernel's request
 *	(kpmc_kernel_monitor())
 * @m: where the metrics go; zeroed first
 *
 * Counts up to the thread's last fold (switch, tick or record): at most one
 * fold period (%KPMC_FOLD_NS) behind for a running thread. Never sleeps,
 * allocates or takes a lock: an RCU read-side section over the thread's
 * state.
 *
 * Context: any context (scheduler code with a runqueue lock held and IRQs
 * off included).
 * Return: 0, or -ENODATA if @task is not counting.
 */
int kpmc_thread_metrics(struct task_struct *task, struct kpmc_thread_metrics *m);

/* kernel_api.c: monitoring that scheduling code asks for (pmc_ops_monitor). */
/**
 * kpmc_kernel_monitor() - start or stop counting a thread at the kernel's
 *	request
 * @task: the thread
 * @on: start (true) or stop (false) counting it
 *
 * Queues the request, which is done a few ms later in process context:
 * the caller may hold a runqueue lock, where kpmc can neither allocate nor
 * take its mutexes. On: @task counts with the kernel configuration
 * (/proc/kpmc/kernel_config; by default the PMU's instructions and cycles),
 * with no session: its records feed only kpmc_thread_metrics() and the
 * monitoring module. Off: a thread counting at the kernel's request stops
 * at its next switch or fold; one monitored by a session is left alone. A
 * start refused when it is done (no PMU, the counters taken by a
 * system-wide session, the thread monitored already or exiting, no memory)
 * is counted, with its reason, in /proc/kpmc/kernel_config, not returned.
 * @task is referenced while queued.
 *
 * Context: any context but NMI.
 * Return: 0 when queued, or -EBUSY when 64 requests are pending already or
 * kpmc's hooks are detached (unload).
 */
int kpmc_kernel_monitor(struct task_struct *task, bool on);
int kpmc_kernel_api_init(struct proc_dir_entry *dir);
void kpmc_kernel_api_stop(void);

/* proc.c */
int kpmc_proc_init(void);
struct proc_dir_entry *kpmc_proc_dir(void);
void kpmc_proc_exit(void);

#endif /* KPMC_LAYER_INTERFACES_H */
