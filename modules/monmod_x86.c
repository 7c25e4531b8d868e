// SPDX-License-Identifier: GPL-2.0
/* The kernel side of monmod_x86.h, for the x86 monitoring modules. */
#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/workqueue.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "kpmc/compat.h"
#include "monmod_x86.h"

int kpmc_monmod_rdmsr_safe(u32 msr, u64 *value)
{
	return kpmc_rdmsr64_safe(msr, value) ? -EIO : 0;
}

void kpmc_monmod_wrmsr(u32 msr, u64 value)
{
	kpmc_wrmsr64(msr, value);
}

void kpmc_monmod_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
}

unsigned int kpmc_monmod_nr_cpus(void)
{
	return nr_cpu_ids;
}

unsigned int kpmc_monmod_this_cpu(void)
{
	return smp_processor_id();
}

unsigned int kpmc_monmod_nr_pkgs(void)
{
	return topology_max_packages();
}

unsigned int kpmc_monmod_this_pkg(void)
{
	return topology_logical_package_id(smp_processor_id());
}

void *kpmc_monmod_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void kpmc_monmod_free(void *p)
{
	kvfree(p);
}

static void (*poll_fn)(void);
static unsigned long poll_jiffies;
static bool poll_every_cpu;


static void call_fn(void *fn)
{
	((void (*)(void))fn)();
}

static void poll_cpus(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		/* One CPU per package: the first online one of its package. */
		if (!poll_every_cpu &&
		    cpumask_first_and(topology_core_cpumask(cpu), cpu_online_mask) != cpu)
			continue;
		smp_call_function_single(cpu, call_fn, poll_fn, 1);
	}
	cpus_read_unlock();
}

static void poll_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(poll_work, poll_work_fn);

static void poll_work_fn(struct work_struct *work)
{
	poll_cpus();
	schedule_delayed_work(&poll_work, poll_jiffies);
}

void kpmc_monmod_poll_start(void (*fn)(void), unsigned int period_ms, bool every_cpu)
{
	poll_fn = fn;
	poll_every_cpu = every_cpu;
	poll_jiffies = msecs_to_jiffies(period_ms);
	poll_cpus();
	schedule_delayed_work(&poll_work, poll_jiffies);
}

void kpmc_monmod_poll_stop(void)
{
	cancel_delayed_work_sync(&poll_work);
}

void kpmc_monmod_on_each_cpu(void (*fn)(void))
{
	on_each_cpu(call_fn, fn, 1);
}

/*
 * resctrl is built into the kernel (CONFIG_X86_CPU_RESCTRL) and keeps its
 * mounted state private; what is visible from a module is its filesystem
 * type, whose list of superblocks is non-empty exactly while it is mounted
 * (it can be mounted once). Read without sb_lock: a mount racing with this
 * check is not caught, which doc/monitoring-modules.md says.
 */
bool kpmc_monmod_resctrl_mounted(void)
{
	struct file_system_type *fs = get_fs_type("resctrl");
	bool mounted;

	if (!fs)
		return false;
	mounted = !hlist_empty(&fs->fs_supers);
	module_put(fs->owner);
	return mounted;
}
