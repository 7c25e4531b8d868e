// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide monitoring (kpmc -S): the counters of each selected CPU count
 * whatever runs there, and every CPU sends its own records (kind CPU) at each
 * time-based sampling period and when monitoring stops. Optionally the idle
 * task is excluded, or everything outside one cgroup's subtree (kpmc -G, as
 * perf's cgroup events): the counters pause while such a task runs, so a
 * switch that stays outside costs one test.
 *
 * Several sessions count at once when they configure the same counters on
 * the same CPUs (two jobs or containers on one node, each its own cgroup):
 * each is a view of the one configuration loaded, and a CPU folds the
 * counters into the views that count the task running there, at each
 * switch that changes which do (O(views), nothing allocated). The counters
 * stop while no view counts. A session with other events is refused while
 * one counts (the counters are one configuration), as is a ninth.
 *
 * A task moved into or out of a counted cgroup while it runs (a job's
 * process put in its cgroup by a daemon on another CPU) is counted as it
 * is from the move on: the cgroup hook asks the CPUs it may run on to look
 * again at what runs there (an asynchronous IPI each), as perf's cgroup
 * events follow such a move at once.
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
 * under the hotplug write lock, which is what makes kpmc_system_now and its
 * views stable for them without kpmc_system_lock.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/percpu.h>
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
static DEFINE_PER_CPU(call_single_data_t, kpmc_cgroup_look);

bool kpmc_system_active(void)
{
	return READ_ONCE(kpmc_system_now) != NULL;
}

static const struct kpmc_hw_config *sys_hw(const struct kpmc_system *sys)
{
	return &sys->conf->hw[0];
}

/* Does v count while task runs? Under RCU (the task's cgroup). */
static bool view_counts(const struct kpmc_system_view *v, struct task_struct *task)
{
	if (v->exclude_idle && is_idle_task(task))
		return false;
	return !v->cgrp || kpmc_task_in_cgroup(task, v->cgrp);
}

/* The views of this CPU that count task: bit i for c->sys_view[i]. */
static u32 views_counting(const struct kpmc_cpu *c, struct task_struct *task)
{
	unsigned int i;
	u32 m = 0;

	rcu_read_lock();
	for (i = 0; i < c->sys_nr_views; i++)
		if (view_counts(c->sys_view[i], task))
			m |= BIT(i);
	rcu_read_unlock();
	return m;
}

/* What the counters counted since the last fold goes to the views counting. */
static void sys_fold(struct kpmc_cpu *c, u64 now)
{
	const struct kpmc_hw_config *hw = sys_hw(c->sys);
	u64 raw[KPMC_MAX_COUNTERS] KPMC_NO_AUTO_INIT;
	u64 delta[KPMC_MAX_COUNTERS] KPMC_NO_AUTO_INIT;
	unsigned long m = c->sys_counting;
	struct kpmc_view_cpu *vc;
	unsigned int i, k;

	if (m) {
		kpmc_backend->read(hw, raw);
		for (k = 0; k < hw->nr; k++) {
			delta[k] = kpmc_counter_delta(raw[k], c->last_raw[k], hw->width_mask[k]);
			c->last_raw[k] = raw[k];
		}
		for_each_set_bit(i, &m, KPMC_SYSTEM_VIEWS) {
			vc = this_cpu_ptr(c->sys_view[i]->pcpu);
			for (k = 0; k < hw->nr; k++)
				vc->acc[k] += delta[k];
			vc->run_ns += now - c->sys_since_ns;
		}
	}
	c->sys_since_ns = now;
}

/* From now on the views in want count: the counters run while any does. */
static void sys_set_counting(struct kpmc_cpu *c, u32 want)
{
	if (want == c->sys_counting)
		return;
	sys_fold(c, ktime_get_ns());
	if (!want)
		kpmc_backend->stop(sys_hw(c->sys));
	else if (!c->sys_counting)
		kpmc_backend->start(sys_hw(c->sys));
	c->sys_counting = want;
}

static void view_record(struct kpmc_system_view *v, enum kpmc_record_kind kind)
{
	struct kpmc_view_cpu *vc = this_cpu_ptr(v->pcpu);
	struct kpmc_record rec KPMC_NO_AUTO_INIT;

	/* The in-kernel API's views keep their counts, read where they are. */
	if (!v->session)
		return;
	kpmc_record_build(&rec, kind, &v->conf->sets.set[0], &v->conf->hw[0],
			  vc->acc, vc->run_ns, NULL);
	rec.nsample = ++vc->nsample;
	rec.detail = v->id;
	kpmc_ring_push(v->session->ring, &rec);
	memset(vc->acc, 0, sizeof(vc->acc));
	vc->run_ns = 0;
}

static void view_cpu_begin(struct kpmc_system_view *v, u64 now)
{
	struct kpmc_view_cpu *vc = this_cpu_ptr(v->pcpu);

	/* A CPU back online: a session's view sent what it had; the kernel's keeps it. */
	if (v->session)
		memset(vc, 0, sizeof(*vc));
	vc->next_record_ns = now + (u64)v->conf->sets.set[0].tbs_ms * NSEC_PER_MSEC;
}

static void views_changed(struct kpmc_cpu *c)
{
	unsigned int i;

	c->sys_filtered = false;
	for (i = 0; i < c->sys_nr_views; i++)
		if (c->sys_view[i]->cgrp || c->sys_view[i]->exclude_idle)
			c->sys_filtered = true;
}

static u64 sys_next_expiry(struct kpmc_cpu *c, u64 now)
{
	u64 expires = now + KPMC_FOLD_NS;
	struct kpmc_system_view *v;
	unsigned int i;

	for (i = 0; i < c->sys_nr_views; i++) {
		v = c->sys_view[i];
		if (v->conf->sets.set[0].tbs_ms)
			expires = min(expires, this_cpu_ptr(v->pcpu)->next_record_ns);
	}
	return expires;
}

/* IRQs off (an IPI, or hotplug on this CPU): count for every view of sys. */
static void sys_start_here(struct kpmc_system *sys)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	const struct kpmc_hw_config *hw = sys_hw(sys);
	u64 start[KPMC_MAX_COUNTERS] = { 0 };
	u64 now = ktime_get_ns();
	unsigned int i;

	/* Ownership (pmu.c) keeps per-thread counting off while system-wide is on. */
	if (WARN_ON_ONCE(c->cur))
		return;
	kpmc_backend->load(hw, start);
	memcpy(c->last_raw, start, sizeof(c->last_raw));
	c->loaded_generation = sys->conf->generation;
	for (i = 0; i < sys->nr_views; i++) {
		c->sys_view[i] = sys->view[i];
		view_cpu_begin(sys->view[i], now);
	}
	c->sys_nr_views = sys->nr_views;
	views_changed(c);
	c->sys_since_ns = now;
	/* Loaded is counting: stopped unless a view counts what runs now. */
	c->sys_counting = views_counting(c, current);
	if (!c->sys_counting)
		kpmc_backend->stop(hw);
	WRITE_ONCE(c->sys, sys);
	hrtimer_start(&c->timer, ns_to_ktime(sys_next_expiry(c, now)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void sys_start_on_cpu(void *info)
{
	sys_start_here(info);
}

/* IPI: a view joins the counting on this CPU; what came before is the others'. */
static void view_add_on_cpu(void *info)
{
	struct kpmc_system_view *v = info;
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	unsigned int i = c->sys_nr_views;
	u64 now = ktime_get_ns();

	if (WARN_ON_ONCE(!c->sys || i >= KPMC_SYSTEM_VIEWS))
		return;
	sys_fold(c, now);
	view_cpu_begin(v, now);
	c->sys_view[i] = v;
	c->sys_nr_views = i + 1;
	views_changed(c);
	sys_set_counting(c, views_counting(c, current));
	/* The timer is pinned here and cannot be running: IRQs are off. */
	hrtimer_start(&c->timer, ns_to_ktime(sys_next_expiry(c, now)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* IRQs off: this CPU stops counting for every view, each sending its last record. */
static void sys_stop_here(enum kpmc_record_kind kind)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	unsigned int i;

	if (!c->sys)
		return;
	/* The timer is pinned here and cannot be running: IRQs are off. */
	hrtimer_try_to_cancel(&c->timer);
	sys_fold(c, ktime_get_ns());
	for (i = 0; i < c->sys_nr_views; i++)
		view_record(c->sys_view[i], kind);
	kpmc_backend->stop(sys_hw(c->sys));
	c->loaded_generation = 0;
	c->sys_nr_views = 0;
	c->sys_counting = 0;
	WRITE_ONCE(c->sys, NULL);
}

static void sys_stop_on_cpu(void *unused)
{
	sys_stop_here(KPMC_REC_CPU);
}

/* IPI: a view leaves this CPU with its last record; the others count on. */
static void view_remove_on_cpu(void *info)
{
	struct kpmc_system_view *v = info;
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	unsigned int i, n = c->sys_nr_views;
	u32 was, low;

	for (i = 0; i < n && c->sys_view[i] != v; i++)
		;
	if (i == n)
		return;
	if (n == 1) {
		sys_stop_here(KPMC_REC_CPU);
		return;
	}
	sys_fold(c, ktime_get_ns());
	view_record(v, KPMC_REC_CPU);
	memmove(&c->sys_view[i], &c->sys_view[i + 1], (n - i - 1) * sizeof(c->sys_view[0]));
	c->sys_nr_views = n - 1;
	/* The mask's bits above i move down with their views. */
	was = c->sys_counting;
	low = was & (BIT(i) - 1);
	c->sys_counting = low | ((was >> (i + 1)) << i);
	if (was && !c->sys_counting)
		kpmc_backend->stop(sys_hw(c->sys));
	views_changed(c);
}

void kpmc_system_cpu_save(struct kpmc_cpu *c, u64 now)
{
	sys_fold(c, now);
}

void kpmc_system_cpu_reload(struct kpmc_cpu *c)
{
	const struct kpmc_hw_config *hw = sys_hw(c->sys);

	kpmc_backend->load(hw, c->last_raw);
	c->loaded_generation = c->sys->conf->generation;
	/* The time powered down stays in the interval since the save: counted time. */
	if (!c->sys_counting)
		kpmc_backend->stop(hw);
}

void kpmc_system_cpu_online(unsigned int cpu)
{
	struct kpmc_system *sys = READ_ONCE(kpmc_system_now);

	if (sys && cpumask_test_cpu(cpu, sys->cpus)) {
		local_irq_disable();
		sys_start_here(sys);
		local_irq_enable();
	}
}

void kpmc_system_cpu_offline(unsigned int cpu)
{
	if (READ_ONCE(kpmc_system_now)) {
		local_irq_disable();
		sys_stop_here(KPMC_REC_CPU_OFFLINE);
		local_irq_enable();
	}
}

void kpmc_system_switch(struct kpmc_cpu *c, struct task_struct *prev,
			struct task_struct *next)
{
	if (c->sys_filtered)
		sys_set_counting(c, views_counting(c, next));
}

/* A task of this CPU may have moved between cgroups while it ran. IRQs off. */
static void cgroup_look(void *unused)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->sys && c->sys_filtered)
		sys_set_counting(c, views_counting(c, current));
}

static void ask_to_look(unsigned int cpu)
{
	/*
	 * -EBUSY: this CPU's look is queued and has not started yet, so it
	 * sees this move too (an asynchronous call is unlocked before it runs).
	 */
	smp_call_function_single_async(cpu, per_cpu_ptr(&kpmc_cgroup_look, cpu));
}

void kpmc_system_task_moved(struct task_struct *task, bool threadgroup)
{
	unsigned int cpu;

	/*
	 * Nothing of the system's is read here (it may be stopping): a CPU
	 * that counts no longer when its look runs finds nothing to do.
	 */
	if (!READ_ONCE(kpmc_system_now))
		return;
	if (!threadgroup) {
		cpu = task_cpu(task);
		if (cpu_online(cpu))
			ask_to_look(cpu);
		return;
	}
	for_each_online_cpu(cpu)
		ask_to_look(cpu);
}

static void no_op(void *unused)
{
}

/*
 * Unload, once the hooks are gone (no look is asked for any more): every
 * look asked for has run. A CPU takes its whole queue of calls at once
 * and runs the waited-for ones first, so the first round may end before
 * a look queued with it has run; the second round's calls are taken only
 * once that queue is done.
 */
void kpmc_system_moves_sync(void)
{
	on_each_cpu(no_op, NULL, 1);
	on_each_cpu(no_op, NULL, 1);
}

void kpmc_system_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&kpmc_cgroup_look, cpu)->func = cgroup_look;
}

enum hrtimer_restart kpmc_system_tick(struct kpmc_cpu *c, struct hrtimer *timer)
{
	struct kpmc_system_view *v;
	struct kpmc_view_cpu *vc;
	u64 now = ktime_get_ns();
	unsigned int i;
	u64 tbs;

	sys_fold(c, now);
	for (i = 0; i < c->sys_nr_views; i++) {
		v = c->sys_view[i];
		vc = this_cpu_ptr(v->pcpu);
		tbs = (u64)v->conf->sets.set[0].tbs_ms * NSEC_PER_MSEC;
		if (!tbs || now < vc->next_record_ns)
			continue;
		view_record(v, KPMC_REC_CPU);
		/* Keep the grid: a late tick does not shift later records. */
		while (vc->next_record_ns <= now)
			vc->next_record_ns += tbs;
	}
	hrtimer_set_expires(timer, ns_to_ktime(sys_next_expiry(c, now)));
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

/* Same counters, events and modes: a view may share the configuration loaded. */
static bool same_counters(const struct kpmc_shared_config *a, const struct kpmc_shared_config *b)
{
	const struct kpmc_hw_config *ha = &a->hw[0], *hb = &b->hw[0];
	const struct kpmc_counter_req *ra, *rb;
	const struct kpmc_config *ca = &a->sets.set[0], *cb = &b->sets.set[0];
	unsigned long mask = ca->mask;
	unsigned int i;

	if (ca->mask != cb->mask || ha->mask != hb->mask || ha->nr != hb->nr ||
	    ha->enable_bits != hb->enable_bits)
		return false;
	for (i = 0; i < ha->nr; i++)
		if (ha->slot[i] != hb->slot[i] || ha->selector[i] != hb->selector[i] ||
		    ha->width_mask[i] != hb->width_mask[i])
			return false;
	for_each_set_bit(i, &mask, KPMC_MAX_COUNTERS) {
		ra = &ca->ctr[i];
		rb = &cb->ctr[i];
		if (ra->event != rb->event || ra->usr != rb->usr || ra->os != rb->os ||
		    ra->mods != rb->mods || ra->umask != rb->umask || ra->cmask != rb->cmask ||
		    ra->edge != rb->edge || ra->inv != rb->inv || ra->any != rb->any)
			return false;
	}
	return true;
}

/* Under kpmc_system_lock: may v (counting cpus) join the counting on now? */
static int may_join(const struct kpmc_system *sys, const struct kpmc_system_view *v,
		    const struct cpumask *cpus, char *why, size_t len)
{
	unsigned int i;

	/* A session may count several cgroups, each once; or else one start. */
	for (i = 0; v->session && i < sys->nr_views; i++) {
		if (sys->view[i]->session != v->session)
			continue;
		if (!v->cgrp || !sys->view[i]->cgrp) {
			snprintf(why, len, "system-wide monitoring is already on for this session");
			return -EBUSY;
		}
		if (sys->view[i]->cgrp == v->cgrp) {
			snprintf(why, len, "this session counts that cgroup already");
			return -EBUSY;
		}
	}
	if (!same_counters(sys->conf, v->conf)) {
		snprintf(why, len,
			 "system-wide monitoring is already on with other events: sessions counting at once share one configuration");
		return -EBUSY;
	}
	if (!cpumask_equal(sys->cpus, cpus)) {
		snprintf(why, len,
			 "system-wide monitoring is already on for CPUs %*pbl: sessions counting at once count the same CPUs",
			 cpumask_pr_args(sys->cpus));
		return -EBUSY;
	}
	if (sys->nr_views == KPMC_SYSTEM_VIEWS) {
		snprintf(why, len, "system-wide monitoring is already on for %d sessions, the most at once",
			 KPMC_SYSTEM_VIEWS);
		return -EBUSY;
	}
	return 0;
}

static void view_free(struct kpmc_system_view *v)
{
	if (v->conf)
		kpmc_shared_config_put(v->conf);
	if (v->session)
		kpmc_session_put(v->session);
	if (v->cgrp)
		kpmc_cgroup_put(v->cgrp);
	free_percpu(v->pcpu);
	kfree(v);
}

static void system_free(struct kpmc_system *sys)
{
	if (sys->conf)
		kpmc_shared_config_put(sys->conf);
	free_cpumask_var(sys->cpus);
	kfree(sys);
}

/* What a configuration must be to count system-wide: 0, or -EINVAL with why. */
static int system_config_ok(const struct kpmc_shared_config *conf, char *why, size_t len)
{
	if (conf->sets.nr > 1 || conf->hw[0].sampling) {
		snprintf(why, len, "system-wide mode takes one event set and time-based sampling (tbs), not ebs");
		return -EINVAL;
	}
	/* A CPU's records are counts: there is no thread whose samples a format could follow. */
	if (conf->sets.set[0].fmt_name[0]) {
		snprintf(why, len, "fmt=%s: system-wide records carry no sampling format",
			 conf->sets.set[0].fmt_name);
		return -EINVAL;
	}
	return 0;
}

/* A view of conf (a reference taken), its per-CPU counts, and a system in case it is the first. */
static struct kpmc_system_view *view_new(struct kpmc_shared_config *conf, struct kpmc_system **fresh)
{
	struct kpmc_system_view *v = kzalloc(sizeof(*v), GFP_KERNEL);

	*fresh = kzalloc(sizeof(**fresh), GFP_KERNEL);
	if (v)
		v->pcpu = alloc_percpu(struct kpmc_view_cpu);
	if (!v || !v->pcpu || !*fresh || !zalloc_cpumask_var(&(*fresh)->cpus, GFP_KERNEL)) {
		if (v)
			free_percpu(v->pcpu);
		kfree(v);
		kfree(*fresh);
		return NULL;
	}
	refcount_inc(&conf->ref);
	v->conf = conf;
	return v;
}

/*
 * v (its configuration, session if any, cgroup and CPUs in fresh->cpus)
 * starts counting: it joins the counting on now or, the first, starts it
 * with fresh. 0 (fresh taken or freed), or -errno with why (the caller
 * frees v and fresh).
 */
static int view_start(struct kpmc_system_view *v, struct kpmc_system *fresh, char *why, size_t len)
{
	struct kpmc_system *sys;
	int err;

	/*
	 * The ownership of the counters (pmu.c) decides, under one lock,
	 * against per-thread starts; not under the hotplug lock: claiming
	 * takes it. Each view holds its share.
	 */
	err = kpmc_pmu_get(KPMC_USER_SYSTEM, why, len);
	if (err)
		return err;
	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	/*
	 * The session's last reader may have closed it since we looked it
	 * up (a child holding the inherited file exits): its close has run
	 * kpmc_system_session_closed, and nothing would ever stop this.
	 */
	if (v->session && READ_ONCE(v->session->closed)) {
		snprintf(why, len, "the session's monitor file was closed meanwhile");
		err = -EBADF;
		goto out_unlock;
	}
	sys = kpmc_system_now;
	v->id = v->session ? v->session->system_views + 1 : 0;
	if (sys) {
		err = may_join(sys, v, fresh->cpus, why, len);
		if (err)
			goto out_unlock;
		sys->view[sys->nr_views++] = v;
		on_each_cpu_mask(sys->cpus, view_add_on_cpu, v, true);
	} else {
		sys = fresh;
		fresh = NULL;
		refcount_inc(&v->conf->ref);
		sys->conf = v->conf;
		sys->view[0] = v;
		sys->nr_views = 1;
		WRITE_ONCE(kpmc_system_now, sys);
		on_each_cpu_mask(sys->cpus, sys_start_on_cpu, sys, true);
	}
	if (v->session)
		v->session->system_views = v->id;
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	if (fresh)
		system_free(fresh);
	return 0;

out_unlock:
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	kpmc_pmu_put(KPMC_USER_SYSTEM);
	return err;
}

/* The cgroup a view counts: the caller's open directory, never a path. */
static int view_take_cgroup(struct kpmc_thread *owner, struct kpmc_system_view *v, int cgroup_fd)
{
	struct cgroup *cgrp;

	if (!KPMC_HAVE_CGROUPS) {
		kpmc_reject(owner, "enable",
			    "'cgroup=%d': this kernel is built without cgroups (CONFIG_CGROUPS)",
			    cgroup_fd);
		return -EOPNOTSUPP;
	}
	cgrp = kpmc_cgroup_get_from_fd(cgroup_fd);
	if (IS_ERR(cgrp)) {
		kpmc_reject(owner, "enable",
			    "'cgroup=%d': not an open directory of the cgroup v2 hierarchy",
			    cgroup_fd);
		return -EBADF;
	}
	v->cgrp = cgrp;
	return 0;
}

int kpmc_system_start(struct kpmc_thread *owner, const char *cpulist, size_t len,
		      bool exclude_idle, int cgroup_fd)
{
	char why[KPMC_ERR_MAX] = "";
	struct kpmc_system_view *v;
	struct kpmc_system *fresh;
	int err;

	if (!owner->conf || owner->foreign) {
		kpmc_reject(owner, "enable", "no configuration: write /proc/kpmc/config first");
		return -EINVAL;
	}
	/* perf's rule: CPU-wide counting at paranoid <= 0 or with CAP_PERFMON. */
	err = kpmc_may_count(owner->conf, true, perfmon_capable(), why, sizeof(why));
	if (!err)
		err = system_config_ok(owner->conf, why, sizeof(why));
	if (err) {
		kpmc_reject(owner, "enable", "%s", why);
		return err;
	}
	v = view_new(owner->conf, &fresh);
	if (!v)
		return -ENOMEM;
	err = parse_cpus(owner, cpulist, len, fresh->cpus);
	if (err)
		goto out_free;
	v->exclude_idle = exclude_idle;
	/* What the caller could open is what it may name (perf's cgroup events take a descriptor too). */
	if (cgroup_fd >= 0) {
		err = view_take_cgroup(owner, v, cgroup_fd);
		if (err)
			goto out_free;
	}
	v->session = kpmc_session_of_current();
	if (!v->session) {
		kpmc_reject(owner, "enable", "no session: open /proc/kpmc/monitor first");
		err = -EINVAL;
		goto out_free;
	}
	err = view_start(v, fresh, why, sizeof(why));
	if (!err)
		return 0;
	kpmc_reject(owner, "enable", "%s", why);
out_free:
	view_free(v);
	system_free(fresh);
	return err;
}

/*
 * The in-kernel API's cgroup counting: a view without a session, its counts
 * kept per CPU for kpmc_system_kernel_read() (no records).
 */
struct kpmc_system_view *kpmc_system_kernel_start(struct kpmc_shared_config *conf,
						  struct cgroup *cgrp, char *why, size_t len)
{
	struct kpmc_system_view *v;
	struct kpmc_system *fresh;
	int err;

	err = system_config_ok(conf, why, len);
	if (err)
		return ERR_PTR(err);
	v = view_new(conf, &fresh);
	if (!v)
		return ERR_PTR(-ENOMEM);
	cpumask_copy(fresh->cpus, cpu_possible_mask);
	kpmc_cgroup_hold(cgrp);
	v->cgrp = cgrp;
	err = view_start(v, fresh, why, len);
	if (!err)
		return v;
	view_free(v);
	system_free(fresh);
	return ERR_PTR(err);
}

/* Any context: v's counts over every CPU, each as of its last fold (at most KPMC_FOLD_NS old). */
u32 kpmc_system_kernel_read(const struct kpmc_system_view *v, u64 *counts, u64 *run_ns)
{
	const struct kpmc_view_cpu *vc;
	unsigned long mask = v->conf->sets.set[0].mask;
	unsigned int cpu, k;

	memset(counts, 0, KPMC_MAX_COUNTERS * sizeof(*counts));
	*run_ns = 0;
	for_each_possible_cpu(cpu) {
		vc = per_cpu_ptr(v->pcpu, cpu);
		for (k = 0; k < v->conf->hw[0].nr; k++)
			counts[v->conf->hw[0].slot[k]] += READ_ONCE(vc->acc[k]);
		*run_ns += READ_ONCE(vc->run_ns);
	}
	return mask;
}

/*
 * Caller holds the hotplug read lock and kpmc_system_lock; sys is
 * kpmc_system_now. sys->view[i] leaves every CPU (each folds it first and
 * sends its last record) and the counting; the caller frees it.
 */
static void view_detach_locked(struct kpmc_system *sys, unsigned int i)
{
	struct kpmc_system_view *v = sys->view[i];

	if (sys->nr_views == 1) {
		on_each_cpu_mask(sys->cpus, sys_stop_on_cpu, NULL, true);
		WRITE_ONCE(kpmc_system_now, NULL);
		system_free(sys);
	} else {
		on_each_cpu_mask(sys->cpus, view_remove_on_cpu, v, true);
		sys->nr_views--;
		memmove(&sys->view[i], &sys->view[i + 1],
			(sys->nr_views - i) * sizeof(sys->view[0]));
	}
	kpmc_pmu_put(KPMC_USER_SYSTEM);
}

/* The same, v freed: no CPU holds it any more (the calls above waited for each). */
static void view_stop_locked(struct kpmc_system *sys, unsigned int i)
{
	struct kpmc_system_view *v = sys->view[i];

	view_detach_locked(sys, i);
	view_free(v);
}

/* Under kpmc_system_lock: the index of s's view (the one of id, unless 0), or -1. */
static int view_of_session(const struct kpmc_system *sys, const struct kpmc_session *s, u32 id)
{
	unsigned int i;

	for (i = 0; sys && s && i < sys->nr_views; i++)
		if (sys->view[i]->session == s && (!id || sys->view[i]->id == id))
			return i;
	return -1;
}

/* Every view of s, or its view id alone: 0, or -1 where there is none. */
static int stop_views(struct kpmc_session *s, u32 id)
{
	int i, stopped = 0;

	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	while ((i = view_of_session(kpmc_system_now, s, id)) >= 0) {
		view_stop_locked(kpmc_system_now, i);
		stopped++;
	}
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	return stopped ? 0 : -1;
}

int kpmc_system_stop(struct kpmc_thread *owner, u32 id)
{
	struct kpmc_session *s = kpmc_session_of_current();
	int err = 0;

	if (stop_views(s, id)) {
		if (id)
			kpmc_reject(owner, "enable", "'stop=%u': this session started no such system-wide counting",
				    id);
		else
			kpmc_reject(owner, "enable", "system-wide monitoring is not on for this session");
		err = -EINVAL;
	}
	if (s)
		kpmc_session_put(s);
	return err;
}

void kpmc_system_session_closed(struct kpmc_session *s)
{
	stop_views(s, 0);
}

/* The in-kernel API's view stops; its final counts (each CPU folds at its stop) to counts, run_ns. */
void kpmc_system_kernel_stop(struct kpmc_system_view *v, u64 *counts, u64 *run_ns)
{
	unsigned int i;

	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	for (i = 0; kpmc_system_now && i < kpmc_system_now->nr_views; i++) {
		if (kpmc_system_now->view[i] == v) {
			view_detach_locked(kpmc_system_now, i);
			break;
		}
	}
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
	if (counts)
		kpmc_system_kernel_read(v, counts, run_ns);
	view_free(v);
}

void kpmc_system_exit(void)
{
	cpus_read_lock();
	mutex_lock(&kpmc_system_lock);
	while (kpmc_system_now)
		view_stop_locked(kpmc_system_now, kpmc_system_now->nr_views - 1);
	mutex_unlock(&kpmc_system_lock);
	cpus_read_unlock();
}
