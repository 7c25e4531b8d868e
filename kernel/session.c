// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring sessions: the ring of records a reader of /proc/kpmc/monitor
 * consumes. Producers run on any CPU in any context (scheduler, hard IRQ,
 * exit), so the ring is guarded by a raw spinlock and readers are woken
 * through irq_work, never directly from under the runqueue lock.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/vmalloc.h>
#include <linux/task_work.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <asm/irq_regs.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_objects.h"

unsigned int kpmc_ring_records = 4096;
module_param_named(ring_records, kpmc_ring_records, uint, 0644);
MODULE_PARM_DESC(ring_records, "records per session ring (a power of two)");

/*
 * Waking the reader for every record would cost a context switch pair per
 * record (more than producing it). Like perf's wakeup_events/watermark, the
 * reader is woken once the ring is a quarter full, and otherwise at most
 * wakeup_ms after the first record it has not been told about.
 */
static unsigned int kpmc_wakeup_ms = 20;
module_param_named(wakeup_ms, kpmc_wakeup_ms, uint, 0644);
MODULE_PARM_DESC(wakeup_ms,
		 "longest delay between a record and the reader's wakeup (0: wake for every record)");

/*
 * What a user without CAP_PERFMON may make the kernel hold, as
 * perf_event_mlock_kb bounds perf's buffers: open sessions, and ring memory
 * over all of them. Ring and state memory is also charged to the opener's
 * memory cgroup (__GFP_ACCOUNT).
 */
static unsigned int kpmc_user_sessions = 64;
module_param_named(user_sessions, kpmc_user_sessions, uint, 0644);
MODULE_PARM_DESC(user_sessions, "open sessions per user without CAP_PERFMON");
static unsigned int kpmc_user_ring_kb = 16384;
module_param_named(user_ring_kb, kpmc_user_ring_kb, uint, 0644);
MODULE_PARM_DESC(user_ring_kb,
		 "KiB of session rings per user without CAP_PERFMON, over all their sessions");

/* Records copied out per read() call at most. */
#define KPMC_READ_BATCH	64

static LIST_HEAD(kpmc_sessions);
static DEFINE_MUTEX(kpmc_sessions_lock);
static atomic_t kpmc_sessions_alive = ATOMIC_INIT(0);
static bool kpmc_unloading;

/*
 * No-loss mode. The producer runs where it cannot sleep, so a thread that
 * fills the ring is made to wait later, in its own context: a task_work
 * (TWA_RESUME) queued from the interrupt that took its sample runs as the
 * thread returns to user mode. Its callback_head cannot live in the thread
 * state (freed at exit before exit_task_work runs the work), and the
 * producer may not allocate: each no-loss session has a fixed pool of
 * waiters, each holding a reference to its session while queued.
 */
#define KPMC_NOLOSS_WAITERS	64
/* A mapped reader advances data_tail without a system call: waits recheck it this often. */
#define KPMC_NOLOSS_RECHECK_MS	10
/* The most records one sample takes until kpmc_session_set_headroom says: EBS and its MEM. */
#define KPMC_DEFAULT_PER_SAMPLE	2

struct kpmc_noloss_waiter {
	struct callback_head work;
	struct kpmc_session *session;
	pid_t tid;			/* the thread it is queued for; 0: free; under s->lock */
};

struct kpmc_noloss {
	u32 high, low;			/* kpmc_ring_noloss_marks() */
	unsigned int waiting;		/* threads inside the wait now; under s->lock */
	u64 waits, releases;		/* this session's, for its control page; under s->lock */
	wait_queue_head_t wait;
	struct kpmc_noloss_waiter waiter[KPMC_NOLOSS_WAITERS];
};

/* How a no-loss wait ended, or why none began; /proc/kpmc/info counts each. */
enum kpmc_noloss_end {
	KPMC_NOLOSS_NONE,		/* still waiting */
	KPMC_NOLOSS_DRAINED,		/* the reader brought the ring down to the low mark */
	KPMC_NOLOSS_READER_GONE,	/* the reader closed the session (or died) */
	KPMC_NOLOSS_UNLOAD,
	KPMC_NOLOSS_SIGNAL,		/* a signal (SIGKILL among them) interrupted it */
	KPMC_NOLOSS_NR_ENDS,
};

static const char *const kpmc_noloss_end_name[KPMC_NOLOSS_NR_ENDS] = {
	[KPMC_NOLOSS_DRAINED] = "drained",
	[KPMC_NOLOSS_READER_GONE] = "reader_gone",
	[KPMC_NOLOSS_UNLOAD] = "unload",
	[KPMC_NOLOSS_SIGNAL] = "signal",
};

static struct {
	atomic64_t queued;		/* waits queued on a thread (task_work added) */
	atomic64_t waits;		/* waits begun */
	atomic64_t ended[KPMC_NOLOSS_NR_ENDS];
	atomic64_t not_waited;		/* queued, but the ring was low (or the thread exiting) by then */
	atomic64_t no_waiter;		/* due, but the session's waiters were all queued */
} kpmc_noloss_stats;

/* Queued waits whose callback has not finished: module text they still run. */
static atomic_t kpmc_noloss_inflight = ATOMIC_INIT(0);
static bool kpmc_noloss_used;

static void session_wake(struct irq_work *work)
{
	struct kpmc_session *s = container_of(work, struct kpmc_session, wake);

	wake_up_interruptible(&s->wait);
}

static enum hrtimer_restart session_wake_timer(struct hrtimer *timer)
{
	struct kpmc_session *s = container_of(timer, struct kpmc_session, wake_timer);
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	s->wake_armed = false;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	wake_up_interruptible(&s->wait);
	return HRTIMER_NORESTART;
}

static void session_free(struct work_struct *work)
{
	struct kpmc_session *s = container_of(to_rcu_work(work), struct kpmc_session, free_work);
	u64 used, dropped;

	hrtimer_cancel(&s->wake_timer);
	irq_work_sync(&s->wake);
	irq_work_sync(&s->free_irq);
	/* Its close emptied it, and a closed session lists no thread. */
	WARN_ON_ONCE(!list_empty(&s->threads));
	kpmc_session_stats(s, &used, &dropped);
	if (dropped)
		pr_info("kpmc: a session ended with %llu records dropped (ring full)\n",
			dropped);
	/* Charged to its user until now (user_limits_allow). */
	if (s->listed) {
		mutex_lock(&kpmc_sessions_lock);
		list_del(&s->node);
		mutex_unlock(&kpmc_sessions_lock);
	}
	put_pid(s->owner_group);
	put_pid(s->reader_group);
	/* Mappings hold their own references to these pages: they outlive s. */
	vfree(s->slots);
	if (s->ctrl)
		free_page((unsigned long)s->ctrl);
	kfree(s->noloss);
	kfree(s);
	atomic_dec(&kpmc_sessions_alive);
}

void kpmc_session_get(struct kpmc_session *s)
{
	refcount_inc(&s->ref);
}

/*
 * The last reference can go in the switch hook, under the runqueue lock,
 * where queueing work would wake a worker: an irq_work queues the free.
 * The free waits for an RCU grace period, so that a fork may take a
 * reference to its parent's session under rcu_read_lock() alone.
 */
static void session_free_irq(struct irq_work *w)
{
	struct kpmc_session *s = container_of(w, struct kpmc_session, free_irq);

	kpmc_defer_rcu(&s->free_work);
}

/* Any context, NMI excepted: the free itself is deferred. */
void kpmc_session_put(struct kpmc_session *s)
{
	if (refcount_dec_and_test(&s->ref))
		irq_work_queue(&s->free_irq);
}

/* Under rcu_read_lock(): a reference to a session that may be on its way out. */
bool kpmc_session_tryget(struct kpmc_session *s)
{
	return refcount_inc_not_zero(&s->ref);
}

/*
 * Caller holds kpmc_sessions_lock. May s (a user's, without CAP_PERFMON)
 * hold a ring of bytes, with its other sessions as they are? One more
 * session if opening.
 */
static int user_limits_allow(struct kpmc_session *s, size_t bytes, bool opening,
			     char *why, size_t len)
{
	struct kpmc_session *o;
	unsigned int n = 1;
	u64 total = bytes;

	if (s->capable)
		return 0;
	list_for_each_entry(o, &kpmc_sessions, node) {
		if (o == s || !uid_eq(o->uid, s->uid))
			continue;
		n++;
		total += o->ring_bytes;
	}
	if (opening && n > kpmc_user_sessions) {
		snprintf(why, len,
			 "this user has %u sessions open: the limit without CAP_PERFMON is kpmc.user_sessions=%u",
			 n - 1, kpmc_user_sessions);
		return -EUSERS;
	}
	if (total > (u64)kpmc_user_ring_kb * 1024) {
		snprintf(why, len,
			 "rings of %llu KiB for this user: the limit without CAP_PERFMON is kpmc.user_ring_kb=%u",
			 total / 1024, kpmc_user_ring_kb);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Ring memory is mapped into the reader (kpmc_session_mmap): whole pages of
 * vmalloc space, zeroed (no stale kernel data reaches user space), charged to
 * the opener's memory cgroup.
 */
static struct kpmc_record *ring_alloc(u32 records)
{
	return __vmalloc(kpmc_ring_data_bytes(records, sizeof(struct kpmc_record), PAGE_SIZE),
			 GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

/* The ring's geometry in the control page (no records yet). */
static void control_describe(struct kpmc_session *s)
{
	struct kpmc_ring_control *c = s->ctrl;

	c->version = KPMC_RING_CONTROL_VERSION;
	c->record_size = sizeof(struct kpmc_record);
	c->capacity = s->pos.capacity;
	c->data_offset = PAGE_SIZE;
	c->data_size = kpmc_ring_data_bytes(s->pos.capacity, sizeof(struct kpmc_record),
					    PAGE_SIZE);
}

struct kpmc_session *kpmc_session_open(char *why, size_t len)
{
	struct kpmc_session *s, *other;
	int err;

	if (!kpmc_ring_capacity_valid(kpmc_ring_records) || kpmc_ring_records > (1u << 20)) {
		snprintf(why, len, "ring_records=%u is not a power of two up to 1048576",
			 kpmc_ring_records);
		return ERR_PTR(-EINVAL);
	}
	/* The counters are claimed when something starts counting, not here. */
	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return ERR_PTR(-ENODEV);
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&s->threads);
	s->slots = ring_alloc(kpmc_ring_records);
	s->ctrl = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!s->slots || !s->ctrl) {
		vfree(s->slots);
		if (s->ctrl)
			free_page((unsigned long)s->ctrl);
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	atomic_inc(&kpmc_sessions_alive);
	refcount_set(&s->ref, 1);
	raw_spin_lock_init(&s->lock);
	s->pos.capacity = kpmc_ring_records;
	s->per_sample = KPMC_DEFAULT_PER_SAMPLE;
	control_describe(s);
	init_waitqueue_head(&s->wait);
	init_irq_work(&s->wake, session_wake);
	/*
	 * Neither _SOFT nor _HARD: it expires in the timer interrupt itself
	 * (no softirq raised and run per wake-up), and PREEMPT_RT, whose
	 * wait-queue locks sleep, moves it to softirq context by itself.
	 */
	kpmc_hrtimer_setup(&s->wake_timer, session_wake_timer, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL);
	s->wake_mark = max(1u, kpmc_ring_records / 4);
	s->wakeup_ms = KPMC_WAKEUP_DEFAULT;
	INIT_RCU_WORK(&s->free_work, session_free);
	/* Hard: on PREEMPT_RT it queues the free at once, not from a kthread. */
	s->free_irq = IRQ_WORK_INIT_HARD(session_free_irq);
	s->owner = get_pid(task_pid(current));
	s->owner_group = get_pid(task_tgid(current));
	s->uid = current_euid();
	s->capable = perfmon_capable();
	s->ring_bytes = (size_t)kpmc_ring_records * sizeof(*s->slots);

	mutex_lock(&kpmc_sessions_lock);
	list_for_each_entry(other, &kpmc_sessions, node) {
		if (other->owner == s->owner) {
			mutex_unlock(&kpmc_sessions_lock);
			snprintf(why, len, "this thread already has a session open");
			put_pid(s->owner);
			kpmc_session_put(s);
			return ERR_PTR(-EBUSY);
		}
	}
	err = user_limits_allow(s, s->ring_bytes, true, why, len);
	if (err) {
		mutex_unlock(&kpmc_sessions_lock);
		put_pid(s->owner);
		kpmc_session_put(s);
		return ERR_PTR(err);
	}
	list_add(&s->node, &kpmc_sessions);
	s->listed = true;
	mutex_unlock(&kpmc_sessions_lock);
	return s;
}

bool kpmc_session_capable(const struct kpmc_session *s)
{
	return !READ_ONCE(s->unprivileged) && perfmon_capable();
}

/*
 * The pid namespace its records' numbers are in: its opener's, as perf
 * uses the event creator's. The owner group's pid holds it.
 */
struct pid_namespace *kpmc_session_pid_ns(const struct kpmc_session *s)
{
	return ns_of_pid(s->owner_group);
}

void kpmc_session_reader(struct kpmc_session *s)
{
	struct pid *me = task_tgid(current), *old;
	unsigned long flags;

	if (READ_ONCE(s->reader_group) == me)
		return;
	get_pid(me);
	raw_spin_lock_irqsave(&s->lock, flags);
	old = s->reader_group;
	WRITE_ONCE(s->reader_group, me);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	put_pid(old);
}

/* The session the calling thread opened, with a reference, or NULL. */
struct kpmc_session *kpmc_session_of_current(void)
{
	struct kpmc_session *s, *found = NULL;
	struct pid *me = task_pid(current);

	mutex_lock(&kpmc_sessions_lock);
	list_for_each_entry(s, &kpmc_sessions, node) {
		if (s->owner == me) {
			kpmc_session_get(s);
			found = s;
			break;
		}
	}
	mutex_unlock(&kpmc_sessions_lock);
	return found;
}

/*
 * The reader's file is closed: no more records are kept, so the ring goes
 * now; s itself stays charged to its user (user_limits_allow) until its
 * last reference goes. The first of a close's four steps (the /proc
 * release runs them): then s's system-wide CPUs and its threads let go of
 * it, and kpmc_session_release() ends it.
 */
void kpmc_session_close(struct kpmc_session *s)
{
	struct kpmc_record *slots;
	struct kpmc_noloss *nl;
	unsigned long flags;

	/*
	 * Closed first: a system-wide start or an armed attach that took s
	 * before this close checks closed under the lock that the caller's
	 * next two steps take, so either it sees closed or they see its work.
	 * Every producer checks closed under s->lock before it touches the ring.
	 */
	raw_spin_lock_irqsave(&s->lock, flags);
	s->closed = true;
	/* A reader gone stops its threads as a stop does (thread_done tests one flag). */
	WRITE_ONCE(s->stopping, true);
	nl = s->noloss;
	slots = s->slots;
	s->slots = NULL;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	/* Mappings hold their own references to its pages. */
	vfree(slots);
	mutex_lock(&kpmc_sessions_lock);
	s->ring_bytes = 0;
	mutex_unlock(&kpmc_sessions_lock);
	/* No reader will drain the ring: every thread waiting on it goes on now. */
	if (nl)
		wake_up_interruptible_all(&nl->wait);
}

/* The close's last step: s has no owner, and the file's reference goes. */
void kpmc_session_release(struct kpmc_session *s)
{
	mutex_lock(&kpmc_sessions_lock);
	put_pid(s->owner);
	s->owner = NULL;
	mutex_unlock(&kpmc_sessions_lock);
	kpmc_session_put(s);
}

/* Caller holds s->lock and has checked there is room. */
static void put_lost_record(struct kpmc_session *s, struct kpmc_record *slot, u64 lost)
{
	memset(slot, 0, sizeof(*slot));
	slot->version = KPMC_RECORD_VERSION;
	slot->size = sizeof(*slot);
	slot->kind = KPMC_REC_LOST;
	slot->cpu = raw_smp_processor_id();
	slot->lost = lost;
}

/*
 * Caller holds s->lock. A mapped reader's progress: data_tail, as far as
 * the kernel can trust it (kpmc_ring_clamp_tail). The acquire orders the
 * reader's last reads of the slots it gave back before our next writes.
 */
static void sync_reader_tail(struct kpmc_session *s)
{
	u64 reader_tail;

	if (!s->mapped)
		return;
	/* Pairs with the reader's store-release of data_tail after its last read. */
	reader_tail = smp_load_acquire(&s->ctrl->data_tail);
	s->pos.tail = kpmc_ring_clamp_tail(&s->pos, reader_tail);
	/*
	 * A tail not taken as written (behind the kernel's, or past head) is
	 * answered once: the control page gets the kernel's. Left there, the
	 * same value would also throw away every record written after it,
	 * the LOST record that tells of them included, and a read() that
	 * poll() had sent would sleep with nothing left to take.
	 */
	if (s->pos.tail != reader_tail)
		WRITE_ONCE(s->ctrl->data_tail, s->pos.tail);
}

/* Caller holds s->lock: the records written so far are the mapped reader's to take. */
static void publish(struct kpmc_session *s)
{
	WRITE_ONCE(s->ctrl->lost, s->pos.dropped);
	/* The slots are written before the reader's load-acquire of data_head sees them. */
	smp_store_release(&s->ctrl->data_head, s->pos.head);
}

/*
 * Caller holds s->lock. Loss is told in the ring itself, before the next
 * record that fits or once the reader has made room, so that a mapped
 * reader and read() see the same records in the same order.
 */
static void tell_loss(struct kpmc_session *s)
{
	long slot;

	if (!s->pos.unreported || !kpmc_ring_has_room(&s->pos))
		return;
	slot = kpmc_ring_reserve(&s->pos);
	put_lost_record(s, &s->slots[slot], kpmc_ring_take_unreported(&s->pos));
	kpmc_ring_produced(&s->pos);
}

/* ---- no-loss mode ---- */

/*
 * Caller holds s->lock. May the producer make the thread of this record
 * wait? Only the thread itself, interrupted in user mode: its work then
 * runs at once, on the interrupt's way back there (a thread in the kernel
 * could sleep in a system call for long with the work queued, and unload
 * waits for every queued work). Never the session's reader itself, which
 * would wait for itself.
 */
static bool noloss_may_wait(struct kpmc_session *s, u32 tid)
{
	struct pt_regs *regs = get_irq_regs();

	struct pid *group = task_tgid(current);

	/* tid: the record's, in the session's pid namespace. */
	return tid && tid == (u32)task_pid_nr_ns(current, kpmc_session_pid_ns(s)) &&
	       !in_nmi() && regs && user_mode(regs) &&
	       !(current->flags & (PF_KTHREAD | PF_EXITING)) &&
	       group != s->owner_group && group != s->reader_group;
}

/* Does a task of thread group g (a reference held) still live? */
static bool group_alive(struct pid *g)
{
	bool alive;

	if (!g)
		return false;
	rcu_read_lock();
	alive = pid_task(g, PIDTYPE_TGID);
	rcu_read_unlock();
	return alive;
}

/*
 * Caller holds s->lock: a free waiter of s for thread tid, with a session
 * reference and counted in flight; NULL when tid has one queued already
 * (one wait covers all it produces before user mode) or none is free.
 */
static struct kpmc_noloss_waiter *noloss_claim(struct kpmc_session *s, pid_t tid)
{
	struct kpmc_noloss_waiter *w, *free = NULL;
	unsigned int i;

	for (i = 0; i < KPMC_NOLOSS_WAITERS; i++) {
		w = &s->noloss->waiter[i];
		if (w->tid == tid)
			return NULL;
		if (!w->tid && !free)
			free = w;
	}
	if (!free) {
		atomic64_inc(&kpmc_noloss_stats.no_waiter);
		return NULL;
	}
	free->tid = tid;
	refcount_inc(&s->ref);
	atomic_inc(&kpmc_noloss_inflight);
	WRITE_ONCE(kpmc_noloss_used, true);
	return free;
}

/*
 * The waiter is done with (its wait ended, or it never got queued). The
 * last statement: unload waits for the in-flight count, then for every
 * task to leave this module's code (kpmc_sessions_exit).
 */
static void noloss_unclaim(struct kpmc_session *s, struct kpmc_noloss_waiter *w)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	w->tid = 0;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	kpmc_session_put(s);
	atomic_dec(&kpmc_noloss_inflight);
}

/* Caller holds s->lock: why a waiting thread may go on, or KPMC_NOLOSS_NONE. */
static enum kpmc_noloss_end noloss_check(struct kpmc_session *s)
{
	if (READ_ONCE(kpmc_unloading))
		return KPMC_NOLOSS_UNLOAD;
	if (s->closed || (!group_alive(s->owner_group) && !group_alive(s->reader_group)))
		return KPMC_NOLOSS_READER_GONE;
	sync_reader_tail(s);
	if (kpmc_ring_used(&s->pos) <= s->noloss->low)
		return KPMC_NOLOSS_DRAINED;
	return KPMC_NOLOSS_NONE;
}

static enum kpmc_noloss_end noloss_check_locked(struct kpmc_session *s)
{
	enum kpmc_noloss_end end;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	end = noloss_check(s);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return end;
}

/* Caller holds s->lock: have the reader's takes released threads that wait? */
static bool noloss_drained(struct kpmc_session *s)
{
	return s->noloss && s->noloss->waiting && kpmc_ring_used(&s->pos) <= s->noloss->low;
}

/*
 * One recheck period of a no-loss wait (end: why it may end). Only a
 * signal ends the wait, not other task work (io_uring's TIF_NOTIFY_SIGNAL,
 * which signal_pending() reports too, and which runs only after this work
 * returns): with such work pending an interruptible sleep would not sleep,
 * so that period sleeps killable. Negative: a signal is pending.
 */
static long noloss_sleep(struct kpmc_session *s, enum kpmc_noloss_end *end)
{
	wait_queue_head_t *wq = &s->noloss->wait;
	long period = msecs_to_jiffies(KPMC_NOLOSS_RECHECK_MS);

	if (signal_pending(current) && !task_sigpending(current))
		return wait_event_killable_timeout(*wq,
			(*end = noloss_check_locked(s)) != KPMC_NOLOSS_NONE, period);
	return wait_event_interruptible_timeout(*wq,
		(*end = noloss_check_locked(s)) != KPMC_NOLOSS_NONE, period);
}

/*
 * The task_work: the monitored thread, on its way back to user mode (or
 * exiting), waits until the reader has made room.
 */
static void noloss_wait_work(struct callback_head *work)
{
	struct kpmc_noloss_waiter *w = container_of(work, struct kpmc_noloss_waiter, work);
	struct kpmc_session *s = w->session;
	struct kpmc_noloss *nl = s->noloss;
	enum kpmc_noloss_end end;
	unsigned long flags;
	bool waiting;
	long left;

	raw_spin_lock_irqsave(&s->lock, flags);
	end = noloss_check(s);
	/* An exiting thread (the work runs from exit_task_work) has no more samples. */
	waiting = end == KPMC_NOLOSS_NONE && !(current->flags & PF_EXITING);
	if (waiting) {
		nl->waiting++;
		s->ctrl->noloss_waits = ++nl->waits;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (!waiting) {
		atomic64_inc(&kpmc_noloss_stats.not_waited);
		noloss_unclaim(s, w);
		return;
	}
	atomic64_inc(&kpmc_noloss_stats.waits);
	do {
		left = noloss_sleep(s, &end);
		if (left < 0 && (task_sigpending(current) || fatal_signal_pending(current)))
			end = KPMC_NOLOSS_SIGNAL;
	} while (end == KPMC_NOLOSS_NONE);
	raw_spin_lock_irqsave(&s->lock, flags);
	nl->waiting--;
	s->ctrl->noloss_releases = ++nl->releases;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	atomic64_inc(&kpmc_noloss_stats.ended[end]);
	noloss_unclaim(s, w);
}

/* Not under s->lock: queue the wait on current (the thread noloss_may_wait() named). */
static void noloss_queue(struct kpmc_session *s, struct kpmc_noloss_waiter *w)
{
	if (!task_work_add(current, &w->work, KPMC_TWA_RESUME_FROM_IRQ)) {
		atomic64_inc(&kpmc_noloss_stats.queued);
		return;
	}
	/* It is past its last return to user mode: exiting. */
	atomic64_inc(&kpmc_noloss_stats.not_waited);
	noloss_unclaim(s, w);
}

static struct kpmc_noloss *noloss_new(struct kpmc_session *s)
{
	struct kpmc_noloss *nl = kzalloc(sizeof(*nl), GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!nl)
		return NULL;
	init_waitqueue_head(&nl->wait);
	for (i = 0; i < KPMC_NOLOSS_WAITERS; i++) {
		nl->waiter[i].session = s;
		init_task_work(&nl->waiter[i].work, noloss_wait_work);
	}
	return nl;
}

/* Caller holds s->lock: the control page's flags, from the kernel's state (never read back). */
static void control_flags(struct kpmc_session *s)
{
	WRITE_ONCE(s->ctrl->flags, (s->noloss ? KPMC_RING_F_NOLOSS : 0) |
		   (READ_ONCE(kpmc_unloading) ? KPMC_RING_F_UNLOADING : 0));
}

/* Caller holds s->lock: the marks in force, and in the control page. */
static void noloss_set_marks(struct kpmc_session *s, u32 high, u32 low)
{
	s->noloss->high = high;
	s->noloss->low = low;
	s->ctrl->noloss_high = high;
	s->ctrl->noloss_low = low;
	control_flags(s);
}

static void noloss_too_small(char *why, size_t len, u32 capacity, u32 per_sample)
{
	snprintf(why, len,
		 "noloss with a ring of %u records: samples of up to %u records need %llu (%d samples and %d records in flight), a ring of %llu",
		 capacity, per_sample, kpmc_ring_noloss_headroom(per_sample),
		 KPMC_NOLOSS_SAMPLES_IN_FLIGHT, KPMC_NOLOSS_SINGLES_IN_FLIGHT,
		 kpmc_ring_noloss_min_capacity(per_sample));
}

int kpmc_session_set_headroom(struct kpmc_session *s, unsigned int records_per_sample,
			      char *why, size_t len)
{
	u32 per_sample, high, low;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	/* The largest sample of any of the session's configurations counts. */
	per_sample = max_t(u32, s->per_sample, records_per_sample);
	if (s->noloss && kpmc_ring_noloss_marks(s->pos.capacity, per_sample, &high, &low)) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		noloss_too_small(why, len, s->pos.capacity, per_sample);
		return -ENOSPC;
	}
	s->per_sample = per_sample;
	if (s->noloss)
		noloss_set_marks(s, high, low);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

/* ---- producers ---- */

/*
 * The reader is woken within delay_ms: in its last sixteenth, so that the
 * wake-up can share the interrupt of a timer that expires then (the fold
 * and sampling tick, the scheduler's) instead of taking one of its own.
 */
static void arm_wake_timer(struct kpmc_session *s, unsigned int delay_ms)
{
	u64 delay = (u64)delay_ms * NSEC_PER_MSEC, slack = delay / 16;

	hrtimer_start_range_ns(&s->wake_timer, ns_to_ktime(delay - slack), slack,
			       HRTIMER_MODE_REL);
}

/*
 * Caller holds s->lock (taken with *flags) and has put records in the ring
 * (fits) or counted them dropped: publish them, have the reader woken (at
 * once or within wakeup_ms) and, in no-loss mode, the thread of tid wait.
 * Lets go of the lock.
 */
static void pushed(struct kpmc_session *s, bool fits, u32 tid, unsigned long flags)
{
	/* The session's delay, or the module's; none for the watermark alone. */
	bool timed = s->wakeup_ms != KPMC_WAKEUP_WATERMARK;
	unsigned int delay_ms = s->wakeup_ms >= 0 ? s->wakeup_ms : READ_ONCE(kpmc_wakeup_ms);
	struct kpmc_noloss_waiter *waiter = NULL;
	bool wake = false, arm = false;

	publish(s);
	/* No-loss: past the high mark, the thread waits before its next user instruction. */
	if (s->noloss && (!fits || kpmc_ring_used(&s->pos) > s->noloss->high) &&
	    noloss_may_wait(s, tid))
		waiter = noloss_claim(s, tid);
	/* A full ring (records dropped), or one a thread waits on, must be drained now. */
	if (!fits || waiter || (timed && !delay_ms) ||
	    kpmc_ring_used(&s->pos) >= s->wake_mark)
		wake = true;
	else if (timed && !s->wake_armed)
		arm = s->wake_armed = true;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (waiter)
		noloss_queue(s, waiter);
	if (wake)
		irq_work_queue(&s->wake);
	else if (arm)
		arm_wake_timer(s, delay_ms);
}

/*
 * n records of one sample (a sampling format's parts follow their sample):
 * all of them or, when the ring has no room for all, none (each counted
 * dropped), so that a reader never sees a sample without its parts.
 */
void kpmc_session_push_n(struct kpmc_session *s, const struct kpmc_record *recs,
			 unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	bool fits;
	long slot;

	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->closed || !n) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	s->records_in += n;
	sync_reader_tail(s);
	tell_loss(s);
	fits = kpmc_ring_used(&s->pos) + n <= s->pos.capacity;
	for (i = 0; i < n; i++) {
		if (!fits) {
			s->pos.dropped++;
			s->pos.unreported++;
			continue;
		}
		slot = kpmc_ring_reserve(&s->pos);
		s->slots[slot] = recs[i];
		kpmc_ring_produced(&s->pos);
	}
	pushed(s, fits, recs[0].tid, flags);
}

/*
 * A record written where the reader takes it (no copy): the next slot,
 * with s->lock held (IRQs saved in *flags) until kpmc_session_commit(); or
 * NULL, the lock not held, when the session is closed or the ring full (the
 * caller builds the record elsewhere and pushes it, which counts it).
 */
struct kpmc_record *kpmc_session_reserve(struct kpmc_session *s, unsigned long *flags)
{
	raw_spin_lock_irqsave(&s->lock, *flags);
	if (!s->closed) {
		sync_reader_tail(s);
		tell_loss(s);
		if (kpmc_ring_has_room(&s->pos)) {
			s->records_in++;
			return &s->slots[kpmc_ring_reserve(&s->pos)];
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, *flags);
	return NULL;
}

/* The record kpmc_session_reserve() gave is written: the reader's to take. */
void kpmc_session_commit(struct kpmc_session *s, const struct kpmc_record *rec,
			 unsigned long flags)
{
	kpmc_ring_produced(&s->pos);
	pushed(s, true, rec->tid, flags);
}

void kpmc_session_lose(struct kpmc_session *s, unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	s->pos.dropped += n;
	s->pos.unreported += n;
	WRITE_ONCE(s->ctrl->lost, s->pos.dropped);
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

void kpmc_session_push(struct kpmc_session *s, const struct kpmc_record *rec)
{
	kpmc_session_push_n(s, rec, 1);
}

void kpmc_session_stats(struct kpmc_session *s, u64 *used, u64 *dropped)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	*used = kpmc_ring_used(&s->pos);
	*dropped = s->pos.dropped;
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/* ---- the reader ---- */

/*
 * Up to max records for read(), from the tail a mapped reader shares;
 * *release: threads waiting in no-loss mode may go on.
 */
static u32 take_records(struct kpmc_session *s, struct kpmc_record *out, u32 max,
			bool *release)
{
	unsigned long flags;
	u32 n = 0, got, first, i;

	raw_spin_lock_irqsave(&s->lock, flags);
	sync_reader_tail(s);
	while (n < max) {
		tell_loss(s);
		got = kpmc_ring_peek(&s->pos, max - n, &first);
		if (!got)
			break;
		for (i = 0; i < got; i++)
			out[n + i] = s->slots[(first + i) & (s->pos.capacity - 1)];
		kpmc_ring_consumed(&s->pos, got);
		n += got;
	}
	publish(s);
	/* The tail read() and a mapped reader share: the mapped one goes on from here. */
	WRITE_ONCE(s->ctrl->data_tail, s->pos.tail);
	*release = noloss_drained(s);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return n;
}

/* Anything for the reader? A loss not told yet is put in the ring for it. */
static bool has_records(struct kpmc_session *s, bool *release)
{
	unsigned long flags;
	bool any;

	raw_spin_lock_irqsave(&s->lock, flags);
	sync_reader_tail(s);
	tell_loss(s);
	publish(s);
	/* Loss not told yet stays only in a full ring. */
	any = kpmc_ring_used(&s->pos);
	if (release)
		*release = noloss_drained(s);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return any;
}

/*
 * "ring=N" and "noloss", before the session's first record. records 0:
 * the size stays. Applies whole or not at all.
 */
static int ring_configure(struct kpmc_session *s, u32 records, bool noloss, char *why,
			  size_t len)
{
	struct kpmc_record *slots = NULL, *old = NULL;
	struct kpmc_noloss *nl = NULL;
	size_t old_bytes = 0;
	u32 capacity, high = 0, low = 0;
	unsigned long flags;
	int err;

	if (records &&
	    (!kpmc_ring_capacity_valid(records) || records < 2 || records > (1u << 20))) {
		snprintf(why, len, "ring=%u: want a power of two from 2 to 1048576", records);
		return -EINVAL;
	}
	if (noloss && !READ_ONCE(s->noloss)) {
		nl = noloss_new(s);
		if (!nl)
			return -ENOMEM;
	}
	if (records) {
		/* Reserve the new size against the user's limit, then allocate. */
		mutex_lock(&kpmc_sessions_lock);
		err = user_limits_allow(s, (size_t)records * sizeof(*slots), false, why, len);
		if (!err) {
			old_bytes = s->ring_bytes;
			s->ring_bytes = max_t(size_t, old_bytes, (size_t)records * sizeof(*slots));
		}
		mutex_unlock(&kpmc_sessions_lock);
		if (err) {
			kfree(nl);
			return err;
		}
		slots = ring_alloc(records);
		if (!slots) {
			err = -ENOMEM;
			goto out;
		}
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	capacity = records ? records : s->pos.capacity;
	if (s->records_in) {
		if (records)
			snprintf(why, len, "ring=%u: the session already has records", records);
		else
			snprintf(why, len, "noloss: the session already has records");
		err = -EBUSY;
	} else if (records && s->mapped) {
		snprintf(why, len, "ring=%u: the ring of %u records is mapped; its size is fixed",
			 records, s->pos.capacity);
		err = -EBUSY;
	} else if ((noloss || s->noloss) &&
		   kpmc_ring_noloss_marks(capacity, s->per_sample, &high, &low)) {
		noloss_too_small(why, len, capacity, s->per_sample);
		err = -ENOSPC;
	} else {
		err = 0;
		if (records) {
			old = s->slots;
			s->slots = slots;
			slots = NULL;
			s->pos.capacity = records;
			s->wake_mark = max(1u, records / 4);
			control_describe(s);
		}
		if (nl && !s->noloss) {
			s->noloss = nl;
			nl = NULL;
		}
		if (s->noloss)
			noloss_set_marks(s, high, low);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
out:
	kfree(nl);
	vfree(slots);
	vfree(old);
	if (records) {
		/* The reservation becomes the ring's size, or goes. */
		mutex_lock(&kpmc_sessions_lock);
		s->ring_bytes = err ? old_bytes : (size_t)records * sizeof(struct kpmc_record);
		mutex_unlock(&kpmc_sessions_lock);
	}
	return err;
}

/*
 * Resize the ring of a session that has produced nothing yet (the CLI's -k,
 * written to the monitor file before monitoring starts).
 */
int kpmc_session_resize(struct kpmc_session *s, u32 records, char *why, size_t len)
{
	return ring_configure(s, records, false, why, len);
}

/*
 * "wakeup=MS" (0: every record) or "wakeup=watermark" (no timer: records
 * wake the reader once the ring is a quarter full, or full): at any time;
 * a wake-up timer already started still fires once.
 */
static int wakeup_configure(struct kpmc_session *s, const char *arg, size_t len,
			    char *why, size_t whylen)
{
	char q[KPMC_QUOTE_MAX + 2];
	unsigned long flags;
	int policy;
	u64 ms;

	if (len == 9 && !memcmp(arg, "watermark", 9)) {
		policy = KPMC_WAKEUP_WATERMARK;
	} else if (!kpmc_parse_u64(arg, len, &ms) && ms <= KPMC_WAKEUP_MAX_MS) {
		policy = (int)ms;
	} else {
		kpmc_quote_token(q, sizeof(q), arg, len);
		snprintf(why, whylen,
			 "wakeup='%s': expected a delay in ms (0 to %d) or watermark",
			 q, KPMC_WAKEUP_MAX_MS);
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	s->wakeup_ms = policy;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

int kpmc_session_command(struct kpmc_session *s, const char *buf, size_t len,
			 char *why, size_t whylen)
{
	const char *comma = memchr(buf, ',', len);
	size_t number_end = comma ? (size_t)(comma - buf) : len;
	char q[KPMC_QUOTE_MAX + 2];
	bool noloss = false;
	u64 n;

	if (len == 6 && !memcmp(buf, "noloss", 6))
		return ring_configure(s, 0, true, why, whylen);
	/* One way: a session cannot take its privileges back. */
	if (len == 12 && !memcmp(buf, "unprivileged", 12)) {
		WRITE_ONCE(s->unprivileged, true);
		return 0;
	}
	if (len > 7 && !memcmp(buf, "wakeup=", 7))
		return wakeup_configure(s, buf + 7, len - 7, why, whylen);
	if (comma && len - number_end == 7 && !memcmp(comma, ",noloss", 7))
		noloss = true;
	if (number_end <= 5 || memcmp(buf, "ring=", 5) || (comma && !noloss) ||
	    kpmc_parse_u64(buf + 5, number_end - 5, &n) || n > U32_MAX) {
		kpmc_quote_token(q, sizeof(q), buf, len);
		snprintf(why, whylen,
			 "'%s': expected ring=N, ring=N,noloss, noloss, wakeup=MS, wakeup=watermark or unprivileged",
			 q);
		return -EINVAL;
	}
	return ring_configure(s, (u32)n, noloss, why, whylen);
}

/* ---- the mapped ring ---- */

int kpmc_session_mmap(struct kpmc_session *s, struct vm_area_struct *vma, char *why, size_t len)
{
	unsigned long bytes = vma->vm_end - vma->vm_start, off;
	enum kpmc_ring_map_part part;
	struct kpmc_record *slots;
	unsigned long flags;
	u64 data_bytes;
	int err;

	kpmc_session_reader(s);
	if (!(vma->vm_flags & VM_SHARED)) {
		snprintf(why, len, "mmap of the ring with MAP_PRIVATE: the kernel writes it, map it MAP_SHARED");
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	data_bytes = kpmc_ring_data_bytes(s->pos.capacity, sizeof(*slots), PAGE_SIZE);
	part = kpmc_ring_map_part(vma->vm_pgoff, bytes, PAGE_SIZE, data_bytes);
	slots = s->slots;
	/* Mapped: the slots stay (ring_configure refuses a new size). */
	if (part == KPMC_RING_MAP_CONTROL ||
	    (part == KPMC_RING_MAP_DATA && !(vma->vm_flags & VM_WRITE)))
		s->mapped = true;
	raw_spin_unlock_irqrestore(&s->lock, flags);

	switch (part) {
	case KPMC_RING_MAP_BAD_OFFSET:
		snprintf(why, len,
			 "mmap at offset %lu pages: the control page is at offset 0, the %llu bytes of records at offset %lu",
			 vma->vm_pgoff, data_bytes, PAGE_SIZE);
		return -EINVAL;
	case KPMC_RING_MAP_BAD_LENGTH:
		snprintf(why, len,
			 "mmap of %lu bytes at offset %lu pages: the control page (offset 0) is %lu bytes, the records (offset %lu) %llu",
			 bytes, vma->vm_pgoff, PAGE_SIZE, PAGE_SIZE, data_bytes);
		return -EINVAL;
	case KPMC_RING_MAP_DATA:
		if (vma->vm_flags & VM_WRITE) {
			snprintf(why, len,
				 "mmap of the records with PROT_WRITE: they are read-only (the reader writes only data_tail, in the control page)");
			return -EPERM;
		}
		break;
	case KPMC_RING_MAP_CONTROL:
		break;
	}
	/* Not inherited by fork(): a child is no reader of this session. */
	kpmc_vm_flags_mod(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			  part == KPMC_RING_MAP_DATA ? VM_MAYWRITE : 0);
	if (part == KPMC_RING_MAP_CONTROL)
		return vm_insert_page(vma, vma->vm_start, virt_to_page(s->ctrl));
	for (off = 0; off < bytes; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((char *)slots + off));
		if (err)
			return err;
	}
	return 0;
}

ssize_t kpmc_session_read(struct kpmc_session *s, char __user *buf, size_t len,
			  bool nonblock)
{
	u32 max = min_t(size_t, len / sizeof(struct kpmc_record), KPMC_READ_BATCH);
	struct kpmc_record *bounce;
	bool release = false;
	ssize_t ret;
	u32 n;

	if (!max)
		return -EINVAL;
	kpmc_session_reader(s);
	/*
	 * A reader's last non-blocking read of a batch finds the ring empty:
	 * that answer costs no 16 KiB bounce buffer (an order-2 page
	 * allocation and free, ~2500 instructions per reader wakeup).
	 */
	if (nonblock && !READ_ONCE(kpmc_unloading) && !has_records(s, &release)) {
		if (release)
			wake_up_interruptible_all(&s->noloss->wait);
		return -EAGAIN;
	}
	bounce = kmalloc_array(max, sizeof(*bounce), GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (;;) {
		if (READ_ONCE(kpmc_unloading)) {
			ret = -EIO;
			goto out;
		}
		n = take_records(s, bounce, max, &release);
		if (release)
			wake_up_interruptible_all(&s->noloss->wait);
		if (n)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(s->wait, has_records(s, NULL) ||
					       READ_ONCE(kpmc_unloading));
		if (ret)
			goto out;
	}
	ret = n * sizeof(*bounce);
	if (copy_to_user(buf, bounce, ret))
		ret = -EFAULT;
out:
	kfree(bounce);
	return ret;
}

__poll_t kpmc_session_poll(struct kpmc_session *s, struct file *f, poll_table *pt)
{
	bool release = false, any;

	kpmc_session_reader(s);
	poll_wait(f, &s->wait, pt);
	if (READ_ONCE(kpmc_unloading))
		return EPOLLERR | EPOLLHUP;
	/* A mapped reader's poll after it advanced data_tail frees no-loss waits. */
	any = has_records(s, &release);
	if (release)
		wake_up_interruptible_all(&s->noloss->wait);
	return any ? EPOLLIN | EPOLLRDNORM : 0;
}

unsigned int kpmc_sessions_live(void)
{
	return atomic_read(&kpmc_sessions_alive);
}

void kpmc_sessions_show(struct seq_file *m)
{
	enum kpmc_noloss_end e;

	seq_printf(m, "noloss: queued %lld waits %lld",
		   (long long)atomic64_read(&kpmc_noloss_stats.queued),
		   (long long)atomic64_read(&kpmc_noloss_stats.waits));
	for (e = KPMC_NOLOSS_DRAINED; e < KPMC_NOLOSS_NR_ENDS; e++)
		seq_printf(m, " %s %lld", kpmc_noloss_end_name[e],
			   (long long)atomic64_read(&kpmc_noloss_stats.ended[e]));
	seq_printf(m, " not_waited %lld no_waiter %lld\n",
		   (long long)atomic64_read(&kpmc_noloss_stats.not_waited),
		   (long long)atomic64_read(&kpmc_noloss_stats.no_waiter));
}

/*
 * Unloading: readers blocked in read() must return before /proc goes away,
 * and threads waiting for a reader in no-loss mode go on.
 */
void kpmc_sessions_shutdown(void)
{
	struct kpmc_session *s;
	unsigned long flags;

	WRITE_ONCE(kpmc_unloading, true);
	mutex_lock(&kpmc_sessions_lock);
	list_for_each_entry(s, &kpmc_sessions, node) {
		/* A mapped reader, which may not call read() or poll(), sees it here. */
		raw_spin_lock_irqsave(&s->lock, flags);
		control_flags(s);
		raw_spin_unlock_irqrestore(&s->lock, flags);
		wake_up_interruptible_all(&s->wait);
		if (READ_ONCE(s->noloss))
			wake_up_interruptible_all(&s->noloss->wait);
	}
	mutex_unlock(&kpmc_sessions_lock);
}

/* Threads are freed: every session reference left is gone or going. */
void kpmc_sessions_exit(void)
{
	int i;

	/*
	 * No-loss waits run this module's code in their threads: released by
	 * kpmc_sessions_shutdown() (or never begun: unloading), each ends at
	 * once, and a queued one runs as its thread returns to user mode.
	 */
	for (i = 0; atomic_read(&kpmc_noloss_inflight); i++) {
		if (i == 100)
			pr_warn("kpmc: unload waits for %d threads to leave their no-loss wait\n",
				atomic_read(&kpmc_noloss_inflight));
		usleep_range(10000, 20000);
	}
	/* The last of them may still be returning through this module's text. */
	if (READ_ONCE(kpmc_noloss_used))
		synchronize_rcu_tasks();
	if (atomic64_read(&kpmc_noloss_stats.ended[KPMC_NOLOSS_UNLOAD]))
		pr_info("kpmc: the unload released %lld no-loss waits\n",
			(long long)atomic64_read(&kpmc_noloss_stats.ended[KPMC_NOLOSS_UNLOAD]));
	/* A last put's irq_work may still be on its way to the queue. */
	for (i = 0; i < 100 && atomic_read(&kpmc_sessions_alive); i++) {
		kpmc_flush_deferred();
		if (atomic_read(&kpmc_sessions_alive))
			usleep_range(10000, 20000);
	}
	kpmc_flush_deferred();
	if (atomic_read(&kpmc_sessions_alive))
		pr_err("kpmc: leak: %d sessions not freed\n",
		       atomic_read(&kpmc_sessions_alive));
}
