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
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/capability.h>
#include <linux/cred.h>

#include "kpmc/compat.h"
#include "kpmc/core.h"

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
 * What a user without CAP_PERFMON may make the kernel hold (review A5), as
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
	kpmc_session_stats(s, &used, &dropped);
	if (dropped)
		pr_info("kpmc: a session ended with %llu records dropped (ring full)\n",
			dropped);
	kvfree(s->slots);
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
	s->slots = kvcalloc(kpmc_ring_records, sizeof(*s->slots), GFP_KERNEL_ACCOUNT);
	if (!s->slots) {
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	atomic_inc(&kpmc_sessions_alive);
	refcount_set(&s->ref, 1);
	raw_spin_lock_init(&s->lock);
	s->pos.capacity = kpmc_ring_records;
	init_waitqueue_head(&s->wait);
	init_irq_work(&s->wake, session_wake);
	kpmc_hrtimer_setup(&s->wake_timer, session_wake_timer, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_SOFT);
	s->wake_mark = max(1u, kpmc_ring_records / 4);
	INIT_RCU_WORK(&s->free_work, session_free);
	/* Hard: on PREEMPT_RT it queues the free at once, not from a kthread. */
	s->free_irq = IRQ_WORK_INIT_HARD(session_free_irq);
	s->owner = get_pid(task_pid(current));
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
	mutex_unlock(&kpmc_sessions_lock);
	return s;
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

/* The reader's file is closed: no more records are kept. */
void kpmc_session_close(struct kpmc_session *s)
{
	unsigned long flags;

	/*
	 * Closed first: a system-wide start or an armed attach that took s
	 * before this close checks closed under the lock that the two calls
	 * below take, so either it sees closed or they see its work.
	 */
	raw_spin_lock_irqsave(&s->lock, flags);
	s->closed = true;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	kpmc_system_session_closed(s);
	/* Counting threads see closed at their next switch-in; armed ones never would. */
	kpmc_threads_session_closed(s);
	mutex_lock(&kpmc_sessions_lock);
	list_del(&s->node);
	mutex_unlock(&kpmc_sessions_lock);
	put_pid(s->owner);
	s->owner = NULL;
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
 * n records of one sample (a sampling format's parts follow their sample):
 * all of them or, when the ring has no room for all, none (each counted
 * dropped), so that a reader never sees a sample without its parts.
 */
void kpmc_session_push_n(struct kpmc_session *s, const struct kpmc_record *recs,
			 unsigned int n)
{
	unsigned int delay_ms = READ_ONCE(kpmc_wakeup_ms);
	bool wake = false, arm = false, fits;
	unsigned long flags;
	unsigned int i;
	long slot;

	raw_spin_lock_irqsave(&s->lock, flags);
	if (!s->closed) {
		s->records_in += n;
		if (s->pos.unreported && kpmc_ring_has_room(&s->pos)) {
			slot = kpmc_ring_reserve(&s->pos);
			put_lost_record(s, &s->slots[slot], kpmc_ring_take_unreported(&s->pos));
			kpmc_ring_produced(&s->pos);
		}
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
		/* A full ring (records dropped) must be drained now. */
		if (!fits || !delay_ms || kpmc_ring_used(&s->pos) >= s->wake_mark)
			wake = true;
		else if (!s->wake_armed)
			arm = s->wake_armed = true;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (wake)
		irq_work_queue(&s->wake);
	else if (arm)
		hrtimer_start(&s->wake_timer, ms_to_ktime(delay_ms), HRTIMER_MODE_REL_SOFT);
}

void kpmc_session_lose(struct kpmc_session *s, unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	s->pos.dropped += n;
	s->pos.unreported += n;
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

static u32 take_records(struct kpmc_session *s, struct kpmc_record *out, u32 max)
{
	unsigned long flags;
	u32 n, first, i;

	raw_spin_lock_irqsave(&s->lock, flags);
	n = kpmc_ring_peek(&s->pos, max, &first);
	for (i = 0; i < n; i++)
		out[i] = s->slots[(first + i) & (s->pos.capacity - 1)];
	kpmc_ring_consumed(&s->pos, n);
	/* The ring is empty: a loss not told yet is told now. */
	if (n < max && !kpmc_ring_used(&s->pos) && s->pos.unreported)
		put_lost_record(s, &out[n++], kpmc_ring_take_unreported(&s->pos));
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return n;
}

static bool has_records(struct kpmc_session *s)
{
	unsigned long flags;
	bool any;

	raw_spin_lock_irqsave(&s->lock, flags);
	any = kpmc_ring_used(&s->pos) || s->pos.unreported;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return any;
}

/*
 * Resize the ring of a session that has produced nothing yet (the CLI's -k,
 * written to the monitor file before monitoring starts).
 */
int kpmc_session_resize(struct kpmc_session *s, u32 records, char *why, size_t len)
{
	struct kpmc_record *slots, *old;
	size_t old_bytes = 0;
	unsigned long flags;
	int err;

	if (!kpmc_ring_capacity_valid(records) || records < 2 || records > (1u << 20)) {
		snprintf(why, len, "ring=%u: want a power of two from 2 to 1048576", records);
		return -EINVAL;
	}
	/* Reserve the new size against the user's limit, then allocate. */
	mutex_lock(&kpmc_sessions_lock);
	err = user_limits_allow(s, (size_t)records * sizeof(*slots), false, why, len);
	if (!err) {
		old_bytes = s->ring_bytes;
		s->ring_bytes = max_t(size_t, old_bytes, (size_t)records * sizeof(*slots));
	}
	mutex_unlock(&kpmc_sessions_lock);
	if (err)
		return err;
	slots = kvcalloc(records, sizeof(*slots), GFP_KERNEL_ACCOUNT);
	if (!slots) {
		mutex_lock(&kpmc_sessions_lock);
		s->ring_bytes = old_bytes;
		mutex_unlock(&kpmc_sessions_lock);
		return -ENOMEM;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->records_in) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		kvfree(slots);
		mutex_lock(&kpmc_sessions_lock);
		s->ring_bytes = old_bytes;
		mutex_unlock(&kpmc_sessions_lock);
		snprintf(why, len, "ring=%u: the session already has records", records);
		return -EBUSY;
	}
	old = s->slots;
	s->slots = slots;
	s->pos.capacity = records;
	s->wake_mark = max(1u, records / 4);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	mutex_lock(&kpmc_sessions_lock);
	s->ring_bytes = (size_t)records * sizeof(*slots);
	mutex_unlock(&kpmc_sessions_lock);
	kvfree(old);
	return 0;
}

ssize_t kpmc_session_read(struct kpmc_session *s, char __user *buf, size_t len,
			  bool nonblock)
{
	u32 max = min_t(size_t, len / sizeof(struct kpmc_record), KPMC_READ_BATCH);
	struct kpmc_record *bounce;
	ssize_t ret;
	u32 n;

	if (!max)
		return -EINVAL;
	bounce = kmalloc_array(max, sizeof(*bounce), GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	for (;;) {
		if (READ_ONCE(kpmc_unloading)) {
			ret = -EIO;
			goto out;
		}
		n = take_records(s, bounce, max);
		if (n)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(s->wait, has_records(s) ||
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
	poll_wait(f, &s->wait, pt);
	if (READ_ONCE(kpmc_unloading))
		return EPOLLERR | EPOLLHUP;
	return has_records(s) ? EPOLLIN | EPOLLRDNORM : 0;
}

unsigned int kpmc_sessions_live(void)
{
	return atomic_read(&kpmc_sessions_alive);
}


/* Unloading: readers blocked in read() must return before /proc goes away. */
void kpmc_sessions_shutdown(void)
{
	struct kpmc_session *s;

	WRITE_ONCE(kpmc_unloading, true);
	mutex_lock(&kpmc_sessions_lock);
	list_for_each_entry(s, &kpmc_sessions, node)
		wake_up_interruptible_all(&s->wait);
	mutex_unlock(&kpmc_sessions_lock);
}

/* Threads are freed: every session reference left is gone or going. */
void kpmc_sessions_exit(void)
{
	int i;

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
