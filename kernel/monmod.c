// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring-module manager: which module sees samples. Samples are taken
 * with preemption off; switching modules publishes the new one with RCU and
 * waits for every sample in flight before deactivating the old one.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "layer_base.h"

/*
 * The active module and its activation number, published as one: a reader
 * that took them separately could start a thread's baseline with the old
 * module and tag it with the new epoch. An activation number
 * that differs from a thread's monmod_epoch means its scratch is stale. Two
 * slots suffice: each activation waits for a grace period, so no reader
 * holds the slot the next activation rewrites.
 */
struct monmod_activation {
	const struct kpmc_monitoring_module *monmod;
	unsigned int epoch;
};

static struct monmod_activation monmod_slots[2] = { { NULL, 1 }, { NULL, 0 } };
static struct monmod_activation __rcu *kpmc_monmod_now = &monmod_slots[0];
static int kpmc_monmod_current_index = -1;
static DEFINE_MUTEX(kpmc_monmod_lock);

static void thread_start_locked(const struct kpmc_monitoring_module *monmod,
				struct kpmc_thread *t, unsigned int epoch)
{
	memset(t->monmod_scratch, 0, sizeof(t->monmod_scratch));
	memset(t->virt_total, 0, sizeof(t->virt_total));
	t->monmod_epoch = epoch;
	if (monmod && monmod->thread_start)
		monmod->thread_start(t->task, t->monmod_scratch);
}

static void add_virt(u64 *sum, const u64 *v, u32 mask)
{
	unsigned int i;

	for (i = 0; mask && i < KPMC_MAX_VIRT; i++)
		if (mask & BIT(i))
			sum[i] += v[i];
}

void kpmc_monmod_thread_start(struct kpmc_thread *t)
{
	const struct monmod_activation *a;

	rcu_read_lock();
	a = rcu_dereference(kpmc_monmod_now);
	thread_start_locked(a->monmod, t, a->epoch);
	rcu_read_unlock();
}

void kpmc_monmod_sample(struct kpmc_sample *s, struct kpmc_thread *t)
{
	const struct kpmc_monitoring_module *monmod;
	const struct monmod_activation *a;

	rcu_read_lock();
	a = rcu_dereference(kpmc_monmod_now);
	monmod = a->monmod;
	/* Activated since this thread's baseline: start it now. */
	if (t && t->monmod_epoch != a->epoch)
		thread_start_locked(monmod, t, a->epoch);
	if (monmod && monmod->on_sample)
		monmod->on_sample(s);
	/*
	 * Values that reveal what others run (package energy per context
	 * switch: the PLATYPUS side channel) go only to capable monitors;
	 * the module still ran, so its per-thread baselines stay right.
	 */
	if (monmod && monmod->capable_only && t && !t->owner_capable) {
		memset(s->virt, 0, KPMC_MAX_VIRT * sizeof(s->virt[0]));
		s->virt_mask = 0;
	}
	if (t)
		add_virt(t->virt_total, s->virt, s->virt_mask);
	rcu_read_unlock();
}

/*
 * The thread's virtual counters since its start (or the module's): its
 * records' and, where the module can tell, what came since its last
 * record. On t's CPU, t current, IRQs off (no record of t meanwhile).
 */
u32 kpmc_monmod_read_virt(struct kpmc_thread *t, u64 virt[KPMC_MAX_VIRT])
{
	const struct kpmc_monitoring_module *monmod;
	const struct monmod_activation *a;
	struct kpmc_sample s = { };
	u32 mask = 0;

	memset(virt, 0, KPMC_MAX_VIRT * sizeof(virt[0]));
	rcu_read_lock();
	a = rcu_dereference(kpmc_monmod_now);
	monmod = a->monmod;
	if (monmod && monmod->peek && !(monmod->capable_only && !t->owner_capable)) {
		if (t->monmod_epoch != a->epoch)
			thread_start_locked(monmod, t, a->epoch);
		s.task = t->task;
		s.scratch = t->monmod_scratch;
		s.virt = virt;
		monmod->peek(&s);
		mask = s.virt_mask;
		add_virt(virt, t->virt_total, mask);
	}
	rcu_read_unlock();
	return mask;
}

void kpmc_monmod_switch(struct kpmc_thread *out, struct kpmc_thread *in)
{
	const struct kpmc_monitoring_module *monmod;
	const struct monmod_activation *a;
	unsigned int epoch;

	rcu_read_lock();
	a = rcu_dereference(kpmc_monmod_now);
	monmod = a->monmod;
	if (monmod && monmod->on_switch) {
		epoch = a->epoch;
		if (out && out->monmod_epoch != epoch)
			thread_start_locked(monmod, out, epoch);
		if (in && in->monmod_epoch != epoch)
			thread_start_locked(monmod, in, epoch);
		monmod->on_switch(out ? out->task : NULL, out ? out->monmod_scratch : NULL,
			      in ? in->task : NULL, in ? in->monmod_scratch : NULL);
	}
	rcu_read_unlock();
}

int kpmc_monmod_available(unsigned int index, char *why, size_t len)
{
	const struct kpmc_monitoring_module *monmod = kpmc_monmod_table[index];

	return monmod->available ? monmod->available(why, len) : 0;
}

int kpmc_monmod_index(void)
{
	return READ_ONCE(kpmc_monmod_current_index);
}

const struct kpmc_monitoring_module *kpmc_monmod_active(void)
{
	int i = kpmc_monmod_index();

	return i < 0 ? NULL : kpmc_monmod_table[i];
}

int kpmc_monmod_activate(unsigned int index)
{
	const struct kpmc_monitoring_module *next, *prev;
	struct monmod_activation *cur, *slot;
	unsigned int n = 0;
	int err = 0;

	while (kpmc_monmod_table[n])
		n++;
	if (index >= n)
		return -EINVAL;
	next = kpmc_monmod_table[index];

	mutex_lock(&kpmc_monmod_lock);
	if (kpmc_monmod_current_index == (int)index)
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
	cur = rcu_dereference_protected(kpmc_monmod_now, lockdep_is_held(&kpmc_monmod_lock));
	prev = cur->monmod;
	/* The other slot: no reader has it since the last grace period. */
	slot = cur == &monmod_slots[0] ? &monmod_slots[1] : &monmod_slots[0];
	slot->monmod = next;
	slot->epoch = cur->epoch + 1;
	rcu_assign_pointer(kpmc_monmod_now, slot);
	WRITE_ONCE(kpmc_monmod_current_index, index);
	synchronize_rcu();
	if (prev && prev->deactivate)
		prev->deactivate();
out:
	mutex_unlock(&kpmc_monmod_lock);
	return err;
}

/*
 * Module unload: the passthrough module again, so that the active one's
 * pollers and machine state (RMIDs in PQR_ASSOC) go before its code does.
 */
void kpmc_monmod_exit(void)
{
	kpmc_monmod_activate(0);
}
