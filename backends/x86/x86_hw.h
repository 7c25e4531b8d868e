/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 backends' only contact with the machine: MSRs, CPUID, reserving
 * the counters from the kernel's perf and the NMI watchdog, and the PMU
 * interrupt. In the module these are backends/x86/x86_hw.c; in the unit tests a
 * model of a CPU's PMU (tests/unit/msr_model.c) provides them, so intel.c
 * and amd.c run unchanged against it.
 */
#ifndef KPMC_X86_HW_H
#define KPMC_X86_HW_H

#include "kpmc/backend.h"
#include <uapi/linux/kpmc.h>

u64 kpmc_x86_rdmsr(u32 msr);
void kpmc_x86_wrmsr(u32 msr, u64 value);
void kpmc_x86_cpuid(u32 leaf, u32 subleaf, u32 regs[4]);	/* eax, ebx, ecx, edx */

/*
 * Reserve n counters (control MSR ctl_base + i * stride, counter MSR
 * ctr_base + i * stride) against perf and the NMI watchdog, the same way
 * perf's x86 driver reserves them; 0, or -EBUSY with who holds them in why.
 */
int kpmc_x86_reserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride,
		     char *why, size_t len);
void kpmc_x86_unreserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride);

/*
 * Route PMU interrupts (NMIs) to handler while attached: it returns true if
 * the interrupt was for kpmc's counters, and kpmc_pmu_overflow() then runs
 * soon after in IRQ context on the same CPU.
 */
void kpmc_x86_pmi_attach(bool (*handler)(void));
void kpmc_x86_pmi_detach(void);
/*
 * A PMI for kpmc was handled: unmask the local APIC's performance-counter
 * entry. Intel masks it when it delivers a PMI; perf's handler, which
 * unmasks it for its own, returns early when perf has no events, so without this only one PMI per CPU would ever arrive.
 */
void kpmc_x86_pmi_rearm(void);

/*
 * Kernel page-table isolation is on: memory the CPU writes behind the
 * kernel's back in user mode (PEBS's DS area) would have to be mapped in
 * the user page tables too.
 */
bool kpmc_x86_pti_active(void);

/* Run fn on every online CPU (process context), waiting for all. */
void kpmc_x86_on_each_cpu(void (*fn)(void *info), void *info);

/*
 * Hybrid parts: each core type is its own PMU, so the backend learns which
 * CPU it is on (hot path: preemption is off there), asks CPUID on a CPU of
 * a given type (process context; -ENODEV if cpu is offline), and keeps, per
 * CPU, the values of counters that CPU's type lacks.
 */
#ifdef __KERNEL__
#include <linux/threads.h>
#define KPMC_X86_MAX_CPUS	NR_CPUS
#else
#define KPMC_X86_MAX_CPUS	64
#endif
unsigned int kpmc_x86_cpu(void);
unsigned int kpmc_x86_nr_cpus(void);
int kpmc_x86_cpuid_on(unsigned int cpu, u32 leaf, u32 subleaf, u32 regs[4]);
u64 *kpmc_x86_cpu_values(void);		/* this CPU's KPMC_MAX_COUNTERS values */
void *kpmc_x86_zalloc(size_t size);		/* process context */
void kpmc_x86_note(const char *msg);		/* a line for dmesg (process context) */
void kpmc_x86_free(void *p);

/* The MSRs both vendors' backends name. */
#define MSR_X86_PERFEVTSEL0		0x186
#define MSR_X86_PMC0			0x0c1
#define MSR_X86_PMC0_FULL		0x4c1	/* full-width writes (PERF_CAPABILITIES bit 13) */
#define MSR_X86_FIXED_CTR0		0x309
#define MSR_X86_PERF_CAPABILITIES	0x345
#define MSR_X86_FIXED_CTR_CTRL		0x38d
#define MSR_X86_PERF_GLOBAL_STATUS	0x38e
#define MSR_X86_PERF_GLOBAL_CTRL	0x38f
#define MSR_X86_PERF_GLOBAL_OVF_CTRL	0x390

#define MSR_AMD_K7_EVNTSEL0		0xc0010000
#define MSR_AMD_K7_PERFCTR0		0xc0010004
#define MSR_AMD_F15H_PERF_CTL0		0xc0010200	/* CTL i at +2i, CTR i at +2i+1 */
#define MSR_AMD_F15H_PERF_CTR0		0xc0010201
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS	0xc0000300
#define MSR_AMD_PERF_CNTR_GLOBAL_CTL	0xc0000301
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR 0xc0000302

/* PERFEVTSEL bits, shared by Intel and AMD. */
#define X86_EVTSEL_USR		(1ULL << 16)
#define X86_EVTSEL_OS		(1ULL << 17)
#define X86_EVTSEL_EDGE		(1ULL << 18)
#define X86_EVTSEL_INT		(1ULL << 20)
#define X86_EVTSEL_ANY		(1ULL << 21)
#define X86_EVTSEL_EN		(1ULL << 22)
#define X86_EVTSEL_INV		(1ULL << 23)
#define X86_EVTSEL_CMASK_SHIFT	24

/* The vendor-independent part of an event select value. */
static inline u64 kpmc_x86_evtsel(u64 event_low8, const struct kpmc_counter_req *req,
				  bool interrupt)
{
	u64 v = (event_low8 & 0xff) | (u64)req->umask << 8;

	if (req->usr)
		v |= X86_EVTSEL_USR;
	if (req->os)
		v |= X86_EVTSEL_OS;
	if (req->edge)
		v |= X86_EVTSEL_EDGE;
	if (req->inv)
		v |= X86_EVTSEL_INV;
	if (req->any)
		v |= X86_EVTSEL_ANY;
	if (interrupt)
		v |= X86_EVTSEL_INT;
	return v | (u64)req->cmask << X86_EVTSEL_CMASK_SHIFT;
}

static inline bool kpmc_x86_vendor_is(const char *vendor)
{
	u32 r[4];
	char id[13];

	kpmc_x86_cpuid(0, 0, r);
	memcpy(id, &r[1], 4);
	memcpy(id + 4, &r[3], 4);
	memcpy(id + 8, &r[2], 4);
	id[12] = '\0';
	return !strcmp(id, vendor);
}

#endif /* KPMC_X86_HW_H */
