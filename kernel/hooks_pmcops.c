// SPDX-License-Identifier: GPL-2.0
/*
 * Hook source for a kernel with kpmc's scheduler patch (patches/): the
 * pmc_ops notifications, called by the scheduler itself at fork, exec, exit
 * and context switch, and the query through which scheduling code reads a
 * thread's metrics (pmc_ops_get_metrics() -> kpmc_thread_metrics()).
 * Built only against such a kernel (CONFIG_PMC_OPS).
 */
#include <linux/kernel.h>
#include <linux/pmc_ops.h>

#include "kpmc/core.h"
#include "kpmc/hooks.h"

static void on_fork(struct task_struct *parent, struct task_struct *child)
{
	kpmc_hook_fork(parent, child);
}

static void on_exec(struct task_struct *task)
{
	kpmc_hook_exec(task);
}

static void on_exit(struct task_struct *task)
{
	kpmc_hook_exit(task);
}

static void on_switch(struct task_struct *prev, struct task_struct *next)
{
	kpmc_hook_switch(prev, next);
}

static int get_metrics(struct task_struct *task, struct pmc_metrics *m)
{
	struct kpmc_thread_metrics km;
	int err = kpmc_thread_metrics(task, &km);

	if (err)
		return err;
	m->valid = PMC_METRIC_RUN_NS;
	m->run_ns = km.run_ns;
	if (km.has_instructions) {
		m->valid |= PMC_METRIC_INSTRUCTIONS;
		m->instructions = km.instructions;
	}
	if (km.has_cycles) {
		m->valid |= PMC_METRIC_CYCLES;
		m->cycles = km.cycles;
	}
	if (km.has_instructions && km.has_cycles && km.cycles) {
		m->valid |= PMC_METRIC_IPC;
		m->ipc_milli = div64_u64(km.instructions * 1000, km.cycles);
	}
	return 0;
}

static const struct pmc_ops kpmc_pmc_ops = {
	.fork = on_fork,
	.exec = on_exec,
	.exit = on_exit,
	.switch_to = on_switch,
	.get_metrics = get_metrics,
};

static int pmcops_attach(void)
{
	return pmc_ops_register(&kpmc_pmc_ops);
}

static void pmcops_detach(void)
{
	pmc_ops_unregister(&kpmc_pmc_ops);
}

const struct kpmc_hook_source kpmc_pmc_ops_hooks = {
	.name = "pmc_ops",
	.attach = pmcops_attach,
	.detach = pmcops_detach,
};
