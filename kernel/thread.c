// SPDX-License-Identifier: GPL-2.0
/*
 * The table of monitored threads and the states as objects: made (for an
 * attach, for the caller, or for a child at fork from a reserve where the
 * fork hook cannot allocate), found by task, walked, and freed an RCU grace
 * period after they leave the table. What happens to a state over a
 * thread's life is lifecycle.c's; counting is counting.c's.
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
#include "layer_base.h"
#include "layer_objects.h"
#include "layer_configs.h"
#include "layer_per_cpu.h"
#include "kpmc/counter.h"
#include "kpmc/hooks.h"
#include "kpmc/sampling.h"

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
void kpmc_thread_table_add(struct kpmc_thread *t)
{
	struct kpmc_thread_table *tbl = table_locked();

	hlist_add_head_rcu(&t->link[tbl->link].node, table_bucket(tbl, t->task));
	WRITE_ONCE(kpmc_table_nr, kpmc_table_nr + 1);
}

/*
 * Under kpmc_threads_lock: t, in the table, goes out (readers may still see
 * it), and off its session's list.
 */
void kpmc_thread_table_del(struct kpmc_thread *t)
{
	hlist_del_rcu(&t->link[table_locked()->link].node);
	WRITE_ONCE(kpmc_table_nr, kpmc_table_nr - 1);
	kpmc_thread_list_in(t, NULL);
}

/*
 * Under kpmc_threads_lock: t, just given s (or NULL), is on s's list from
 * now on, and on no other: unless s takes no thread any more (stopping,
 * checked under this lock by fork and attach too), whose close or stop
 * has then visited its list or waits for this lock.
 */
void kpmc_thread_list_in(struct kpmc_thread *t, struct kpmc_session *s)
{
	if (t->listed_in == s)
		return;
	if (t->listed_in)
		list_del_init(&t->session_node);
	t->listed_in = NULL;
	if (s && !READ_ONCE(s->stopping)) {
		list_add_tail(&t->session_node, &s->threads);
		t->listed_in = s;
	}
}

/*
 * Under kpmc_threads_lock: visit(t, arg) for every state on s's list; visit
 * may change a state but not take it off the list.
 */
void kpmc_session_threads_walk_locked(struct kpmc_session *s,
				      void (*visit)(struct kpmc_thread *t, void *arg), void *arg)
{
	struct kpmc_thread *t;

	list_for_each_entry(t, &s->threads, session_node)
		visit(t, arg);
}

/* Under kpmc_threads_lock: s, closed, lists no state any more (it may be freed). */
void kpmc_session_threads_forget_locked(struct kpmc_session *s)
{
	struct kpmc_thread *t, *next;

	list_for_each_entry_safe(t, next, &s->threads, session_node) {
		list_del_init(&t->session_node);
		t->listed_in = NULL;
	}
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

/* After an add, with the lock dropped: more states than buckets? */
void kpmc_thread_table_grow_if_full(void)
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
	INIT_LIST_HEAD(&t->session_node);
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

/* t, never published and holding no reference, is freed. */
void kpmc_thread_discard(struct kpmc_thread *t)
{
	kfree(t);
	atomic_dec(&kpmc_threads_live);
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

/*
 * A state for child, from the fork hook: no sleeping. PREEMPT_RT cannot
 * allocate with preemption disabled, not even GFP_ATOMIC: there the
 * reserve serves.
 */
struct kpmc_thread *kpmc_thread_alloc_fork(struct task_struct *child)
{
	struct kpmc_thread *t = NULL;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible())
		t = kpmc_thread_alloc(child, GFP_ATOMIC | __GFP_NOWARN | __GFP_ACCOUNT);
	return t ? t : fork_reserve_take(child);
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

/* ---- module init/exit ---- */

int kpmc_threads_init(void)
{
	struct kpmc_thread_table *tbl = table_alloc(KPMC_TABLE_MIN_BITS, 0);

	if (!tbl)
		return -ENOMEM;
	RCU_INIT_POINTER(kpmc_table, tbl);
	fork_reserve_fill(NULL);
	return 0;
}

/* Hooks are detached and counting stopped: nothing but us touches thread state any more. */
void kpmc_threads_exit(void)
{
	struct kpmc_thread_table *tbl;
	struct kpmc_thread_link *l;
	struct kpmc_thread *t;
	unsigned long flags;
	unsigned int i;

	/* No add queues it again: the hooks are gone. */
	cancel_work_sync(&table_grow_work);

	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	tbl = table_locked();
	table_for_each_link(tbl, i, l) {
		t = link_thread(l, tbl);
		kpmc_thread_table_del(t);
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
