/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels kpmc supports (5.10 to 7.x) is
 * decided here, once: by feature (a macro or header that exists) where the
 * kernel offers one, by version where it does not. No other file of
 * kernel/, backends/ or modules/ tests LINUX_VERSION_CODE, and
 * tests/host/compat_only.sh fails the build of make test if one does.
 *
 * What each kernel does differently, and how it is checked:
 * - tracepoint probe prototypes: sched_switch gained prev_state in 5.18,
 *   sched_process_exit gained group_dead in 6.16. hooks_tracepoint.c checks
 *   its probes against the kernel's own declarations at compile time.
 * - vma->vm_flags is read-only since 6.3 (vm_flags_set/vm_flags_clear).
 * - arm64: the PMUv3 register fields moved to <linux/perf/arm_pmuv3.h> in
 *   6.4 and PMCR.N became a GENMASK; perf's counter index of the cycle
 *   counter moved from 0 to 31 in 6.8 (event counter n is index n, no longer
 *   n + 1); the PMUVer field of ID_AA64DFR0_EL1 was renamed in 6.0.
 * - IRQ_WORK_INIT_HARD exists from 5.11 (PREEMPT_RT's hard-IRQ irq_work).
 * - perf samples: the weight became a union in 5.12; 6.1 marks the fields
 *   a PMU driver filled in sample_flags and no longer clears the others.
 * - x86: rdmsrl/wrmsrl/rdmsrl_safe became rdmsrq/wrmsrq/rdmsrq_safe in
 *   6.16; cpuid_count() moved to <asm/cpuid/api.h>.
 * - hrtimer_setup() replaced hrtimer_init() + ->function in 6.13; the old
 *   call is gone in 7.x.
 * - task_work_add() from a hard IRQ: 6.12 has TWAF_NO_ALLOC (found by
 *   Kbuild); 7.x never allocates there and has no such flag.
 * - cgroups: a kernel built without them (the small configs of the patched
 *   test kernels) has no cgroup_get_from_fd(): cgroup=FD is refused there.
 */
#ifndef KPMC_COMPAT_H
#define KPMC_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/irq_work.h>
#include <linux/hrtimer.h>

/* ---- scheduler tracepoints ---------------------------------------------- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define KPMC_TP_SWITCH_PROTO(prev, next)				\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state
#else
#define KPMC_TP_SWITCH_PROTO(prev, next)				\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define KPMC_TP_EXIT_PROTO(p)	void *data, struct task_struct *p, bool group_dead
#else
#define KPMC_TP_EXIT_PROTO(p)	void *data, struct task_struct *p
#endif

/* ---- memory mappings ------------------------------------------------------ */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void kpmc_vm_flags_mod(struct vm_area_struct *vma,
				     vm_flags_t set, vm_flags_t clear)
{
	vm_flags_mod(vma, set, clear);
}
#else
static inline void kpmc_vm_flags_mod(struct vm_area_struct *vma,
				     vm_flags_t set, vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/* ---- perf samples (the perf backend's memory sampling) --------------------- */

struct perf_sample_data;
/*
 * A sample's fields are only valid where the PMU driver filled them: 6.1
 * flags each one filled in sample_flags (the others are left unset); before,
 * perf_sample_data_init() cleared them all. The weight became a union in 5.12.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KPMC_PERF_SAMPLE_HAS(data, bit)	(((data)->sample_flags & (bit)) != 0)
#else
#define KPMC_PERF_SAMPLE_HAS(data, bit)	((void)(data), (void)(bit), true)
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define KPMC_PERF_SAMPLE_WEIGHT(data)	((data)->weight.full)
#else
#define KPMC_PERF_SAMPLE_WEIGHT(data)	((data)->weight)
#endif

/* ---- hrtimers ------------------------------------------------------------- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
static inline void kpmc_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, fn, clock, mode);
}
#else
static inline void kpmc_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#endif

/* ---- task_work queued from a hard IRQ ------------------------------------ */

/*
 * KASAN records the stack of whoever queues a task_work; in a hard IRQ on
 * PREEMPT_RT that record must not allocate. 6.12 says so with
 * TWAF_NO_ALLOC; 7.x never allocates there; 5.10 and 6.1 allocate with
 * GFP_NOWAIT, which only a PREEMPT_RT kernel with KASAN would object to.
 */
#include <linux/task_work.h>
#ifdef KPMC_HAVE_TWAF_NO_ALLOC
#define KPMC_TWA_RESUME_FROM_IRQ	(TWA_RESUME | TWAF_NO_ALLOC)
#else
#define KPMC_TWA_RESUME_FROM_IRQ	TWA_RESUME
#endif

/* ---- syscore (suspend/resume of the last CPU) ---------------------------- */

/*
 * Since 6.19 (and in some distributions' 6.12) syscore callbacks take a
 * context pointer and are registered as a struct syscore that points to
 * const ops: Kbuild finds it in the headers (KPMC_HAVE_STRUCT_SYSCORE), as
 * the version cannot tell. KPMC_SYSCORE_ARGS is the callbacks' parameter
 * list; KPMC_DEFINE_SYSCORE(name, suspend, resume) defines what
 * kpmc_register_syscore(&name) registers.
 */
#include <linux/syscore_ops.h>
#ifdef KPMC_HAVE_STRUCT_SYSCORE
#define KPMC_SYSCORE_ARGS	void *data
#define KPMC_DEFINE_SYSCORE(name, s, r)						\
	static const struct syscore_ops name##_ops = { .suspend = s, .resume = r };	\
	static struct syscore name = { .ops = &name##_ops }
#define kpmc_register_syscore(x)	register_syscore(x)
#define kpmc_unregister_syscore(x)	unregister_syscore(x)
#else
#define KPMC_SYSCORE_ARGS	void
#define KPMC_DEFINE_SYSCORE(name, s, r)						\
	static struct syscore_ops name = { .suspend = s, .resume = r }
#define kpmc_register_syscore(x)	register_syscore_ops(x)
#define kpmc_unregister_syscore(x)	unregister_syscore_ops(x)
#endif

/* ---- irq_work ------------------------------------------------------------- */

/*
 * Before 5.11 every irq_work ran in hard IRQ context (PREEMPT_RT was not
 * mainline) and there were no initializer macros: an irq_work with no
 * flags is the hard kind.
 */
#ifndef IRQ_WORK_INIT_HARD
#define IRQ_WORK_INIT_HARD(fn)	\
	((struct irq_work){ .flags = ATOMIC_INIT(0), .func = (fn) })
#endif

/* ---- arm64 PMUv3 ---------------------------------------------------------- */

#ifdef CONFIG_ARM64
#include <linux/bitfield.h>
#include <asm/sysreg.h>
#if __has_include(<linux/perf/arm_pmuv3.h>)
#include <linux/perf/arm_pmuv3.h>
#else
#include <asm/perf_event.h>
#endif

/* PMCR_EL0.N, the number of event counters. */
#ifdef ARMV8_PMU_PMCR_N_SHIFT
#define KPMC_PMCR_N(pmcr)	(((pmcr) >> ARMV8_PMU_PMCR_N_SHIFT) & ARMV8_PMU_PMCR_N_MASK)
#else
#define KPMC_PMCR_N(pmcr)	FIELD_GET(ARMV8_PMU_PMCR_N, (pmcr))
#endif

#ifdef ID_AA64DFR0_EL1_PMUVer_SHIFT
#define KPMC_DFR0_PMUVER_SHIFT	ID_AA64DFR0_EL1_PMUVer_SHIFT
#else
#define KPMC_DFR0_PMUVER_SHIFT	ID_AA64DFR0_PMUVER_SHIFT
#endif

/*
 * perf's counter index (arm_pmu's per-CPU used_mask bit) of the cycle
 * counter and of event counter 0. The header defines ARMV8_PMU_CYCLE_IDX
 * exactly on the kernels that number counters the new way.
 */
#ifdef ARMV8_PMU_CYCLE_IDX
#define KPMC_ARMPMU_IDX_CYCLE	ARMV8_PMU_CYCLE_IDX
#define KPMC_ARMPMU_IDX_EVENT0	0
#else
#define KPMC_ARMPMU_IDX_CYCLE	0
#define KPMC_ARMPMU_IDX_EVENT0	1
#endif
#endif /* CONFIG_ARM64 */

/* ---- x86 MSRs and CPUID --------------------------------------------------- */

#ifdef CONFIG_X86
#include <asm/msr.h>
#include <asm/processor.h>
#if __has_include(<asm/cpuid/api.h>)
#include <asm/cpuid/api.h>
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define kpmc_rdmsr64(msr, v)		rdmsrq(msr, v)
#define kpmc_wrmsr64(msr, v)		wrmsrq(msr, v)
#define kpmc_rdmsr64_safe(msr, p)	rdmsrq_safe(msr, p)
#else
#define kpmc_rdmsr64(msr, v)		rdmsrl(msr, v)
#define kpmc_wrmsr64(msr, v)		wrmsrl(msr, v)
#define kpmc_rdmsr64_safe(msr, p)	rdmsrl_safe(msr, p)
#endif
#endif /* CONFIG_X86 */

/* ---- perf_event_paranoid = 3 ------------------------------------------- */

/*
 * Debian's kernels refuse every perf event without CAP_SYS_ADMIN at
 * paranoid >= 3 (perf_paranoid_any(), found in the headers by Kbuild);
 * upstream's treat 3 as 2.
 */
static inline bool kpmc_paranoid_blocks_all(int paranoid)
{
#ifdef KPMC_HAVE_PERF_PARANOID_ANY
	return paranoid > 2;
#else
	return false;
#endif
}

/* ---- an exec that raised privileges ------------------------------------ */

/*
 * Not an address of user space: the kernel's, whatever the architecture's
 * split. arm64 before 5.11 has no TASK_SIZE_MAX: its user space ends below
 * 1 << VA_BITS at its largest, its kernel is the top half.
 */
#include <linux/sched.h>
static inline bool kpmc_beyond_user(u64 a)
{
#ifdef TASK_SIZE_MAX
	return a >= TASK_SIZE_MAX;
#else
	return a >= BIT_ULL(VA_BITS);
#endif
}

/* file_open_root() takes a struct path from 5.12 on. */
#include <linux/fs.h>
#include <linux/path.h>
static inline struct file *kpmc_file_open_root(const struct path *root, const char *name,
					       int flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
	return file_open_root(root, name, flags, 0);
#else
	return file_open_root(root->dentry, root->mnt, name, flags, 0);
#endif
}

/*
 * The exec gave the task privileges its monitor may not have had (a setuid
 * or setgid program, file capabilities): perf ends its events there, on the
 * test begin_new_exec() makes, the new mm not dumpable by the user. 7.x
 * keeps dumpability in the task's exec state, behind a function modules
 * cannot call (Kbuild: KPMC_HAVE_TASK_EXEC_STATE); there AT_SECURE, which
 * exec sets for the same raise of privileges, tells it.
 */
#ifdef KPMC_HAVE_TASK_EXEC_STATE
#include <linux/auxvec.h>
static inline bool kpmc_exec_raised_privileges(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	unsigned int i;

	for (i = 0; mm && i + 1 < AT_VECTOR_SIZE && mm->saved_auxv[i] != AT_NULL; i += 2)
		if (mm->saved_auxv[i] == AT_SECURE)
			return mm->saved_auxv[i + 1];
	return false;
}
#else
#include <linux/sched/coredump.h>
static inline bool kpmc_exec_raised_privileges(struct task_struct *task)
{
	return task->mm && get_dumpable(task->mm) != SUID_DUMP_USER;
}
#endif

/* ---- cgroups (v2) -------------------------------------------------------- */

#include <linux/cgroup.h>

#ifdef CONFIG_CGROUPS
#define KPMC_HAVE_CGROUPS 1
static inline struct cgroup *kpmc_cgroup_get_from_fd(int fd)
{
	return cgroup_get_from_fd(fd);
}

static inline void kpmc_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}

/* One reference more on a cgroup the caller holds. */
static inline void kpmc_cgroup_hold(struct cgroup *cgrp)
{
	css_get(&cgrp->self);
}

/* Caller holds rcu_read_lock(). */
static inline bool kpmc_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp)
{
	return task_under_cgroup_hierarchy(task, cgrp);
}
#else
#define KPMC_HAVE_CGROUPS 0
static inline struct cgroup *kpmc_cgroup_get_from_fd(int fd)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void kpmc_cgroup_put(struct cgroup *cgrp)
{
}

static inline void kpmc_cgroup_hold(struct cgroup *cgrp)
{
}

static inline bool kpmc_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp)
{
	return false;
}
#endif

#endif /* KPMC_COMPAT_H */
