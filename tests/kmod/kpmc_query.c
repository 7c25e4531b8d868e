// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_query pid=N [monitor=1]: what scheduling code sees through the
 * in-kernel metric API for thread N. At load it prints once
 *   kpmc_query: pid N: err E valid 0xV instructions I cycles C ipc_milli P run_ns R
 * (pmc_ops_get_metrics), and with monitor=1 asks kpmc to monitor the thread
 * (pmc_ops_monitor). Then, until rmmod, a 1 ms hard-IRQ timer (scheduler
 * tick context: IRQs off, may not sleep) asks pmc_ops_get_metric() for the
 * thread's instructions, cycles and run time, and for metric id `metric`
 * (default: none; e.g. a monitoring module's PMC_METRIC_ID_MODULE0 + N); the
 * latest answers are module parameters under
 * /sys/module/kpmc_query/parameters/. A test module for the patched-kernel
 * tier.
 */
#include <linux/module.h>
#include <linux/hrtimer.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/pmc_ops.h>

static int pid;
module_param(pid, int, 0444);
static bool monitor;
module_param(monitor, bool, 0444);
static int monitor_err;
module_param(monitor_err, int, 0444);
/* From the timer: the latest answer (err, value) for each metric asked. */
static int err_instructions = -1, err_cycles = -1, err_run_ns = -1;
static unsigned long long instructions, cycles, run_ns, queries;
module_param(err_instructions, int, 0444);
module_param(err_cycles, int, 0444);
module_param(err_run_ns, int, 0444);
module_param(instructions, ullong, 0444);
module_param(cycles, ullong, 0444);
module_param(run_ns, ullong, 0444);
module_param(queries, ullong, 0444);
static int metric = -1, err_metric = -1;
static unsigned long long metric_value;
module_param(metric, int, 0444);
module_param(err_metric, int, 0444);
module_param(metric_value, ullong, 0444);

static struct task_struct *target;
static struct hrtimer query_timer;

static void ask(unsigned int id, int *err, unsigned long long *value)
{
	u64 v = 0;
	int e = pmc_ops_get_metric(target, id, &v);

	WRITE_ONCE(*err, e);
	if (!e)
		WRITE_ONCE(*value, v);
}

static enum hrtimer_restart query_tick(struct hrtimer *timer)
{
	lockdep_assert_irqs_disabled();
	ask(PMC_METRIC_ID_INSTRUCTIONS, &err_instructions, &instructions);
	ask(PMC_METRIC_ID_CYCLES, &err_cycles, &cycles);
	ask(PMC_METRIC_ID_RUN_NS, &err_run_ns, &run_ns);
	if (metric >= 0)
		ask(metric, &err_metric, &metric_value);
	WRITE_ONCE(queries, queries + 1);
	hrtimer_forward_now(timer, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static int __init kpmc_query_init(void)
{
	struct pmc_metrics m = { 0 };
	int err = -ESRCH;

	target = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	if (target)
		err = pmc_ops_get_metrics(target, &m);
	pr_info("kpmc_query: pid %d: err %d valid 0x%x instructions %llu cycles %llu ipc_milli %llu run_ns %llu\n",
		pid, err, m.valid, m.instructions, m.cycles, m.ipc_milli, m.run_ns);
	if (!target)
		return 0;
	if (monitor)
		monitor_err = pmc_ops_monitor(target, true);
	hrtimer_init(&query_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	query_timer.function = query_tick;
	hrtimer_start(&query_timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	return 0;
}

static void __exit kpmc_query_exit(void)
{
	if (!target)
		return;
	hrtimer_cancel(&query_timer);
	if (monitor && !monitor_err)
		pmc_ops_monitor(target, false);
	put_task_struct(target);
}

module_init(kpmc_query_init);
module_exit(kpmc_query_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc test: query a thread's metrics through pmc_ops");
