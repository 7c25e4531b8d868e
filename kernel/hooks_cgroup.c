// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks moved between cgroups, for both hook sources: the scheduler patch's
 * pmc_ops has no such notification, so either source takes the
 * cgroup_attach_task tracepoint (not exported: found by name) where the
 * kernel has cgroups. The tracepoint fires once a move is done, the mover
 * holding the cgroup locks with IRQs off.
 */
#include <linux/kernel.h>
#include <linux/tracepoint.h>
#include <linux/cgroup.h>
#include <trace/events/cgroup.h>

#include "kpmc/hooks.h"

static void probe_cgroup_attach(void *data, struct cgroup *dst, const char *path,
				struct task_struct *task, bool threadgroup)
{
	kpmc_hook_cgroup_moved(task, threadgroup);
}

KPMC_CHECK_PROBE(cgroup_attach_task, probe_cgroup_attach);

static struct tracepoint *cgroup_attach_tp;

static void find_cgroup_tracepoint(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "cgroup_attach_task"))
		cgroup_attach_tp = tp;
}

int kpmc_cgroup_hook_attach(void)
{
	for_each_kernel_tracepoint(find_cgroup_tracepoint, NULL);
	if (!cgroup_attach_tp) {
		pr_err("kpmc: tracepoint cgroup_attach_task not found\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(cgroup_attach_tp, probe_cgroup_attach, NULL);
}

void kpmc_cgroup_hook_detach(void)
{
	tracepoint_probe_unregister(cgroup_attach_tp, probe_cgroup_attach, NULL);
	tracepoint_synchronize_unregister();
}
