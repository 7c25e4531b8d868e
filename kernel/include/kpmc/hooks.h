/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one internal hook interface. A hook source (tracepoints on a stock
 * kernel; the scheduler patch's pmc_ops on a patched one) calls these core entry points,
 * and nothing else in the core knows where the notifications come from.
 */
#ifndef KPMC_HOOKS_H
#define KPMC_HOOKS_H

struct task_struct;

/* Core entry points. */
void kpmc_hook_fork(struct task_struct *parent, struct task_struct *child);
/* unreadable: the program's file is not readable by the task (an execute-only binary). */
void kpmc_hook_exec(struct task_struct *task, bool unreadable);
void kpmc_hook_exit(struct task_struct *task);
void kpmc_hook_switch(struct task_struct *prev, struct task_struct *next);
/* The task moves to another CPU (not running; its runqueue or pi_lock held). */
void kpmc_hook_migrate(struct task_struct *task, int new_cpu);
/* The task_struct is about to be freed (any context): no state may outlive it. */
void kpmc_hook_free(struct task_struct *task);
/*
 * The task (with threadgroup, its whole process) was just moved to another
 * cgroup, perhaps while it runs (IRQs off, cgroup locks held).
 */
void kpmc_hook_cgroup_moved(struct task_struct *task, bool threadgroup);

/*
 * A tracepoint probe of a hook source has exactly the prototype this kernel's tracepoint calls it
 * with: checked against the kernel's own declaration (register_trace_X
 * takes a probe of that type; only its type is looked at, nothing is
 * linked against the unexported tracepoint).
 */
#define KPMC_CHECK_PROBE(tp, probe)					\
	static_assert(__same_type(&register_trace_##tp,			\
				  int (*)(typeof(&(probe)), void *)),	\
		      "kpmc: " #probe " does not match tracepoint " #tp)

struct kpmc_hook_source {
	const char *name;
	int (*attach)(void);
	/* Returns once no hook call is in flight any more. */
	void (*detach)(void);
};

/*
 * Cgroup moves have no pmc_ops notification: both sources take them from
 * the cgroup_attach_task tracepoint, where the kernel has cgroups.
 */
#if defined(CONFIG_TRACEPOINTS) && defined(CONFIG_CGROUPS)
int kpmc_cgroup_hook_attach(void);
void kpmc_cgroup_hook_detach(void);
#else
static inline int kpmc_cgroup_hook_attach(void)
{
	return 0;
}

static inline void kpmc_cgroup_hook_detach(void)
{
}
#endif

extern const struct kpmc_hook_source kpmc_tracepoint_hooks;
extern const struct kpmc_hook_source kpmc_pmc_ops_hooks;	/* CONFIG_PMC_OPS kernels */

#endif /* KPMC_HOOKS_H */
