// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc across the machine states that take a CPU's PMU away: CPU hotplug,
 * power-down idle states (CPU PM) and suspend. The kernel's PMU driver
 * resets the PMU whenever it comes back (arm_pmu on every CPU_PM_EXIT and
 * when a CPU starts; x86 loses its MSRs in S3), so without this file the
 * next fold would subtract a stale raw value from a zeroed counter
 * (billions of phantom events), and a CPU onlined after the claim would
 * never count.
 *
 * - Hotplug: a dynamic cpuhp state. It runs on the CPU, after the kernel's
 *   PMU driver set the CPU up and before any task but per-CPU kthreads can
 *   run there (the CPU is not active yet); going down, before the CPU's
 *   tasks leave. A thread leaving a dying CPU is folded at its switch-out
 *   like any other; coming up, the backend sets the CPU up (claim, enable)
 *   and the CPU forgets which configuration its selectors held, so the next
 *   monitored thread loads its own. System-wide sessions follow the CPU.
 * - CPU PM (power-down idle, and the boot CPU in suspend): at ENTER the
 *   counters are folded, at EXIT reloaded with exactly the folded values.
 *   The notifier has a lower priority than the PMU driver's, so at EXIT it
 *   runs after the driver's reset.
 * - Suspend: the syscore hooks do the same on the boot CPU, the one CPU
 *   still online then, for architectures without CPU PM (x86 S3).
 */
#include <linux/kernel.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu_pm.h>
#include <linux/irqflags.h>

#include "kpmc/compat.h"
#include "layer_per_cpu.h"
#include "layer_counting.h"
#include "layer_life.h"

static enum cpuhp_state kpmc_cpuhp_state;

static int kpmc_cpu_online(unsigned int cpu)
{
	int err = 0;

	if (kpmc_backend && kpmc_backend->cpu_came_online)
		err = kpmc_backend->cpu_came_online(cpu);
	/* Never refuse a CPU: it then counts nothing for kpmc, and says why. */
	if (err)
		pr_warn("kpmc: CPU %u came online but its PMU could not be set up (%d): threads count nothing there\n",
			cpu, err);
	local_irq_disable();
	kpmc_cpu_reload();
	local_irq_enable();
	kpmc_system_cpu_online(cpu);
	return 0;
}

static int kpmc_cpu_offline(unsigned int cpu)
{
	kpmc_system_cpu_offline(cpu);
	if (kpmc_backend && kpmc_backend->cpu_going_offline)
		kpmc_backend->cpu_going_offline(cpu);
	return 0;
}

#ifdef CONFIG_CPU_PM
static int kpmc_cpu_pm_notify(struct notifier_block *nb, unsigned long cmd, void *v)
{
	switch (cmd) {
	case CPU_PM_ENTER:
		kpmc_cpu_save();
		break;
	case CPU_PM_ENTER_FAILED:
	case CPU_PM_EXIT:
		kpmc_cpu_restore();
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block kpmc_cpu_pm_nb = {
	.notifier_call = kpmc_cpu_pm_notify,
	/* After the PMU driver's (priority 0), whose EXIT resets the PMU. */
	.priority = -1,
};
#endif

#ifdef CONFIG_PM_SLEEP
static int kpmc_suspend(KPMC_SYSCORE_ARGS)
{
	kpmc_cpu_save();
	return 0;
}

static void kpmc_resume(KPMC_SYSCORE_ARGS)
{
	kpmc_cpu_restore();
}

KPMC_DEFINE_SYSCORE(kpmc_syscore, kpmc_suspend, kpmc_resume);
#endif

int kpmc_cpu_state_init(void)
{
	int ret;

	/* nocalls: the CPUs online now were set up by the claim, if any. */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "kpmc:online",
					kpmc_cpu_online, kpmc_cpu_offline);
	if (ret < 0)
		return ret;
	kpmc_cpuhp_state = ret;
#ifdef CONFIG_CPU_PM
	cpu_pm_register_notifier(&kpmc_cpu_pm_nb);
#endif
#ifdef CONFIG_PM_SLEEP
	kpmc_register_syscore(&kpmc_syscore);
#endif
	return 0;
}

void kpmc_cpu_state_exit(void)
{
#ifdef CONFIG_PM_SLEEP
	kpmc_unregister_syscore(&kpmc_syscore);
#endif
#ifdef CONFIG_CPU_PM
	cpu_pm_unregister_notifier(&kpmc_cpu_pm_nb);
#endif
	cpuhp_remove_state_nocalls(kpmc_cpuhp_state);
}
