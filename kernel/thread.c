// SPDX-License-Identifier: GPL-2.0
/*
 * The table of monitored threads and their lifetime: states created on
 * fork and attach, dropped at exit, and the scheduler's lifecycle hooks
 * (fork, exec, exit, free, migrate). Counting itself is counting.c's; what
 * /proc asks of a thread is control.c's.
 *
 * Concurrency: the table is RCU-read on the hot path and written under
 * kpmc_threads_lock, a raw spinlock taken with IRQs off. A state is freed
 * an RCU grace period after it leaves the table.
 *
 * The table is a hash keyed by task that doubles, from a work item,
 * whenever it holds more states than buckets: the switch hook's lookup
 * walks about one state however many threads are monitored (a fixed table
 * of 1,024 buckets walked ten at 10,000 threads, each a likely cache miss).
 * A state has a link for each of two tables: a resize chains every state
 * into the new table through its other link, under the lock, while readers
 * of the old table still walk the first; the old table goes a grace period
 * after the new one is published, before any later resize reuses its links.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/overflow.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>

#include "kpmc/compat.h"
#include "kpmc/core.h"
#include "kpmc/counter.h"
#include "kpmc/hooks.h"
#include "kpmc/sampling.h"
#include "kpmc/thread_internal.h"

struct kpmc_thread_table {
	unsigned int bits;
	unsigned int link;		/* the states' link this table chains */
	struct hlist_head buckets[];
};

/* 1,024 buckets to start with (8 KiB); at most 1M (8 MiB, a million threads). */
#define KPMC_TABLE_MIN_BITS 10
#define KPMC_TABLE_MAX_BITS 20
static struct kpmc_thread_table __rcu *kpmc_table;
static unsigned int kpmc_table_nr;	/* states in it, under kpmc_threads_lock */
DEFINE_RAW_SPINLOCK(kpmc_threads_lock);
static atomic_t kpmc_threads_live = ATOMIC_INIT(0);
/* Threads a monitored parent created that could not be followed (no memory). */
atomic_t kpmc_threads_lost = ATOMIC_INIT(0);

static struct kpmc_thread_table *table_locked(void)
{
	return rcu_dereference_protected(kpmc_table, lockdep_is_held(&kpmc_threads_lock));
}

static struct hlist_head *table_bucket(struct kpmc_thread_table *tbl, struct task_struct *task)
{
	return &tbl->buckets[hash_ptr(task, tbl->bits)];
}

/* The state whose link[tbl->link] l is. */
static struct kpmc_thread *link_thread(struct kpmc_thread_link *l,
				       const struct kpmc_thread_table *tbl)
{
	return container_of(l - tbl->link, struct kpmc_thread, link[0]);
}

/*
 * Every state's link l in tbl (its state: link_thread(l, tbl)); RCU-read
 * or under kpmc_threads_lock, where a loop may unlink the state: an RCU
 * unlink keeps its way on.
 */
#define table_for_each_link(tbl, i, l)						\
	for ((i) = 0; (i) < (1u << (tbl)->bits); (i)++)				\
		hlist_for_each_entry_rcu(l, &(tbl)->buckets[i], node,		\
					 lockdep_is_held(&kpmc_threads_lock))

static struct kpmc_thread_table *table_alloc(unsigned int bits, unsigned int link)
{
	struct kpmc_thread_table *tbl;

	/* Zeroed buckets are empty hlists. */
	tbl = kvzalloc(struct_size(tbl, buckets, 1u << bits), GFP_KERNEL);
	if (tbl) {
		tbl->bits = bits;
		tbl->link = link;
	}
	return tbl;
}

/* Under kpmc_threads_lock: t, not in the table, goes in. */
static void table_add(struct kpmc_thread *t)
{
	struct kpmc_thread_table *tbl = table_locked();

	hlist_add_head_rcu(&t->link[tbl->link].node, table_bucket(tbl, t->task));
	WRITE_ONCE(kpmc_table_nr, kpmc_table_nr + 1);
}

/* Under kpmc_threads_lock: t, in the table, goes out (readers may still see it). */
static void table_del(struct kpmc_thread *t)
{
	hlist_del_rcu(&t->link[table_locked()->link].node);
	WRITE_ONCE(kpmc_table_nr, kpmc_table_nr - 1);
}

/*
 * Doubles the table until it has a bucket per state. Only this work item
 * replaces the table, one run at a time: the old one is freed after a
 * grace period, so the next resize reuses links no reader walks. Its
 * chaining runs under the lock with IRQs off, O(states), once per
 * doubling (the table never shrinks).
 */
static void table_grow(struct work_struct *work)
{
	struct kpmc_thread_table *old, *new;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;
	unsigned long flags;
	unsigned int bits, i;

	old = rcu_dereference_protected(kpmc_table, true);
	bits = old->bits;
	while (bits < KPMC_TABLE_MAX_BITS && (1u << bits) < READ_ONCE(kpmc_table_nr))
		bits++;
	if (bits == old->bits)
		return;
	new = table_alloc(bits, !old->link);
	if (!new)
		return;		/* lookups walk longer chains; the next add tries again */
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	table_for_each_link(old, i, l) {
		t = link_thread(l, old);
		hlist_add_head_rcu(&t->link[new->link].node, table_bucket(new, t->task));
	}
	rcu_assign_pointer(kpmc_table, new);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	synchronize_rcu();
	kvfree(old);
}

static DECLARE_WORK(table_grow_work, table_grow);

/* After a table_add, with the lock dropped: more states than buckets? */
static void table_grow_if_full(void)
{
	struct kpmc_thread_table *tbl;
	bool full;

	rcu_read_lock();
	tbl = rcu_dereference(kpmc_table);
	full = tbl->bits < KPMC_TABLE_MAX_BITS && READ_ONCE(kpmc_table_nr) > (1u << tbl->bits);
	rcu_read_unlock();
	if (full)
		queue_work(system_unbound_wq, &table_grow_work);
}

/* RCU-read (or IRQs or preemption off), or under kpmc_threads_lock. */
struct kpmc_thread *kpmc_thread_lookup(struct task_struct *task)
{
	struct kpmc_thread_table *tbl;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;

	tbl = rcu_dereference_check(kpmc_table, rcu_read_lock_any_held() ||
				    lockdep_is_held(&kpmc_threads_lock));
	hlist_for_each_entry_rcu(l, table_bucket(tbl, task), node,
				 lockdep_is_held(&kpmc_threads_lock)) {
		t = link_thread(l, tbl);
		if (t->task == task)
			return t;
	}
	return NULL;
}

void kpmc_thread_free_rcu(struct rcu_head *head)
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

/*
 * t's numbers, again whenever its session or task's may have changed (a
 * non-leader's exec makes it the leader): global ones for the kernel side;
 * for its records, those of its session's pid namespace (a reader in a
 * container sees its own numbers, never the host's); for its self page,
 * its own namespace's (what gettid() says).
 */
void kpmc_thread_set_ids(struct kpmc_thread *t, struct task_struct *task)
{
	struct pid_namespace *ns = t->session ? kpmc_session_pid_ns(t->session) : &init_pid_ns;

	t->pid = task_tgid_nr(task);
	t->tid = task_pid_nr(task);
	t->rec_pid = task_tgid_nr_ns(task, ns);
	t->rec_tid = task_pid_nr_ns(task, ns);
	rcu_read_lock();
	t->own_tid = task_pid_nr_ns(task, task_active_pid_ns(task));
	rcu_read_unlock();
}

/* t: zeroed memory for a thread state, to be task's. */
static struct kpmc_thread *init_thread(struct kpmc_thread *t, struct task_struct *task)
{
	atomic_inc(&kpmc_threads_live);
	t->task = task;
	kpmc_thread_set_ids(t, task);
	t->state = KPMC_IDLE;
	return t;
}

struct kpmc_thread *kpmc_thread_alloc(struct task_struct *task, gfp_t gfp)
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

/* ---- lifecycle hooks ---- */

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
	/*
	 * The child is not running yet: nothing can race with its state.
	 * PREEMPT_RT cannot allocate with preemption disabled, not even
	 * GFP_ATOMIC: there the reserve serves.
	 */
	t = NULL;
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible())
		t = kpmc_thread_alloc(child, GFP_ATOMIC | __GFP_NOWARN | __GFP_ACCOUNT);
	if (!t)
		t = fork_reserve_take(child);
	/* The parent holds the PMU claim: the child shares it (cannot fail but in a race with the parent's stop). */
	if (t && !kpmc_pmu_get_more()) {
		kfree(t);
		atomic_dec(&kpmc_threads_live);
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
		table_add(t);
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (drop)
		call_rcu(&t->rcu, kpmc_thread_free_rcu);
	else
		table_grow_if_full();
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
	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	rcu_read_unlock();
	if (!t)
		return;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	t = kpmc_thread_lookup(task);
	if (t)
		table_del(t);
	raw_spin_unlock(&kpmc_threads_lock);
	if (t)
		kpmc_stop_current(t, KPMC_REC_EXIT);
	local_irq_restore(flags);
	if (t)
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
	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	rcu_read_unlock();
	if (!t)
		return;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	t = kpmc_thread_lookup(task);
	if (t)
		table_del(t);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (t)
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
		table_add(t);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (found) {
		kfree(t);
		atomic_dec(&kpmc_threads_live);
		t = found;
	} else {
		table_grow_if_full();
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
		table_add(t);
		raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
		rcu_read_unlock();
		table_grow_if_full();
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
	kfree(t);
	atomic_dec(&kpmc_threads_live);
	return want != KPMC_IDLE ? 0 : err;

out_free:
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	rcu_read_unlock();
	/* Never published: no grace period needed. */
	kpmc_thread_free_rcu(&t->rcu);
	return err;
}

/* Thread states and configurations allocated and not yet freed (RCU included). */
void kpmc_live_objects(int *threads, int *configs)
{
	*threads = atomic_read(&kpmc_threads_live);
	*configs = kpmc_configs_live();
}

void kpmc_threads_count(unsigned int *known, unsigned int *counting, unsigned int *buckets)
{
	struct kpmc_thread_table *tbl;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;
	unsigned int i;

	*known = 0;
	*counting = 0;
	rcu_read_lock();
	tbl = rcu_dereference(kpmc_table);
	*buckets = 1u << tbl->bits;
	table_for_each_link(tbl, i, l) {
		t = link_thread(l, tbl);
		(*known)++;
		if (t->state != KPMC_IDLE)
			(*counting)++;
	}
	rcu_read_unlock();
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
	enum kpmc_thread_state state;
	struct kpmc_thread_table *tbl;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;
	unsigned long flags;
	bool marked = false;
	unsigned int i;

	/* Pairs with kpmc_thread_insert's cmpxchg: see its state or it sees closed. */
	smp_mb();
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	tbl = table_locked();
	table_for_each_link(tbl, i, l) {
		t = link_thread(l, tbl);
		state = READ_ONCE(t->state);
		if (state != KPMC_ARMED_EXEC && state != KPMC_COUNTING)
			continue;
		/* The session is published before the state (insert's cmpxchg). */
		smp_rmb();
		if (READ_ONCE(t->session) != s)
			continue;
		if (state == KPMC_ARMED_EXEC)
			armed_release(t, s);
		else if (cmpxchg(&t->state, KPMC_COUNTING, KPMC_ATTACHING) == KPMC_COUNTING)
			t->closing = true;
		marked |= t->closing;
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (!marked)
		return;
	/* Switch hooks run with preemption off: the ones that saw them counting are over. */
	synchronize_rcu();
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	tbl = table_locked();
	table_for_each_link(tbl, i, l) {
		t = link_thread(l, tbl);
		if (!t->closing)
			continue;
		/*
		 * Another close's threads wait for its own grace period; a
		 * thread that stopped by itself meanwhile is not ours any more.
		 */
		if (READ_ONCE(t->session) != s) {
			if (READ_ONCE(t->state) != KPMC_ATTACHING)
				t->closing = false;
			continue;
		}
		t->closing = false;
		/* Loaded: it runs, and its tick or switch-out detaches it. */
		if (kpmc_thread_loaded(t))
			cmpxchg(&t->state, KPMC_ATTACHING, KPMC_COUNTING);
		else
			kpmc_detach_unloaded(t);
	}
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

/* ---- module init/exit ---- */

int kpmc_threads_init(void)
{
	struct kpmc_thread_table *tbl = table_alloc(KPMC_TABLE_MIN_BITS, 0);

	if (!tbl)
		return -ENOMEM;
	RCU_INIT_POINTER(kpmc_table, tbl);
	kpmc_counting_init();
	fork_reserve_fill(NULL);
	return 0;
}

/* Hooks are detached: nothing but us touches thread state any more. */
void kpmc_threads_exit(void)
{
	struct kpmc_thread_table *tbl;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;
	unsigned long flags;
	unsigned int i;

	kpmc_counting_stop();
	/* No add queues it again: the hooks are gone. */
	cancel_work_sync(&table_grow_work);

	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	tbl = table_locked();
	table_for_each_link(tbl, i, l) {
		t = link_thread(l, tbl);
		table_del(t);
		call_rcu(&t->rcu, kpmc_thread_free_rcu);
	}
	RCU_INIT_POINTER(kpmc_table, NULL);
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	rcu_barrier();
	kvfree(tbl);
	kpmc_flush_deferred();
	fork_reserve_free();

	if (atomic_read(&kpmc_threads_live) || kpmc_configs_live())
		pr_err("kpmc: leak: %d thread states, %d configurations not freed\n",
		       atomic_read(&kpmc_threads_live), kpmc_configs_live());
}
