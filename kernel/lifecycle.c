// SPDX-License-Identifier: GPL-2.0
/*
 * A monitored thread's life, above the counting path: the scheduler's
 * lifecycle hooks (fork, exec, exit, free, migrate), a state published for
 * another task (attach) or made for the caller, and what a session's close
 * or stop does to its threads. The table and the states as objects are
 * thread.c's; counting itself is counting.c's; what /proc asks of a thread
 * is control.c's.
 *
 * Concurrency: states are looked up under RCU and published or dropped
 * under kpmc_threads_lock, a raw spinlock taken with IRQs off; a state's
 * own transitions are cmpxchg()es of t->state (see kpmc_thread_insert).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "kpmc/compat.h"
#include "layer_objects.h"
#include "layer_configs.h"
#include "layer_per_cpu.h"
#include "layer_counting.h"
#include "layer_life.h"
#include "kpmc/hooks.h"

void kpmc_hook_fork(struct task_struct *parent, struct task_struct *child)
{
	struct kpmc_thread *p, *t, *dup;
	struct kpmc_shared_config *conf;
	struct kpmc_session *session;
	enum kpmc_thread_state state;
	unsigned long flags;
	bool capable, drop;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	rcu_read_lock();
	p = kpmc_thread_lookup(parent);
	/*
	 * The parent is current, but its timer may detach it, and an attach
	 * may then reuse its state (KPMC_ATTACHING, a new configuration and
	 * session): take what it has now, by reference, or nothing. RCU keeps
	 * both objects until a grace period after their last put.
	 */
	state = p ? smp_load_acquire(&p->state) : KPMC_IDLE;
	if (state != KPMC_COUNTING && state != KPMC_ARMED_EXEC) {
		rcu_read_unlock();
		return;
	}
	conf = READ_ONCE(p->conf);
	session = READ_ONCE(p->session);
	capable = READ_ONCE(p->owner_capable);
	/* A session whose reader is gone or stops its threads gets no new ones. */
	if (session && (READ_ONCE(session->stopping) || !kpmc_session_tryget(session))) {
		rcu_read_unlock();
		return;
	}
	if (!refcount_inc_not_zero(&conf->ref)) {
		rcu_read_unlock();
		if (session)
			kpmc_session_put(session);
		return;
	}
	rcu_read_unlock();
	/* The child is not running yet: nothing can race with its state. */
	t = kpmc_thread_alloc_fork(child);
	/* The parent holds the PMU claim: the child shares it (cannot fail but in a race with the parent's stop). */
	if (t && !kpmc_pmu_get_more()) {
		kpmc_thread_discard(t);
		t = NULL;
	}
	if (!t) {
		kpmc_shared_config_put(conf);
		if (session)
			kpmc_session_put(session);
		atomic_inc(&kpmc_threads_lost);
		return;
	}
	t->state = state;
	t->foreign = true;
	t->owner_capable = capable;
	t->conf = conf;
	t->session = session;
	kpmc_thread_set_ids(t, child);

	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/*
	 * An attach may have given the child a state between its creation and
	 * this hook: that one stands, ours goes. A child of a session closed
	 * or stopping since the check above would never be released or stopped
	 * by kpmc_threads_session_closed, which has run or waits for this lock
	 * (it has counted nothing yet: no record is missed).
	 */
	dup = kpmc_thread_lookup(child);
	drop = dup || (session && READ_ONCE(session->stopping));
	if (!drop) {
		/* Only now: a module's start takes resources (cmt: an RMID). */
		if (t->state == KPMC_COUNTING)
			kpmc_counting_start(t);
		kpmc_thread_table_add(t);
		kpmc_thread_list_in(t, session);
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (drop)
		call_rcu(&t->rcu, kpmc_thread_free_rcu);
	else
		kpmc_thread_table_grow_if_full();
}

void kpmc_hook_exec(struct task_struct *task, bool unreadable)
{
	struct kpmc_thread *t;
	unsigned long flags;
	bool armed;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	local_irq_save(flags);
	t = kpmc_thread_lookup(task);
	/*
	 * An armed thread starts counting here, unless its session's close
	 * made it idle first (kpmc_threads_session_closed): one of the two
	 * state changes wins.
	 */
	/*
	 * exec may have made a non-leader thread the leader: every state's
	 * records say so. Under the table's lock: an attach reusing this
	 * state changes its session (and so the pid namespace) under it.
	 */
	if (t) {
		raw_spin_lock(&kpmc_threads_lock);
		kpmc_thread_set_ids(t, task);
		raw_spin_unlock(&kpmc_threads_lock);
	}
	armed = t && READ_ONCE(t->state) == KPMC_ARMED_EXEC &&
		cmpxchg(&t->state, KPMC_ARMED_EXEC, KPMC_COUNTING) == KPMC_ARMED_EXEC;
	/*
	 * An unreadable program makes the exec non-dumpable, as a raise of
	 * privileges does, without AT_SECURE (7.x tests that): perf ends its
	 * events at both.
	 */
	if (t && t->state == KPMC_COUNTING && !t->owner_capable &&
	    (unreadable || kpmc_exec_raised_privileges(task))) {
		/*
		 * As perf: monitoring ends here unless its owner is capable.
		 * An armed thread never counted: its DETACH record is empty.
		 */
		t->detach_why = KPMC_DETACH_PRIVILEGED_EXEC;
		kpmc_stop_current(t, KPMC_REC_DETACH);
		kpmc_detach_done(t);
		armed = false;
	}
	if (armed) {
		struct kpmc_cpu *c = this_cpu_ptr(&kpmc_cpus);

		memset(t->acc, 0, sizeof(t->acc));
		t->run_ns = 0;
		kpmc_counting_start(t);
		if (!WARN_ON_ONCE(c->cur))
			kpmc_switch_in(c, t, NULL, ktime_get_ns());
	}
	local_irq_restore(flags);
}

/*
 * task's state taken out of the table (readers may still see it), with
 * IRQs left off (saved in *flags) for the caller's last step; NULL, IRQs as
 * they were, when it has none. Only tasks with a state take the lock.
 */
static struct kpmc_thread *table_take(struct task_struct *task, unsigned long *flags)
{
	struct kpmc_thread *t;

	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	rcu_read_unlock();
	if (!t)
		return NULL;
	raw_spin_lock_irqsave(&kpmc_threads_lock, *flags);
	t = kpmc_thread_lookup(task);
	if (t)
		kpmc_thread_table_del(t);
	raw_spin_unlock(&kpmc_threads_lock);
	if (!t)
		local_irq_restore(*flags);
	return t;
}

void kpmc_hook_exit(struct task_struct *task)
{
	struct kpmc_thread *t;
	unsigned long flags;

	/*
	 * Also for idle states (config writers), so this runs without sessions;
	 * but only tasks with a state take the lock. The barrier
	 * pairs with insert_thread's lock: PF_EXITING is set, so either an
	 * attach sees it or this lookup sees the attach's state; kpmc_hook_free
	 * is the backstop either way.
	 */
	smp_mb();
	t = table_take(task, &flags);
	if (!t)
		return;
	kpmc_stop_current(t, KPMC_REC_EXIT);
	local_irq_restore(flags);
	call_rcu(&t->rcu, kpmc_thread_free_rcu);
}

void kpmc_hook_free(struct task_struct *task)
{
	struct kpmc_thread *t;
	unsigned long flags;

	/*
	 * Normally dropped at exit already; this catches a state added while
	 * the task was exiting, before its pointer can be reused as a key.
	 */
	t = table_take(task, &flags);
	if (!t)
		return;
	local_irq_restore(flags);
	call_rcu(&t->rcu, kpmc_thread_free_rcu);
}

void kpmc_hook_migrate(struct task_struct *task, int new_cpu)
{
	struct kpmc_thread *t;

	if (!static_branch_unlikely(&kpmc_monitoring))
		return;
	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	/* One writer: the task is not running and its runqueue or pi_lock is held. */
	if (t && t->state == KPMC_COUNTING)
		WRITE_ONCE(t->migrations, t->migrations + 1);
	rcu_read_unlock();
}

void kpmc_hook_cgroup_moved(struct task_struct *task, bool threadgroup)
{
	if (static_branch_unlikely(&kpmc_monitoring))
		kpmc_system_task_moved(task, threadgroup);
}

struct kpmc_thread *kpmc_thread_of_current(bool create)
{
	struct kpmc_thread *t, *found;
	unsigned long flags;

	rcu_read_lock();
	t = kpmc_thread_lookup(current);
	rcu_read_unlock();
	if (t || !create)
		return t;
	t = kpmc_thread_alloc(current, GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/* An attach from another thread may have beaten us to it. */
	found = kpmc_thread_lookup(current);
	if (!found)
		kpmc_thread_table_add(t);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (found) {
		kpmc_thread_discard(t);
		t = found;
	} else {
		kpmc_thread_table_grow_if_full();
	}
	return t;
}

/*
 * t is armed for s, whose reader closed it: t goes idle and lets go of s
 * and its PMU use, unless its exec (counting now) or another release won.
 * Any context; t's session is not read by anyone while t is idle but an
 * attach reusing it, which holds kpmc_threads_lock or owns t's state.
 */
static bool armed_release(struct kpmc_thread *t, struct kpmc_session *s)
{
	if (cmpxchg(&t->state, KPMC_ARMED_EXEC, KPMC_IDLE) != KPMC_ARMED_EXEC)
		return false;
	WRITE_ONCE(t->session, NULL);
	t->stop_requested = false;
	kpmc_session_put(s);
	kpmc_pmu_put(KPMC_USER_THREAD);
	return true;
}

/*
 * Publish t, the new state of another task. If the task has an idle state
 * that an attach set up earlier (its monitoring was detached), that one is
 * set up again instead, and t is freed. -ESRCH if the task is exiting,
 * -EBUSY if it is monitored or configures itself, -EBADF if t is armed for
 * a session whose reader closed it, or is of a session that stopped. t is
 * consumed, on error too (a reuse passes its references on and frees it).
 * t carries one PMU use, its configuration and session references, and is
 * not yet kpmc_counting_start()ed.
 */
int kpmc_thread_insert(struct kpmc_thread *t, struct task_struct *task)
{
	enum kpmc_thread_state want = t->state;
	struct kpmc_shared_config *old_conf;
	struct kpmc_session *old_session, *session;
	int err = -ESRCH;
	struct kpmc_thread *old;
	unsigned long flags;

	rcu_read_lock();
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	/* Ordered with kpmc_hook_exit by the lock: an exiting task is never added. */
	if (task->flags & PF_EXITING) {
		err = -ESRCH;
		goto out_free;
	}
	/*
	 * A thread of a session closed or stopping since the caller took it
	 * would never be released or stopped (kpmc_threads_session_closed has
	 * run or waits).
	 */
	if (t->session && READ_ONCE(t->session->stopping)) {
		err = -EBADF;
		goto out_free;
	}
	old = kpmc_thread_lookup(task);
	if (!old) {
		if (want == KPMC_COUNTING)
			kpmc_counting_start(t);
		kpmc_thread_table_add(t);
		kpmc_thread_list_in(t, t->session);
		raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
		rcu_read_unlock();
		kpmc_thread_table_grow_if_full();
		return 0;
	}
	if (old->state != KPMC_IDLE || !old->foreign) {
		err = -EBUSY;
		goto out_free;
	}
	/*
	 * Not idle any more for set_config, start and other attaches; still
	 * not counting for the switch hook. Holds t's PMU use from here: an
	 * exit now makes it idle and gives that use back.
	 */
	old->state = KPMC_ATTACHING;
	old->closing = false;
	/*
	 * The session and the numbers in its pid namespace change together
	 * under the lock: the exec hook recomputes the numbers under it too,
	 * so it never writes those of the session this replaces.
	 */
	old_conf = old->conf;
	old_session = old->session;
	old->conf = t->conf;
	old->session = t->session;
	kpmc_thread_list_in(old, old->session);
	/* Its numbers may have changed since it was set up (a non-leader's exec). */
	kpmc_thread_set_ids(old, task);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);

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
		kpmc_counting_start(old);
	/*
	 * Publish the fields, then the state (the switch hook acquires it).
	 * Fully ordered: an armed state is seen by a close of its session
	 * that this does not see (kpmc_threads_session_closed).
	 */
	session = old->session;
	if (cmpxchg(&old->state, KPMC_ATTACHING, want) != KPMC_ATTACHING) {
		want = KPMC_IDLE;	/* the task exited meanwhile */
	} else if (want == KPMC_ARMED_EXEC && READ_ONCE(session->stopping)) {
		armed_release(old, session);
		want = KPMC_IDLE;
		err = -EBADF;
	}
	rcu_read_unlock();
	kpmc_shared_config_put(old_conf);
	if (old_session)
		kpmc_session_put(old_session);
	/* t holds nothing now. */
	kpmc_thread_discard(t);
	return want != KPMC_IDLE ? 0 : err;

out_free:
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	rcu_read_unlock();
	/* Never published: no grace period needed. */
	kpmc_thread_free_rcu(&t->rcu);
	return err;
}

struct close_sweep {
	struct kpmc_session *s;
	bool marked;
	unsigned int visited;
};

/* States the last close or stop visited (/proc/kpmc/info: its own threads only). */
static unsigned int last_sweep_visited;

unsigned int kpmc_threads_last_sweep(void)
{
	return READ_ONCE(last_sweep_visited);
}

/* Under kpmc_threads_lock: t, armed or counting for the closing session, leaves it. */
static void close_mark(struct kpmc_thread *t, void *arg)
{
	struct close_sweep *sweep = arg;
	enum kpmc_thread_state state = READ_ONCE(t->state);

	sweep->visited++;
	if (state != KPMC_ARMED_EXEC && state != KPMC_COUNTING)
		return;
	/* The session is published before the state (insert's cmpxchg). */
	smp_rmb();
	if (READ_ONCE(t->session) != sweep->s)
		return;
	if (state == KPMC_ARMED_EXEC)
		armed_release(t, sweep->s);
	else if (cmpxchg(&t->state, KPMC_COUNTING, KPMC_ATTACHING) == KPMC_COUNTING)
		t->closing = true;
	sweep->marked |= t->closing;
}

/* Under kpmc_threads_lock, a grace period after close_mark: t stops if loaded nowhere. */
static void close_detach(struct kpmc_thread *t, void *arg)
{
	struct close_sweep *sweep = arg;

	if (!t->closing)
		return;
	/*
	 * Another close's threads wait for its own grace period; a thread
	 * that stopped by itself meanwhile is not ours any more.
	 */
	if (READ_ONCE(t->session) != sweep->s) {
		if (READ_ONCE(t->state) != KPMC_ATTACHING)
			t->closing = false;
		return;
	}
	t->closing = false;
	/* Loaded: it runs, and its tick or switch-out detaches it. */
	if (kpmc_thread_loaded(t))
		cmpxchg(&t->state, KPMC_ATTACHING, KPMC_COUNTING);
	else
		kpmc_detach_unloaded(t);
}

/*
 * s's reader closed its file (s->closed is set), or stops its threads
 * (s->stopping, kpmc_threads_session_stop). Threads armed for it would
 * wait for an exec that may never come, holding s, their configuration and
 * a PMU use: they go idle now (an attach may reuse them). Threads counting
 * for it that run stop at their next tick or switch (thread_done); those
 * asleep, which may sleep for as long as they like, stop here: taken out
 * of counting first (no switch-in loads them), then, once every switch
 * that may have loaded one before has ended, made idle if loaded nowhere.
 * Process context; the caller's reference keeps s.
 */
void kpmc_threads_session_closed(struct kpmc_session *s)
{
	struct close_sweep sweep = { .s = s };
	unsigned long flags;

	/* Pairs with kpmc_thread_insert's cmpxchg: see its state or it sees closed. */
	smp_mb();
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	kpmc_session_threads_walk_locked(s, close_mark, &sweep);
	WRITE_ONCE(last_sweep_visited, sweep.visited);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (sweep.marked) {
		/* Switch hooks run with preemption off: the ones that saw them counting are over. */
		synchronize_rcu();
	}
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	if (sweep.marked)
		kpmc_session_threads_walk_locked(s, close_detach, &sweep);
	/* Closed for good: no later walk, and s may go once its threads let go. */
	if (READ_ONCE(s->closed))
		kpmc_session_threads_forget_locked(s);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
}

/*
 * s's reader wants every thread's last record while it still reads
 * (enable "stop", e.g. at its program's end, with children that outlive
 * it): when this returns, every thread that counted for s has its DETACH
 * (or EXIT) record in the ring, and none counts for s any more. stopping
 * keeps new threads out (fork and attach check it under kpmc_threads_lock,
 * after which the walk below sees them); the IPIs stop the loaded ones
 * on their CPUs, and after them no switch-in loads a thread of s (it
 * detaches instead), so the walk finds only threads loaded nowhere and
 * detaches them from here, as a close does. A thread that exits meanwhile
 * takes its EXIT record with IRQs off, which the IPI to its CPU waits for.
 * Process context; the caller's reference keeps s.
 */
void kpmc_threads_session_stop(struct kpmc_session *s)
{
	WRITE_ONCE(s->stopping, true);
	kpmc_stop_loaded_of_session(s);
	kpmc_threads_session_closed(s);
}
