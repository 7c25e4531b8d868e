// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_query pid=N: what scheduling code sees through the in-kernel metric
 * API (pmc_ops_get_metrics) for thread N, printed once at load:
 *   kpmc_query: pid N: err E valid 0xV instructions I cycles C ipc_milli P run_ns R
 * A test module for the patched-kernel tier; it stays loaded until rmmod.
 */
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/pmc_ops.h>

static int pid;
module_param(pid, int, 0444);

static int __init kpmc_query_init(void)
{
	struct pmc_metrics m = { 0 };
	struct task_struct *task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	int err = -ESRCH;

	if (task) {
		err = pmc_ops_get_metrics(task, &m);
		put_task_struct(task);
	}
	pr_info("kpmc_query: pid %d: err %d valid 0x%x instructions %llu cycles %llu ipc_milli %llu run_ns %llu\n",
		pid, err, m.valid, m.instructions, m.cycles, m.ipc_milli, m.run_ns);
	return 0;
}

static void __exit kpmc_query_exit(void)
{
}

module_init(kpmc_query_init);
module_exit(kpmc_query_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc test: query a thread's metrics through pmc_ops");
