// SPDX-License-Identifier: GPL-2.0
/*
 * The machine side of the x86 backends (x86_hw.h): MSRs and CPUID, counter
 * reservation shared with perf and the NMI watchdog, and the PMI.
 *
 * Sharing policy: the kernel's x86 perf driver reserves every general
 * counter through reserve_perfctr_nmi()/reserve_evntsel_nmi() while it has
 * any hardware event (the NMI watchdog is one), and its event creation fails
 * while another owner holds them. kpmc takes the same reservations while it
 * holds the PMU, so the two never share counters: whoever comes second gets
 * -EBUSY, with the reason spelled out.
 *
 * The PMI is an NMI: kpmc's handler only takes its overflow bits there and
 * defers the sample to an irq_work on the same CPU, where the core may take
 * its locks.
 */
#include <linux/kernel.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/cpumask.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/nmi.h>
#include <asm/apic.h>

#include "kpmc/compat.h"
#include "x86_hw.h"

u64 kpmc_x86_rdmsr(u32 msr)
{
	u64 v;

	kpmc_rdmsr64(msr, v);
	return v;
}

void kpmc_x86_wrmsr(u32 msr, u64 value)
{
	kpmc_wrmsr64(msr, value);
}

void kpmc_x86_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
}

void kpmc_x86_unreserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		release_evntsel_nmi(ctl_base + i * stride);
		release_perfctr_nmi(ctr_base + i * stride);
	}
}

int kpmc_x86_reserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride,
		     char *why, size_t len)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!reserve_perfctr_nmi(ctr_base + i * stride))
			goto busy;
		if (!reserve_evntsel_nmi(ctl_base + i * stride)) {
			release_perfctr_nmi(ctr_base + i * stride);
			goto busy;
		}
	}
	return 0;
busy:
	kpmc_x86_unreserve(i, ctl_base, ctr_base, stride);
	snprintf(why, len,
		 "counter %u is reserved by the kernel's perf or the NMI watchdog (stop perf users; echo 0 > /proc/sys/kernel/nmi_watchdog)",
		 i);
	return -EBUSY;
}

static bool (*kpmc_x86_pmi_handler)(void);
static DEFINE_PER_CPU(struct irq_work, kpmc_x86_overflow_work);

static void overflow_work(struct irq_work *work)
{
	kpmc_pmu_overflow();
}

static int kpmc_x86_nmi(unsigned int cmd, struct pt_regs *regs)
{
	bool (*handler)(void) = READ_ONCE(kpmc_x86_pmi_handler);

	if (!handler || !handler())
		return NMI_DONE;
	irq_work_queue(this_cpu_ptr(&kpmc_x86_overflow_work));
	return NMI_HANDLED;
}

/*
 * apic_write() is a static call whose trampoline is not exported to
 * modules (6.x); the apic driver's write is, through the exported apic.
 */
void kpmc_x86_pmi_rearm(void)
{
	apic->write(APIC_LVTPC, APIC_DM_NMI);
}

void kpmc_x86_pmi_attach(bool (*handler)(void))
{
	int cpu;

	/*
	 * Hard: the sample belongs to the thread current when the counter
	 * overflowed. On PREEMPT_RT a plain irq_work runs later in a per-CPU
	 * kthread, with the sampled thread switched out (no current thread
	 * for the core): event-based samples would be lost.
	 */
	for_each_possible_cpu(cpu)
		per_cpu(kpmc_x86_overflow_work, cpu) = IRQ_WORK_INIT_HARD(overflow_work);
	WRITE_ONCE(kpmc_x86_pmi_handler, handler);
	register_nmi_handler(NMI_LOCAL, kpmc_x86_nmi, 0, "kpmc");
}

void kpmc_x86_pmi_detach(void)
{
	int cpu;

	unregister_nmi_handler(NMI_LOCAL, "kpmc");
	WRITE_ONCE(kpmc_x86_pmi_handler, NULL);
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&kpmc_x86_overflow_work, cpu));
}

void kpmc_x86_on_each_cpu(void (*fn)(void *info), void *info)
{
	on_each_cpu(fn, info, 1);
}

unsigned int kpmc_x86_cpu(void)
{
	return smp_processor_id();
}

unsigned int kpmc_x86_nr_cpus(void)
{
	return nr_cpu_ids;
}

struct cpuid_call {
	u32 leaf, subleaf, *regs;
};

static void cpuid_here(void *info)
{
	struct cpuid_call *c = info;

	kpmc_x86_cpuid(c->leaf, c->subleaf, c->regs);
}

int kpmc_x86_cpuid_on(unsigned int cpu, u32 leaf, u32 subleaf, u32 regs[4])
{
	struct cpuid_call c = { leaf, subleaf, regs };

	return smp_call_function_single(cpu, cpuid_here, &c, 1) ? -ENODEV : 0;
}

static DEFINE_PER_CPU(u64 [KPMC_MAX_COUNTERS], kpmc_x86_values);

u64 *kpmc_x86_cpu_values(void)
{
	return *this_cpu_ptr(&kpmc_x86_values);
}

bool kpmc_x86_pti_active(void)
{
	return boot_cpu_has(X86_FEATURE_PTI);
}

void *kpmc_x86_zalloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

void kpmc_x86_note(const char *msg)
{
	pr_warn("kpmc: %s\n", msg);
}

void kpmc_x86_free(void *p)
{
	kfree(p);
}
