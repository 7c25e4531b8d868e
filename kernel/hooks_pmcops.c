// SPDX-License-Identifier: GPL-2.0
/*
 * Hook source for a kernel with kpmc's scheduler patch (patches/): the
 * pmc_ops notifications, called by the scheduler itself at fork, exec, exit,
 * free, context switch and migration, and the in-kernel API through which
 * scheduling code reads a thread's metrics (pmc_ops_get_metric(),
 * pmc_ops_get_metrics() -> kpmc_thread_metrics()) and has kpmc monitor a
 * thread (pmc_ops_monitor() -> kpmc_kernel_monitor()).
 * Built only against such a kernel (CONFIG_PMC_OPS).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/pmc_ops.h>

#include "layer_counting.h"
#include "layer_life.h"
#include "layer_interfaces.h"
#include "kpmc/hooks.h"

static void on_fork(struct task_struct *parent, struct task_struct *child)
{
	kpmc_hook_fork(parent, child);
}

static void on_exec(struct task_struct *task)
{
	/* The patched kernels keep dumpability in the mm, which tells it. */
	kpmc_hook_exec(task, false);
}

static void on_exit(struct task_struct *task)
{
	kpmc_hook_exit(task);
}

static void on_free(struct task_struct *task)
{
	kpmc_hook_free(task);
}

static void on_migrate(struct task_struct *task, int new_cpu)
{
	kpmc_hook_migrate(task, new_cpu);
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
		/* instructions * 1000 would overflow past 1.8e16 instructions. */
		m->ipc_milli = mul_u64_u64_div_u64(km.instructions, 1000, km.cycles);
	}
	return 0;
}

/* Scheduler context: arithmetic on a copy of the thread's counts, nothing else. */
static int get_metric(struct task_struct *task, unsigned int id, u64 *value)
{
	struct kpmc_thread_metrics km;
	int err = kpmc_thread_metrics(task, &km);
	unsigned int n;

	if (err)
		return err;
	switch (id) {
	case PMC_METRIC_ID_INSTRUCTIONS:
		*value = km.instructions;
		return km.has_instructions ? 0 : -EOPNOTSUPP;
	case PMC_METRIC_ID_CYCLES:
		*value = km.cycles;
		return km.has_cycles ? 0 : -EOPNOTSUPP;
	case PMC_METRIC_ID_IPC_MILLI:
		if (!km.has_instructions || !km.has_cycles)
			return -EOPNOTSUPP;
		if (!km.cycles)
			return -EAGAIN;
		*value = mul_u64_u64_div_u64(km.instructions, 1000, km.cycles);
		return 0;
	case PMC_METRIC_ID_RUN_NS:
		*value = km.run_ns;
		return 0;
	case PMC_METRIC_ID_INSTR_PER_MS:
		if (!km.has_instructions)
			return -EOPNOTSUPP;
		if (!km.run_ns)
			return -EAGAIN;
		*value = mul_u64_u64_div_u64(km.instructions, NSEC_PER_MSEC, km.run_ns);
		return 0;
	case PMC_METRIC_ID_MIGRATIONS:
		*value = km.migrations;
		return 0;
	}
	if (id < PMC_METRIC_ID_MODULE0 || id > PMC_METRIC_ID_MODULE7)
		return -EINVAL;
	n = id - PMC_METRIC_ID_MODULE0;
	if (!(km.virt_mask & BIT(n)))
		return km.nsample ? -EOPNOTSUPP : -EAGAIN;
	*value = km.virt[n];
	return 0;
}

static int monitor(struct task_struct *task, bool on)
{
	return kpmc_kernel_monitor(task, on);
}

static const struct pmc_ops kpmc_pmc_ops = {
	.fork = on_fork,
	.exec = on_exec,
	.exit = on_exit,
	.free = on_free,
	.switch_to = on_switch,
	.migrate = on_migrate,
	.get_metrics = get_metrics,
	.get_metric = get_metric,
	.monitor = monitor,
};

static int pmcops_attach(void)
{
	int err = pmc_ops_register(&kpmc_pmc_ops);

	if (err)
		return err;
	err = kpmc_cgroup_hook_attach();
	if (err)
		pmc_ops_unregister(&kpmc_pmc_ops);
	return err;
}

static void pmcops_detach(void)
{
	kpmc_cgroup_hook_detach();
	pmc_ops_unregister(&kpmc_pmc_ops);
}

const struct kpmc_hook_source kpmc_pmc_ops_hooks = {
	.name = "pmc_ops",
	.attach = pmcops_attach,
	.detach = pmcops_detach,
};
