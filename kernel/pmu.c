// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU layer: which backend drives the counters (chosen once, at load),
 * who holds them (nobody, threads or one system-wide session), claimed
 * from perf while anything counts and given back after, and each CPU's
 * record of what its counters hold (kpmc_cpus: written by the counting
 * path and system-wide mode above, forgotten here when perf gets the
 * counters back).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/utsname.h>
#include <linux/cpu.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>

#include "layer_base.h"
#include "layer_objects.h"

static char *backend;
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend, "force a PMU backend by name (default: first that probes)");

const struct kpmc_backend *kpmc_backend;
struct kpmc_pmu_desc kpmc_pmu;
char kpmc_no_pmu_reason[KPMC_ERR_MAX];

DEFINE_STATIC_KEY_FALSE(kpmc_monitoring);

DEFINE_PER_CPU(struct kpmc_cpu, kpmc_cpus);

/*
 * The PMU is claimed from perf only while something is counted: a thread
 * counting or armed to count at its exec, or a system-wide session. The
 * first user claims (process context, may sleep); the last one gives the
 * counters back from a work item, since threads stop in scheduler context.
 * Until then perf's events on those counters stay unscheduled, so perf sees
 * time_running < time_enabled and never a complete-looking wrong count.
 *
 * The give-back waits KPMC_PMU_LINGER_MS after the last user left: a thread
 * that stops and starts again (PAPI_stop, PAPI_start around each region)
 * would otherwise pay a release and a claim each time, the release's grace
 * period (synchronize_rcu) among them: 12 ms a pair in the arm64 guest at
 * HZ=250. A start meanwhile finds the counters still claimed. A session's
 * close gives them back at once (kpmc_pmu_settle), so a finished
 * "kpmc -- prog" leaves perf its counters as before.
 */
#define KPMC_PMU_LINGER_MS	1000
static DEFINE_MUTEX(kpmc_pmu_lock);
static atomic_t kpmc_pmu_users = ATOMIC_INIT(0);
static bool kpmc_pmu_claimed;		/* under kpmc_pmu_lock */

/*
 * Who owns the counters: nobody, threads (any number: per-thread, attached
 * and kernel-requested monitoring alike), or system-wide sessions (any
 * number: system.c lets them share one configuration). Every path that
 * starts counting takes its ownership here first, under one lock, so
 * per-thread and system-wide counting can never both hold a CPU's counters
 * (a thread started between system-wide's check and its IPIs would
 * otherwise be left as the CPU's current thread). Giving ownership back
 * needs no lock: a decrement cannot admit anyone wrongly.
 */
static DEFINE_RAW_SPINLOCK(kpmc_owner_lock);
static atomic_t kpmc_thread_users = ATOMIC_INIT(0);
static atomic_t kpmc_system_users = ATOMIC_INIT(0);

static int own(enum kpmc_pmu_user who, char *why, size_t len)
{
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&kpmc_owner_lock, flags);
	if (who == KPMC_USER_THREAD && atomic_read(&kpmc_system_users)) {
		snprintf(why, len, "system-wide monitoring is on: the counters are taken");
		err = -EBUSY;
	} else if (who == KPMC_USER_SYSTEM && atomic_read(&kpmc_thread_users)) {
		snprintf(why, len, "threads are being monitored per thread: the counters are taken");
		err = -EBUSY;
	} else {
		atomic_inc(who == KPMC_USER_SYSTEM ? &kpmc_system_users : &kpmc_thread_users);
	}
	raw_spin_unlock_irqrestore(&kpmc_owner_lock, flags);
	return err;
}

static void disown(enum kpmc_pmu_user who)
{
	atomic_dec(who == KPMC_USER_SYSTEM ? &kpmc_system_users : &kpmc_thread_users);
}

static u32 kpmc_all_counters(void)
{
	return kpmc_pmu.nr_counters >= 32 ? ~0u : (1u << kpmc_pmu.nr_counters) - 1;
}

static void forget_loaded(void *unused)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (!c->cur && !c->sys)
		c->loaded_generation = 0;
}

/*
 * The claim went back to perf, whose events then use and rewrite the
 * counters: no CPU may later take its selectors as still holding a config.
 */
static void cpus_forget(void)
{
	on_each_cpu(forget_loaded, NULL, 1);
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
	cpus_forget();
	cpus_read_unlock();
}

static void pmu_release_work(struct work_struct *work)
{
	mutex_lock(&kpmc_pmu_lock);
	if (!atomic_read(&kpmc_pmu_users))
		pmu_unclaim_locked();
	mutex_unlock(&kpmc_pmu_lock);
}

static DECLARE_DELAYED_WORK(kpmc_pmu_release_work, pmu_release_work);

/*
 * The last user can stop in the scheduler's switch hook, under the
 * runqueue lock, where queueing work (a wakeup) would deadlock: an
 * irq_work queues it once IRQs are back on.
 */
static void pmu_release_irq_work(struct irq_work *w)
{
	kpmc_defer_delayed(&kpmc_pmu_release_work, msecs_to_jiffies(KPMC_PMU_LINGER_MS));
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

/* Process context: a give-back on its way (lingering or not) done now. */
void kpmc_pmu_settle(void)
{
	irq_work_sync(&kpmc_pmu_release_irq_work);
	flush_delayed_work(&kpmc_pmu_release_work);
}

/* Unload: every user is gone (threads freed, system session stopped). */
void kpmc_pmu_shutdown(void)
{
	irq_work_sync(&kpmc_pmu_release_irq_work);
	cancel_delayed_work_sync(&kpmc_pmu_release_work);
	mutex_lock(&kpmc_pmu_lock);
	if (atomic_read(&kpmc_pmu_users))
		pr_err("kpmc: leak: %d PMU users at unload\n", atomic_read(&kpmc_pmu_users));
	pmu_unclaim_locked();
	mutex_unlock(&kpmc_pmu_lock);
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

/* Module init: the backend, and the give-back's irq_work. */
void kpmc_pmu_init(void)
{
	init_irq_work(&kpmc_pmu_release_irq_work, pmu_release_irq_work);
	select_backend();
	if (kpmc_backend)
		pr_info("kpmc: backend %s: %s, %u counters%s%s\n", kpmc_backend->name,
			kpmc_pmu.model, kpmc_pmu.nr_counters,
			kpmc_no_pmu_reason[0] ? "; direct backends refused: " : "",
			kpmc_no_pmu_reason);
	else
		pr_info("kpmc: no supported PMU found: %s\n", kpmc_no_pmu_reason);
}

/* Module exit, or a failed init: the backend's own state goes. */
void kpmc_pmu_exit(void)
{
	if (kpmc_backend && kpmc_backend->remove)
		kpmc_backend->remove();
}
