// SPDX-License-Identifier: GPL-2.0
/*
 * Generic backend over the kernel's perf API: every counter slot is a
 * per-CPU kernel perf event, so kpmc works wherever perf does (any PMU the
 * kernel drives, and software events everywhere) and shares the hardware
 * with perf by construction: perf schedules its own and our events.
 *
 * Events are named by perf type and config: pmcN=0xTTCCCCCCCC, type TT in
 * bits 32-39 (0 hardware, 1 software, 3 hardware cache, 4 raw) and config in
 * bits 0-31. E.g. 0x100000003: software context switches; 0x400000008: raw
 * event 0x08 (INST_RETIRED on arm64).
 *
 * Per-CPU events count all the time; the core's view of "a counter that
 * starts, stops and can be written" is kept per CPU as an offset and a frozen
 * value, so the core folds per-thread deltas exactly as with a direct PMU.
 * Reads do what perf_event_read_local() does (not exported to modules): on
 * the event's own CPU with IRQs off, update the count from the PMU if the
 * event is on it, then read the count.
 *
 * Event-based sampling: the sampling slot's events are perf sampling events
 * with kpmc's overflow handler. perf counts the period down in
 * hw.period_left; since a per-CPU event also counts other threads, whenever
 * the core sets the sampling counter of the thread on the CPU (load, start,
 * write) the event is re-armed, stopped and restarted with the thread's own
 * distance to overflow, as perf itself does when it changes a period. Only
 * hardware PMU events (types 0, 3, 4): perf arms software events with the
 * opposite sign and fires them from the scheduler and fault paths, where the
 * core cannot take a sample.
 *
 * Memory sampling (mem=1): the sampling event asks perf for precise samples
 * with their data address, data source and weight, which perf's x86 drivers
 * fill from Intel PEBS or AMD IBS; the overflow handler keeps them for the
 * core's MEM record (perf_mem.c turns them into kpmc's terms). On arm64 the
 * kernel's only data-address sampler is SPE, whose samples go to an AUX
 * buffer that in-kernel events cannot have: refused there, with the reason.
 *
 * The events are kpmc's own, as the direct backends' registers are: counted
 * into a thread only while it runs, after kpmc's privilege layer applied
 * perf's per-task rules to the session (ptrace, perf_event_paranoid). perf
 * would check a CPU-wide event against its creator (CAP_PERFMON at paranoid
 * above 0), which would refuse every user the per-task rule allows, so they
 * are created with the kernel's credentials (perf_create_as_kernel()).
 *
 * Events exist only for configurations allowed to count: a configuration
 * write (any user may write one) only checks and describes the sets; the
 * events are made at the first enable, after the privilege check
 * (perf_prepare), disabled until every CPU has its own, charged to the
 * enabling user's memory cgroup, and at most kpmc.perf_user_events of them
 * per user without CAP_PERFMON, as kpmc.user_sessions bounds sessions.
 *
 * CPU hotplug: perf detaches a CPU's events from its context when the CPU
 * goes offline and never re-adds them. So every live encoding is on a list,
 * and a CPU coming online gets fresh events for each (cpu_came_online(), before
 * any monitored thread can run there); the core then loads that CPU afresh,
 * which sets the offsets against the new events' counts.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/hardirq.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/sched/task.h>
#include <linux/capability.h>
#include <linux/moduleparam.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#endif

#include "kpmc/compat.h"
#include "../backends.h"
#include "perf_mem.h"

#define PERF_SLOTS	8
#define PERF_TYPE_SHIFT	32

/* One configuration's events and, per CPU, the counters as the core sees them. */
struct perf_cpu_view {
	u64 offset[PERF_SLOTS];		/* core value = perf count + offset */
	u64 frozen[PERF_SLOTS];		/* core value while stopped */
	bool stopped;
};

struct perf_user;

/*
 * events and view exist once ready (perf_prepare): before, the hot-path
 * operations do nothing and read zeros.
 */
struct perf_encoding {
	struct perf_event **events;	/* [cpu * nr + index] */
	struct perf_cpu_view __percpu *view;
	bool ready;
	struct perf_user *user;		/* charged its events; NULL: no limit */
	unsigned int nr;
	bool sampling;
	unsigned int sampling_index;
	struct perf_event_attr attr[PERF_SLOTS];	/* to create a new CPU's events */
	struct list_head node;		/* perf_encodings, once complete */
};

/* Every live encoding, for CPUs that come online; under perf_encodings_lock. */
static LIST_HEAD(perf_encodings);
static DEFINE_MUTEX(perf_encodings_lock);

/*
 * Events held by each user without CAP_PERFMON: every event is a perf
 * context entry on its CPU and kernel memory perf allocates uncharged.
 * Under perf_encodings_lock.
 */
struct perf_user {
	kuid_t uid;
	unsigned int events;
	struct list_head node;
};

static LIST_HEAD(perf_users);
static unsigned int perf_user_events;
module_param_named(perf_user_events, perf_user_events, uint, 0644);
MODULE_PARM_DESC(perf_user_events,
		 "perf backend: events per user without CAP_PERFMON (0: 16 configurations of 8 counters on every CPU)");

static unsigned int perf_user_limit(void)
{
	return perf_user_events ? perf_user_events : 16 * PERF_SLOTS * nr_cpu_ids;
}

/* Caller holds perf_encodings_lock: charge the current user n events, or why not. */
static struct perf_user *perf_user_charge(unsigned int n, char *why, size_t len)
{
	kuid_t uid = current_uid();
	struct perf_user *u;

	list_for_each_entry(u, &perf_users, node)
		if (uid_eq(u->uid, uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return ERR_PTR(-ENOMEM);
	u->uid = uid;
	list_add(&u->node, &perf_users);
found:
	if (u->events + n > perf_user_limit()) {
		snprintf(why, len,
			 "perf backend: this user holds %u perf events, %u more would pass the limit without CAP_PERFMON, kpmc.perf_user_events=%u",
			 u->events, n, perf_user_limit());
		if (!u->events) {
			list_del(&u->node);
			kfree(u);
		}
		return ERR_PTR(-EUSERS);
	}
	u->events += n;
	return u;
}

/* Caller holds perf_encodings_lock. */
static void perf_user_uncharge(struct perf_user *u, unsigned int n)
{
	u->events -= n;
	if (!u->events) {
		list_del(&u->node);
		kfree(u);
	}
}

/* An overflow handled as an NMI (x86) reaches the core from an irq_work. */
static DEFINE_PER_CPU(struct irq_work, perf_overflow_work);

static void perf_overflow_work_fn(struct irq_work *work)
{
	kpmc_pmu_overflow();
}

/*
 * Memory sampling: where it comes from (NULL: none), and why not; the
 * precise_ip perf grants; this CPU's last sample, until the core takes it.
 */
static struct {
	const char *source;
	char why[KPMC_ERR_MAX];
	u8 precise;
	bool ldlat;
} perf_mem;

static DEFINE_PER_CPU(struct kpmc_perf_mem_slot, perf_mem_pending);

static void perf_mem_keep(struct perf_event *ev, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct kpmc_perf_mem_sample s;

	s.ip = instruction_pointer(regs);
	s.kernel = !user_mode(regs);
	s.exact = ev->attr.precise_ip >= 2;
	s.has_addr = KPMC_PERF_SAMPLE_HAS(data, PERF_SAMPLE_ADDR);
	s.addr = s.has_addr ? data->addr : 0;
	s.has_data_src = KPMC_PERF_SAMPLE_HAS(data, PERF_SAMPLE_DATA_SRC);
	s.data_src = s.has_data_src ? data->data_src.val : 0;
	s.has_weight = KPMC_PERF_SAMPLE_HAS(data, PERF_SAMPLE_WEIGHT);
	s.weight = s.has_weight ? KPMC_PERF_SAMPLE_WEIGHT(data) : 0;
	kpmc_perf_mem_keep(this_cpu_ptr(&perf_mem_pending), &s);
}

/* Each sample once: a sample taken elsewhere carries no access. */
static void perf_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			    struct kpmc_mem_access *out)
{
	kpmc_perf_mem_take(this_cpu_ptr(&perf_mem_pending), kernel_allowed, out);
}

static void perf_overflow(struct perf_event *ev, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	if (ev->attr.sample_type & PERF_SAMPLE_ADDR)
		perf_mem_keep(ev, data, regs);
	if (in_nmi())
		irq_work_queue(this_cpu_ptr(&perf_overflow_work));
	else
		kpmc_pmu_overflow();
}

static void perf_attr(struct perf_event_attr *attr, u64 event, bool usr, bool os)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = (u32)(event >> PERF_TYPE_SHIFT);
	attr->config = event & 0xffffffffULL;
	attr->exclude_user = !usr;
	attr->exclude_kernel = !os;
	attr->exclude_hv = 1;
}

/* A CPU-wide event of kpmc's (see the header): checked as the kernel's, not the caller's. */
static struct perf_event *perf_create_as_kernel(struct perf_event_attr *attr, int cpu,
						perf_overflow_handler_t handler)
{
	const struct cred *kernel_cred, *caller;
	struct perf_event *ev;

	kernel_cred = prepare_kernel_cred(&init_task);
	if (!kernel_cred)
		return ERR_PTR(-ENOMEM);
	caller = override_creds(kernel_cred);
	ev = perf_event_create_kernel_counter(attr, cpu, NULL, handler, NULL);
	revert_creds(caller);
	put_cred(kernel_cred);
	return ev;
}

static const char *perf_type_name(u32 type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE: return "hardware";
	case PERF_TYPE_SOFTWARE: return "software";
	case PERF_TYPE_HW_CACHE: return "hardware cache";
	case PERF_TYPE_RAW: return "raw";
	}
	return NULL;
}

/* Can perf count event on this machine? Ask it: create and drop one. */
static int perf_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			    u64 event, char *why, size_t len)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	u32 type = (u32)(event >> PERF_TYPE_SHIFT);

	if (event >> 40 || !perf_type_name(type)) {
		snprintf(why, len,
			 "perf backend events are 0xTTCCCCCCCC: type TT 0 (hardware), 1 (software), 3 (cache) or 4 (raw), config C");
		return -EINVAL;
	}
	perf_attr(&attr, event, true, true);
	attr.disabled = 1;
	ev = perf_create_as_kernel(&attr, raw_smp_processor_id(), NULL);
	if (IS_ERR(ev)) {
		snprintf(why, len, "perf cannot count %s event 0x%llx here (error %ld%s)",
			 perf_type_name(type), event & 0xffffffffULL, PTR_ERR(ev),
			 PTR_ERR(ev) == -ENOENT || PTR_ERR(ev) == -EOPNOTSUPP ?
			 ": no PMU driver for it" : "");
		return -EINVAL;
	}
	perf_event_release_kernel(ev);
	return 0;
}

/* What the sampling event of a mem=1 set asks perf for. */
static void perf_mem_attr(struct perf_event_attr *attr, u8 precise, u32 ldlat)
{
	attr->precise_ip = precise;
	attr->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	/* Intel's load-latency events take their threshold in config1. */
	attr->config1 = ldlat;
}

/*
 * Does this kernel's perf sample data addresses for in-kernel events? Ask
 * it for precise cycles, the highest precise_ip first, as perf mem does.
 */
static void perf_mem_probe(void)
{
	memset(&perf_mem, 0, sizeof(perf_mem));
#ifdef CONFIG_X86
	{
		struct perf_event_attr attr;
		struct perf_event *ev = ERR_PTR(-EOPNOTSUPP);
		u8 precise;

		for (precise = 3; precise >= 1 && IS_ERR(ev); precise--) {
			perf_attr(&attr, PERF_COUNT_HW_CPU_CYCLES, true, false);
			attr.disabled = 1;
			attr.sample_period = 1000000;
			perf_mem_attr(&attr, precise, 0);
			ev = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
							      NULL, NULL, NULL);
			if (!IS_ERR(ev))
				perf_mem.precise = precise;
		}
		if (IS_ERR(ev)) {
			snprintf(perf_mem.why, sizeof(perf_mem.why),
				 "mem=1: this kernel's perf has no precise sampling (PEBS or IBS) of cycles here (error %ld)",
				 PTR_ERR(ev));
			return;
		}
		perf_event_release_kernel(ev);
		perf_mem.ldlat = boot_cpu_data.x86_vendor == X86_VENDOR_INTEL;
		perf_mem.source = perf_mem.ldlat ? "perf precise sampling (Intel PEBS)" :
				  "perf precise sampling (AMD IBS)";
	}
#elif defined(CONFIG_ARM64)
	strscpy(perf_mem.why, "mem=1: perf has no data-address sampling for in-kernel events on arm64 (SPE writes to an AUX buffer); the arm64 backend decodes instructions",
		sizeof(perf_mem.why));
#else
	strscpy(perf_mem.why, "mem=1: the perf backend knows no data-address sampler on this architecture",
		sizeof(perf_mem.why));
#endif
}

static int perf_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	unsigned int i;
	int cpu;

	/*
	 * Hard, so that it runs in the interrupt the NMI raises, while the
	 * overflowing thread is still current: on PREEMPT_RT a plain irq_work
	 * runs in a per-CPU kthread, after the thread was switched out.
	 */
	for_each_possible_cpu(cpu)
		per_cpu(perf_overflow_work, cpu) = IRQ_WORK_INIT_HARD(perf_overflow_work_fn);

	snprintf(desc->model, sizeof(desc->model),
		 "kernel perf events (per-CPU kernel counters; type<<32|config)");
	desc->nr_fixed = 0;
	desc->nr_counters = PERF_SLOTS;
	for (i = 0; i < PERF_SLOTS; i++)
		desc->width[i] = 64;
	desc->check_event = perf_check_event;
	desc->has_basic_events = true;
	desc->event_instructions = PERF_COUNT_HW_INSTRUCTIONS;	/* type 0 (hardware) */
	desc->event_cycles = PERF_COUNT_HW_CPU_CYCLES;
	perf_mem_probe();
	desc->mem_source = perf_mem.source;
	desc->mem_ldlat = perf_mem.ldlat;
	return 0;
}

/* perf arbitrates its counters itself: nothing to take. */
static int perf_claim(u32 mask, char *why, size_t len)
{
	return 0;
}

static void perf_unclaim(u32 mask)
{
}

static void perf_release(struct kpmc_hw_config *hw)
{
	struct perf_encoding *enc = hw->priv;
	unsigned int i;

	if (!enc)
		return;
	mutex_lock(&perf_encodings_lock);
	list_del_init(&enc->node);
	if (enc->user)
		perf_user_uncharge(enc->user, enc->nr * nr_cpu_ids);
	enc->user = NULL;
	mutex_unlock(&perf_encodings_lock);
	for (i = 0; enc->events && i < nr_cpu_ids * enc->nr; i++)
		if (enc->events[i])
			perf_event_release_kernel(enc->events[i]);
	/* An overflow deferred before the release must not outlive it. */
	if (enc->sampling) {
		int cpu;

		for_each_possible_cpu(cpu)
			irq_work_sync(per_cpu_ptr(&perf_overflow_work, cpu));
	}
	kvfree(enc->events);
	free_percpu(enc->view);
	kfree(enc);
	hw->priv = NULL;
}

/*
 * Create enc's events on cpu, replacing any it had there (perf took those
 * off the CPU when it went offline). Returns enc->nr, or the index whose
 * creation failed, its error left in the events slot.
 */
static unsigned int perf_create_cpu(struct perf_encoding *enc, int cpu)
{
	unsigned int i;

	/* Created disabled (attr), enabled once all of them exist there. */
	for (i = 0; i < enc->nr; i++) {
		struct perf_event **slot = &enc->events[cpu * enc->nr + i];
		struct perf_event *old = *slot, *ev;
		bool sampler = enc->sampling && i == enc->sampling_index;

		ev = perf_create_as_kernel(&enc->attr[i], cpu, sampler ? perf_overflow : NULL);
		/* Only cpu itself reads its slots: it runs no monitored thread yet. */
		WRITE_ONCE(*slot, ev);
		if (old)
			perf_event_release_kernel(old);
		if (IS_ERR(ev))
			return i;
	}
	for (i = 0; i < enc->nr; i++)
		perf_event_enable(enc->events[cpu * enc->nr + i]);
	return enc->nr;
}

static int perf_cpu_online(unsigned int cpu)
{
	struct perf_encoding *enc;
	unsigned int i;
	int err = 0;

	mutex_lock(&perf_encodings_lock);
	list_for_each_entry(enc, &perf_encodings, node) {
		i = perf_create_cpu(enc, cpu);
		if (i < enc->nr) {
			err = PTR_ERR(enc->events[cpu * enc->nr + i]);
			enc->events[cpu * enc->nr + i] = NULL;
		}
	}
	mutex_unlock(&perf_encodings_lock);
	return err;
}

static int perf_encode(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
		       char *why, size_t len)
{
	struct perf_encoding *enc;
	unsigned int slot, i;

	memset(hw, 0, sizeof(*hw));
	if (cfg->mem && !perf_mem.source) {
		snprintf(why, len, "%s", perf_mem.why);
		return -EOPNOTSUPP;
	}
	if (cfg->ebs_period) {
		u32 type = (u32)(cfg->ctr[cfg->ebs_slot].event >> PERF_TYPE_SHIFT);

		if (type == PERF_TYPE_SOFTWARE) {
			snprintf(why, len,
				 "ebs%u: the perf backend samples hardware events only (type 0, 3 or 4), pmc%u is a software event",
				 cfg->ebs_slot, cfg->ebs_slot);
			return -EINVAL;
		}
	}
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		if (!(cfg->mask & BIT(slot)))
			continue;
		if (cfg->ebs_period && cfg->ebs_slot == slot) {
			hw->sampling = true;
			hw->sampling_index = hw->nr;
		}
		hw->slot[hw->nr] = slot;
		hw->width_mask[hw->nr] = ~0ULL;
		hw->nr++;
		hw->mask |= BIT(slot);
	}
	enc = kzalloc(sizeof(*enc), GFP_KERNEL_ACCOUNT);
	if (!enc)
		return -ENOMEM;
	INIT_LIST_HEAD(&enc->node);
	hw->priv = enc;
	enc->nr = hw->nr;
	enc->sampling = hw->sampling;
	enc->sampling_index = hw->sampling_index;
	for (i = 0; i < hw->nr; i++) {
		const struct kpmc_counter_req *req = &cfg->ctr[hw->slot[i]];

		perf_attr(&enc->attr[i], req->event, req->usr, req->os);
		/* The longest period the core may arm; each arming sets its own. */
		if (hw->sampling && i == hw->sampling_index) {
			enc->attr[i].sample_period = cfg->ebs_period + cfg->ebs_range;
			if (cfg->mem)
				perf_mem_attr(&enc->attr[i], perf_mem.precise, cfg->mem_ldlat);
		}
		enc->attr[i].disabled = 1;
	}
	return 0;
}

/*
 * The first enable of hw's configuration, after its owner's privilege
 * check (process context): its events on every online CPU, charged to the
 * current user when user_limited. Later enables find it ready.
 */
static int perf_prepare(const struct kpmc_hw_config *hw, bool user_limited,
			char *why, size_t len)
{
	struct perf_encoding *enc = hw->priv;
	unsigned int i, n = enc->nr * nr_cpu_ids;
	int cpu, err = 0;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (smp_load_acquire(&enc->ready))
		return 0;
	/* As perf_cpu_online(): the hotplug lock, then the list's. */
	cpus_read_lock();
	mutex_lock(&perf_encodings_lock);
	if (enc->ready)
		goto out;
	if (user_limited) {
		struct perf_user *u = perf_user_charge(n, why, len);

		if (IS_ERR(u)) {
			err = PTR_ERR(u);
			goto out;
		}
		enc->user = u;
	}
	enc->events = kvcalloc(n, sizeof(*enc->events), GFP_KERNEL_ACCOUNT);
	enc->view = alloc_percpu_gfp(struct perf_cpu_view, GFP_KERNEL_ACCOUNT);
	if (!enc->events || !enc->view) {
		err = -ENOMEM;
		goto undo;
	}
	for_each_possible_cpu(cpu)
		per_cpu_ptr(enc->view, cpu)->stopped = true;
	for_each_online_cpu(cpu) {
		i = perf_create_cpu(enc, cpu);
		if (i < enc->nr) {
			err = PTR_ERR(enc->events[cpu * enc->nr + i]);
			enc->events[cpu * enc->nr + i] = NULL;
			snprintf(why, len, "perf refused pmc%u on CPU %d (error %d)",
				 hw->slot[i], cpu, err);
			goto undo;
		}
	}
	list_add(&enc->node, &perf_encodings);
	/* The hot path reads events and view only after it sees ready. */
	smp_store_release(&enc->ready, true);
	goto out;
undo:
	for (i = 0; enc->events && i < n; i++) {
		if (enc->events[i])
			perf_event_release_kernel(enc->events[i]);
	}
	kvfree(enc->events);
	enc->events = NULL;
	free_percpu(enc->view);
	enc->view = NULL;
	if (enc->user)
		perf_user_uncharge(enc->user, n);
	enc->user = NULL;
out:
	mutex_unlock(&perf_encodings_lock);
	cpus_read_unlock();
	return err;
}

static u64 perf_count(struct perf_encoding *enc, unsigned int i)
{
	struct perf_event *ev = enc->events[raw_smp_processor_id() * enc->nr + i];
	u64 v = 0;

	/* A CPU that came online after the encoding has no event: reads 0. */
	if (ev) {
		if (READ_ONCE(ev->oncpu) == raw_smp_processor_id())
			ev->pmu->read(ev);
		v = local64_read(&ev->count);
	}
	return v;
}

/*
 * Point the sampling event's next overflow at the core's overflow point of
 * the counter (its value counts up to 0): IRQs are off on the event's CPU.
 */
static void perf_rearm(struct perf_encoding *enc, struct perf_cpu_view *v)
{
	unsigned int i = enc->sampling_index;
	struct perf_event *ev;
	bool active;

	if (!enc->sampling || v->stopped)
		return;
	ev = enc->events[raw_smp_processor_id() * enc->nr + i];
	if (!ev)
		return;
	active = READ_ONCE(ev->oncpu) == raw_smp_processor_id();
	if (active)
		ev->pmu->stop(ev, PERF_EF_UPDATE);
	local64_set(&ev->hw.period_left, 0 - (local64_read(&ev->count) + v->offset[i]));
	/* Not on its PMU now (perf rotates events): perf reloads period_left when it adds it. */
	if (active)
		ev->pmu->start(ev, PERF_EF_RELOAD);
}

static void perf_load(const struct kpmc_hw_config *hw, const u64 *start)
{
	struct perf_encoding *enc = hw->priv;
	struct perf_cpu_view *v;
	unsigned int i;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (!smp_load_acquire(&enc->ready))
		return;
	v = this_cpu_ptr(enc->view);
	for (i = 0; i < hw->nr; i++)
		v->offset[i] = start[i] - perf_count(enc, i);
	v->stopped = false;
	/* A sample kept for the thread this CPU ran before is not this one's. */
	kpmc_perf_mem_discard(this_cpu_ptr(&perf_mem_pending));
	perf_rearm(enc, v);
}

static void perf_start(const struct kpmc_hw_config *hw)
{
	struct perf_encoding *enc = hw->priv;
	struct perf_cpu_view *v;
	unsigned int i;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (!smp_load_acquire(&enc->ready))
		return;
	v = this_cpu_ptr(enc->view);
	if (!v->stopped)
		return;
	for (i = 0; i < hw->nr; i++)
		v->offset[i] = v->frozen[i] - perf_count(enc, i);
	v->stopped = false;
	perf_rearm(enc, v);
}

static void perf_stop(const struct kpmc_hw_config *hw)
{
	struct perf_encoding *enc = hw->priv;
	struct perf_cpu_view *v;
	unsigned int i;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (!smp_load_acquire(&enc->ready))
		return;
	v = this_cpu_ptr(enc->view);
	if (v->stopped)
		return;
	for (i = 0; i < hw->nr; i++)
		v->frozen[i] = perf_count(enc, i) + v->offset[i];
	v->stopped = true;
}

static void perf_read(const struct kpmc_hw_config *hw, u64 *raw)
{
	struct perf_encoding *enc = hw->priv;
	struct perf_cpu_view *v;
	unsigned int i;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (!smp_load_acquire(&enc->ready)) {
		memset(raw, 0, hw->nr * sizeof(*raw));
		return;
	}
	v = this_cpu_ptr(enc->view);
	for (i = 0; i < hw->nr; i++)
		raw[i] = v->stopped ? v->frozen[i] : perf_count(enc, i) + v->offset[i];
}

static void perf_write(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	struct perf_encoding *enc = hw->priv;
	struct perf_cpu_view *v;

	/* Pairs with the release that publishes ready: every CPU has its events. */
	if (!smp_load_acquire(&enc->ready))
		return;
	v = this_cpu_ptr(enc->view);
	if (v->stopped) {
		v->frozen[index] = value;
	} else {
		v->offset[index] = value - perf_count(enc, index);
		if (index == enc->sampling_index)
			perf_rearm(enc, v);
	}
}

const struct kpmc_backend kpmc_perf_backend = {
	.name = "perf",
	.probe = perf_probe,
	.claim = perf_claim,
	.unclaim = perf_unclaim,
	.encode = perf_encode,
	.prepare = perf_prepare,
	.release = perf_release,
	.load = perf_load,
	.start = perf_start,
	.stop = perf_stop,
	.read = perf_read,
	.write = perf_write,
	.cpu_came_online = perf_cpu_online,
	.mem_sample = perf_mem_sample,
};
