// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring sessions: one per open of /proc/kpmc/monitor. A session is who
 * monitors (its opener, the user it is charged to, what it may see), the
 * threads it took, and a reference to its ring of records (ring.c), which
 * producers write to directly. Its monitor file's commands are parsed here.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/moduleparam.h>
#include <linux/delay.h>
#include <linux/capability.h>
#include <linux/cred.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"

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

static LIST_HEAD(kpmc_sessions);
static DEFINE_MUTEX(kpmc_sessions_lock);
static atomic_t kpmc_sessions_alive = ATOMIC_INIT(0);

static void session_free(struct work_struct *work)
{
	struct kpmc_session *s = container_of(to_rcu_work(work), struct kpmc_session, free_work);

	irq_work_sync(&s->free_irq);
	/* Its close emptied it, and a closed session lists no thread. */
	WARN_ON_ONCE(!list_empty(&s->threads));
	/* Charged to its user until now (user_limits_allow). */
	if (s->listed) {
		mutex_lock(&kpmc_sessions_lock);
		list_del(&s->node);
		mutex_unlock(&kpmc_sessions_lock);
	}
	put_pid(s->owner_group);
	/* A no-loss wait may keep the ring a while longer. */
	if (!IS_ERR_OR_NULL(s->ring))
		kpmc_ring_put(s->ring);
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

	/* The counters are claimed when something starts counting, not here. */
	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return ERR_PTR(-ENODEV);
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->ring = kpmc_ring_new(task_tgid(current), why, len);
	if (IS_ERR(s->ring)) {
		err = PTR_ERR(s->ring);
		kfree(s);
		return ERR_PTR(err);
	}
	INIT_LIST_HEAD(&s->threads);
	atomic_inc(&kpmc_sessions_alive);
	refcount_set(&s->ref, 1);
	INIT_RCU_WORK(&s->free_work, session_free);
	/* Hard: on PREEMPT_RT it queues the free at once, not from a kthread. */
	s->free_irq = IRQ_WORK_INIT_HARD(session_free_irq);
	s->owner = get_pid(task_pid(current));
	s->owner_group = get_pid(task_tgid(current));
	s->uid = current_euid();
	s->capable = perfmon_capable();
	s->ring_bytes = (size_t)kpmc_ring_capacity(s->ring) * sizeof(struct kpmc_record);

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
	/*
	 * Closed first: a system-wide start or an armed attach that took s
	 * before this close checks closed under the lock that the caller's
	 * next two steps take, so either it sees closed or they see its work
	 * (the ring's lock, taken next, orders these stores before those).
	 */
	WRITE_ONCE(s->closed, true);
	/* A reader gone stops its threads as a stop does (thread_done tests one flag). */
	WRITE_ONCE(s->stopping, true);
	/* Every producer checks the ring's own closed under its lock. */
	kpmc_ring_close(s->ring);
	mutex_lock(&kpmc_sessions_lock);
	s->ring_bytes = 0;
	mutex_unlock(&kpmc_sessions_lock);
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

/*
 * "ring=N" and "noloss", before the session's first record (records 0: the
 * size stays): a new size is first reserved against the user's limit
 * (user_limits_allow), then the ring takes it or not.
 */
static int ring_command(struct kpmc_session *s, u32 records, bool noloss, char *why,
			size_t len)
{
	size_t bytes = (size_t)records * sizeof(struct kpmc_record), old_bytes = 0;
	int err;

	if (records) {
		err = kpmc_ring_records_valid(records, why, len);
		if (err)
			return err;
		mutex_lock(&kpmc_sessions_lock);
		err = user_limits_allow(s, bytes, false, why, len);
		if (!err) {
			old_bytes = s->ring_bytes;
			s->ring_bytes = max(old_bytes, bytes);
		}
		mutex_unlock(&kpmc_sessions_lock);
		if (err)
			return err;
	}
	err = kpmc_ring_configure(s->ring, records, noloss, why, len);
	if (records) {
		/* The reservation becomes the ring's size, or goes. */
		mutex_lock(&kpmc_sessions_lock);
		s->ring_bytes = err ? old_bytes : bytes;
		mutex_unlock(&kpmc_sessions_lock);
	}
	return err;
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
	kpmc_ring_set_wakeup(s->ring, policy);
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
		return ring_command(s, 0, true, why, whylen);
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
	return ring_command(s, (u32)n, noloss, why, whylen);
}

unsigned int kpmc_sessions_live(void)
{
	return atomic_read(&kpmc_sessions_alive);
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
