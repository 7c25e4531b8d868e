// SPDX-License-Identifier: GPL-2.0
/*
 * A session's ring of records, as an object of its own (as perf's struct
 * perf_buffer is apart from its event): the slots and their positions, the
 * control page a mapped reader shares, lost records told in-band, the
 * wake-up policy, and no-loss waits. Its session holds one reference; a
 * thread made to wait in no-loss mode holds another, so a wait never
 * keeps a closed session alive, only the ring it waits on. Producers run
 * on any CPU in any context (scheduler, hard IRQ, exit), so the ring is
 * guarded by a raw spinlock and readers are woken through irq_work, never
 * directly from under the runqueue lock.
 *
 * The mapped ring's ordering, producer (any CPU, under r->lock) against a
 * mapped reader (user space, no lock):
 *
 *   producer                            reader
 *   load-acquire  ctrl->data_tail  <--  store-release ctrl->data_tail
 *     (the slots it gave back are         (after its last read of the
 *      read before they are rewritten)     slots it gives back)
 *   write the slots
 *   store-release ctrl->data_head  -->  load-acquire  ctrl->data_head
 *                                         (then reads the slots)
 *
 * A tail the kernel cannot trust (behind its own, past head) is clamped
 * and written back once (sync_reader_tail); read() and a mapped reader
 * share the one tail.
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
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/vmalloc.h>
#include <linux/task_work.h>
#include <linux/seq_file.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <asm/irq_regs.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_ring.h"

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

/* Records copied out per read() call at most. */
#define KPMC_READ_BATCH	64
/* The largest ring: 2^20 records. */
#define KPMC_RING_MAX_RECORDS	(1u << 20)

/*
 * No-loss mode. The producer runs where it cannot sleep, so a thread that
 * fills the ring is made to wait later, in its own context: a task_work
 * (TWA_RESUME) queued from the interrupt that took its sample runs as the
 * thread returns to user mode. Its callback_head cannot live in the thread
 * state (freed at exit before exit_task_work runs the work), and the
 * producer may not allocate: each no-loss ring has a fixed pool of
 * waiters, each holding a reference to its ring while queued.
 */
#define KPMC_NOLOSS_WAITERS	64
/* A mapped reader advances data_tail without a system call: waits recheck it this often. */
#define KPMC_NOLOSS_RECHECK_MS	10
/* The most records one sample takes until kpmc_ring_set_headroom says: EBS and its MEM. */
#define KPMC_DEFAULT_PER_SAMPLE	2

struct kpmc_noloss_waiter {
	struct callback_head work;
	struct kpmc_ring *ring;
	pid_t tid;			/* the thread it is queued for; 0: free; under r->lock */
};

struct kpmc_noloss {
	u32 high, low;			/* kpmc_ring_noloss_marks() */
	unsigned int waiting;		/* threads inside the wait now; under r->lock */
	u64 waits, releases;		/* this ring's, for its control page; under r->lock */
	wait_queue_head_t wait;
	struct kpmc_noloss_waiter waiter[KPMC_NOLOSS_WAITERS];
};

struct kpmc_ring {
	refcount_t ref;
	struct list_head node;		/* kpmc_rings, until freed */
	raw_spinlock_t lock;		/* producers (any CPU, any context) vs reader */
	struct kpmc_ring_pos pos;
	struct kpmc_record *slots;	/* NULL once closed */
	bool closed;			/* the reader is gone: no more records */
	u64 records_in;			/* records pushed (kept + dropped) */
	/* The control page a mapped reader shares; once mapped, the size is fixed. */
	struct kpmc_ring_control *ctrl;
	bool mapped;
	/*
	 * The thread groups that read r: its session's opener's, and the last
	 * to read, poll or map it (under lock). Their threads never wait on r
	 * in no-loss mode (they would wait for themselves), and r's reader is
	 * gone once neither group lives (a child that inherited the file
	 * keeps it open, and may not read it). The opener's also gives the
	 * pid namespace of the records' thread ids.
	 */
	struct pid *opener_group;
	struct pid *reader_group;
	/* Wake-ups. */
	wait_queue_head_t wait;
	struct irq_work wake;		/* wake readers from scheduler context */
	struct hrtimer wake_timer;	/* batched wakeup: at most wakeup_ms late */
	bool wake_armed;		/* wake_timer started, not yet fired */
	u32 wake_mark;			/* records in the ring that wake at once */
	int wakeup_ms;			/* KPMC_WAKEUP_* or ms */
	/* No-loss mode: NULL while off. */
	struct kpmc_noloss *noloss;
	u32 per_sample;			/* most records one sample takes */
	struct irq_work free_irq;	/* the last put queues the free from any context */
	struct work_struct free_work;	/* the free, in process context */
};

/*
 * How long producers hold a ring's lock and wait for it, per record pushed:
 * the figure that says whether one ring fed by many CPUs needs per-CPU
 * staging. Off by default (a static branch: nothing in the hot path); on,
 * each producer reads local_clock() three times. Writing 1 starts from zero.
 */
struct ring_lock_cpu {
	u64 since;		/* local_clock() at this CPU's acquisition */
	u64 holds, hold_ns, hold_max_ns, wait_ns;
};
static DEFINE_PER_CPU(struct ring_lock_cpu, ring_lock_cpu);
static DEFINE_STATIC_KEY_FALSE(ring_lock_timed);
static bool ring_lock_stats;

static int ring_lock_stats_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int cpu, err = kstrtobool(val, &on);

	if (err) {
		pr_warn("kpmc: ring_lock_stats: '%.16s' is not 0 or 1\n", val);
		return err;
	}
	if (on && !ring_lock_stats) {
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(&ring_lock_cpu, cpu), 0, sizeof(struct ring_lock_cpu));
		static_branch_enable(&ring_lock_timed);
	} else if (!on && ring_lock_stats) {
		static_branch_disable(&ring_lock_timed);
	}
	ring_lock_stats = on;
	return 0;
}

static const struct kernel_param_ops ring_lock_stats_ops = {
	.set = ring_lock_stats_set,
	.get = param_get_bool,
};
module_param_cb(ring_lock_stats, &ring_lock_stats_ops, &ring_lock_stats, 0644);
MODULE_PARM_DESC(ring_lock_stats, "time producers' holds of and waits for ring locks (info: ring_lock)");

/* A producer takes r->lock: the wait for it, and when the hold began. */
static inline void producer_lock(struct kpmc_ring *r, unsigned long *flags)
{
	struct ring_lock_cpu *c;
	u64 t0;

	if (!static_branch_unlikely(&ring_lock_timed)) {
		raw_spin_lock_irqsave(&r->lock, *flags);
		return;
	}
	t0 = local_clock();
	raw_spin_lock_irqsave(&r->lock, *flags);
	c = this_cpu_ptr(&ring_lock_cpu);
	c->since = local_clock();
	c->wait_ns += c->since - t0;
}

static inline void producer_unlock(struct kpmc_ring *r, unsigned long flags)
{
	struct ring_lock_cpu *c;
	u64 held;

	if (static_branch_unlikely(&ring_lock_timed)) {
		c = this_cpu_ptr(&ring_lock_cpu);
		/* Enabled while this hold was in progress: it has no start. */
		if (c->since) {
			held = local_clock() - c->since;
			c->holds++;
			c->hold_ns += held;
			if (held > c->hold_max_ns)
				c->hold_max_ns = held;
			c->since = 0;
		}
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

static LIST_HEAD(kpmc_rings);
static DEFINE_MUTEX(kpmc_rings_lock);
static atomic_t kpmc_rings_alive = ATOMIC_INIT(0);
static bool kpmc_unloading;

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
	atomic64_t no_waiter;		/* due, but the ring's waiters were all queued */
} kpmc_noloss_stats;

/* Queued waits whose callback has not finished: module text they still run. */
static atomic_t kpmc_noloss_inflight = ATOMIC_INIT(0);
static bool kpmc_noloss_used;

/* ---- life ---- */

static void ring_wake(struct irq_work *work)
{
	struct kpmc_ring *r = container_of(work, struct kpmc_ring, wake);

	wake_up_interruptible(&r->wait);
}

static enum hrtimer_restart ring_wake_timer(struct hrtimer *timer)
{
	struct kpmc_ring *r = container_of(timer, struct kpmc_ring, wake_timer);
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	r->wake_armed = false;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	wake_up_interruptible(&r->wait);
	return HRTIMER_NORESTART;
}

static void ring_free(struct work_struct *work)
{
	struct kpmc_ring *r = container_of(work, struct kpmc_ring, free_work);

	hrtimer_cancel(&r->wake_timer);
	irq_work_sync(&r->wake);
	irq_work_sync(&r->free_irq);
	if (r->pos.dropped)
		pr_info("kpmc: a session ended with %llu records dropped (ring full)\n",
			r->pos.dropped);
	mutex_lock(&kpmc_rings_lock);
	list_del(&r->node);
	mutex_unlock(&kpmc_rings_lock);
	put_pid(r->opener_group);
	put_pid(r->reader_group);
	/* Mappings hold their own references to these pages: they outlive r. */
	vfree(r->slots);
	free_page((unsigned long)r->ctrl);
	kfree(r->noloss);
	kfree(r);
	atomic_dec(&kpmc_rings_alive);
}

/*
 * The last reference can go where queueing work would wake a worker under
 * a scheduler lock (a no-loss wait that could not be queued gives its
 * reference back in the producer): an irq_work queues the free.
 */
static void ring_free_irq(struct irq_work *w)
{
	struct kpmc_ring *r = container_of(w, struct kpmc_ring, free_irq);

	kpmc_defer(&r->free_work);
}

static void ring_get(struct kpmc_ring *r)
{
	refcount_inc(&r->ref);
}

/* Any context, NMI excepted: the free itself is deferred. */
void kpmc_ring_put(struct kpmc_ring *r)
{
	if (refcount_dec_and_test(&r->ref))
		irq_work_queue(&r->free_irq);
}

static int records_valid(u32 records, const char *what, char *why, size_t len)
{
	if (kpmc_ring_capacity_valid(records) && records >= 2 &&
	    records <= KPMC_RING_MAX_RECORDS)
		return 0;
	snprintf(why, len, "%s=%u: want a power of two from 2 to %u", what, records,
		 KPMC_RING_MAX_RECORDS);
	return -EINVAL;
}

int kpmc_ring_records_valid(u32 records, char *why, size_t len)
{
	return records_valid(records, "ring", why, len);
}

/*
 * Ring memory is mapped into the reader (kpmc_ring_mmap): whole pages of
 * vmalloc space, zeroed (no stale kernel data reaches user space), charged to
 * the opener's memory cgroup.
 */
static struct kpmc_record *slots_alloc(u32 records)
{
	return __vmalloc(kpmc_ring_data_bytes(records, sizeof(struct kpmc_record), PAGE_SIZE),
			 GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

/* The ring's geometry in the control page (no records yet). */
static void control_describe(struct kpmc_ring *r)
{
	struct kpmc_ring_control *c = r->ctrl;

	c->version = KPMC_RING_CONTROL_VERSION;
	c->record_size = sizeof(struct kpmc_record);
	c->capacity = r->pos.capacity;
	c->data_offset = PAGE_SIZE;
	c->data_size = kpmc_ring_data_bytes(r->pos.capacity, sizeof(struct kpmc_record),
					    PAGE_SIZE);
}

struct kpmc_ring *kpmc_ring_new(struct pid *opener_group, char *why, size_t len)
{
	u32 records = READ_ONCE(kpmc_ring_records);
	struct kpmc_ring *r;

	if (records_valid(records, "ring_records", why, len))
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->slots = slots_alloc(records);
	r->ctrl = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!r->slots || !r->ctrl) {
		vfree(r->slots);
		if (r->ctrl)
			free_page((unsigned long)r->ctrl);
		kfree(r);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&r->ref, 1);
	raw_spin_lock_init(&r->lock);
	r->pos.capacity = records;
	r->per_sample = KPMC_DEFAULT_PER_SAMPLE;
	control_describe(r);
	init_waitqueue_head(&r->wait);
	init_irq_work(&r->wake, ring_wake);
	/*
	 * Neither _SOFT nor _HARD: it expires in the timer interrupt itself
	 * (no softirq raised and run per wake-up), and PREEMPT_RT, whose
	 * wait-queue locks sleep, moves it to softirq context by itself.
	 */
	kpmc_hrtimer_setup(&r->wake_timer, ring_wake_timer, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL);
	r->wake_mark = max(1u, records / 4);
	r->wakeup_ms = KPMC_WAKEUP_DEFAULT;
	INIT_WORK(&r->free_work, ring_free);
	/* Hard: on PREEMPT_RT it queues the free at once, not from a kthread. */
	r->free_irq = IRQ_WORK_INIT_HARD(ring_free_irq);
	r->opener_group = get_pid(opener_group);
	atomic_inc(&kpmc_rings_alive);
	mutex_lock(&kpmc_rings_lock);
	list_add(&r->node, &kpmc_rings);
	mutex_unlock(&kpmc_rings_lock);
	return r;
}

u32 kpmc_ring_capacity(struct kpmc_ring *r)
{
	return READ_ONCE(r->pos.capacity);
}

/*
 * The reader is gone: no more records are kept, so the slots go now, and
 * every thread waiting for room goes on. r itself stays until its last
 * reference goes.
 */
void kpmc_ring_close(struct kpmc_ring *r)
{
	struct kpmc_record *slots;
	struct kpmc_noloss *nl;
	unsigned long flags;

	/* Every producer checks closed under r->lock before it touches the slots. */
	raw_spin_lock_irqsave(&r->lock, flags);
	r->closed = true;
	nl = r->noloss;
	slots = r->slots;
	r->slots = NULL;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	/* Mappings hold their own references to its pages. */
	vfree(slots);
	/* No reader will drain the ring: every thread waiting on it goes on now. */
	if (nl)
		wake_up_interruptible_all(&nl->wait);
}

/* Process context: the calling thread's group reads r. */
static void ring_reader(struct kpmc_ring *r)
{
	struct pid *me = task_tgid(current), *old;
	unsigned long flags;

	if (READ_ONCE(r->reader_group) == me)
		return;
	get_pid(me);
	raw_spin_lock_irqsave(&r->lock, flags);
	old = r->reader_group;
	WRITE_ONCE(r->reader_group, me);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	put_pid(old);
}

/* ---- positions, the control page, loss ---- */

/* Caller holds r->lock and has checked there is room. */
static void put_lost_record(struct kpmc_record *slot, u64 lost)
{
	memset(slot, 0, sizeof(*slot));
	slot->version = KPMC_RECORD_VERSION;
	slot->size = sizeof(*slot);
	slot->kind = KPMC_REC_LOST;
	slot->cpu = raw_smp_processor_id();
	slot->lost = lost;
}

/*
 * Caller holds r->lock. A mapped reader's progress: data_tail, as far as
 * the kernel can trust it (kpmc_ring_clamp_tail). The acquire orders the
 * reader's last reads of the slots it gave back before our next writes.
 */
static void sync_reader_tail(struct kpmc_ring *r)
{
	u64 reader_tail;

	if (!r->mapped)
		return;
	/* Pairs with the reader's store-release of data_tail after its last read. */
	reader_tail = smp_load_acquire(&r->ctrl->data_tail);
	r->pos.tail = kpmc_ring_clamp_tail(&r->pos, reader_tail);
	/*
	 * A tail not taken as written (behind the kernel's, or past head) is
	 * answered once: the control page gets the kernel's. Left there, the
	 * same value would also throw away every record written after it,
	 * the LOST record that tells of them included, and a read() that
	 * poll() had sent would sleep with nothing left to take.
	 */
	if (r->pos.tail != reader_tail)
		WRITE_ONCE(r->ctrl->data_tail, r->pos.tail);
}

/* Caller holds r->lock: the records written so far are the mapped reader's to take. */
static void publish(struct kpmc_ring *r)
{
	WRITE_ONCE(r->ctrl->lost, r->pos.dropped);
	/* The slots are written before the reader's load-acquire of data_head sees them. */
	smp_store_release(&r->ctrl->data_head, r->pos.head);
}

/*
 * Caller holds r->lock. Loss is told in the ring itself, before the next
 * record that fits or once the reader has made room, so that a mapped
 * reader and read() see the same records in the same order.
 */
static void tell_loss(struct kpmc_ring *r)
{
	long slot;

	if (!r->pos.unreported || !kpmc_ring_has_room(&r->pos))
		return;
	slot = kpmc_ring_reserve(&r->pos);
	put_lost_record(&r->slots[slot], kpmc_ring_take_unreported(&r->pos));
	kpmc_ring_produced(&r->pos);
}

/* Caller holds r->lock: the control page's flags, from the kernel's state (never read back). */
static void control_flags(struct kpmc_ring *r)
{
	WRITE_ONCE(r->ctrl->flags, (r->noloss ? KPMC_RING_F_NOLOSS : 0) |
		   (READ_ONCE(kpmc_unloading) ? KPMC_RING_F_UNLOADING : 0));
}

/* ---- no-loss mode ---- */

/*
 * Caller holds r->lock. May the producer make the thread of this record
 * wait? Only the thread itself, interrupted in user mode: its work then
 * runs at once, on the interrupt's way back there (a thread in the kernel
 * could sleep in a system call for long with the work queued, and unload
 * waits for every queued work). Never the ring's reader itself, which
 * would wait for itself.
 */
static bool noloss_may_wait(struct kpmc_ring *r, u32 tid)
{
	struct pt_regs *regs = get_irq_regs();
	struct pid *group = task_tgid(current);

	/* tid: the record's, in the pid namespace of the ring's opener. */
	return tid && tid == (u32)task_pid_nr_ns(current, ns_of_pid(r->opener_group)) &&
	       !in_nmi() && regs && user_mode(regs) &&
	       !(current->flags & (PF_KTHREAD | PF_EXITING)) &&
	       group != r->opener_group && group != r->reader_group;
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
 * Caller holds r->lock: a free waiter of r for thread tid, with a ring
 * reference and counted in flight; NULL when tid has one queued already
 * (one wait covers all it produces before user mode) or none is free.
 */
static struct kpmc_noloss_waiter *noloss_claim(struct kpmc_ring *r, pid_t tid)
{
	struct kpmc_noloss_waiter *w, *free = NULL;
	unsigned int i;

	for (i = 0; i < KPMC_NOLOSS_WAITERS; i++) {
		w = &r->noloss->waiter[i];
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
	ring_get(r);
	atomic_inc(&kpmc_noloss_inflight);
	WRITE_ONCE(kpmc_noloss_used, true);
	return free;
}

/*
 * The waiter is done with (its wait ended, or it never got queued). The
 * last statement: unload waits for the in-flight count, then for every
 * task to leave this module's code (kpmc_rings_exit).
 */
static void noloss_unclaim(struct kpmc_ring *r, struct kpmc_noloss_waiter *w)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	w->tid = 0;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	kpmc_ring_put(r);
	atomic_dec(&kpmc_noloss_inflight);
}

/* Caller holds r->lock: why a waiting thread may go on, or KPMC_NOLOSS_NONE. */
static enum kpmc_noloss_end noloss_check(struct kpmc_ring *r)
{
	if (READ_ONCE(kpmc_unloading))
		return KPMC_NOLOSS_UNLOAD;
	if (r->closed || (!group_alive(r->opener_group) && !group_alive(r->reader_group)))
		return KPMC_NOLOSS_READER_GONE;
	sync_reader_tail(r);
	if (kpmc_ring_used(&r->pos) <= r->noloss->low)
		return KPMC_NOLOSS_DRAINED;
	return KPMC_NOLOSS_NONE;
}

static enum kpmc_noloss_end noloss_check_locked(struct kpmc_ring *r)
{
	enum kpmc_noloss_end end;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	end = noloss_check(r);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return end;
}

/* Caller holds r->lock: have the reader's takes released threads that wait? */
static bool noloss_drained(struct kpmc_ring *r)
{
	return r->noloss && r->noloss->waiting && kpmc_ring_used(&r->pos) <= r->noloss->low;
}

/*
 * One recheck period of a no-loss wait (end: why it may end). Only a
 * signal ends the wait, not other task work (io_uring's TIF_NOTIFY_SIGNAL,
 * which signal_pending() reports too, and which runs only after this work
 * returns): with such work pending an interruptible sleep would not sleep,
 * so that period sleeps killable. Negative: a signal is pending.
 */
static long noloss_sleep(struct kpmc_ring *r, enum kpmc_noloss_end *end)
{
	wait_queue_head_t *wq = &r->noloss->wait;
	long period = msecs_to_jiffies(KPMC_NOLOSS_RECHECK_MS);

	if (signal_pending(current) && !task_sigpending(current))
		return wait_event_killable_timeout(*wq,
			(*end = noloss_check_locked(r)) != KPMC_NOLOSS_NONE, period);
	return wait_event_interruptible_timeout(*wq,
		(*end = noloss_check_locked(r)) != KPMC_NOLOSS_NONE, period);
}

/*
 * The task_work: the monitored thread, on its way back to user mode (or
 * exiting), waits until the reader has made room.
 */
static void noloss_wait_work(struct callback_head *work)
{
	struct kpmc_noloss_waiter *w = container_of(work, struct kpmc_noloss_waiter, work);
	struct kpmc_ring *r = w->ring;
	struct kpmc_noloss *nl = r->noloss;
	enum kpmc_noloss_end end;
	unsigned long flags;
	bool waiting;
	long left;

	raw_spin_lock_irqsave(&r->lock, flags);
	end = noloss_check(r);
	/* An exiting thread (the work runs from exit_task_work) has no more samples. */
	waiting = end == KPMC_NOLOSS_NONE && !(current->flags & PF_EXITING);
	if (waiting) {
		nl->waiting++;
		r->ctrl->noloss_waits = ++nl->waits;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	if (!waiting) {
		atomic64_inc(&kpmc_noloss_stats.not_waited);
		noloss_unclaim(r, w);
		return;
	}
	atomic64_inc(&kpmc_noloss_stats.waits);
	do {
		left = noloss_sleep(r, &end);
		if (left < 0 && (task_sigpending(current) || fatal_signal_pending(current)))
			end = KPMC_NOLOSS_SIGNAL;
	} while (end == KPMC_NOLOSS_NONE);
	raw_spin_lock_irqsave(&r->lock, flags);
	nl->waiting--;
	r->ctrl->noloss_releases = ++nl->releases;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	atomic64_inc(&kpmc_noloss_stats.ended[end]);
	noloss_unclaim(r, w);
}

/* Not under r->lock: queue the wait on current (the thread noloss_may_wait() named). */
static void noloss_queue(struct kpmc_ring *r, struct kpmc_noloss_waiter *w)
{
	if (!task_work_add(current, &w->work, KPMC_TWA_RESUME_FROM_IRQ)) {
		atomic64_inc(&kpmc_noloss_stats.queued);
		return;
	}
	/* It is past its last return to user mode: exiting. */
	atomic64_inc(&kpmc_noloss_stats.not_waited);
	noloss_unclaim(r, w);
}

static struct kpmc_noloss *noloss_new(struct kpmc_ring *r)
{
	struct kpmc_noloss *nl = kzalloc(sizeof(*nl), GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!nl)
		return NULL;
	init_waitqueue_head(&nl->wait);
	for (i = 0; i < KPMC_NOLOSS_WAITERS; i++) {
		nl->waiter[i].ring = r;
		init_task_work(&nl->waiter[i].work, noloss_wait_work);
	}
	return nl;
}

/* Caller holds r->lock: the marks in force, and in the control page. */
static void noloss_set_marks(struct kpmc_ring *r, u32 high, u32 low)
{
	r->noloss->high = high;
	r->noloss->low = low;
	r->ctrl->noloss_high = high;
	r->ctrl->noloss_low = low;
	control_flags(r);
}

static void noloss_too_small(char *why, size_t len, u32 capacity, u32 per_sample)
{
	snprintf(why, len,
		 "noloss with a ring of %u records: samples of up to %u records need %llu (%d samples and %d records in flight), a ring of %llu",
		 capacity, per_sample, kpmc_ring_noloss_headroom(per_sample),
		 KPMC_NOLOSS_SAMPLES_IN_FLIGHT, KPMC_NOLOSS_SINGLES_IN_FLIGHT,
		 kpmc_ring_noloss_min_capacity(per_sample));
}

int kpmc_ring_set_headroom(struct kpmc_ring *r, unsigned int records_per_sample,
			   char *why, size_t len)
{
	u32 per_sample, high, low;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	/* The largest sample of any of the session's configurations counts. */
	per_sample = max_t(u32, r->per_sample, records_per_sample);
	if (r->noloss && kpmc_ring_noloss_marks(r->pos.capacity, per_sample, &high, &low)) {
		raw_spin_unlock_irqrestore(&r->lock, flags);
		noloss_too_small(why, len, r->pos.capacity, per_sample);
		return -ENOSPC;
	}
	r->per_sample = per_sample;
	if (r->noloss)
		noloss_set_marks(r, high, low);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return 0;
}

/* ---- producers ---- */

/*
 * The reader is woken within delay_ms: in its last sixteenth, so that the
 * wake-up can share the interrupt of a timer that expires then (the fold
 * and sampling tick, the scheduler's) instead of taking one of its own.
 */
static void arm_wake_timer(struct kpmc_ring *r, unsigned int delay_ms)
{
	u64 delay = (u64)delay_ms * NSEC_PER_MSEC, slack = delay / 16;

	hrtimer_start_range_ns(&r->wake_timer, ns_to_ktime(delay - slack), slack,
			       HRTIMER_MODE_REL);
}

/*
 * Caller holds r->lock (taken with flags) and has put records in the ring
 * (fits) or counted them dropped: publish them, have the reader woken (at
 * once or within wakeup_ms) and, in no-loss mode, the thread of tid wait.
 * Lets go of the lock.
 */
static void pushed(struct kpmc_ring *r, bool fits, u32 tid, unsigned long flags)
{
	/* The ring's delay, or the module's; none for the watermark alone. */
	bool timed = r->wakeup_ms != KPMC_WAKEUP_WATERMARK;
	unsigned int delay_ms = r->wakeup_ms >= 0 ? r->wakeup_ms : READ_ONCE(kpmc_wakeup_ms);
	struct kpmc_noloss_waiter *waiter = NULL;
	bool wake = false, arm = false;

	publish(r);
	/* No-loss: past the high mark, the thread waits before its next user instruction. */
	if (r->noloss && (!fits || kpmc_ring_used(&r->pos) > r->noloss->high) &&
	    noloss_may_wait(r, tid))
		waiter = noloss_claim(r, tid);
	/* A full ring (records dropped), or one a thread waits on, must be drained now. */
	if (!fits || waiter || (timed && !delay_ms) ||
	    kpmc_ring_used(&r->pos) >= r->wake_mark)
		wake = true;
	else if (timed && !r->wake_armed)
		arm = r->wake_armed = true;
	producer_unlock(r, flags);
	if (waiter)
		noloss_queue(r, waiter);
	if (wake)
		irq_work_queue(&r->wake);
	else if (arm)
		arm_wake_timer(r, delay_ms);
}

/*
 * n records of one sample (a sampling format's parts follow their sample):
 * all of them or, when the ring has no room for all, none (each counted
 * dropped), so that a reader never sees a sample without its parts.
 */
void kpmc_ring_push_n(struct kpmc_ring *r, const struct kpmc_record *recs, unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	bool fits;
	long slot;

	producer_lock(r, &flags);
	if (r->closed || !n) {
		producer_unlock(r, flags);
		return;
	}
	r->records_in += n;
	sync_reader_tail(r);
	tell_loss(r);
	fits = kpmc_ring_used(&r->pos) + n <= r->pos.capacity;
	for (i = 0; i < n; i++) {
		if (!fits) {
			r->pos.dropped++;
			r->pos.unreported++;
			continue;
		}
		slot = kpmc_ring_reserve(&r->pos);
		r->slots[slot] = recs[i];
		kpmc_ring_produced(&r->pos);
	}
	pushed(r, fits, recs[0].tid, flags);
}

void kpmc_ring_push(struct kpmc_ring *r, const struct kpmc_record *rec)
{
	kpmc_ring_push_n(r, rec, 1);
}

void kpmc_ring_lose(struct kpmc_ring *r, unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	r->pos.dropped += n;
	r->pos.unreported += n;
	WRITE_ONCE(r->ctrl->lost, r->pos.dropped);
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

void kpmc_ring_counts(struct kpmc_ring *r, u64 *used, u64 *dropped)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	*used = kpmc_ring_used(&r->pos);
	*dropped = r->pos.dropped;
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

/* ---- configuration ---- */

/*
 * "ring=N" and "noloss", before the ring's first record. records 0: the
 * size stays. Applies whole or not at all.
 */
int kpmc_ring_configure(struct kpmc_ring *r, u32 records, bool noloss, char *why, size_t len)
{
	struct kpmc_record *slots = NULL, *old = NULL;
	struct kpmc_noloss *nl = NULL;
	u32 capacity, high = 0, low = 0;
	unsigned long flags;
	int err;

	if (records) {
		err = kpmc_ring_records_valid(records, why, len);
		if (err)
			return err;
	}
	if (noloss && !READ_ONCE(r->noloss)) {
		nl = noloss_new(r);
		if (!nl)
			return -ENOMEM;
	}
	if (records) {
		slots = slots_alloc(records);
		if (!slots) {
			kfree(nl);
			return -ENOMEM;
		}
	}
	raw_spin_lock_irqsave(&r->lock, flags);
	capacity = records ? records : r->pos.capacity;
	if (r->records_in) {
		if (records)
			snprintf(why, len, "ring=%u: the session already has records", records);
		else
			snprintf(why, len, "noloss: the session already has records");
		err = -EBUSY;
	} else if (records && r->mapped) {
		snprintf(why, len, "ring=%u: the ring of %u records is mapped; its size is fixed",
			 records, r->pos.capacity);
		err = -EBUSY;
	} else if ((noloss || r->noloss) &&
		   kpmc_ring_noloss_marks(capacity, r->per_sample, &high, &low)) {
		noloss_too_small(why, len, capacity, r->per_sample);
		err = -ENOSPC;
	} else {
		err = 0;
		/* A closed ring takes no slots: its reader is gone. */
		if (records && !r->closed) {
			old = r->slots;
			r->slots = slots;
			slots = NULL;
			r->pos.capacity = records;
			r->wake_mark = max(1u, records / 4);
			control_describe(r);
		}
		if (nl && !r->noloss) {
			r->noloss = nl;
			nl = NULL;
		}
		if (r->noloss)
			noloss_set_marks(r, high, low);
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	kfree(nl);
	vfree(slots);
	vfree(old);
	return err;
}

/* KPMC_WAKEUP_DEFAULT, KPMC_WAKEUP_WATERMARK or ms; a timer already started still fires once. */
void kpmc_ring_set_wakeup(struct kpmc_ring *r, int policy)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&r->lock, flags);
	r->wakeup_ms = policy;
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

/* ---- the reader ---- */

/*
 * Up to max records for read(), from the tail a mapped reader shares;
 * *release: threads waiting in no-loss mode may go on.
 */
static u32 take_records(struct kpmc_ring *r, struct kpmc_record *out, u32 max, bool *release)
{
	unsigned long flags;
	u32 n = 0, got, first, i;

	raw_spin_lock_irqsave(&r->lock, flags);
	sync_reader_tail(r);
	while (n < max) {
		tell_loss(r);
		got = kpmc_ring_peek(&r->pos, max - n, &first);
		if (!got)
			break;
		for (i = 0; i < got; i++)
			out[n + i] = r->slots[(first + i) & (r->pos.capacity - 1)];
		kpmc_ring_consumed(&r->pos, got);
		n += got;
	}
	publish(r);
	/* The tail read() and a mapped reader share: the mapped one goes on from here. */
	WRITE_ONCE(r->ctrl->data_tail, r->pos.tail);
	*release = noloss_drained(r);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return n;
}

/* Anything for the reader? A loss not told yet is put in the ring for it. */
static bool has_records(struct kpmc_ring *r, bool *release)
{
	unsigned long flags;
	bool any;

	raw_spin_lock_irqsave(&r->lock, flags);
	sync_reader_tail(r);
	tell_loss(r);
	publish(r);
	/* Loss not told yet stays only in a full ring. */
	any = kpmc_ring_used(&r->pos);
	if (release)
		*release = noloss_drained(r);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return any;
}

int kpmc_ring_mmap(struct kpmc_ring *r, struct vm_area_struct *vma, char *why, size_t len)
{
	unsigned long bytes = vma->vm_end - vma->vm_start, off;
	enum kpmc_ring_map_part part;
	struct kpmc_record *slots;
	unsigned long flags;
	u64 data_bytes;
	int err;

	ring_reader(r);
	if (!(vma->vm_flags & VM_SHARED)) {
		snprintf(why, len, "mmap of the ring with MAP_PRIVATE: the kernel writes it, map it MAP_SHARED");
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&r->lock, flags);
	data_bytes = kpmc_ring_data_bytes(r->pos.capacity, sizeof(*slots), PAGE_SIZE);
	part = kpmc_ring_map_part(vma->vm_pgoff, bytes, PAGE_SIZE, data_bytes);
	slots = r->slots;
	/* Mapped: the slots stay (kpmc_ring_configure refuses a new size). */
	if (part == KPMC_RING_MAP_CONTROL ||
	    (part == KPMC_RING_MAP_DATA && !(vma->vm_flags & VM_WRITE)))
		r->mapped = true;
	raw_spin_unlock_irqrestore(&r->lock, flags);

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
	/* Not inherited by fork(): a child is no reader of this ring. */
	kpmc_vm_flags_mod(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			  part == KPMC_RING_MAP_DATA ? VM_MAYWRITE : 0);
	if (part == KPMC_RING_MAP_CONTROL)
		return vm_insert_page(vma, vma->vm_start, virt_to_page(r->ctrl));
	for (off = 0; off < bytes; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((char *)slots + off));
		if (err)
			return err;
	}
	return 0;
}

ssize_t kpmc_ring_read(struct kpmc_ring *r, char __user *buf, size_t len, bool nonblock)
{
	u32 max = min_t(size_t, len / sizeof(struct kpmc_record), KPMC_READ_BATCH);
	struct kpmc_record *bounce;
	bool release = false;
	ssize_t ret;
	u32 n;

	if (!max)
		return -EINVAL;
	ring_reader(r);
	/*
	 * A reader's last non-blocking read of a batch finds the ring empty:
	 * that answer costs no 16 KiB bounce buffer (an order-2 page
	 * allocation and free, ~2500 instructions per reader wakeup).
	 */
	if (nonblock && !READ_ONCE(kpmc_unloading) && !has_records(r, &release)) {
		if (release)
			wake_up_interruptible_all(&r->noloss->wait);
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
		n = take_records(r, bounce, max, &release);
		if (release)
			wake_up_interruptible_all(&r->noloss->wait);
		if (n)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(r->wait, has_records(r, NULL) ||
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

__poll_t kpmc_ring_poll(struct kpmc_ring *r, struct file *f, poll_table *pt)
{
	bool release = false, any;

	ring_reader(r);
	poll_wait(f, &r->wait, pt);
	if (READ_ONCE(kpmc_unloading))
		return EPOLLERR | EPOLLHUP;
	/* A mapped reader's poll after it advanced data_tail frees no-loss waits. */
	any = has_records(r, &release);
	if (release)
		wake_up_interruptible_all(&r->noloss->wait);
	return any ? EPOLLIN | EPOLLRDNORM : 0;
}

/* ---- all rings ---- */

void kpmc_rings_show(struct seq_file *m)
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
	if (ring_lock_stats) {
		u64 holds = 0, hold_ns = 0, max_ns = 0, wait_ns = 0;
		int cpu;

		for_each_possible_cpu(cpu) {
			const struct ring_lock_cpu *c = per_cpu_ptr(&ring_lock_cpu, cpu);

			holds += READ_ONCE(c->holds);
			hold_ns += READ_ONCE(c->hold_ns);
			wait_ns += READ_ONCE(c->wait_ns);
			max_ns = max(max_ns, READ_ONCE(c->hold_max_ns));
		}
		seq_printf(m, "ring_lock: holds %llu hold_ns %llu hold_max_ns %llu wait_ns %llu\n",
			   holds, hold_ns, max_ns, wait_ns);
	}
}

/*
 * Unloading: readers blocked in read() must return before /proc goes away,
 * and threads waiting for a reader in no-loss mode go on.
 */
void kpmc_rings_shutdown(void)
{
	struct kpmc_ring *r;
	unsigned long flags;

	WRITE_ONCE(kpmc_unloading, true);
	mutex_lock(&kpmc_rings_lock);
	list_for_each_entry(r, &kpmc_rings, node) {
		/* A mapped reader, which may not call read() or poll(), sees it here. */
		raw_spin_lock_irqsave(&r->lock, flags);
		control_flags(r);
		raw_spin_unlock_irqrestore(&r->lock, flags);
		wake_up_interruptible_all(&r->wait);
		if (READ_ONCE(r->noloss))
			wake_up_interruptible_all(&r->noloss->wait);
	}
	mutex_unlock(&kpmc_rings_lock);
}

/* Sessions are freed: every ring reference left is a no-loss wait's, gone or going. */
void kpmc_rings_exit(void)
{
	int i;

	/*
	 * No-loss waits run this module's code in their threads: released by
	 * kpmc_rings_shutdown() (or never begun: unloading), each ends at
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
	for (i = 0; i < 100 && atomic_read(&kpmc_rings_alive); i++) {
		kpmc_flush_deferred();
		if (atomic_read(&kpmc_rings_alive))
			usleep_range(10000, 20000);
	}
	kpmc_flush_deferred();
	if (atomic_read(&kpmc_rings_alive))
		pr_err("kpmc: leak: %d rings not freed\n", atomic_read(&kpmc_rings_alive));
}
