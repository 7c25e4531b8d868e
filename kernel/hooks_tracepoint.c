// SPDX-License-Identifier: GPL-2.0
/*
 * Hook source for a stock kernel: the scheduler's tracepoints. Their
 * symbols are not exported, so they are found by name.
 */
#include <linux/kernel.h>
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/binfmts.h>

#include <trace/events/sched.h>

#include "kpmc/compat.h"
#include "kpmc/hooks.h"


static void probe_switch(KPMC_TP_SWITCH_PROTO(prev, next))
{
	kpmc_hook_switch(prev, next);
}

static void probe_fork(void *data, struct task_struct *parent,
		       struct task_struct *child)
{
	kpmc_hook_fork(parent, child);
}

static void probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	kpmc_hook_exec(p, bprm && (bprm->interp_flags & BINPRM_FLAGS_ENFORCE_NONDUMP));
}

static void probe_exit(KPMC_TP_EXIT_PROTO(p))
{
	kpmc_hook_exit(p);
}

static void probe_free(void *data, struct task_struct *p)
{
	kpmc_hook_free(p);
}

static void probe_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	kpmc_hook_migrate(p, dest_cpu);
}


KPMC_CHECK_PROBE(sched_switch, probe_switch);
KPMC_CHECK_PROBE(sched_process_fork, probe_fork);
KPMC_CHECK_PROBE(sched_process_exec, probe_exec);
KPMC_CHECK_PROBE(sched_process_exit, probe_exit);
KPMC_CHECK_PROBE(sched_process_free, probe_free);
KPMC_CHECK_PROBE(sched_migrate_task, probe_migrate);

struct kpmc_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct kpmc_tracepoint kpmc_tracepoints[] = {
	{ "sched_process_fork", probe_fork },
	{ "sched_process_exec", probe_exec },
	{ "sched_process_exit", probe_exit },
	{ "sched_switch", probe_switch },
	{ "sched_process_free", probe_free },
	{ "sched_migrate_task", probe_migrate },
};

static void find_tracepoint(struct tracepoint *tp, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpmc_tracepoints); i++)
		if (!strcmp(tp->name, kpmc_tracepoints[i].name))
			kpmc_tracepoints[i].tp = tp;
}

static void tracepoints_detach_first(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(kpmc_tracepoints[n].tp,
					    kpmc_tracepoints[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int tracepoints_attach(void)
{
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(kpmc_tracepoints); i++) {
		if (!kpmc_tracepoints[i].tp) {
			pr_err("kpmc: tracepoint %s not found\n", kpmc_tracepoints[i].name);
			err = -ENOENT;
			goto fail;
		}
		err = tracepoint_probe_register(kpmc_tracepoints[i].tp,
						kpmc_tracepoints[i].probe, NULL);
		if (err)
			goto fail;
	}
	return 0;
fail:
	tracepoints_detach_first(i);
	return err;
}

static void tracepoints_detach(void)
{
	tracepoints_detach_first(ARRAY_SIZE(kpmc_tracepoints));
}


static int tracepoints_attach_all(void)
{
	int err = tracepoints_attach();

	if (err)
		return err;
	err = kpmc_cgroup_hook_attach();
	if (err)
		tracepoints_detach();
	return err;
}

static void tracepoints_detach_all(void)
{
	kpmc_cgroup_hook_detach();
	tracepoints_detach();
}

const struct kpmc_hook_source kpmc_tracepoint_hooks = {
	.name = "tracepoints",
	.attach = tracepoints_attach_all,
	.detach = tracepoints_detach_all,
};
