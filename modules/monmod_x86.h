/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 monitoring modules' (rapl.c, cmt.c) only contact with the machine
 * and the kernel: MSRs that may be missing, CPUID, CPU and package numbers, a
 * periodic poller, memory and a spinning lock. In the module these are
 * modules/monmod_x86.c; in the unit tests the MSR model (tests/unit/msr_model.c)
 * provides them, so the modules' logic runs unchanged against it.
 */
#ifndef KPMC_MONMOD_X86_H
#define KPMC_MONMOD_X86_H

#include "modules.h"

#ifdef __KERNEL__
#include <linux/spinlock.h>
#include <linux/math64.h>
typedef raw_spinlock_t kpmc_monmod_lock_t;
#define kpmc_monmod_lock_init(l)		raw_spin_lock_init(l)
#define kpmc_monmod_lock(l, flags)		raw_spin_lock_irqsave(l, flags)
#define kpmc_monmod_unlock(l, flags)	raw_spin_unlock_irqrestore(l, flags)
#define kpmc_monmod_mul_shr(a, mul, shift)	mul_u64_u32_shr(a, mul, shift)
#else
#ifndef BIT
#define BIT(n) (1UL << (n))
#endif
#define READ_ONCE(x) (x)
/* The tests run on one thread: a lock only has to balance. */
typedef int kpmc_monmod_lock_t;
#define kpmc_monmod_lock_init(l)		(*(l) = 0)
#define kpmc_monmod_lock(l, flags)		do { (flags) = 0; (*(l))++; } while (0)
#define kpmc_monmod_unlock(l, flags)	do { (void)(flags); (*(l))--; } while (0)
static inline u64 kpmc_monmod_mul_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}
#endif

/* rdmsr on this CPU: 0, or -EIO if the MSR does not exist here (#GP). */
int kpmc_monmod_rdmsr_safe(u32 msr, u64 *value);
void kpmc_monmod_wrmsr(u32 msr, u64 value);
void kpmc_monmod_cpuid(u32 leaf, u32 subleaf, u32 regs[4]);	/* eax, ebx, ecx, edx */

unsigned int kpmc_monmod_nr_cpus(void);	/* CPU numbers are below this */
unsigned int kpmc_monmod_this_cpu(void);	/* the caller cannot migrate */
unsigned int kpmc_monmod_nr_pkgs(void);	/* package numbers are below this */
unsigned int kpmc_monmod_this_pkg(void);

/* Process context. */
void *kpmc_monmod_zalloc(size_t size);
void kpmc_monmod_free(void *p);

/*
 * Run fn now on the CPUs, then every period_ms until kpmc_monmod_poll_stop();
 * every_cpu: on each online CPU, else on one CPU of each package. fn runs
 * with interrupts disabled. One poller at a time (one module is active).
 */
void kpmc_monmod_poll_start(void (*fn)(void), unsigned int period_ms, bool every_cpu);
void kpmc_monmod_poll_stop(void);
/* Run fn on every online CPU, interrupts disabled, and wait. */
void kpmc_monmod_on_each_cpu(void (*fn)(void));

/* Is the kernel's resctrl filesystem mounted (it then owns the RMIDs)? */
bool kpmc_monmod_resctrl_mounted(void);

/* cmt.c, for the unit tests: threads that found the RMID pool empty. */
unsigned long kpmc_cmt_exhausted(void);

/* CPUID vendor string and family (with the extended family added in). */
static inline unsigned int kpmc_monmod_x86_family(char vendor[13])
{
	u32 r[4];
	unsigned int family;

	kpmc_monmod_cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = '\0';
	kpmc_monmod_cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	return family;
}

/* CPUID model, with the extended model for families 6 and 0fh+. */
static inline unsigned int kpmc_monmod_x86_model(void)
{
	u32 r[4];
	unsigned int family, model;

	kpmc_monmod_cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 6 || family == 0xf)
		model |= ((r[0] >> 16) & 0xf) << 4;
	return model;
}

#endif /* KPMC_MONMOD_X86_H */
