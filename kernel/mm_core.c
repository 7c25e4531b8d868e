// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring-module manager: which module sees samples. Samples are taken
 * with preemption off; switching modules publishes the new one with RCU and
 * waits for every sample in flight before deactivating the old one.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "core.h"

/*
 * The active module and its activation number, published as one: a reader
 * that took them separately could start a thread's baseline with the old
 * module and tag it with the new epoch. An activation number
 * that differs from a thread's mm_epoch means its scratch is stale. Two
 * slots suffice: each activation waits for a grace period, so no reader
 * holds the slot the next activation rewrites.
 */
struct mm_activation {
	const struct kpmc_monitoring_module *mm;
	unsigned int epoch;
};

static struct mm_activation mm_slots[2] = { { NULL, 1 }, { NULL, 0 } };
static struct mm_activation __rcu *kpmc_mm_now = &mm_slots[0];
static int kpmc_mm_current_index = -1;
static DEFINE_MUTEX(kpmc_mm_lock);

static void thread_start_locked(const struct kpmc_monitoring_module *mm,
				struct kpmc_thread *t, unsigned int epoch)
{
	memset(t->mm_scratch, 0, sizeof(t->mm_scratch));
	t->mm_epoch = epoch;
	if (mm && mm->thread_start)
		mm->thread_start(t->task, t->mm_scratch);
}

void kpmc_mm_thread_start(struct kpmc_thread *t)
{
	const struct mm_activation *a;

	rcu_read_lock();
	a = rcu_dereference(kpmc_mm_now);
	thread_start_locked(a->mm, t, a->epoch);
	rcu_read_unlock();
}

void kpmc_mm_sample(struct kpmc_sample *s, struct kpmc_thread *t)
{
	const struct kpmc_monitoring_module *mm;
	const struct mm_activation *a;

	rcu_read_lock();
	a = rcu_dereference(kpmc_mm_now);
	mm = a->mm;
	/* Activated since this thread's baseline: start it now. */
	if (t && t->mm_epoch != a->epoch)
		thread_start_locked(mm, t, a->epoch);
	if (mm && mm->on_sample)
		mm->on_sample(s);
	/*
	 * Values that reveal what others run (package energy per context
	 * switch: the PLATYPUS side channel) go only to capable monitors;
	 * the module still ran, so its per-thread baselines stay right.
	 */
	if (mm && mm->capable_only && t && !t->owner_capable) {
		memset(s->virt, 0, KPMC_MAX_VIRT * sizeof(s->virt[0]));
		s->virt_mask = 0;
	}
	rcu_read_unlock();
}

void kpmc_mm_switch(struct kpmc_thread *out, struct kpmc_thread *in)
{
	const struct kpmc_monitoring_module *mm;
	const struct mm_activation *a;
	unsigned int epoch;

	rcu_read_lock();
	a = rcu_dereference(kpmc_mm_now);
	mm = a->mm;
	if (mm && mm->on_switch) {
		epoch = a->epoch;
		if (out && out->mm_epoch != epoch)
			thread_start_locked(mm, out, epoch);
		if (in && in->mm_epoch != epoch)
			thread_start_locked(mm, in, epoch);
		mm->on_switch(out ? out->task : NULL, out ? out->mm_scratch : NULL,
			      in ? in->task : NULL, in ? in->mm_scratch : NULL);
	}
	rcu_read_unlock();
}

int kpmc_mm_available(unsigned int index, char *why, size_t len)
{
	const struct kpmc_monitoring_module *mm = kpmc_mm_table[index];

	return mm->available ? mm->available(why, len) : 0;
}

int kpmc_mm_index(void)
{
	return READ_ONCE(kpmc_mm_current_index);
}

const struct kpmc_monitoring_module *kpmc_mm_active(void)
{
	int i = kpmc_mm_index();

	return i < 0 ? NULL : kpmc_mm_table[i];
}

int kpmc_mm_activate(unsigned int index)
{
	const struct kpmc_monitoring_module *next, *prev;
	struct mm_activation *cur, *slot;
	unsigned int n = 0;
	int err = 0;

	while (kpmc_mm_table[n])
		n++;
	if (index >= n)
		return -EINVAL;
	next = kpmc_mm_table[index];

	mutex_lock(&kpmc_mm_lock);
	if (kpmc_mm_current_index == (int)index)
		goto out;
	if (next->available) {
		char why[KPMC_ERR_MAX];

		err = next->available(why, sizeof(why));
		if (err)
			goto out;
	}
	if (next->activate) {
		err = next->activate();
		if (err)
			goto out;
	}
	cur = rcu_dereference_protected(kpmc_mm_now, lockdep_is_held(&kpmc_mm_lock));
	prev = cur->mm;
	/* The other slot: no reader has it since the last grace period. */
	slot = cur == &mm_slots[0] ? &mm_slots[1] : &mm_slots[0];
	slot->mm = next;
	slot->epoch = cur->epoch + 1;
	rcu_assign_pointer(kpmc_mm_now, slot);
	WRITE_ONCE(kpmc_mm_current_index, index);
	synchronize_rcu();
	if (prev && prev->deactivate)
		prev->deactivate();
out:
	mutex_unlock(&kpmc_mm_lock);
	return err;
}

/*
 * Module unload: the passthrough module again, so that the active one's
 * pollers and machine state (RMIDs in PQR_ASSOC) go before its code does.
 */
void kpmc_mm_exit(void)
{
	kpmc_mm_activate(0);
}
