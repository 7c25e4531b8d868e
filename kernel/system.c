// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide monitoring (kpmc -S): the counters of each selected CPU count
 * whatever runs there, and every CPU sends its own records (kind CPU) at each
 * time-based sampling period and when monitoring stops. Optionally the idle
 * task is excluded, or everything outside one cgroup's subtree (kpmc -G, as
 * perf's cgroup events): the counters pause while such a task runs, so a
 * switch that stays outside costs one test. A task moved into or out of the
 * cgroup while it runs counts as before until it next switches in.
 *
 * Per-thread and system-wide monitoring share the counters, so they exclude
 * each other. Starting and stopping happen in process context under the CPU
 * hotplug read lock and kpmc_system_lock (in that order); each CPU's own part
 * runs there in an IPI, with IRQs off, which is also what the switch hook
 * and the timer run with.
 *
 * CPU hotplug: the session follows its CPUs ("all": every possible CPU).
 * A CPU going offline sends what it counted since its last record (kind
 * CPU_OFFLINE) and stops; coming back online it starts counting afresh. So
 * a CPU's records cover its online time only. The hotplug callbacks run
 * under the hotplug write lock, which is what makes kpmc_system_now stable
 * for them without kpmc_system_lock.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>

#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_configs.h"
#include "layer_rules.h"
#include "layer_per_cpu.h"
#include "kpmc/compat.h"
#include "kpmc/counter.h"

static DEFINE_MUTEX(kpmc_system_lock);
static struct kpmc_system *kpmc_system_now;

bool kpmc_system_active(void)
{
	return READ_ONCE(kpmc_system_now) != NULL;
}

static const struct kpmc_hw_config *sys_hw(const struct kpmc_system *sys)
{
	return &sys->conf->hw[0];
}

/* Does sys count while task runs? */
static bool sys_counts(const struct kpmc_system *sys, struct task_struct *task)
{
	bool in;

	if (sys->exclude_idle && is_idle_task(task))
		return false;
	if (!sys->cgrp)
		return true;
	rcu_read_lock();
	in = kpmc_task_in_cgroup(task, sys->cgrp);
	rcu_read_unlock();
	return in;
}

static void sys_fold(struct kpmc_cpu *c, const struct kpmc_hw_config *hw, u64 now)
{
	u64 raw[KPMC_MAX_COUNTERS];
	unsigned int i;

	if (!c->sys_paused) {
		kpmc_backend->read(hw, raw);
		for (i = 0; i < hw->nr; i++) {
			c->sys_acc[i] += kpmc_counter_delta(raw[i], c->last_raw[i],
							    hw->width_mask[i]);
			c->last_raw[i] = raw[i];
		}
		c->sys_run_ns += now - c->sys_since_ns;
	}
	c->sys_since_ns = now;
}

static void sys_record(struct kpmc_cpu *c, struct kpmc_system *sys,
		       enum kpmc_record_kind kind)
{
	struct kpmc_record rec;

	kpmc_record_build(&rec, kind, &sys->conf->sets.set[0], sys_hw(sys),
			  c->sys_acc, c->sys_run_ns, NULL);
	rec.nsample = ++c->sys_nsample;
	kpmc_ring_push(sys->session->ring, &rec);
	memset(c->sys_acc, 0, sizeof(c->sys_acc));
	c->sys_run_ns = 0;
}

static u64 sys_next_expiry(struct kpmc_cpu *c, const struct kpmc_system *sys, u64 now)
{
	u64 expires = now + KPMC_FOLD_NS;

	if (sys->conf->sets.set[0].tbs_ms)
		expires = min(expires, c->sys_next_record_ns);
	return expires;
}

static void sys_start_on_cpu(void *info)
{
	struct kpmc_system *sys = info;
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	const struct kpmc_hw_config *hw = sys_hw(sys);
	u64 start[KPMC_MAX_COUNTERS] = { 0 };
	u64 now = ktime_get_ns();

	/* Ownership (pmu.c) keeps per-thread counting off while system-wide is on. */
	if (WARN_ON_ONCE(c->cur))
		return;
	kpmc_backend->load(hw, start);
	memcpy(c->last_raw, start, sizeof(c->last_raw));
	c->loaded_generation = sys->conf->generation;
	memset(c->sys_acc, 0, sizeof(c->sys_acc));
	c->sys_run_ns = 0;
	c->sys_nsample = 0;
	c->sys_since_ns = now;
	c->sys_next_record_ns = now + (u64)sys->conf->sets.set[0].tbs_ms * NSEC_PER_MSEC;
	c->sys_paused = false;
	if (!sys_counts(sys, current)) {
		kpmc_backend->stop(hw);
		c->sys_paused = true;
	}
	WRITE_ONCE(c->sys, sys);
	hrtimer_start(&c->timer, ns_to_ktime(sys_next_expiry(c, sys, now)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void sys_stop_here(struct kpmc_system *sys, enum kpmc_record_kind kind)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->sys != sys)
		return;
	/* The timer is pinned here and cannot be running: IRQs are off. */
	hrtimer_try_to_cancel(&c->timer);
	sys_fold(c, sys_hw(sys), ktime_get_ns());
	sys_record(c, sys, kind);
	kpmc_backend->stop(sys_hw(sys));
	c->loaded_generation = 0;
	WRITE_ONCE(c->sys, NULL);
}

static void sys_stop_on_cpu(void *info)
{
	sys_stop_here(info, KPMC_REC_CPU);
}

void kpmc_system_cpu_save(struct kpmc_cpu *c, u64 now)
{
	sys_fold(c, sys_hw(c->sys), now);
}

void kpmc_system_cpu_reload(struct kpmc_cpu *c)
{
	const struct kpmc_hw_config *hw = sys_hw(c->sys);

	kpmc_backend->load(hw, c->last_raw);
	c->loaded_generation = c->sys->conf->generation;
	/* The time powered down stays in the interval since the save: counted time. */
	if (c->sys_paused)
		kpmc_backend->stop(hw);
}

void kpmc_system_cpu_online(unsigned int cpu)
{
	struct kpmc_system *sys = READ_ONCE(kpmc_system_now);

	if (sys && cpumask_test_cpu(cpu, sys->cpus)) {
		local_irq_disable();
		sys_start_on_cpu(sys);
		local_irq_enable();
	}
}

void kpmc_system_cpu_offline(unsigned int cpu)
{
	struct kpmc_system *sys = READ_ONCE(kpmc_system_now);

	if (sys) {
		local_irq_disable();
		sys_stop_here(sys, KPMC_REC_CPU_OFFLINE);
		local_irq_enable();
	}
}

void kpmc_system_switch(struct kpmc_cpu *c, struct task_struct *prev,
			struct task_struct *next)
{
	struct kpmc_system *sys = c->sys;
	bool counts;
	u64 now;

	if (!sys->exclude_idle && !sys->cgrp)
		return;
	counts = sys_counts(sys, next);
	if (!counts && !c->sys_paused) {
		now = ktime_get_ns();
		sys_fold(c, sys_hw(sys), now);
		kpmc_backend->stop(sys_hw(sys));
		c->sys_paused = true;
	} else if (counts && c->sys_paused) {
		kpmc_backend->start(sys_hw(sys));
		c->sys_paused = false;
		c->sys_since_ns = ktime_get_ns();
	}
}

enum hrtimer_restart kpmc_system_tick(struct kpmc_cpu *c, struct hrtimer *timer)
{
	struct kpmc_system *sys = c->sys;
	u64 tbs = (u64)sys->conf->sets.set[0].tbs_ms * NSEC_PER_MSEC;
	u64 now = ktime_get_ns();

	sys_fold(c, sys_hw(sys), now);
	if (tbs && now >= c->sys_next_record_ns) {
		sys_record(c, sys, KPMC_REC_CPU);
		/* Keep the grid: a late tick does not shift later records. */
		while (c->sys_next_record_ns <= now)
			c->sys_next_record_ns += tbs;
	}
	hrtimer_set_expires(timer, ns_to_ktime(sys_next_expiry(c, sys, now)));
	return HRTIMER_RESTART;
}

static int parse_cpus(struct kpmc_thread *owner, const char *list, size_t len,
		      struct cpumask *mask)
{
	char q[KPMC_QUOTE_MAX + 2];
	char buf[64];
	int err;

	/* All: also the CPUs that come online later. */
	if (len == 3 && !memcmp(list, "all", 3)) {
		cpumask_copy(mask, cpu_possible_mask);
		return 0;
	}
	if (len == 0 || len >= sizeof(buf))
		goto bad;
	memcpy(buf, list, len);
	buf[len] = '\0';
	err = cpulist_parse(buf, mask);
	if (err && err != -ERANGE)
		goto bad;
	if (err || !cpumask_subset(mask, cpu_online_mask)) {
		kpmc_quote_token(q, sizeof(q), buf, len);
		kpmc_reject(owner, "enable", "cpus=%s: not all of these CPUs are online (online: %*pbl)",
			    q, cpumask_pr_args(cpu_online_mask));
		return -EINVAL;
	}
	if (cpumask_empty(mask))
		goto bad;
	return 0;
bad:
	kpmc_quote_token(q, sizeof(q), list, len);
	kpmc_reject(owner, "enable", "'cpus=%s': want all, or a CPU list such as 0-3,6", q);
	return -EINVAL;
}

int kpmc_system_start(struct kpmc_thread *owner, const char *cpulist, size_t len,
		      bool exclude_idle, int cgroup_fd)
{
	char why[KPMC_ERR_MAX] = "";
	struct kpmc_system *sys;
	int err;

	if (!owner->conf || owner->foreign) {
		kpmc_reject(owner, "enable", "no configuration: write /proc/kpmc/config first");
		return -EINVAL;
	}
	/* perf's rule: CPU-wide counting at paranoid <= 0 or with CAP_PERFMON. */
	err = kpmc_may_count(owner->conf, true, perfmon_capable(), why, sizeof(why));
	if (err) {
		kpmc_reject(owner, "enable", "%s", why);
		return err;
	}
	if (owner->conf->sets.nr > 1 || owner->conf->hw[0].sampling) {
		kpmc_reject(owner, "enable",
			    "system-wide mode takes one event set and time-based sampling (tbs), not ebs");
		return -EINVAL;
	}
	/* A CPU's records are counts: there is no thread whose samples a format could follow. */
	if (owner->conf->sets.set[0].fmt_name[0]) {
		kpmc_reject(owner, "enable", "fmt=%s: system-wide records carry no sampling format",
			    owner->conf->sets.set[0].fmt_name);
		return -EINVAL;
	}
	sys = kzalloc(sizeof(*sys), GFP_KERNEL);
	if (!sys)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&sys->cpus, GFP_KERNEL)) {
		kfree(sys);
		return -ENOMEM;
	}
	err = parse_cpus(owner, cpulist, len, sys->cpus);
	if (err)
		goto out_free;
	sys->exclude_idle = exclude_idle;
	/*
	 * The caller's open directory, never a path: what it could open is
	 * what it may name (perf's cgroup events take a descriptor too).
	 */
	if (cgroup_fd >= 0) {
		struct cgroup *cgrp = kpmc_cgroup_get_from_fd(cgroup_fd);

		if (!KPMC_HAVE_CGROUPS) {
			kpmc_reject(owner, "enable",
				    "'cgroup=%d': this kernel is built without cgroups (CONFIG_CGROUPS)",
				    cgroup_fd);
			err = -EOPNOTSUPP;
			goto out_free;
		}
		if (IS_ERR(cgrp)) {
			kpmc_reject(owner, "enable",
				    "'cgroup=%d': not an open directory of the cgroup v2 hierarchy",
				    cgroup_fd);
			err = -EBADF;
			goto out_free;
		}
		sys->cgrp = cgrp;
	}
	sys->session = kpmc_session_of_current();
	if (!sys->session) {
		kpmc_reject(owner, "enable", "no session: open /proc/kpmc/monitor first");
		err = -EINVAL;
		goto out_free;
	}
	refcount_inc(&owner->conf->ref);
	sys->conf = owner->conf;

	/*
	 * The ownership of the counters (pmu.c) decides, under one lock,
	 * against per-thread starts and other system-wide ones; not under the
	 * hotplug lock: claiming takes it.
	 */
	err = kpmc_pmu_get(KPMC_USER_SYSTEM, why, sizeof(why));
	if (err) {
		kpmc_reject(owner, "enable", "%s", why);
		goto out_refs;
	}
	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	/*
	 * The session's last reader may have closed it since we looked it
	 * up (a child holding the inherited file exits): its close has run
	 * kpmc_system_session_closed, and nothing would ever stop this.
	 */
	if (READ_ONCE(sys->session->closed)) {
		mutex_unlock(&kpmc_system_lock);
		cpus_read_unlock();
		kpmc_pmu_put(KPMC_USER_SYSTEM);
		kpmc_reject(owner, "enable", "the session's monitor file was closed meanwhile");
		err = -EBADF;
		goto out_refs;
	}
	WARN_ON_ONCE(kpmc_system_now);
	WRITE_ONCE(kpmc_system_now, sys);
	on_each_cpu_mask(sys->cpus, sys_start_on_cpu, sys, true);
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	return 0;

out_refs:
	kpmc_shared_config_put(sys->conf);
	kpmc_session_put(sys->session);
out_free:
	if (sys->cgrp)
		kpmc_cgroup_put(sys->cgrp);
	free_cpumask_var(sys->cpus);
	kfree(sys);
	return err;
}

/* Caller holds the hotplug read lock and kpmc_system_lock; sys is kpmc_system_now. */
static void system_stop_locked(struct kpmc_system *sys)
{
	on_each_cpu_mask(sys->cpus, sys_stop_on_cpu, sys, true);
	WRITE_ONCE(kpmc_system_now, NULL);
	kpmc_pmu_put(KPMC_USER_SYSTEM);
	kpmc_shared_config_put(sys->conf);
	kpmc_session_put(sys->session);
	if (sys->cgrp)
		kpmc_cgroup_put(sys->cgrp);
	free_cpumask_var(sys->cpus);
	kfree(sys);
}

int kpmc_system_stop(struct kpmc_thread *owner)
{
	struct kpmc_session *s = kpmc_session_of_current();
	int err = 0;

	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	if (!kpmc_system_now || !s || kpmc_system_now->session != s) {
		kpmc_reject(owner, "enable", "system-wide monitoring is not on for this session");
		err = -EINVAL;
	} else {
		system_stop_locked(kpmc_system_now);
	}
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	if (s)
		kpmc_session_put(s);
	return err;
}

void kpmc_system_session_closed(struct kpmc_session *s)
{
	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	if (kpmc_system_now && kpmc_system_now->session == s)
		system_stop_locked(kpmc_system_now);
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
}

void kpmc_system_exit(void)
{
	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	if (kpmc_system_now)
		system_stop_locked(kpmc_system_now);
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
}
