// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling statistics as virtual counters, from the scheduler's own
 * per-task accounting, so they exist on every machine: for each record, what
 * happened to the thread since its previous record.
 *   virt0 run_ns        CPU time (se.sum_exec_runtime; updated at ticks and switches)
 *   virt1 wait_ns       time runnable but waiting for a CPU (sched_info.run_delay)
 *   virt2 vol_switches  voluntary context switches (it blocked)
 *   virt3 invol_switches involuntary ones (it was preempted)
 *   virt4 migrations    moves to another CPU
 */
#include <linux/sched.h>
#include "modules.h"

enum { SS_RUN, SS_WAIT, SS_VOL, SS_INVOL, SS_MIGR, SS_NR };

static void snapshot(struct task_struct *task, u64 *v)
{
	v[SS_RUN] = READ_ONCE(task->se.sum_exec_runtime);
#ifdef CONFIG_SCHED_INFO
	v[SS_WAIT] = READ_ONCE(task->sched_info.run_delay);
#else
	v[SS_WAIT] = 0;
#endif
	v[SS_VOL] = READ_ONCE(task->nvcsw);
	v[SS_INVOL] = READ_ONCE(task->nivcsw);
	v[SS_MIGR] = READ_ONCE(task->se.nr_migrations);
}

static void schedstats_thread_start(struct task_struct *task, u64 *scratch)
{
	snapshot(task, scratch);
}

/* What happened to the thread since its baseline; with advance, the baseline moves to now. */
static void since_baseline(struct kpmc_sample *s, bool advance)
{
	u64 now[SS_NR];
	unsigned int i;

	if (!s->task)
		return;
	snapshot(s->task, now);
	for (i = 0; i < SS_NR; i++) {
		/* Counters only grow; a smaller value means a baseline from before a reset. */
		s->virt[i] = now[i] >= s->scratch[i] ? now[i] - s->scratch[i] : 0;
		if (advance)
			s->scratch[i] = now[i];
	}
	s->virt_mask |= (1u << SS_NR) - 1;
}

static void schedstats_on_sample(struct kpmc_sample *s)
{
	since_baseline(s, true);
}

/* Every value is a count or a time: they add up over records, so a read between them is exact. */
static void schedstats_peek(struct kpmc_sample *s)
{
	since_baseline(s, false);
}

const struct kpmc_monitoring_module kpmc_monmod_schedstats = {
	.name = "schedstats",
	.description = "the scheduler's view of each thread: CPU and wait time, switches, migrations",
	.virt_names = { "run_ns", "wait_ns", "vol_switches", "invol_switches", "migrations" },
	.on_sample = schedstats_on_sample,
	.peek = schedstats_peek,
	.thread_start = schedstats_thread_start,
};
