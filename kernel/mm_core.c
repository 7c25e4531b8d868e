// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring-module manager: which module sees samples. Samples are taken
 * with preemption off; switching modules publishes the new one with RCU and
 * waits for every sample in flight before deactivating the old one.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "kpmc/core.h"

static const struct kpmc_monitoring_module __rcu *kpmc_mm_current;
static int kpmc_mm_current_index = -1;
/* Bumped at every activation: a thread whose mm_epoch differs has stale scratch. */
static unsigned int kpmc_mm_epoch = 1;
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
	rcu_read_lock();
	thread_start_locked(rcu_dereference(kpmc_mm_current), t, READ_ONCE(kpmc_mm_epoch));
	rcu_read_unlock();
}

void kpmc_mm_sample(struct kpmc_sample *s, struct kpmc_thread *t)
{
	const struct kpmc_monitoring_module *mm;

	rcu_read_lock();
	mm = rcu_dereference(kpmc_mm_current);
	/* Activated since this thread's baseline: start it now. */
	if (t && t->mm_epoch != READ_ONCE(kpmc_mm_epoch))
		thread_start_locked(mm, t, READ_ONCE(kpmc_mm_epoch));
	if (mm && mm->on_sample)
		mm->on_sample(s);
	/*
	 * Values that reveal what others run (package energy per context
	 * switch: the PLATYPUS side channel) go only to capable monitors;
	 * the module still ran, so its per-thread baselines stay right.
	 */
	if (mm && mm->capable_only && t && !t->owner_capable) {
		memset(s->virt, 0, sizeof(s->virt));
		s->virt_mask = 0;
	}
	rcu_read_unlock();
}

void kpmc_mm_switch(struct kpmc_thread *out, struct kpmc_thread *in)
{
	const struct kpmc_monitoring_module *mm;
	unsigned int epoch;

	rcu_read_lock();
	mm = rcu_dereference(kpmc_mm_current);
	if (mm && mm->on_switch) {
		epoch = READ_ONCE(kpmc_mm_epoch);
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
	prev = rcu_dereference_protected(kpmc_mm_current, lockdep_is_held(&kpmc_mm_lock));
	/*
	 * The epoch first: rcu_assign_pointer() is a release, so a sample that
	 * sees next also sees the new epoch.
	 */
	WRITE_ONCE(kpmc_mm_epoch, kpmc_mm_epoch + 1);
	rcu_assign_pointer(kpmc_mm_current, next);
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
