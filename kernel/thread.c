// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread monitoring: state created on fork/attach and freed at exit,
 * counters saved and restored at every context switch, folded into 64-bit
 * per-thread counts, and records taken on time-based sampling and exit.
 *
 * Concurrency: a thread's counting fields (acc, run_ns, ...) are touched
 * only on the CPU it runs on, with IRQs off (scheduler hooks run so; the exit,
 * exec and enable paths disable IRQs) — the per-CPU fold timer is the only
 * other toucher and it is an IRQ on that same CPU. The table of threads is
 * RCU-read on the hot path and written under kpmc_threads_lock.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/proc_fs.h>
#include <linux/pid_namespace.h>
#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>

#include "kpmc/compat.h"
#include "kpmc/core.h"
#include "kpmc/counter.h"
#include "kpmc/hooks.h"
#include "kpmc/sampling.h"

static unsigned long wrap_test_distance;
module_param(wrap_test_distance, ulong, 0644);
MODULE_PARM_DESC(wrap_test_distance,
		 "testing: start every counter this many events before it wraps, at every switch-in (0: off)");

DEFINE_PER_CPU(struct kpmc_cpu, kpmc_cpus);

#define KPMC_HASH_BITS 10
static DEFINE_HASHTABLE(kpmc_threads, KPMC_HASH_BITS);
static DEFINE_RAW_SPINLOCK(kpmc_threads_lock);
static atomic_t kpmc_threads_live = ATOMIC_INIT(0);
static atomic_t kpmc_configs_live = ATOMIC_INIT(0);
static atomic64_t kpmc_config_generation = ATOMIC64_INIT(0);
/* Threads a monitored parent created that could not be followed (no memory). */
atomic_t kpmc_threads_lost = ATOMIC_INIT(0);

static struct kpmc_thread *lookup(struct task_struct *task)
{
	struct kpmc_thread *t;

	hash_for_each_possible_rcu(kpmc_threads, t, hash, (unsigned long)task)
		if (t->task == task)
			return t;
	return NULL;
}

/* The set t counts now: its configuration, encoding and generation. */
static inline const struct kpmc_config *tcfg(const struct kpmc_thread *t)
{
	return &t->conf->sets.set[t->set];
}

static inline const struct kpmc_hw_config *thw(const struct kpmc_thread *t)
{
	return &t->conf->hw[t->set];
}

static inline u64 tgen(const struct kpmc_thread *t)
{
	return t->conf->generation + t->set;
}

static void shared_config_free(struct work_struct *work)
{
	struct kpmc_shared_config *c = container_of(to_rcu_work(work), struct kpmc_shared_config,
						    free_work);
	unsigned int i;

	for (i = 0; i < c->sets.nr; i++)
		if (kpmc_backend->release)
			kpmc_backend->release(&c->hw[i]);
	kfree(c);
	atomic_dec(&kpmc_configs_live);
}

/*
 * May be called in any context: a backend's release may sleep, so it is
 * deferred, and only after an RCU grace period, since readers of a thread's
 * configuration (kpmc_thread_metrics) hold nothing but rcu_read_lock().
 */
void kpmc_shared_config_put(struct kpmc_shared_config *c)
{
	if (c && refcount_dec_and_test(&c->ref)) {
		INIT_RCU_WORK(&c->free_work, shared_config_free);
		kpmc_defer_rcu(&c->free_work);
	}
}

static void free_thread_rcu(struct rcu_head *head)
{
	struct kpmc_thread *t = container_of(head, struct kpmc_thread, rcu);

	kpmc_selfpage_free(t);
	/* Freed while counting or armed (unload, a failed attach): its use of the PMU ends. */
	if (t->state != KPMC_IDLE)
		kpmc_pmu_put(KPMC_USER_THREAD);
	kpmc_shared_config_put(t->conf);
	if (t->session)
		kpmc_session_put(t->session);
	kfree(t);
	atomic_dec(&kpmc_threads_live);
}

/* t: zeroed memory for a thread state, to be task's. */
static struct kpmc_thread *init_thread(struct kpmc_thread *t, struct task_struct *task)
{
	atomic_inc(&kpmc_threads_live);
	t->task = task;
	t->pid = task_tgid_nr(task);
	t->tid = task_pid_nr(task);
	t->state = KPMC_IDLE;
	return t;
}

static struct kpmc_thread *alloc_thread(struct task_struct *task, gfp_t gfp)
{
	struct kpmc_thread *t = kzalloc(sizeof(*t), gfp);

	return t ? init_thread(t, task) : NULL;
}

/*
 * Zeroed thread states for the fork hook where it cannot allocate: on
 * PREEMPT_RT, where the slab allocator takes sleeping locks, when the hook
 * runs with preemption disabled (the sched_process_fork tracepoint's probe;
 * the pmc_ops hook runs preemptible there), and anywhere an atomic
 * allocation fails. Refilled from a high-priority work item after every
 * take. On RT it is the fork probe's only source: room for a burst of forks
 * (400 threads created back to back lost 3 with 16) before the refill runs.
 */
#define KPMC_FORK_RESERVE (IS_ENABLED(CONFIG_PREEMPT_RT) ? 64 : 8)
static struct kpmc_thread *fork_reserve[KPMC_FORK_RESERVE];
static unsigned int fork_reserve_nr;
static DEFINE_RAW_SPINLOCK(fork_reserve_lock);

static void fork_reserve_fill(struct work_struct *work)
{
	struct kpmc_thread *t;
	unsigned long flags;
	bool full;

	for (;;) {
		raw_spin_lock_irqsave(&fork_reserve_lock, flags);
		full = fork_reserve_nr == KPMC_FORK_RESERVE;
		raw_spin_unlock_irqrestore(&fork_reserve_lock, flags);
		if (full)
			return;
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t)
			return;
		raw_spin_lock_irqsave(&fork_reserve_lock, flags);
		if (fork_reserve_nr < KPMC_FORK_RESERVE) {
			fork_reserve[fork_reserve_nr++] = t;
			t = NULL;
		}
		raw_spin_unlock_irqrestore(&fork_reserve_lock, flags);
		kfree(t);
	}
}

static DECLARE_WORK(fork_reserve_work, fork_reserve_fill);

/* Any context but NMI: no allocation, raw lock, the refill only queued. */
static struct kpmc_thread *fork_reserve_take(struct task_struct *task)
{
	struct kpmc_thread *t = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&fork_reserve_lock, flags);
	if (fork_reserve_nr)
		t = fork_reserve[--fork_reserve_nr];
	raw_spin_unlock_irqrestore(&fork_reserve_lock, flags);
	queue_work(system_highpri_wq, &fork_reserve_work);
	return t ? init_thread(t, task) : NULL;
}

static void fork_reserve_free(void)
{
	cancel_work_sync(&fork_reserve_work);
	while (fork_reserve_nr)
		kfree(fork_reserve[--fork_reserve_nr]);
}

/* ---- the counting path: runs on the thread's CPU with IRQs off ---- */

/*
 * Add what the counters counted since the last fold to t. Returns true when
 * the sampling counter passed its overflow point: a sample is due, whether or
 * not its interrupt has arrived yet.
 */
static bool fold(struct kpmc_cpu *c, struct kpmc_thread *t, u64 now)
{
	const struct kpmc_hw_config *hw = thw(t);
	u64 raw[KPMC_MAX_COUNTERS];
	bool due = false;
	unsigned int i;

	kpmc_backend->read(hw, raw);
	/* Every interval counted ends in a fold, on the CPU it was counted on. */
	if (kpmc_backend->uncounted)
		t->uncounted |= kpmc_backend->uncounted(hw);
	for (i = 0; i < hw->nr; i++) {
		u64 delta = kpmc_counter_delta(raw[i], c->last_raw[i], hw->width_mask[i]);

		if (hw->sampling && i == hw->sampling_index) {
			/* Counting up from -remaining, the overflow is at 0. */
			due = delta >= ((0 - c->last_raw[i]) & hw->width_mask[i]);
			t->sampling_raw = raw[i];
		}
		t->acc[i] += delta;
		c->last_raw[i] = raw[i];
	}
	t->run_ns += now - t->switched_in_ns;
	t->set_run_ns += now - t->switched_in_ns;
	t->switched_in_ns = now;
	kpmc_selfpage_sync(c, t);
	return due;
}

/* t stops counting (or being armed): the PMU claim may go back to perf. */
static void set_idle(struct kpmc_thread *t)
{
	if (t->state != KPMC_IDLE) {
		t->state = KPMC_IDLE;
		kpmc_pmu_put(KPMC_USER_THREAD);
	}
}

static void emit(struct kpmc_thread *t, enum kpmc_record_kind kind)
{
	struct kpmc_record rec;
	unsigned int i;

	kpmc_record_build(&rec, kind, tcfg(t), thw(t), t->acc, t->run_ns, t);
	rec.set = t->set;
	if (kind == KPMC_REC_EBS)
		rec.period = t->sampling_period;
	rec.pid = t->pid;
	rec.tid = t->tid;
	rec.nsample = ++t->nsample;
	rec.uncounted_mask = t->uncounted & rec.counter_mask;
	t->uncounted = 0;
	if (kind == KPMC_REC_DETACH)
		rec.detail = t->detach_why ? t->detach_why :
			     t->session && READ_ONCE(t->session->closed) ? KPMC_DETACH_READER_GONE :
			     KPMC_DETACH_REQUESTED;
	memcpy(t->last_virt, rec.virt, sizeof(t->last_virt));
	WRITE_ONCE(t->last_virt_mask, rec.virt_mask);
	if (t->session)
		kpmc_session_push(t->session, &rec);

	for (i = 0; i < thw(t)->nr; i++) {
		t->total[thw(t)->slot[i]] += t->acc[i];
		t->set_total[t->set][thw(t)->slot[i]] += t->acc[i];
	}
	t->total_run_ns += t->run_ns;
	t->set_total_run_ns[t->set] += t->run_ns;
	memset(t->acc, 0, sizeof(t->acc));
	t->run_ns = 0;
}

/* Start t's next sampling period (drawn, if randomized). */
static void sampling_arm(struct kpmc_thread *t)
{
	const struct kpmc_config *cfg = tcfg(t);
	const struct kpmc_hw_config *hw = thw(t);

	t->sampling_period = kpmc_next_period(&t->rand_state, cfg->ebs_period,
					      cfg->ebs_range);
	t->sampling_raw = kpmc_overflow_start(t->sampling_period,
					      hw->width_mask[hw->sampling_index]);
}

/*
 * A thread starts counting: its first set, and the first sampling period of
 * a fresh, seeded stream.
 */
static void counting_start(struct kpmc_thread *t)
{
	kpmc_mm_thread_start(t);
	t->set = 0;
	t->set_run_ns = 0;
	t->set_samples = 0;
	memset(t->total, 0, sizeof(t->total));
	t->total_run_ns = 0;
	memset(t->set_total, 0, sizeof(t->set_total));
	memset(t->set_total_run_ns, 0, sizeof(t->set_total_run_ns));
	if (!thw(t)->sampling)
		return;
	t->rand_state = kpmc_rand_init(tcfg(t)->seed);
	sampling_arm(t);
}

/*
 * The sampling counter of t overflowed: record the sample, start the next
 * period. loaded: t's counters are on this CPU's PMU and stay there.
 */
static void sampling_take(struct kpmc_cpu *c, struct kpmc_thread *t, bool loaded)
{
	const struct kpmc_hw_config *hw = thw(t);
	unsigned int i = hw->sampling_index;

	emit(t, KPMC_REC_EBS);
	t->set_samples++;
	sampling_arm(t);
	if (loaded) {
		kpmc_backend->write(hw, i, t->sampling_raw);
		c->last_raw[i] = t->sampling_raw;
	}
}

static u64 next_due_ns(const struct kpmc_thread *t)
{
	u64 tbs = (u64)tcfg(t)->tbs_ms * NSEC_PER_MSEC;
	u64 mux = (u64)tcfg(t)->mux_ms * NSEC_PER_MSEC;
	u64 due = KPMC_FOLD_NS;

	if (tbs)
		due = min_t(u64, due, t->run_ns >= tbs ? 0 : tbs - t->run_ns);
	if (mux)
		due = min_t(u64, due, t->set_run_ns >= mux ? 0 : mux - t->set_run_ns);
	return due;
}

/*
 * Multiplexing: when t's set has had its time slice (or its samples), record
 * what the set counted and put the next set on the counters. t is current,
 * its counters loaded and just folded.
 */
static void maybe_rotate(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	const struct kpmc_config *cfg = tcfg(t);
	const struct kpmc_hw_config *hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0 };

	if (t->conf->sets.nr < 2 ||
	    !kpmc_mux_due(t->set_run_ns, t->set_samples, cfg->mux_ms, cfg->mux_samples))
		return;
	emit(t, KPMC_REC_MUX);
	kpmc_backend->stop(thw(t));
	t->set = kpmc_mux_next_set(t->set, t->conf->sets.nr);
	t->set_run_ns = 0;
	t->set_samples = 0;
	hw = thw(t);
	if (hw->sampling) {
		sampling_arm(t);
		start[hw->sampling_index] = t->sampling_raw;
	}
	kpmc_backend->load(hw, start);
	memcpy(c->last_raw, start, hw->nr * sizeof(start[0]));
	c->loaded_generation = tgen(t);
}

/* Put t's counters on this CPU; running: the previous thread's are running. */
static void switch_in(struct kpmc_cpu *c, struct kpmc_thread *t,
		      struct kpmc_thread *prev, u64 now)
{
	const struct kpmc_hw_config *hw = thw(t);
	u64 expires;

	if (unlikely(wrap_test_distance) ||
	    c->loaded_generation != tgen(t)) {
		u64 start[KPMC_MAX_COUNTERS];
		unsigned int i;

		if (prev)
			kpmc_backend->stop(thw(prev));
		for (i = 0; i < hw->nr; i++)
			start[i] = (0 - (u64)wrap_test_distance) & hw->width_mask[i];
		if (hw->sampling)
			start[hw->sampling_index] = t->sampling_raw;
		kpmc_backend->load(hw, start);
		memcpy(c->last_raw, start, hw->nr * sizeof(start[0]));
		c->loaded_generation = tgen(t);
	} else {
		/* The sampling counter holds each thread's own distance to overflow. */
		if (hw->sampling) {
			kpmc_backend->write(hw, hw->sampling_index, t->sampling_raw);
			c->last_raw[hw->sampling_index] = t->sampling_raw;
		}
		if (!prev)
			kpmc_backend->start(hw);
	}
	c->cur = t;
	t->switched_in_ns = now;
	kpmc_selfpage_sync(c, t);
	kpmc_mm_switch(prev, t);

	expires = now + next_due_ns(t);
	if (!hrtimer_is_queued(&c->timer) ||
	    ktime_to_ns(hrtimer_get_expires(&c->timer)) > expires)
		hrtimer_start(&c->timer, ns_to_ktime(expires),
			      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* Stop counting t: its owner detached it, or its session's reader is gone. */
static bool thread_done(const struct kpmc_thread *t)
{
	return READ_ONCE(t->stop_requested) || (t->session && READ_ONCE(t->session->closed));
}

/*
 * t's DETACH record is out and it is idle: it lets go of its session (the
 * ring need not outlive the reader) and may be monitored again, by an
 * attach or by itself (review C18). IRQs off, t's CPU.
 */
static void detach_done(struct kpmc_thread *t)
{
	struct kpmc_session *s = t->session;

	WRITE_ONCE(t->stop_requested, false);
	t->detach_why = 0;
	WRITE_ONCE(t->session, NULL);
	if (s)
		kpmc_session_put(s);
}

static void switch_out_to_nothing(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	kpmc_backend->stop(thw(t));
	c->cur = NULL;
	kpmc_mm_switch(t, NULL);
}

void kpmc_hook_switch(struct task_struct *prev, struct task_struct *next)
{
	struct kpmc_cpu *c;
	struct kpmc_thread *tp, *tn;
	u64 now;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	c = this_cpu_ptr(&kpmc_cpus);
	if (unlikely(c->sys)) {
		kpmc_system_switch(c, prev, next);
		return;
	}
	tp = c->cur;
	tn = lookup(next);
	/* Acquire: an attach that reuses an idle state publishes its fields first. */
	if (tn && smp_load_acquire(&tn->state) != KPMC_COUNTING)
		tn = NULL;
	/*
	 * Detached while switched out (its counts were folded at switch-out),
	 * or its session's reader is gone: stop counting it.
	 */
	if (tn && unlikely(thread_done(tn))) {
		emit(tn, KPMC_REC_DETACH);
		set_idle(tn);
		detach_done(tn);
		kpmc_selfpage_sync(c, tn);
		tn = NULL;
	}
	if (!tp && !tn) {
		kpmc_selfpage_leave(c);
		return;
	}
	now = ktime_get_ns();
	if (tp && fold(c, tp, now))
		sampling_take(c, tp, false);
	if (tn) {
		switch_in(c, tn, tp, now);
	} else {
		switch_out_to_nothing(c, tp);
		kpmc_selfpage_leave(c);
	}
}

static void stop_current(struct kpmc_thread *t, enum kpmc_record_kind kind);

static enum hrtimer_restart kpmc_tick(struct hrtimer *timer)
{
	struct kpmc_cpu *c = container_of(timer, struct kpmc_cpu, timer);
	struct kpmc_thread *t = c->cur;
	u64 now, tbs;

	/*
	 * A CPU that went offline with its timer queued has it migrated to
	 * another CPU: it has nothing to fold there (its CPU's switch-out
	 * folded everything), and that CPU has a timer of its own.
	 */
	if (c != this_cpu_ptr(&kpmc_cpus))
		return HRTIMER_NORESTART;
	if (c->sys)
		return kpmc_system_tick(c, timer);
	if (!t)
		return HRTIMER_NORESTART;
	if (unlikely(thread_done(t))) {
		stop_current(t, KPMC_REC_DETACH);
		detach_done(t);
		return HRTIMER_NORESTART;
	}
	now = ktime_get_ns();
	/* An overflow whose interrupt is late (or lost) is sampled here. */
	if (fold(c, t, now))
		sampling_take(c, t, true);
	tbs = (u64)tcfg(t)->tbs_ms * NSEC_PER_MSEC;
	if (tbs && t->run_ns >= tbs)
		emit(t, KPMC_REC_TBS);
	maybe_rotate(c, t);
	hrtimer_set_expires(timer, ns_to_ktime(now + next_due_ns(t)));
	return HRTIMER_RESTART;
}

void kpmc_pmu_overflow(void)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	struct kpmc_thread *t = c->cur;

	/*
	 * Not t's (any more): the thread it was for was sampled at switch-out.
	 * As an NMI (arm64 pseudo-NMI) the records' locks are off limits: the
	 * next fold (tick or switch) sees the overflow and samples then.
	 */
	if (!t || !thw(t)->sampling || in_nmi())
		return;
	if (fold(c, t, ktime_get_ns())) {
		sampling_take(c, t, true);
		maybe_rotate(c, t);
	}
}

/* Stop counting t, which is current, and take its last record. */
static void stop_current(struct kpmc_thread *t, enum kpmc_record_kind kind)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->cur == t) {
		if (fold(c, t, ktime_get_ns()) && t->state == KPMC_COUNTING)
			sampling_take(c, t, false);
		switch_out_to_nothing(c, t);
	}
	if (t->state == KPMC_COUNTING)
		emit(t, kind);
	set_idle(t);
	kpmc_selfpage_sync(c, t);
}

/* ---- the CPU's PMU loses its state: hotplug, power-down idle, suspend ---- */

/*
 * This CPU's PMU is about to lose its registers (a power-down idle state,
 * suspend): fold what its counters hold now. IRQs off, this CPU.
 */
void kpmc_cpu_save(void)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	/* Suspend on arm64 runs both the CPU PM and the syscore path: once. */
	if (c->pm_saved)
		return;
	c->pm_saved = true;
	/*
	 * The fast clock: in suspend-to-idle this runs with timekeeping
	 * suspended, where ktime_get() warns; both read CLOCK_MONOTONIC.
	 */
	if (c->sys)
		kpmc_system_cpu_save(c, ktime_get_mono_fast_ns());
	else if (c->cur && fold(c, c->cur, ktime_get_mono_fast_ns()))
		sampling_take(c, c->cur, true);
}

/*
 * This CPU's PMU was reset (the kernel's driver does so on every return
 * from power-down and on hotplug): its counters hold nothing of ours. Put
 * back exactly what was counting, from the values folded last, so the reset
 * costs no event and adds none. IRQs off, this CPU.
 */
void kpmc_cpu_reload(void)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	struct kpmc_thread *t = c->cur;

	c->pm_saved = false;
	/* The reset revoked user-space access (PMUSERENR, CR4.PCE alike). */
	c->user_access = false;
	if (kpmc_pmu_claimed_now() && kpmc_backend->cpu_reset)
		kpmc_backend->cpu_reset();
	if (c->sys) {
		kpmc_system_cpu_reload(c);
	} else if (t) {
		kpmc_backend->load(thw(t), c->last_raw);
		c->loaded_generation = tgen(t);
		kpmc_selfpage_sync(c, t);
	} else {
		c->loaded_generation = 0;
	}
}

/* Back from a power-down or suspend that kpmc_cpu_save() prepared for. */
void kpmc_cpu_restore(void)
{
	if (this_cpu_read(kpmc_cpus.pm_saved))
		kpmc_cpu_reload();
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
void kpmc_cpus_forget(void)
{
	on_each_cpu(forget_loaded, NULL, 1);
}

/* ---- lifecycle hooks ---- */

void kpmc_hook_fork(struct task_struct *parent, struct task_struct *child)
{
	struct kpmc_thread *p, *t, *dup;
	struct kpmc_session *session;
	unsigned long flags;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	rcu_read_lock();
	p = lookup(parent);
	if (!p || p->state == KPMC_IDLE) {
		rcu_read_unlock();
		return;
	}
	/*
	 * The child is not running yet: nothing can race with its state.
	 * PREEMPT_RT cannot allocate with preemption disabled, not even
	 * GFP_ATOMIC: there the reserve serves.
	 */
	t = NULL;
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible())
		t = alloc_thread(child, GFP_ATOMIC | __GFP_NOWARN | __GFP_ACCOUNT);
	if (!t)
		t = fork_reserve_take(child);
	/* The parent holds the PMU claim: the child shares it (cannot fail but in a race with the parent's stop). */
	if (t && !kpmc_pmu_get_more()) {
		kfree(t);
		atomic_dec(&kpmc_threads_live);
		t = NULL;
	}
	if (!t) {
		rcu_read_unlock();
		atomic_inc(&kpmc_threads_lost);
		return;
	}
	t->state = p->state;
	t->foreign = true;
	t->owner_capable = p->owner_capable;
	refcount_inc(&p->conf->ref);
	t->conf = p->conf;
	/* The parent's session may be going (its reader closed): RCU keeps it. */
	session = READ_ONCE(p->session);
	if (session && kpmc_session_tryget(session))
		t->session = session;
	rcu_read_unlock();

	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/*
	 * An attach may have given the child a state between its creation and
	 * this hook (review C21): that one stands, ours goes.
	 */
	dup = lookup(child);
	if (!dup) {
		/* Only now: a module's start takes resources (cmt: an RMID). */
		if (t->state == KPMC_COUNTING)
			counting_start(t);
		hash_add_rcu(kpmc_threads, &t->hash, (unsigned long)child);
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (dup)
		call_rcu(&t->rcu, free_thread_rcu);
}

void kpmc_hook_exec(struct task_struct *task)
{
	struct kpmc_thread *t;
	unsigned long flags;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	local_irq_save(flags);
	t = lookup(task);
	if (t && t->state != KPMC_IDLE && t->state != KPMC_ATTACHING && !t->owner_capable &&
	    kpmc_exec_raised_privileges(task)) {
		/*
		 * As perf: monitoring ends here unless its owner is capable.
		 * An armed thread never counted: its DETACH record is empty.
		 */
		if (t->state == KPMC_ARMED_EXEC)
			t->state = KPMC_COUNTING;
		t->detach_why = KPMC_DETACH_PRIVILEGED_EXEC;
		stop_current(t, KPMC_REC_DETACH);
		detach_done(t);
		t = NULL;
	}
	if (t && t->state == KPMC_ARMED_EXEC) {
		struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

		/* exec may have made a non-leader thread the leader. */
		t->pid = task_tgid_nr(task);
		t->tid = task_pid_nr(task);
		t->state = KPMC_COUNTING;
		memset(t->acc, 0, sizeof(t->acc));
		t->run_ns = 0;
		counting_start(t);
		if (!WARN_ON_ONCE(c->cur))
			switch_in(c, t, NULL, ktime_get_ns());
	}
	local_irq_restore(flags);
}

void kpmc_hook_exit(struct task_struct *task)
{
	struct kpmc_thread *t;
	unsigned long flags;

	/*
	 * Also for idle states (config writers), so this runs without sessions;
	 * but only tasks with a state take the lock (review C19). The barrier
	 * pairs with insert_thread's lock: PF_EXITING is set, so either an
	 * attach sees it or this lookup sees the attach's state; kpmc_hook_free
	 * is the backstop either way.
	 */
	smp_mb();
	rcu_read_lock();
	t = lookup(task);
	rcu_read_unlock();
	if (!t)
		return;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	t = lookup(task);
	if (t)
		hash_del_rcu(&t->hash);
	raw_spin_unlock(&kpmc_threads_lock);
	if (t)
		stop_current(t, KPMC_REC_EXIT);
	local_irq_restore(flags);
	if (t)
		call_rcu(&t->rcu, free_thread_rcu);
}

void kpmc_hook_free(struct task_struct *task)
{
	struct kpmc_thread *t;
	unsigned long flags;

	/*
	 * Normally dropped at exit already; this catches a state added while
	 * the task was exiting, before its pointer can be reused as a key.
	 */
	rcu_read_lock();
	t = lookup(task);
	rcu_read_unlock();
	if (!t)
		return;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	t = lookup(task);
	if (t)
		hash_del_rcu(&t->hash);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (t)
		call_rcu(&t->rcu, free_thread_rcu);
}

void kpmc_hook_migrate(struct task_struct *task, int new_cpu)
{
	struct kpmc_thread *t;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	rcu_read_lock();
	t = lookup(task);
	/* One writer: the task is not running and its runqueue or pi_lock is held. */
	if (t && t->state == KPMC_COUNTING)
		WRITE_ONCE(t->migrations, t->migrations + 1);
	rcu_read_unlock();
}

/* ---- control from /proc (process context, the caller's own thread) ---- */

struct kpmc_thread *kpmc_thread_of_current(bool create)
{
	struct kpmc_thread *t, *found;
	unsigned long flags;

	rcu_read_lock();
	t = lookup(current);
	rcu_read_unlock();
	if (t || !create)
		return t;
	t = alloc_thread(current, GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/* An attach from another thread may have beaten us to it. */
	found = lookup(current);
	if (!found)
		hash_add_rcu(kpmc_threads, &t->hash, (unsigned long)current);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (found) {
		kfree(t);
		atomic_dec(&kpmc_threads_live);
		t = found;
	}
	return t;
}

/* Parsed sets, encoded by the backend (process context); or ERR_PTR with why. */
struct kpmc_shared_config *kpmc_shared_config_new(const struct kpmc_config_sets *sets,
						  char *why, size_t len)
{
	struct kpmc_shared_config *c;
	unsigned int i;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&kpmc_configs_live);
	refcount_set(&c->ref, 1);
	c->generation = atomic64_add_return(KPMC_MAX_SETS, &kpmc_config_generation);
	c->sets = *sets;
	for (i = 0; i < sets->nr; i++) {
		why[0] = '\0';
		err = kpmc_backend->encode(&sets->set[i], &c->hw[i], why, len);
		if (err) {
			if (!why[0])
				snprintf(why, len, "the backend cannot encode it");
			/* Only the sets before i hold backend resources. */
			c->sets.nr = i;
			kpmc_shared_config_put(c);
			return ERR_PTR(err);
		}
	}
	return c;
}

int kpmc_thread_set_config(struct kpmc_thread *t, const struct kpmc_config_sets *sets)
{
	struct kpmc_shared_config *c, *old = NULL;
	char why[KPMC_ERR_MAX] = "";
	unsigned long flags;
	bool busy;

	if (t->state != KPMC_IDLE) {
		kpmc_reject(t, "config",
			    "monitoring is on: write 0 to /proc/kpmc/enable before changing the configuration");
		return -EBUSY;
	}
	c = kpmc_shared_config_new(sets, why, sizeof(why));
	if (IS_ERR(c)) {
		if (PTR_ERR(c) != -ENOMEM)
			kpmc_reject(t, "config", "%s", why);
		return PTR_ERR(c);
	}
	/* An attach reusing this idle state takes the same lock. */
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	busy = t->state != KPMC_IDLE;
	if (!busy) {
		old = t->conf;
		t->set = 0;
		t->conf = c;
		t->foreign = false;
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (busy) {
		kpmc_shared_config_put(c);
		kpmc_reject(t, "config", "monitoring is on: write 0 to /proc/kpmc/enable before changing the configuration");
		return -EBUSY;
	}
	kpmc_shared_config_put(old);
	return 0;
}

static int need_config_and_session(struct kpmc_thread *t, struct kpmc_session **s)
{
	/* A state an attach set up holds its monitor's configuration, not ours. */
	if (!t->conf || t->foreign) {
		kpmc_reject(t, "enable", "no configuration: write /proc/kpmc/config first");
		return -EINVAL;
	}
	*s = kpmc_session_of_current();
	if (!*s) {
		kpmc_reject(t, "enable", "no session: open /proc/kpmc/monitor first");
		return -EINVAL;
	}
	return 0;
}

int kpmc_thread_start_self(struct kpmc_thread *t)
{
	struct kpmc_session *s, *old;
	char why[KPMC_ERR_MAX] = "";
	unsigned long flags;
	int err;

	if (t->state != KPMC_IDLE) {
		kpmc_reject(t, "enable", "this thread is already monitored");
		return -EBUSY;
	}
	err = need_config_and_session(t, &s);
	if (err)
		return err;
	err = kpmc_may_count(t->conf, false, why, sizeof(why));
	if (!err)
		err = kpmc_pmu_get(KPMC_USER_THREAD, why, sizeof(why));
	if (err) {
		kpmc_reject(t, "enable", "%s", why);
		kpmc_session_put(s);
		return err;
	}
	old = t->session;
	local_irq_save(flags);
	t->session = s;
	t->owner_capable = perfmon_capable();
	t->stop_requested = false;
	t->detach_why = 0;
	t->state = KPMC_COUNTING;
	memset(t->acc, 0, sizeof(t->acc));
	t->run_ns = 0;
	counting_start(t);
	switch_in(this_cpu_ptr(&kpmc_cpus), t, NULL, ktime_get_ns());
	local_irq_restore(flags);
	if (old)
		kpmc_session_put(old);
	return 0;
}

/*
 * The caller's own counts, folded now: the read path of self-monitoring.
 * out->all as struct kpmc_self_counts always had it (the counting set's
 * counters); out->all.counts is completed with the other sets' counters and
 * out->sets[] says per set what it counted and for how long.
 */
int kpmc_thread_read_self(struct kpmc_thread *t, struct kpmc_self_sets *out)
{
	struct kpmc_cpu *c;
	const struct kpmc_hw_config *hw;
	unsigned long flags;
	unsigned int i, s, pmc;

	memset(out, 0, sizeof(*out));
	local_irq_save(flags);
	if (t->state != KPMC_COUNTING) {
		local_irq_restore(flags);
		return -ENODATA;
	}
	c = this_cpu_ptr(&kpmc_cpus);
	if (c->cur == t && fold(c, t, ktime_get_ns()))
		sampling_take(c, t, true);
	hw = thw(t);
	out->all.counter_mask = hw->mask;
	out->all.set = t->set;
	out->all.run_ns = t->total_run_ns + t->run_ns;
	out->nr_sets = t->conf->sets.nr;
	for (s = 0; s < out->nr_sets && s < KPMC_MAX_SETS; s++) {
		const struct kpmc_hw_config *sh = &t->conf->hw[s];

		out->sets[s].counter_mask = sh->mask;
		out->sets[s].run_ns = t->set_total_run_ns[s] + (s == t->set ? t->run_ns : 0);
		for (i = 0; i < sh->nr; i++) {
			pmc = sh->slot[i];
			out->sets[s].counts[pmc] = t->set_total[s][pmc] +
						   (s == t->set ? t->acc[i] : 0);
		}
	}
	for (pmc = 0; pmc < KPMC_MAX_COUNTERS; pmc++)
		out->all.counts[pmc] = t->total[pmc];
	for (i = 0; i < hw->nr; i++)
		out->all.counts[hw->slot[i]] += t->acc[i];
	local_irq_restore(flags);
	return 0;
}

int kpmc_thread_stop_self(struct kpmc_thread *t)
{
	unsigned long flags;

	if (t->state == KPMC_IDLE) {
		kpmc_reject(t, "enable", "this thread is not monitored");
		return -EINVAL;
	}
	local_irq_save(flags);
	stop_current(t, KPMC_REC_DETACH);
	local_irq_restore(flags);
	return 0;
}

/*
 * May the caller monitor the task that pid is in its own pid namespace? The
 * rule is ptrace's (PTRACE_MODE_ATTACH, LSMs included). ptrace_may_access()
 * is not exported to modules, so ask the kernel the same question it asks
 * on open of /proc/<tid>/mem, and make sure that file is the same task: the
 * procfs at /proc may belong to another pid namespace, where the same number
 * is another task (review A4), and the number may have been reused since.
 */
static int may_monitor(struct pid *pid, pid_t tid)
{
	struct pid *now;
	struct file *f;
	char path[32];
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ? -ESRCH : -EPERM;
	if (proc_pid_ns(file_inode(f)->i_sb) != task_active_pid_ns(current))
		err = -EXDEV;
	filp_close(f, NULL);
	if (err)
		return err;
	rcu_read_lock();
	now = find_vpid(tid);
	rcu_read_unlock();
	return now == pid ? 0 : -ESRCH;
}

/*
 * Publish t, the new state of another task. If the task has an idle state
 * that an attach set up earlier (its monitoring was detached), that one is
 * set up again instead, and t is freed (review C18). -ESRCH if the task is
 * exiting, -EBUSY if it is monitored or configures itself. On error the
 * caller frees t. t carries one PMU use, its configuration and session
 * references, and is not yet counting_start()ed.
 */
static int insert_thread(struct kpmc_thread *t, struct task_struct *task)
{
	enum kpmc_thread_state want = t->state;
	struct kpmc_shared_config *old_conf;
	struct kpmc_session *old_session;
	struct kpmc_thread *old;
	unsigned long flags;

	rcu_read_lock();
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/* Ordered with kpmc_hook_exit by the lock: an exiting task is never added. */
	if (task->flags & PF_EXITING) {
		raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
		rcu_read_unlock();
		return -ESRCH;
	}
	old = lookup(task);
	if (!old) {
		if (want == KPMC_COUNTING)
			counting_start(t);
		hash_add_rcu(kpmc_threads, &t->hash, (unsigned long)task);
		raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
		rcu_read_unlock();
		return 0;
	}
	if (old->state != KPMC_IDLE || !old->foreign) {
		raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
		rcu_read_unlock();
		return -EBUSY;
	}
	/*
	 * Not idle any more for set_config, start and other attaches; still
	 * not counting for the switch hook. Holds t's PMU use from here: an
	 * exit now makes it idle and gives that use back.
	 */
	old->state = KPMC_ATTACHING;
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);

	old_conf = old->conf;
	old_session = old->session;
	old->conf = t->conf;
	old->session = t->session;
	t->conf = NULL;
	t->session = NULL;
	t->state = KPMC_IDLE;
	old->owner_capable = t->owner_capable;
	old->stop_requested = false;
	old->detach_why = 0;
	old->set = 0;
	old->nsample = 0;
	old->uncounted = 0;
	memset(old->acc, 0, sizeof(old->acc));
	old->run_ns = 0;
	if (want == KPMC_COUNTING)
		counting_start(old);
	/* Publish the fields, then the state (the switch hook acquires it). */
	if (cmpxchg_release(&old->state, KPMC_ATTACHING, want) != KPMC_ATTACHING)
		want = KPMC_IDLE;	/* the task exited meanwhile */
	rcu_read_unlock();
	kpmc_shared_config_put(old_conf);
	if (old_session)
		kpmc_session_put(old_session);
	/* t holds nothing now. */
	kfree(t);
	atomic_dec(&kpmc_threads_live);
	return want == KPMC_IDLE ? -ESRCH : 0;
}

int kpmc_thread_attach(struct kpmc_thread *owner, pid_t tid, bool at_exec)
{
	char why[KPMC_ERR_MAX] = "";
	struct task_struct *task;
	struct kpmc_session *s;
	struct kpmc_thread *t;
	struct pid *pid;
	int err;

	err = need_config_and_session(owner, &s);
	if (err)
		return err;
	err = -ESRCH;
	pid = find_get_pid(tid);
	task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	if (!task) {
		kpmc_reject(owner, "enable", "pid=%d: no such thread", tid);
		goto out_session;
	}
	err = -EINVAL;
	if (task == current) {
		kpmc_reject(owner, "enable", "pid=%d is the caller itself: write 1 instead", tid);
		goto out_task;
	}
	if (task->flags & PF_KTHREAD) {
		kpmc_reject(owner, "enable", "pid=%d is a kernel thread", tid);
		goto out_task;
	}
	err = may_monitor(pid, tid);
	if (err) {
		kpmc_reject(owner, "enable", "pid=%d: %s", tid, err == -ESRCH ?
			    "no such thread" : err == -EXDEV ?
			    "permission denied (/proc is not of the caller's pid namespace: the check would be on another task)" :
			    "permission denied (the caller may not ptrace it)");
		if (err == -EXDEV)
			err = -EPERM;
		goto out_task;
	}
	err = kpmc_may_count(owner->conf, false, why, sizeof(why));
	if (!err)
		err = kpmc_pmu_get(KPMC_USER_THREAD, why, sizeof(why));
	if (err) {
		kpmc_reject(owner, "enable", "%s", why);
		goto out_task;
	}
	t = alloc_thread(task, GFP_KERNEL_ACCOUNT);
	if (!t) {
		kpmc_pmu_put(KPMC_USER_THREAD);
		err = -ENOMEM;
		goto out_task;
	}
	/*
	 * From here t holds the PMU use: freeing it non-idle gives it back.
	 * An armed thread starts its counting (and its module's) at the exec.
	 */
	t->state = at_exec ? KPMC_ARMED_EXEC : KPMC_COUNTING;
	t->foreign = true;
	t->owner_capable = perfmon_capable();
	refcount_inc(&owner->conf->ref);
	t->conf = owner->conf;
	t->session = s;
	err = insert_thread(t, task);
	put_task_struct(task);
	put_pid(pid);
	if (err) {
		kpmc_reject(owner, "enable", "pid=%d: %s", tid, err == -EBUSY ?
			    "already monitored, or configuring itself" : "exiting");
		/* t holds the session and config references now. */
		free_thread_rcu(&t->rcu);
	}
	return err;

out_task:
	put_task_struct(task);
out_session:
	put_pid(pid);
	kpmc_session_put(s);
	return err;
}

/*
 * Monitoring that scheduling code asked for (pmc_ops_monitor): the kernel
 * configuration, no session; its children are followed like any monitored
 * thread's. Process context. The counters are loaded at its next switch-in.
 */
int kpmc_thread_attach_kernel(struct task_struct *task, struct kpmc_shared_config *conf,
			      char *why, size_t len)
{
	struct kpmc_thread *t;
	int err;

	err = kpmc_pmu_get(KPMC_USER_THREAD, why, len);
	if (err)
		return err;
	t = alloc_thread(task, GFP_KERNEL);
	if (!t) {
		kpmc_pmu_put(KPMC_USER_THREAD);
		return -ENOMEM;
	}
	t->state = KPMC_COUNTING;
	t->foreign = true;
	/* The kernel decided: nothing of the task's privileges is at stake. */
	t->owner_capable = true;
	refcount_inc(&conf->ref);
	t->conf = conf;
	err = insert_thread(t, task);
	if (err) {
		snprintf(why, len, "%s", err == -EBUSY ? "already monitored" : "exiting");
		free_thread_rcu(&t->rcu);
	}
	return err;
}

/* Any context: stop kernel-requested monitoring of task at its next switch or fold. */
int kpmc_thread_detach_kernel(struct task_struct *task)
{
	struct kpmc_thread *t;
	int err = -ENODATA;

	rcu_read_lock();
	t = lookup(task);
	if (t && !t->session && t->state != KPMC_IDLE) {
		WRITE_ONCE(t->stop_requested, true);
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/* The counter of t's configuration (any set) that counts event, or -1. */
static int slot_counting(const struct kpmc_thread *t, u64 event)
{
	const struct kpmc_config *cfg = tcfg(t);
	unsigned int slot;

	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		if (!(cfg->mask & BIT(slot)))
			continue;
		if ((slot < kpmc_pmu.nr_fixed ? kpmc_pmu.fixed_event[slot] : cfg->ctr[slot].event) == event)
			return slot;
	}
	return -1;
}

/*
 * Any context. Counts up to the thread's last fold (switch, tick or
 * record): at most one fold period behind for a running thread.
 */
int kpmc_thread_metrics(struct task_struct *task, struct kpmc_thread_metrics *m)
{
	struct kpmc_thread *t;
	int err = -ENODATA;

	memset(m, 0, sizeof(*m));
	rcu_read_lock();
	t = lookup(task);
	/* Acquire: pairs with an attach's publication of a reused state. */
	if (t && smp_load_acquire(&t->state) == KPMC_COUNTING) {
		const struct kpmc_hw_config *hw = thw(t);
		bool basic = kpmc_pmu.has_basic_events;
		int in = basic ? slot_counting(t, kpmc_pmu.event_instructions) : -1;
		int cy = basic ? slot_counting(t, kpmc_pmu.event_cycles) : -1;
		unsigned int i;

		for (i = 0; i < hw->nr; i++) {
			if ((int)hw->slot[i] == in)
				m->instructions = READ_ONCE(t->total[in]) + READ_ONCE(t->acc[i]);
			if ((int)hw->slot[i] == cy)
				m->cycles = READ_ONCE(t->total[cy]) + READ_ONCE(t->acc[i]);
		}
		m->has_instructions = in >= 0;
		m->has_cycles = cy >= 0;
		m->run_ns = READ_ONCE(t->total_run_ns) + READ_ONCE(t->run_ns);
		m->migrations = READ_ONCE(t->migrations);
		m->nsample = READ_ONCE(t->nsample);
		m->virt_mask = READ_ONCE(t->last_virt_mask);
		memcpy(m->virt, t->last_virt, sizeof(m->virt));
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/* Thread states and configurations allocated and not yet freed (RCU included). */
void kpmc_live_objects(int *threads, int *configs)
{
	*threads = atomic_read(&kpmc_threads_live);
	*configs = atomic_read(&kpmc_configs_live);
}

/*
 * The owner of t's session stops monitoring t, another thread that may be
 * running on another CPU right now: t's CPU does it at t's next switch-in or
 * fold timer, and the DETACH record tells the owner it is done.
 */
int kpmc_thread_detach(struct kpmc_thread *owner, pid_t tid)
{
	struct kpmc_session *s = kpmc_session_of_current();
	struct task_struct *task;
	struct kpmc_thread *t;
	int err = -ESRCH;

	if (!s) {
		kpmc_reject(owner, "enable", "pid=%d,stop: no session: nothing was attached", tid);
		return -EINVAL;
	}
	task = get_pid_task(find_vpid(tid), PIDTYPE_PID);
	rcu_read_lock();
	t = task ? lookup(task) : NULL;
	if (t && t->session == s && t->state != KPMC_IDLE) {
		WRITE_ONCE(t->stop_requested, true);
		err = 0;
	}
	rcu_read_unlock();
	if (task)
		put_task_struct(task);
	kpmc_session_put(s);
	if (err)
		kpmc_reject(owner, "enable", "pid=%d,stop: not monitored by this session", tid);
	return err;
}

void kpmc_threads_count(unsigned int *known, unsigned int *counting)
{
	struct kpmc_thread *t;
	unsigned int bkt;

	*known = 0;
	*counting = 0;
	rcu_read_lock();
	hash_for_each_rcu(kpmc_threads, bkt, t, hash) {
		(*known)++;
		if (t->state != KPMC_IDLE)
			(*counting)++;
	}
	rcu_read_unlock();
}

/* ---- module init/exit ---- */

int kpmc_threads_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kpmc_cpu *c = per_cpu_ptr(&kpmc_cpus, cpu);

		kpmc_hrtimer_setup(&c->timer, kpmc_tick, CLOCK_MONOTONIC,
				   HRTIMER_MODE_ABS_PINNED_HARD);
	}
	fork_reserve_fill(NULL);
	return 0;
}

static void kpmc_stop_on_this_cpu(void *unused)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->cur)
		switch_out_to_nothing(c, c->cur);
	kpmc_selfpage_leave(c);
	c->loaded_generation = 0;
}

/* Hooks are detached: nothing but us touches thread state any more. */
void kpmc_threads_exit(void)
{
	struct kpmc_thread *t;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&kpmc_cpus, cpu)->timer);
	on_each_cpu(kpmc_stop_on_this_cpu, NULL, 1);

	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	hash_for_each_safe(kpmc_threads, bkt, tmp, t, hash) {
		hash_del_rcu(&t->hash);
		call_rcu(&t->rcu, free_thread_rcu);
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	rcu_barrier();
	kpmc_flush_deferred();
	fork_reserve_free();

	if (atomic_read(&kpmc_threads_live) || atomic_read(&kpmc_configs_live))
		pr_err("kpmc: leak: %d thread states, %d configurations not freed\n",
		       atomic_read(&kpmc_threads_live), atomic_read(&kpmc_configs_live));
}
