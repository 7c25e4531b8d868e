// SPDX-License-Identifier: GPL-2.0
/*
 * Counting: the IRQs-off path that follows a monitored thread on its CPU.
 * Counters are loaded at switch-in and folded at switch-out, by the per-CPU
 * fold timer and at overflow, into exact 64-bit per-thread counts; records
 * are taken there (time-based, event-based samples with their periods,
 * multiplexed sets rotating) and on stop. Also what a CPU does when its PMU
 * loses its state (power-down idle, suspend, hotplug).
 *
 * Concurrency: a thread's counting fields (acc, run_ns, ...) are touched
 * only on the CPU it runs on, with IRQs off (scheduler hooks run so; the
 * exit, exec and enable paths disable IRQs); the per-CPU fold timer is the
 * only other toucher and it is an IRQ on that same CPU. No allocation, no
 * sleeping lock, no printk here.
 */
#include <linux/kernel.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <asm/irq_regs.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_formats.h"
#include "layer_per_cpu.h"
#include "layer_counting.h"
#include "kpmc/counter.h"
#include "kpmc/format.h"
#include "kpmc/hooks.h"
#include "kpmc/sampling.h"

static unsigned long wrap_test_distance;
module_param(wrap_test_distance, ulong, 0644);
MODULE_PARM_DESC(wrap_test_distance,
		 "testing: start every counter this many events before it wraps, at every switch-in (0: off)");

/*
 * Add what the counters counted since the last fold to t. Returns true when
 * the sampling counter passed its overflow point: a sample is due, whether or
 * not its interrupt has arrived yet.
 */
bool kpmc_fold(struct kpmc_cpu *c, struct kpmc_thread *t, u64 now)
{
	const struct kpmc_hw_config *hw = thw(t);
	u64 raw[KPMC_MAX_COUNTERS] KPMC_NO_AUTO_INIT;	/* the backend fills [0, hw->nr) */
	bool due = false;
	unsigned int i;

	kpmc_backend->read(hw, raw);
	/* Every interval counted ends in a fold, on the CPU it was counted on. */
	if (kpmc_backend->uncounted)
		t->uncounted |= kpmc_backend->uncounted(hw);
	for (i = 0; i < hw->nr; i++) {
		u64 delta = kpmc_counter_delta(raw[i], c->last_raw[i], hw->width_mask[i]);

		if (hw->sampling && i == hw->sampling_index) {
			/*
			 * Counting up from -remaining, the overflow is at 0;
			 * an external sampler says itself when it is due.
			 */
			due = !hw->sampling_external &&
			      delta >= ((0 - c->last_raw[i]) & hw->width_mask[i]);
			t->sampling_raw = raw[i];
		}
		t->acc[i] += delta;
		c->last_raw[i] = raw[i];
	}
	t->run_ns += now - t->switched_in_ns;
	t->set_run_ns += now - t->switched_in_ns;
	t->switched_in_ns = now;
	/* No page and no user access granted here: nothing to write or take back. */
	if (t->self_page || c->user_access)
		kpmc_selfpage_sync(c, t);
	return due;
}

/* t stops counting (or being armed): the PMU claim may go back to perf. */
void kpmc_set_idle(struct kpmc_thread *t)
{
	/*
	 * One PMU use per thread: a session's close may take a thread that
	 * is loaded nowhere to idle from another CPU while it stops itself.
	 */
	if (READ_ONCE(t->state) != KPMC_IDLE && xchg(&t->state, KPMC_IDLE) != KPMC_IDLE)
		kpmc_pmu_put(KPMC_USER_THREAD);
}

/* Does t's set count kernel mode (may its samples show kernel addresses)? */
static bool counts_kernel(const struct kpmc_config *cfg)
{
	unsigned int n;

	for (n = 0; n < KPMC_MAX_COUNTERS; n++)
		if ((cfg->mask & (1u << n)) && cfg->ctr[n].os)
			return true;
	return false;
}

/* A sample (TBS, EBS) and what its set's format adds. */
static void push_sample(struct kpmc_thread *t, const struct kpmc_record *rec,
			struct pt_regs *regs)
{
	struct kpmc_format *f = t->conf->fmt[t->set];
	struct kpmc_format_sample fs;

	if (!f) {
		kpmc_ring_push(t->session->ring, rec);
		return;
	}
	fs.regs = regs;
	fs.task = t->task;
	fs.record = rec;
	fs.kernel_allowed = counts_kernel(tcfg(t));
	kpmc_format_emit(t->session, f, t->conf->fmt_priv[t->set], rec, &fs);
}

/*
 * regs: for a sample, the context its interrupt came in on (NULL: taken
 * elsewhere, at a switch or a read).
 */
static void emit_regs(struct kpmc_thread *t, enum kpmc_record_kind kind, struct pt_regs *regs)
{
	struct kpmc_record stack_rec KPMC_NO_AUTO_INIT, *rec = &stack_rec;
	struct kpmc_session *s = t->session;
	bool sample = kind == KPMC_REC_TBS || kind == KPMC_REC_EBS;
	unsigned int i;

	/*
	 * Built on this CPU's stack, then copied into the ring: the ring's
	 * lock, which every CPU feeding the session takes, is held for the
	 * copy only, never across the monitoring module's callback (which may
	 * read MSRs) or the record's assembly.
	 */
	kpmc_record_build(rec, kind, tcfg(t), thw(t), t->acc, t->run_ns, t);
	rec->set = t->set;
	if (kind == KPMC_REC_EBS)
		rec->period = t->sampling_period;
	rec->pid = t->rec_pid;
	rec->tid = t->rec_tid;
	rec->nsample = ++t->nsample;
	rec->uncounted_mask = t->uncounted & rec->counter_mask;
	t->uncounted = 0;
	if (kind == KPMC_REC_DETACH)
		rec->detail = t->detach_why ? t->detach_why :
			      s && READ_ONCE(s->closed) ? KPMC_DETACH_READER_GONE :
			      KPMC_DETACH_REQUESTED;
	/* Copied only when there is something to copy, or a stale one to clear. */
	if (rec->virt_mask || t->last_virt_mask) {
		memcpy(t->last_virt, rec->virt, sizeof(t->last_virt));
		WRITE_ONCE(t->last_virt_mask, rec->virt_mask);
	}
	if (s && sample)
		push_sample(t, rec, regs);
	else if (s)
		kpmc_ring_push(s->ring, rec);

	/*
	 * acc[] is cleared here for the set's counters only: past them it is
	 * never added to, so stays 0 (a 128-byte memset per sample saved).
	 */
	for (i = 0; i < thw(t)->nr; i++) {
		t->total[thw(t)->slot[i]] += t->acc[i];
		t->set_total[t->set][thw(t)->slot[i]] += t->acc[i];
		t->acc[i] = 0;
	}
	t->total_run_ns += t->run_ns;
	t->set_total_run_ns[t->set] += t->run_ns;
	t->run_ns = 0;
}

static void emit(struct kpmc_thread *t, enum kpmc_record_kind kind)
{
	emit_regs(t, kind, NULL);
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
void kpmc_counting_start(struct kpmc_thread *t)
{
	kpmc_monmod_thread_start(t);
	/* emit() clears only the set's counters: start from a clean slate. */
	memset(t->acc, 0, sizeof(t->acc));
	t->set = 0;
	t->set_run_ns = 0;
	t->set_samples = 0;
	t->mux_rand_state = kpmc_rand_init(tcfg(t)->seed ^ KPMC_MUX_SEED_SALT);
	t->set_slice_ns = kpmc_mux_slice_ns(&t->mux_rand_state, tcfg(t)->mux_ms,
					    tcfg(t)->mux_rnd_ms);
	for (t->mux_pos = 0; t->mux_pos < KPMC_MAX_SETS; t->mux_pos++)
		t->mux_order[t->mux_pos] = t->mux_pos;
	t->mux_pos = 0;
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
static void sampling_take(struct kpmc_cpu *c, struct kpmc_thread *t, bool loaded,
			  struct pt_regs *regs)
{
	const struct kpmc_hw_config *hw = thw(t);
	unsigned int i = hw->sampling_index;

	emit_regs(t, KPMC_REC_EBS, regs);
	t->set_samples++;
	sampling_arm(t);
	if (loaded) {
		kpmc_backend->write(hw, i, t->sampling_raw);
		c->last_raw[i] = t->sampling_raw;
	}
}

void kpmc_sampling_take(struct kpmc_cpu *c, struct kpmc_thread *t, bool loaded)
{
	sampling_take(c, t, loaded, NULL);
}

static u64 next_due_ns(const struct kpmc_thread *t)
{
	u64 tbs = (u64)tcfg(t)->tbs_ms * NSEC_PER_MSEC;
	u64 mux = t->set_slice_ns;
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
static void rotate(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	const struct kpmc_config *cfg = tcfg(t);
	const struct kpmc_hw_config *hw;
	u64 start[KPMC_MAX_COUNTERS] KPMC_NO_AUTO_INIT;

	if (!kpmc_mux_due(t->set_run_ns, t->set_samples, t->set_slice_ns, cfg->mux_samples))
		return;
	/* Zeroed only here: every sample of a set that does not rotate passes above. */
	memset(start, 0, sizeof(start));
	emit(t, KPMC_REC_MUX);
	kpmc_backend->stop(thw(t));
	if (cfg->mux_rnd_ms) {
		if (++t->mux_pos >= t->conf->sets.nr) {
			kpmc_mux_shuffle(&t->mux_rand_state, t->mux_order, t->conf->sets.nr);
			t->mux_pos = 0;
		}
		t->set = t->mux_order[t->mux_pos];
	} else {
		t->set = kpmc_mux_next_set(t->set, t->conf->sets.nr);
	}
	t->set_run_ns = 0;
	t->set_samples = 0;
	t->set_slice_ns = kpmc_mux_slice_ns(&t->mux_rand_state, tcfg(t)->mux_ms,
					    tcfg(t)->mux_rnd_ms);
	hw = thw(t);
	if (hw->sampling) {
		sampling_arm(t);
		start[hw->sampling_index] = t->sampling_raw;
	}
	kpmc_backend->load(hw, start);
	memcpy(c->last_raw, start, hw->nr * sizeof(start[0]));
	c->loaded_generation = tgen(t);
}

/* One set (no multiplexing), at every sample: no call. */
static inline void maybe_rotate(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	if (t->conf->sets.nr >= 2)
		rotate(c, t);
}

/* Put t's counters on this CPU; running: the previous thread's are running. */
void kpmc_switch_in(struct kpmc_cpu *c, struct kpmc_thread *t,
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
	kpmc_monmod_switch(prev, t);

	expires = now + next_due_ns(t);
	if (!hrtimer_is_queued(&c->timer) ||
	    ktime_to_ns(hrtimer_get_expires(&c->timer)) > expires)
		hrtimer_start(&c->timer, ns_to_ktime(expires),
			      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * Stop counting t: its owner detached it, or its session's reader is gone
 * or asked for every thread's last record (stopping says both).
 */
static bool thread_done(const struct kpmc_thread *t)
{
	return READ_ONCE(t->stop_requested) || (t->session && READ_ONCE(t->session->stopping));
}

/*
 * t's DETACH record is out and it is idle: it lets go of its session (the
 * ring need not outlive the reader) and may be monitored again, by an
 * attach or by itself. IRQs off, t's CPU.
 */
void kpmc_detach_done(struct kpmc_thread *t)
{
	struct kpmc_session *s = t->session;

	WRITE_ONCE(t->stop_requested, false);
	t->detach_why = 0;
	WRITE_ONCE(t->session, NULL);
	if (s)
		kpmc_session_put(s);
}

bool kpmc_thread_loaded(const struct kpmc_thread *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(&kpmc_cpus, cpu)->cur) == t)
			return true;
	return false;
}

/*
 * As the switch hook detaches a thread whose session is closed, for one
 * that may sleep for long: its counts were folded at its switch-out, and
 * its module sees its last record.
 */
void kpmc_detach_unloaded(struct kpmc_thread *t)
{
	if (READ_ONCE(t->state) != KPMC_ATTACHING)
		return;
	emit(t, KPMC_REC_DETACH);
	/* The thread itself may stop (enable=0) meanwhile: one of us goes on. */
	if (xchg(&t->state, KPMC_IDLE) != KPMC_ATTACHING)
		return;
	kpmc_pmu_put(KPMC_USER_THREAD);
	kpmc_detach_done(t);
	kpmc_selfpage_sync(this_cpu_ptr(&kpmc_cpus), t);
}

/* IPI: this CPU's thread, if it counts for a stopping session arg, stops now. */
static void stop_loaded_of_session(void *arg)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);
	struct kpmc_thread *t = c->cur;

	if (c->sys || !t || READ_ONCE(t->session) != arg || !thread_done(t))
		return;
	/* As its tick would: the DETACH record holds what it counted since its last. */
	kpmc_stop_current(t, KPMC_REC_DETACH);
	kpmc_detach_done(t);
}

/*
 * s->stopping is set: once every CPU has taken this call, none has a
 * thread of s loaded, and none will load one (its switch-in sees stopping
 * and detaches it). The call orders the flag before each CPU's next switch.
 */
void kpmc_stop_loaded_of_session(struct kpmc_session *s)
{
	on_each_cpu(stop_loaded_of_session, s, 1);
}

static void switch_out_to_nothing(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	kpmc_backend->stop(thw(t));
	c->cur = NULL;
	kpmc_monmod_switch(t, NULL);
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
	tn = kpmc_thread_lookup(next);
	/* Acquire: an attach that reuses an idle state publishes its fields first. */
	if (tn && smp_load_acquire(&tn->state) != KPMC_COUNTING)
		tn = NULL;
	/*
	 * Detached while switched out (its counts were folded at switch-out),
	 * or its session's reader is gone: stop counting it.
	 */
	if (tn && unlikely(thread_done(tn))) {
		emit(tn, KPMC_REC_DETACH);
		kpmc_set_idle(tn);
		kpmc_detach_done(tn);
		kpmc_selfpage_sync(c, tn);
		tn = NULL;
	}
	if (!tp && !tn) {
		kpmc_selfpage_leave(c);
		return;
	}
	now = ktime_get_ns();
	if (tp && kpmc_fold(c, tp, now))
		kpmc_sampling_take(c, tp, false);
	if (tn) {
		kpmc_switch_in(c, tn, tp, now);
	} else {
		switch_out_to_nothing(c, tp);
		kpmc_selfpage_leave(c);
	}
}

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
		kpmc_stop_current(t, KPMC_REC_DETACH);
		kpmc_detach_done(t);
		return HRTIMER_NORESTART;
	}
	now = ktime_get_ns();
	/* An overflow whose interrupt is late (or lost) is sampled here. */
	if (kpmc_fold(c, t, now))
		kpmc_sampling_take(c, t, true);
	tbs = (u64)tcfg(t)->tbs_ms * NSEC_PER_MSEC;
	if (tbs && t->run_ns >= tbs)
		emit_regs(t, KPMC_REC_TBS, get_irq_regs());
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
	/*
	 * An external sampler's interrupt (AMD IBS) is t's if its sample is
	 * still pending: loading another thread's counters discards it.
	 */
	if (thw(t)->sampling_external) {
		if (!kpmc_backend->mem_pending(thw(t)))
			return;
		kpmc_fold(c, t, ktime_get_ns());
		sampling_take(c, t, true, get_irq_regs());
		maybe_rotate(c, t);
		return;
	}
	if (kpmc_fold(c, t, ktime_get_ns())) {
		/* The interrupted context: where a memory sample looks for its access. */
		sampling_take(c, t, true, get_irq_regs());
		maybe_rotate(c, t);
	}
}

/* Stop counting t, which is current, and take its last record. */
void kpmc_stop_current(struct kpmc_thread *t, enum kpmc_record_kind kind)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->cur == t) {
		if (kpmc_fold(c, t, ktime_get_ns()) && t->state == KPMC_COUNTING)
			kpmc_sampling_take(c, t, false);
		switch_out_to_nothing(c, t);
	}
	if (t->state == KPMC_COUNTING)
		emit(t, kind);
	kpmc_set_idle(t);
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
	else if (c->cur && kpmc_fold(c, c->cur, ktime_get_mono_fast_ns()))
		kpmc_sampling_take(c, c->cur, true);
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

/* ---- set-up and unload ---- */

void kpmc_counting_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kpmc_cpu *c = per_cpu_ptr(&kpmc_cpus, cpu);

		kpmc_hrtimer_setup(&c->timer, kpmc_tick, CLOCK_MONOTONIC,
				   HRTIMER_MODE_ABS_PINNED_HARD);
	}
}

static void kpmc_stop_on_this_cpu(void *unused)
{
	struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

	if (c->cur)
		switch_out_to_nothing(c, c->cur);
	kpmc_selfpage_leave(c);
	c->loaded_generation = 0;
}

/* Hooks are detached: no CPU counts for a thread any more. */
void kpmc_counting_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&kpmc_cpus, cpu)->timer);
	on_each_cpu(kpmc_stop_on_this_cpu, NULL, 1);
}
