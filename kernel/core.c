// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc: per-thread performance-monitoring counters.
 * Module entry, backend selection and the PMU claim policy.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/utsname.h>
#include <linux/cpu.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>

#include "kpmc/core.h"
#include "kpmc/hooks.h"

static char *hooks = "auto";
module_param(hooks, charp, 0444);
MODULE_PARM_DESC(hooks, "auto (pmc_ops where the kernel has them), pmc_ops or tracepoint");

static char *backend;
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend, "force a PMU backend by name (default: first that probes)");

const struct kpmc_backend *kpmc_backend;
struct kpmc_pmu_desc kpmc_pmu;
char kpmc_no_pmu_reason[KPMC_ERR_MAX];
const struct kpmc_hook_source *kpmc_hooks;

DEFINE_STATIC_KEY_FALSE(kpmc_monitoring);

/*
 * The PMU is claimed from perf only while something is counted: a thread
 * counting or armed to count at its exec, or a system-wide session. The
 * first user claims (process context, may sleep); the last one gives the
 * counters back from a work item, since threads stop in scheduler context.
 * Until then perf's events on those counters stay unscheduled, so perf sees
 * time_running < time_enabled and never a complete-looking wrong count.
 */
static DEFINE_MUTEX(kpmc_pmu_lock);
static atomic_t kpmc_pmu_users = ATOMIC_INIT(0);
static bool kpmc_pmu_claimed;		/* under kpmc_pmu_lock */

/*
 * Who owns the counters: nobody, threads (any number: per-thread, attached
 * and kernel-requested monitoring alike), or one system-wide session. Every
 * path that starts counting takes its ownership here first, under one lock,
 * so per-thread and system-wide counting can never both hold a CPU's
 * counters (a thread started between system-wide's check and its IPIs
 * would otherwise be left as the CPU's current thread). Giving ownership back
 * needs no lock: a decrement cannot admit anyone wrongly.
 */
static DEFINE_RAW_SPINLOCK(kpmc_owner_lock);
static atomic_t kpmc_thread_users = ATOMIC_INIT(0);
static bool kpmc_system_owns;		/* under kpmc_owner_lock */

static int own(enum kpmc_pmu_user who, char *why, size_t len)
{
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&kpmc_owner_lock, flags);
	if (kpmc_system_owns) {
		snprintf(why, len, "%s", who == KPMC_USER_SYSTEM ?
			 "system-wide monitoring is already on" :
			 "system-wide monitoring is on: the counters are taken");
		err = -EBUSY;
	} else if (who == KPMC_USER_SYSTEM && atomic_read(&kpmc_thread_users)) {
		snprintf(why, len, "threads are being monitored per thread: the counters are taken");
		err = -EBUSY;
	} else if (who == KPMC_USER_SYSTEM) {
		kpmc_system_owns = true;
	} else {
		atomic_inc(&kpmc_thread_users);
	}
	raw_spin_unlock_irqrestore(&kpmc_owner_lock, flags);
	return err;
}

static void disown(enum kpmc_pmu_user who)
{
	unsigned long flags;

	if (who == KPMC_USER_THREAD) {
		atomic_dec(&kpmc_thread_users);
		return;
	}
	raw_spin_lock_irqsave(&kpmc_owner_lock, flags);
	kpmc_system_owns = false;
	raw_spin_unlock_irqrestore(&kpmc_owner_lock, flags);
}

static u32 kpmc_all_counters(void)
{
	return kpmc_pmu.nr_counters >= 32 ? ~0u : (1u << kpmc_pmu.nr_counters) - 1;
}

/* Caller holds kpmc_pmu_lock. */
static void pmu_unclaim_locked(void)
{
	if (!kpmc_pmu_claimed)
		return;
	static_branch_disable(&kpmc_monitoring);
	cpus_read_lock();
	kpmc_backend->unclaim(kpmc_all_counters());
	WRITE_ONCE(kpmc_pmu_claimed, false);
	kpmc_cpus_forget();
	cpus_read_unlock();
}

static void pmu_release_work(struct work_struct *work)
{
	mutex_lock(&kpmc_pmu_lock);
	if (!atomic_read(&kpmc_pmu_users))
		pmu_unclaim_locked();
	mutex_unlock(&kpmc_pmu_lock);
}

static DECLARE_WORK(kpmc_pmu_release_work, pmu_release_work);

/*
 * The last user can stop in the scheduler's switch hook, under the
 * runqueue lock, where queueing work (a wakeup) would deadlock: an
 * irq_work queues it once IRQs are back on.
 */
static void pmu_release_irq_work(struct irq_work *w)
{
	kpmc_defer(&kpmc_pmu_release_work);
}

static struct irq_work kpmc_pmu_release_irq_work;

int kpmc_pmu_get(enum kpmc_pmu_user who, char *why, size_t len)
{
	int err;

	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	err = own(who, why, len);
	if (err)
		return err;
	if (atomic_inc_not_zero(&kpmc_pmu_users))
		return 0;
	mutex_lock(&kpmc_pmu_lock);
	if (!kpmc_pmu_claimed) {
		/* No CPU comes or goes while the claim is made on each of them. */
		cpus_read_lock();
		err = kpmc_backend->claim(kpmc_all_counters(), why, len);
		WRITE_ONCE(kpmc_pmu_claimed, !err);
		cpus_read_unlock();
		if (!err)
			static_branch_enable(&kpmc_monitoring);
	}
	if (!err)
		atomic_inc(&kpmc_pmu_users);
	mutex_unlock(&kpmc_pmu_lock);
	if (err)
		disown(who);
	return err;
}

bool kpmc_pmu_get_more(void)
{
	if (!atomic_inc_not_zero(&kpmc_thread_users))
		return false;
	if (atomic_inc_not_zero(&kpmc_pmu_users))
		return true;
	atomic_dec(&kpmc_thread_users);
	return false;
}

void kpmc_pmu_put(enum kpmc_pmu_user who)
{
	disown(who);
	if (atomic_dec_and_test(&kpmc_pmu_users))
		irq_work_queue(&kpmc_pmu_release_irq_work);
}

/* Any context: whether kpmc holds the counters (it may stop holding them at once). */
bool kpmc_pmu_claimed_now(void)
{
	return READ_ONCE(kpmc_pmu_claimed);
}

unsigned int kpmc_pmu_user_count(bool *claimed)
{
	*claimed = READ_ONCE(kpmc_pmu_claimed);
	return atomic_read(&kpmc_pmu_users);
}

/* Process context: wait for a give-back already on its way. */
void kpmc_pmu_settle(void)
{
	irq_work_sync(&kpmc_pmu_release_irq_work);
	flush_work(&kpmc_pmu_release_work);
}

/* Unload: every user is gone (threads freed, system session stopped). */
static void kpmc_pmu_shutdown(void)
{
	irq_work_sync(&kpmc_pmu_release_irq_work);
	cancel_work_sync(&kpmc_pmu_release_work);
	mutex_lock(&kpmc_pmu_lock);
	if (atomic_read(&kpmc_pmu_users))
		pr_err("kpmc: leak: %d PMU users at unload\n", atomic_read(&kpmc_pmu_users));
	pmu_unclaim_locked();
	mutex_unlock(&kpmc_pmu_lock);
}

/* Up to 100 rejections per 5 s reach dmesg: enough for a test, not a flood. */
static DEFINE_RATELIMIT_STATE(kpmc_reject_rs, 5 * HZ, 100);

void kpmc_reject(struct kpmc_thread *t, const char *file, const char *fmt, ...)
{
	char msg[KPMC_ERR_MAX];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	if (t)
		strscpy(t->last_error, msg, sizeof(t->last_error));
	if (__ratelimit(&kpmc_reject_rs))
		pr_warn("kpmc: %s: %s (pid %d)\n", file, msg, task_pid_nr(current));
}

/*
 * The first direct backend that probes, else the generic perf backend (last
 * in the table); backend= forces one by name. kpmc_no_pmu_reason keeps why
 * the direct backends were refused, for /proc/kpmc/info.
 */
static void select_backend(void)
{
	const struct kpmc_backend *const *b;
	char why[KPMC_ERR_MAX];
	int n = 0, direct = 0;

	for (b = kpmc_backend_table; *b; b++) {
		bool fallback = !b[1];

		if (backend && strcmp(backend, (*b)->name))
			continue;
		if (fallback && !backend && !n && !direct)
			n += scnprintf(kpmc_no_pmu_reason, sizeof(kpmc_no_pmu_reason),
				       "kpmc has no direct PMU backend for %s yet",
				       utsname()->machine);
		direct += !fallback;
		why[0] = '\0';
		memset(&kpmc_pmu, 0, sizeof(kpmc_pmu));
		if (!(*b)->probe(&kpmc_pmu, why, sizeof(why))) {
			kpmc_backend = *b;
			return;
		}
		n += scnprintf(kpmc_no_pmu_reason + n, sizeof(kpmc_no_pmu_reason) - n,
			       "%s%s: %s", n ? "; " : "", (*b)->name, why);
	}
	if (backend && !n)
		snprintf(kpmc_no_pmu_reason, sizeof(kpmc_no_pmu_reason),
			 "no backend named '%s' in this build", backend);
}

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

	init_irq_work(&kpmc_pmu_release_irq_work, pmu_release_irq_work);
	select_backend();
	if (kpmc_backend)
		pr_info("kpmc: backend %s: %s, %u counters%s%s\n", kpmc_backend->name,
			kpmc_pmu.model, kpmc_pmu.nr_counters,
			kpmc_no_pmu_reason[0] ? "; direct backends refused: " : "",
			kpmc_no_pmu_reason);
	else
		pr_info("kpmc: no supported PMU found: %s\n", kpmc_no_pmu_reason);

	err = kpmc_mm_activate(0);
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
	return 0;

out_privilege:
	kpmc_privilege_exit();
	kpmc_hooks->detach();
out_cpu_state:
	kpmc_cpu_state_exit();
out_threads:
	kpmc_threads_exit();
	kpmc_pmu_shutdown();
	kpmc_sessions_exit();
out_builtin_formats:
	kpmc_builtin_formats_exit();
out_formats:
	kpmc_formats_exit();
out_defer:
	kpmc_defer_exit();
out_backend:
	if (kpmc_backend && kpmc_backend->remove)
		kpmc_backend->remove();
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
	kpmc_sessions_shutdown();
	kpmc_proc_exit();
	kpmc_privilege_exit();
	kpmc_hooks->detach();
	kpmc_kernel_api_stop();
	kpmc_cpu_state_exit();
	kpmc_threads_exit();
	kpmc_pmu_shutdown();
	kpmc_mm_exit();
	kpmc_sessions_exit();
	kpmc_defer_exit();
	kpmc_formats_exit();
	kpmc_builtin_formats_exit();
	if (kpmc_backend && kpmc_backend->remove)
		kpmc_backend->remove();
}

module_init(kpmc_init);
module_exit(kpmc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc: per-thread performance-monitoring counters");
