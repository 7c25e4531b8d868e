// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc: per-thread performance-monitoring counters.
 * The module's entry and exit: the only place that starts and stops the
 * layers, in order (PMU, deferred work, formats, thread table, counting's
 * timers, per-CPU state, hooks, privilege rules, /proc, the in-kernel
 * API), and the hook source's choice.
 */
#include <linux/module.h>
#include <linux/kernel.h>

#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_formats.h"
#include "layer_rules.h"
#include "layer_per_cpu.h"
#include "layer_counting.h"
#include "layer_life.h"
#include "layer_interfaces.h"
#include "kpmc/format.h"
#include "kpmc/hooks.h"

static char *hooks = "auto";
module_param(hooks, charp, 0444);
MODULE_PARM_DESC(hooks, "auto (pmc_ops where the kernel has them), pmc_ops or tracepoint");

const struct kpmc_hook_source *kpmc_hooks;

/* pmc_ops where the kernel has kpmc's scheduler patch, else tracepoints. */
static const struct kpmc_hook_source *select_hooks(void)
{
	bool want_tp = !strcmp(hooks, "tracepoint"), want_ops = !strcmp(hooks, "pmc_ops");

	if (!want_tp && !want_ops && strcmp(hooks, "auto"))
		return NULL;
#ifdef CONFIG_PMC_OPS
	if (!want_tp)
		return &kpmc_pmc_ops_hooks;
#endif
#ifdef CONFIG_TRACEPOINTS
	if (!want_ops)
		return &kpmc_tracepoint_hooks;
#endif
	return NULL;
}

static int __init kpmc_init(void)
{
	int err;

	BUILD_BUG_ON(KPMC_MAX_COUNTERS > 32);
	BUILD_BUG_ON(KPMC_MAX_VIRT > 32);

	kpmc_pmu_init();

	err = kpmc_monmod_activate(0);
	if (err)
		goto out_backend;
	err = kpmc_defer_init();
	if (err)
		goto out_backend;
	err = kpmc_formats_init();
	if (err)
		goto out_defer;
	err = kpmc_builtin_formats_init();
	if (err)
		goto out_formats;
	err = kpmc_threads_init();
	if (err)
		goto out_builtin_formats;
	kpmc_counting_init();
	kpmc_system_init();
	err = kpmc_cpu_state_init();
	if (err)
		goto out_threads;
	kpmc_hooks = select_hooks();
	if (!kpmc_hooks) {
		pr_err("kpmc: no hook source: hooks=%s (this kernel: tracepoints %s, pmc_ops %s)\n",
		       hooks, IS_ENABLED(CONFIG_TRACEPOINTS) ? "yes" : "no",
		       IS_ENABLED(CONFIG_PMC_OPS) ? "yes" : "no");
		err = -EINVAL;
		goto out_cpu_state;
	}
	err = kpmc_hooks->attach();
	if (err) {
		pr_err("kpmc: cannot attach %s hooks: %d\n", kpmc_hooks->name, err);
		goto out_cpu_state;
	}
	kpmc_privilege_init();
	err = kpmc_proc_init();
	if (err)
		goto out_privilege;
	err = kpmc_kernel_api_init(kpmc_proc_dir());
	if (err)
		goto out_proc;
	return 0;

out_proc:
	kpmc_proc_exit();
out_privilege:
	kpmc_privilege_exit();
	kpmc_hooks->detach();
	kpmc_system_moves_sync();
out_cpu_state:
	kpmc_cpu_state_exit();
out_threads:
	kpmc_counting_stop();
	kpmc_threads_exit();
	kpmc_pmu_shutdown();
	kpmc_sessions_exit();
	kpmc_rings_exit();
out_builtin_formats:
	kpmc_builtin_formats_exit();
out_formats:
	kpmc_formats_exit();
out_defer:
	kpmc_defer_exit();
out_backend:
	kpmc_pmu_exit();
	return err;
}

static void __exit kpmc_exit(void)
{
	/*
	 * The hotplug, CPU PM and suspend callbacks go after the last
	 * system-wide session has stopped and none can start (the /proc
	 * files are gone): every stop runs under the hotplug lock on the CPUs
	 * online, and a CPU that went offline before it dropped its c->sys in
	 * its own offline callback. Were the callbacks gone first, a CPU going
	 * down in between would keep c->sys past the free of the system
	 * session and, back online while the hooks are attached, run the
	 * switch hook on it.
	 *
	 * They go before the thread states are freed: once the hooks are
	 * detached, a CPU that goes offline keeps its c->cur (no switch-out
	 * clears it), which the online callback would load from after the
	 * free. Without callbacks, nothing reads it any more.
	 */
	kpmc_system_exit();
	/* Wake blocked readers, then close every open session file. */
	kpmc_rings_shutdown();
	kpmc_proc_exit();
	kpmc_privilege_exit();
	kpmc_hooks->detach();
	kpmc_system_moves_sync();
	kpmc_kernel_api_stop();
	kpmc_cpu_state_exit();
	kpmc_counting_stop();
	kpmc_threads_exit();
	kpmc_pmu_shutdown();
	kpmc_monmod_exit();
	kpmc_sessions_exit();
	kpmc_rings_exit();
	kpmc_defer_exit();
	kpmc_formats_exit();
	kpmc_builtin_formats_exit();
	kpmc_pmu_exit();
}

module_init(kpmc_init);
module_exit(kpmc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc: per-thread performance-monitoring counters");
