// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring that the kernel asks for: scheduling code calls
 * pmc_ops_monitor(task, on) (PMCTrack's flag in the thread descriptor) to
 * have a thread counted with the kernel configuration, whose metrics it then
 * reads through pmc_ops_get_metric(). Such threads have no session: their
 * records feed only the metrics and the monitoring module.
 *
 * The caller may hold a runqueue lock with IRQs off, where kpmc can neither
 * allocate nor take its mutexes: a request is queued in a fixed array and
 * done in process context (irq_work, then kpmc's workqueue), a few ms later.
 *
 * /proc/kpmc/kernel_config (root: CAP_SYS_ADMIN or CAP_PERFMON to write)
 * holds the configuration for threads enabled from then on; by default the
 * PMU's instructions and cycles counters, user and kernel mode.
 *
 * Kernel code may also have a cgroup counted as a whole (kpmc/cgroup_count.h):
 * a system-wide view of the cgroup, its counts read on demand.
 */
#include <linux/kernel.h>
#include <linux/capability.h>
#include <linux/irq_work.h>
#include <linux/proc_fs.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "layer_base.h"
#include "layer_objects.h"
#include "layer_configs.h"
#include "layer_per_cpu.h"
#include "layer_requests.h"
#include "layer_interfaces.h"
#include "kpmc/compat.h"
#include "kpmc/cgroup_count.h"

#define KPMC_KERNEL_REQUESTS	64

struct kernel_request {
	struct task_struct *task;	/* referenced while queued */
	bool on;
};

static DEFINE_RAW_SPINLOCK(requests_lock);
static struct kernel_request requests[KPMC_KERNEL_REQUESTS];
static unsigned int nr_requests;
static bool requests_stopped;
static struct irq_work requests_irq_work;
static struct work_struct requests_work;

/* Process context, under kernel_lock: */
static DEFINE_MUTEX(kernel_lock);
static struct kpmc_shared_config *kernel_conf;
static unsigned long nr_started, nr_stopped, nr_refused;
static char last_refusal[KPMC_ERR_MAX];

int kpmc_kernel_monitor(struct task_struct *task, bool on)
{
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&requests_lock, flags);
	if (requests_stopped || nr_requests == KPMC_KERNEL_REQUESTS) {
		err = -EBUSY;
	} else {
		get_task_struct(task);
		requests[nr_requests].task = task;
		requests[nr_requests].on = on;
		nr_requests++;
	}
	raw_spin_unlock_irqrestore(&requests_lock, flags);
	if (!err)
		irq_work_queue(&requests_irq_work);
	return err;
}

static void requests_kick(struct irq_work *work)
{
	kpmc_defer(&requests_work);
}

/* The PMU's instructions and cycles counters, fixed where it has them. */
static int default_config(struct kpmc_config_sets *sets, char *why, size_t len)
{
	u64 events[2] = { kpmc_pmu.event_instructions, kpmc_pmu.event_cycles };
	unsigned int next_general = kpmc_pmu.nr_fixed, i, f;
	char str[64];
	int n = 0;

	if (!kpmc_pmu.has_basic_events) {
		snprintf(why, len, "%s names no instructions/cycles events: write /proc/kpmc/kernel_config",
			 kpmc_pmu.model);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		for (f = 0; f < kpmc_pmu.nr_fixed; f++)
			if (kpmc_pmu.fixed_event[f] == events[i])
				break;
		if (f < kpmc_pmu.nr_fixed)
			n += scnprintf(str + n, sizeof(str) - n, "%spmc%u", n ? "," : "", f);
		else
			n += scnprintf(str + n, sizeof(str) - n, "%spmc%u=0x%llx", n ? "," : "",
				       next_general++, events[i]);
	}
	return kpmc_config_sets_parse(str, n, &kpmc_pmu, sets, why, len);
}

/* Process context, kernel_lock held. */
static int kernel_config_get(struct kpmc_shared_config **conf, char *why, size_t len)
{
	struct kpmc_config_sets *sets;
	int err;

	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	if (!kernel_conf) {
		sets = kmalloc(sizeof(*sets), GFP_KERNEL);
		if (!sets)
			return -ENOMEM;
		err = default_config(sets, why, len);
		if (!err) {
			kernel_conf = kpmc_shared_config_new(sets, why, len);
			if (IS_ERR(kernel_conf)) {
				err = PTR_ERR(kernel_conf);
				kernel_conf = NULL;
			}
		}
		kfree(sets);
		if (err)
			return err;
	}
	/* Kernel code's own: no user's limit applies. */
	err = kpmc_shared_config_prepare(kernel_conf, false, why, len);
	if (err)
		return err;
	*conf = kernel_conf;
	return 0;
}

static void request_do(struct kernel_request *r)
{
	struct kpmc_shared_config *conf;
	char why[KPMC_ERR_MAX] = "";
	int err;

	if (!r->on) {
		if (!kpmc_thread_detach_kernel(r->task))
			nr_stopped++;
		return;
	}
	err = kernel_config_get(&conf, why, sizeof(why));
	if (!err) {
		err = kpmc_thread_attach_kernel(r->task, conf, why, sizeof(why));
		if (err && !why[0])
			snprintf(why, sizeof(why), "error %d", err);
	}
	if (err) {
		nr_refused++;
		snprintf(last_refusal, sizeof(last_refusal), "pid %d: %s",
			 task_pid_nr(r->task), why);
	} else {
		nr_started++;
	}
}

static void requests_run(struct work_struct *work)
{
	struct kernel_request batch[KPMC_KERNEL_REQUESTS];
	unsigned int i, n;
	unsigned long flags;

	raw_spin_lock_irqsave(&requests_lock, flags);
	n = nr_requests;
	memcpy(batch, requests, n * sizeof(batch[0]));
	nr_requests = 0;
	raw_spin_unlock_irqrestore(&requests_lock, flags);

	mutex_lock(&kernel_lock);
	for (i = 0; i < n; i++) {
		request_do(&batch[i]);
		put_task_struct(batch[i].task);
	}
	mutex_unlock(&kernel_lock);
}

static int kernel_config_show(struct seq_file *m, void *v)
{
	char *str = kmalloc(KPMC_CONFIG_STR_MAX, GFP_KERNEL);

	if (!str)
		return -ENOMEM;
	mutex_lock(&kernel_lock);
	if (kernel_conf)
		kpmc_config_sets_format(&kernel_conf->sets, str, KPMC_CONFIG_STR_MAX);
	else
		strscpy(str, "default (instructions and cycles)", KPMC_CONFIG_STR_MAX);
	seq_printf(m, "config: %s\nstarted: %lu\nstopped: %lu\nrefused: %lu\n",
		   str, nr_started, nr_stopped, nr_refused);
	if (nr_refused)
		seq_printf(m, "last refusal: %s\n", last_refusal);
	mutex_unlock(&kernel_lock);
	kfree(str);
	return 0;
}

static int kernel_config_open(struct inode *inode, struct file *f)
{
	return single_open(f, kernel_config_show, NULL);
}

static ssize_t kernel_config_write(struct file *f, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct kpmc_shared_config *conf;
	struct kpmc_config_sets *sets;
	char why[KPMC_ERR_MAX];
	char *buf;
	int err;

	if (!perfmon_capable()) {
		kpmc_reject(NULL, "kernel_config", "needs CAP_PERFMON or CAP_SYS_ADMIN");
		return -EPERM;
	}
	if (!kpmc_backend) {
		kpmc_reject(NULL, "kernel_config", "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	if (count == 0 || count >= KPMC_CONFIG_STR_MAX) {
		kpmc_reject(NULL, "kernel_config", "write of %zu bytes: 1 to %d accepted", count,
			    KPMC_CONFIG_STR_MAX - 1);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	sets = kmalloc(sizeof(*sets), GFP_KERNEL);
	err = sets ? kpmc_config_sets_parse(buf, count, &kpmc_pmu, sets, why, sizeof(why)) : -ENOMEM;
	kfree(buf);
	if (!err) {
		conf = kpmc_shared_config_new(sets, why, sizeof(why));
		err = PTR_ERR_OR_ZERO(conf);
	}
	kfree(sets);
	if (err) {
		if (err != -ENOMEM)
			kpmc_reject(NULL, "kernel_config", "%s", why);
		return err;
	}
	/* Threads already monitored keep the configuration they hold a reference to. */
	mutex_lock(&kernel_lock);
	swap(conf, kernel_conf);
	mutex_unlock(&kernel_lock);
	kpmc_shared_config_put(conf);
	return count;
}

static const struct proc_ops kernel_config_ops = {
	.proc_open = kernel_config_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = kernel_config_write,
};

int kpmc_kernel_api_init(struct proc_dir_entry *dir)
{
	init_irq_work(&requests_irq_work, requests_kick);
	INIT_WORK(&requests_work, requests_run);
	return proc_create("kernel_config", 0644, dir, &kernel_config_ops) ? 0 : -ENOMEM;
}

/* The hooks are detached (no new requests): drop what is queued. */
void kpmc_kernel_api_stop(void)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&requests_lock, flags);
	requests_stopped = true;
	raw_spin_unlock_irqrestore(&requests_lock, flags);
	irq_work_sync(&requests_irq_work);
	cancel_work_sync(&requests_work);
	for (i = 0; i < nr_requests; i++)
		put_task_struct(requests[i].task);
	nr_requests = 0;
	kpmc_shared_config_put(kernel_conf);
	kernel_conf = NULL;
}

/* The counter of t's configuration (any set) that counts event, or -1. */
static int slot_counting(const struct kpmc_thread *t, u64 event)
{
	const struct kpmc_config *cfg = tcfg(t);
	unsigned int slot;

	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		if (!(cfg->mask & BIT(slot)))
			continue;
		if ((slot < kpmc_pmu.nr_fixed ? kpmc_pmu.fixed_event[slot] : cfg->ctr[slot].event) == event)
			return slot;
	}
	return -1;
}

/*
 * Any context. Counts up to the thread's last fold (switch, tick or
 * record): at most one fold period behind for a running thread.
 */
int kpmc_thread_metrics(struct task_struct *task, struct kpmc_thread_metrics *m)
{
	struct kpmc_thread *t;
	int err = -ENODATA;

	memset(m, 0, sizeof(*m));
	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	/* Acquire: pairs with an attach's publication of a reused state. */
	if (t && smp_load_acquire(&t->state) == KPMC_COUNTING) {
		const struct kpmc_hw_config *hw = thw(t);
		bool basic = kpmc_pmu.has_basic_events;
		int in = basic ? slot_counting(t, kpmc_pmu.event_instructions) : -1;
		int cy = basic ? slot_counting(t, kpmc_pmu.event_cycles) : -1;
		unsigned int i;

		for (i = 0; i < hw->nr; i++) {
			if ((int)hw->slot[i] == in)
				m->instructions = READ_ONCE(t->total[in]) + READ_ONCE(t->acc[i]);
			if ((int)hw->slot[i] == cy)
				m->cycles = READ_ONCE(t->total[cy]) + READ_ONCE(t->acc[i]);
		}
		m->has_instructions = in >= 0;
		m->has_cycles = cy >= 0;
		m->run_ns = READ_ONCE(t->total_run_ns) + READ_ONCE(t->run_ns);
		m->migrations = READ_ONCE(t->migrations);
		m->nsample = READ_ONCE(t->nsample);
		m->virt_mask = READ_ONCE(t->last_virt_mask);
		memcpy(m->virt, t->last_virt, sizeof(m->virt));
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/* ---- a cgroup counted for kernel code ---- */

struct kpmc_cgroup_count {
	struct kpmc_system_view *view;
};

struct kpmc_cgroup_count *kpmc_cgroup_count_start(struct cgroup *cgrp, const char *config,
						  char *why, size_t len)
{
	struct kpmc_cgroup_count *h;
	struct kpmc_config_sets *sets;
	struct kpmc_shared_config *conf;
	struct kpmc_system_view *v;
	int err;

	if (!KPMC_HAVE_CGROUPS || !cgrp) {
		snprintf(why, len, "this kernel is built without cgroups (CONFIG_CGROUPS)");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return ERR_PTR(-ENODEV);
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	sets = kmalloc(sizeof(*sets), GFP_KERNEL);
	if (!h || !sets) {
		kfree(h);
		kfree(sets);
		return ERR_PTR(-ENOMEM);
	}
	err = kpmc_config_sets_parse(config, strlen(config), &kpmc_pmu, sets, why, len);
	conf = err ? ERR_PTR(err) : kpmc_shared_config_new(sets, why, len);
	kfree(sets);
	if (IS_ERR(conf)) {
		kfree(h);
		return ERR_CAST(conf);
	}
	/* Kernel code's own: no user's limit applies. */
	err = kpmc_shared_config_prepare(conf, false, why, len);
	v = err ? ERR_PTR(err) : kpmc_system_kernel_start(conf, cgrp, why, len);
	/* The view holds its own reference. */
	kpmc_shared_config_put(conf);
	if (IS_ERR(v)) {
		kfree(h);
		return ERR_CAST(v);
	}
	h->view = v;
	return h;
}
EXPORT_SYMBOL_GPL(kpmc_cgroup_count_start);

u32 kpmc_cgroup_count_read(const struct kpmc_cgroup_count *h, u64 *counts, u64 *run_ns)
{
	return kpmc_system_kernel_read(h->view, counts, run_ns);
}
EXPORT_SYMBOL_GPL(kpmc_cgroup_count_read);

void kpmc_cgroup_count_stop(struct kpmc_cgroup_count *h, u64 *counts, u64 *run_ns)
{
	kpmc_system_kernel_stop(h->view, counts, run_ns);
	kfree(h);
}
EXPORT_SYMBOL_GPL(kpmc_cgroup_count_stop);
