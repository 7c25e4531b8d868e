// SPDX-License-Identifier: GPL-2.0
/*
 * Work deferred to process context on kpmc's own workqueue: what the hot
 * paths and RCU callbacks may not do themselves (free a session, release a
 * backend encoding, give the PMU back to perf). Flushed at unload.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "layer_base.h"

static struct workqueue_struct *kpmc_wq;

int kpmc_defer_init(void)
{
	/*
	 * Nothing deferred needs the CPU that queued it, so the queue is
	 * unbound; and 6.17+ warn when a queue names neither WQ_UNBOUND nor
	 * WQ_PERCPU.
	 */
	kpmc_wq = alloc_workqueue("kpmc", WQ_UNBOUND, 0);
	return kpmc_wq ? 0 : -ENOMEM;
}

void kpmc_defer(struct work_struct *work)
{
	queue_work(kpmc_wq, work);
}

/* work runs delay jiffies from now (from the last of several such calls). */
void kpmc_defer_delayed(struct delayed_work *work, unsigned long delay)
{
	mod_delayed_work(kpmc_wq, work, delay);
}

void kpmc_defer_rcu(struct rcu_work *work)
{
	queue_rcu_work(kpmc_wq, work);
}

/*
 * Deferrals chain: an RCU callback puts a configuration whose free waits for
 * another grace period; a session's last put is an irq_work that queues RCU
 * work. Three rounds cover the longest chain.
 */
void kpmc_flush_deferred(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		rcu_barrier();
		flush_workqueue(kpmc_wq);
	}
}

/* Unload: everything deferred has run. */
void kpmc_defer_exit(void)
{
	if (!kpmc_wq)
		return;
	kpmc_flush_deferred();
	destroy_workqueue(kpmc_wq);
	kpmc_wq = NULL;
}
