// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_amp: an asymmetry-aware placement policy driven by per-thread PMC
 * metrics, for a kernel with kpmc's scheduler patch. It sees kpmc only
 * through <linux/pmc_ops.h>, as a scheduling class would: it asks for the
 * monitoring of the threads it places (pmc_ops_monitor) and reads their
 * metrics (pmc_ops_get_metric).
 *
 * A configurable set of CPUs is "big". Every period the policy ranks its
 * threads by the chosen metric over the last period (instructions per ms of
 * on-CPU time by default: a thread that retires many instructions per unit
 * of time gains most from a fast core, as in the speedup-factor schedulers
 * of the PMCTrack work) and confines the top slots x nr_big threads to the
 * big CPUs, the rest to the others. Threads whose metric is not ready keep
 * their place. A thread leaving the policy gets its affinity back.
 *
 * /proc/kpmc_amp/control (root), one setting per write:
 *   big=CPULIST  slots=N  period_ms=N  metric=instr_per_ms|ipc_milli|moduleN
 *   add=TID  remove=TID  global=0|1 (every thread kpmc monitors)  enable=0|1
 * /proc/kpmc_amp/trail: the decisions and the values behind them.
 */
#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pmc_ops.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/time64.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#define AMP_MAX_THREADS	64
#define AMP_TRAIL_LINES	512
#define AMP_LINE	128

enum amp_place { AMP_UNPLACED, AMP_BIG, AMP_LITTLE };

struct amp_thread {
	struct task_struct *task;	/* referenced */
	pid_t tid;
	bool requested;			/* the policy asked kpmc to monitor it */
	enum amp_place place;
	u64 prev_num, prev_den;		/* the metric's inputs at the last ranking */
	bool have_prev;
	u64 value;			/* the metric over the last period */
	bool valid;
};

static DEFINE_MUTEX(amp_lock);
static struct amp_thread amp_threads[AMP_MAX_THREADS];
static unsigned int amp_nr;
/*
 * CPU masks are cpumask_var_t, allocated at load: with NR_CPUS=8192 a
 * cpumask_t is 1 KiB, too much for the stack and for 64 array entries.
 * amp_saved[i] is amp_threads[i]'s affinity before the policy; amp_scratch
 * is for the computations made under amp_lock.
 */
static cpumask_var_t amp_big, amp_scratch;
static cpumask_var_t amp_saved[AMP_MAX_THREADS];
static unsigned int amp_slots = 1;
static unsigned int amp_period_ms = 100;
static unsigned int amp_metric = PMC_METRIC_ID_INSTR_PER_MS;
static bool amp_global, amp_enabled;
static u64 amp_round;
static struct delayed_work amp_work;
static struct proc_dir_entry *amp_dir;

static char amp_trail[AMP_TRAIL_LINES][AMP_LINE];
static u64 amp_trail_next;	/* lines written; the last AMP_TRAIL_LINES are kept */

static void trail(const char *fmt, ...) __printf(1, 2);
static void trail(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(amp_trail[amp_trail_next % AMP_TRAIL_LINES], AMP_LINE, fmt, args);
	va_end(args);
	amp_trail_next++;
}

static const char *metric_name(unsigned int id, char *buf, size_t len)
{
	if (id == PMC_METRIC_ID_INSTR_PER_MS)
		return "instr_per_ms";
	if (id == PMC_METRIC_ID_IPC_MILLI)
		return "ipc_milli";
	snprintf(buf, len, "module%u", id - PMC_METRIC_ID_MODULE0);
	return buf;
}

/*
 * The metric over the period since the last ranking: rates from the
 * differences of kpmc's cumulative counts, a module's value as it is.
 */
static bool sample_metric(struct amp_thread *a)
{
	unsigned int num_id, den_id;
	u64 num, den, scale;

	a->valid = false;
	if (amp_metric >= PMC_METRIC_ID_MODULE0) {
		a->valid = !pmc_ops_get_metric(a->task, amp_metric, &a->value);
		return a->valid;
	}
	if (amp_metric == PMC_METRIC_ID_IPC_MILLI) {
		num_id = PMC_METRIC_ID_INSTRUCTIONS;
		den_id = PMC_METRIC_ID_CYCLES;
		scale = 1000;
	} else {
		num_id = PMC_METRIC_ID_INSTRUCTIONS;
		den_id = PMC_METRIC_ID_RUN_NS;
		scale = NSEC_PER_MSEC;
	}
	if (pmc_ops_get_metric(a->task, num_id, &num) ||
	    pmc_ops_get_metric(a->task, den_id, &den))
		return false;
	if (a->have_prev && num >= a->prev_num && den > a->prev_den) {
		a->value = mul_u64_u64_div_u64(num - a->prev_num, scale, den - a->prev_den);
		a->valid = true;
	}
	a->prev_num = num;
	a->prev_den = den;
	a->have_prev = true;
	return a->valid;
}

/* amp_lock held. */
static void place(struct amp_thread *a, enum amp_place where)
{
	struct cpumask *mask = amp_scratch;

	if (a->place == where)
		return;
	if (where == AMP_BIG)
		cpumask_and(mask, amp_big, cpu_online_mask);
	else
		cpumask_andnot(mask, cpu_online_mask, amp_big);
	cpumask_and(mask, mask, amp_saved[a - amp_threads]);
	/* The thread's own affinity excludes that side: leave it where it may run. */
	if (cpumask_empty(mask) || set_cpus_allowed_ptr(a->task, mask))
		return;
	a->place = where;
}

static void amp_release(struct amp_thread *a, bool restore)
{
	if (restore && a->place != AMP_UNPLACED)
		set_cpus_allowed_ptr(a->task, amp_saved[a - amp_threads]);
	if (a->requested)
		pmc_ops_monitor(a->task, false);
	put_task_struct(a->task);
}

/* amp_lock held. Returns the new entry, or NULL (full, or already in). */
static struct amp_thread *track(struct task_struct *task, bool request)
{
	struct amp_thread *a;
	unsigned int i;

	for (i = 0; i < amp_nr; i++)
		if (amp_threads[i].task == task)
			return NULL;
	if (amp_nr == AMP_MAX_THREADS)
		return NULL;
	a = &amp_threads[amp_nr++];
	memset(a, 0, sizeof(*a));
	get_task_struct(task);
	a->task = task;
	a->tid = task_pid_nr(task);
	cpumask_copy(amp_saved[a - amp_threads], task->cpus_ptr);
	if (request && !pmc_ops_monitor(task, true))
		a->requested = true;
	return a;
}

static void untrack(unsigned int i, bool restore)
{
	amp_release(&amp_threads[i], restore);
	amp_threads[i] = amp_threads[--amp_nr];
	cpumask_copy(amp_saved[i], amp_saved[amp_nr]);
}

/* Global mode: every user thread kpmc monitors is a candidate. */
static void adopt_monitored(void)
{
	struct task_struct *g, *t;
	struct task_struct *found[16];
	unsigned int n = 0, i;
	u64 v;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (n == ARRAY_SIZE(found))
			break;
		if ((t->flags & (PF_KTHREAD | PF_EXITING)) ||
		    pmc_ops_get_metric(t, PMC_METRIC_ID_RUN_NS, &v) == -ENODATA)
			continue;
		get_task_struct(t);
		found[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		track(found[i], false);
		put_task_struct(found[i]);
	}
}

static int by_value_desc(const void *x, const void *y)
{
	const struct amp_thread *a = *(struct amp_thread * const *)x;
	const struct amp_thread *b = *(struct amp_thread * const *)y;

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return a->tid - b->tid;
}

static void rank_and_place(void)
{
	struct amp_thread *ranked[AMP_MAX_THREADS];
	unsigned int nr_big_slots, n = 0, i;
	char name[16];
	u64 now_ms = div_u64(ktime_get_ns(), NSEC_PER_MSEC);

	for (i = 0; i < amp_nr; ) {
		if (amp_threads[i].task->flags & PF_EXITING) {
			trail("%llu t=%llu tid=%d exited: dropped\n", amp_round, now_ms,
			      amp_threads[i].tid);
			untrack(i, false);
			continue;
		}
		i++;
	}
	if (amp_global)
		adopt_monitored();
	for (i = 0; i < amp_nr; i++)
		if (sample_metric(&amp_threads[i]))
			ranked[n++] = &amp_threads[i];
	sort(ranked, n, sizeof(ranked[0]), by_value_desc, NULL);
	nr_big_slots = cpumask_weight(amp_big) * amp_slots;
	for (i = 0; i < n; i++) {
		enum amp_place where = i < nr_big_slots ? AMP_BIG : AMP_LITTLE;
		enum amp_place was = ranked[i]->place;

		place(ranked[i], where);
		trail("%llu t=%llu tid=%d %s=%llu rank=%u/%u -> %s%s\n", amp_round, now_ms,
		      ranked[i]->tid, metric_name(amp_metric, name, sizeof(name)),
		      ranked[i]->value, i + 1, n, where == AMP_BIG ? "big" : "little",
		      ranked[i]->place != where ? " (not allowed)" :
		      was == where ? "" : " (moved)");
	}
	amp_round++;
}

static void amp_tick(struct work_struct *work)
{
	mutex_lock(&amp_lock);
	if (amp_enabled) {
		rank_and_place();
		schedule_delayed_work(&amp_work, msecs_to_jiffies(amp_period_ms));
	}
	mutex_unlock(&amp_lock);
}

static int parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *v)
{
	return kstrtouint(s, 10, v) || *v < min || *v > max ? -EINVAL : 0;
}

/* amp_lock held. */
static int control(char *key, char *val)
{
	struct task_struct *task;
	unsigned int v, i;
	int err;

	if (!strcmp(key, "big")) {
		if (cpulist_parse(val, amp_scratch) || !cpumask_subset(amp_scratch, cpu_possible_mask))
			return -EINVAL;
		cpumask_copy(amp_big, amp_scratch);
		/* Everything is placed anew against the new sets. */
		for (i = 0; i < amp_nr; i++)
			amp_threads[i].place = AMP_UNPLACED;
		return 0;
	}
	if (!strcmp(key, "slots"))
		return parse_uint(val, 1, AMP_MAX_THREADS, &amp_slots);
	if (!strcmp(key, "period_ms"))
		return parse_uint(val, 10, 10000, &amp_period_ms);
	if (!strcmp(key, "metric")) {
		if (!strcmp(val, "instr_per_ms"))
			amp_metric = PMC_METRIC_ID_INSTR_PER_MS;
		else if (!strcmp(val, "ipc_milli"))
			amp_metric = PMC_METRIC_ID_IPC_MILLI;
		else if (!strncmp(val, "module", 6) && isdigit(val[6]) && !val[7] && val[6] < '8')
			amp_metric = PMC_METRIC_ID_MODULE0 + val[6] - '0';
		else
			return -EINVAL;
		for (i = 0; i < amp_nr; i++)
			amp_threads[i].have_prev = false;
		return 0;
	}
	if (!strcmp(key, "global") || !strcmp(key, "enable")) {
		if (parse_uint(val, 0, 1, &v))
			return -EINVAL;
		if (key[0] == 'g') {
			amp_global = v;
		} else if (v != amp_enabled) {
			amp_enabled = v;
			if (v)
				schedule_delayed_work(&amp_work, msecs_to_jiffies(amp_period_ms));
		}
		return 0;
	}
	if (!strcmp(key, "add") || !strcmp(key, "remove")) {
		if (kstrtouint(val, 10, &v) || !v)
			return -EINVAL;
		task = get_pid_task(find_vpid(v), PIDTYPE_PID);
		if (!task)
			return -ESRCH;
		if (key[0] == 'a') {
			err = (task->flags & PF_KTHREAD) ? -EINVAL : track(task, true) ? 0 : -EBUSY;
		} else {
			for (i = 0; i < amp_nr && amp_threads[i].task != task; i++)
				;
			err = i < amp_nr ? 0 : -ENOENT;
			if (!err)
				untrack(i, true);
		}
		put_task_struct(task);
		return err;
	}
	return -EINVAL;
}

static ssize_t control_write(struct file *f, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	char buf[128], *val;
	int err;

	if (count == 0 || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	val = strchr(buf, '=');
	if (!val) {
		pr_warn("kpmc_amp: control: '%s' is not KEY=VALUE\n", buf);
		return -EINVAL;
	}
	*val++ = '\0';
	mutex_lock(&amp_lock);
	err = control(buf, val);
	mutex_unlock(&amp_lock);
	if (err)
		pr_warn("kpmc_amp: control: %s=%s refused (%d)\n", buf, val, err);
	return err ? err : count;
}

static int control_show(struct seq_file *m, void *v)
{
	char name[16];
	unsigned int i;

	mutex_lock(&amp_lock);
	seq_printf(m, "enable=%d\nbig=%*pbl\nslots=%u\nperiod_ms=%u\nmetric=%s\nglobal=%d\n",
		   amp_enabled, cpumask_pr_args(amp_big), amp_slots, amp_period_ms,
		   metric_name(amp_metric, name, sizeof(name)), amp_global);
	for (i = 0; i < amp_nr; i++)
		seq_printf(m, "thread %d %s\n", amp_threads[i].tid,
			   amp_threads[i].place == AMP_BIG ? "big" :
			   amp_threads[i].place == AMP_LITTLE ? "little" : "unplaced");
	mutex_unlock(&amp_lock);
	return 0;
}

static int control_open(struct inode *inode, struct file *f)
{
	return single_open(f, control_show, NULL);
}

static int trail_show(struct seq_file *m, void *v)
{
	u64 i;

	mutex_lock(&amp_lock);
	i = amp_trail_next > AMP_TRAIL_LINES ? amp_trail_next - AMP_TRAIL_LINES : 0;
	for (; i < amp_trail_next; i++)
		seq_puts(m, amp_trail[i % AMP_TRAIL_LINES]);
	mutex_unlock(&amp_lock);
	return 0;
}

static int trail_open(struct inode *inode, struct file *f)
{
	return single_open_size(f, trail_show, NULL, AMP_TRAIL_LINES * AMP_LINE);
}

static const struct proc_ops control_ops = {
	.proc_open = control_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = control_write,
};

static const struct proc_ops trail_ops = {
	.proc_open = trail_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static void free_masks(void)
{
	unsigned int i;

	for (i = 0; i < AMP_MAX_THREADS; i++)
		free_cpumask_var(amp_saved[i]);
	free_cpumask_var(amp_scratch);
	free_cpumask_var(amp_big);
}

static int __init amp_init(void)
{
	unsigned int i;
	bool ok;

	ok = zalloc_cpumask_var(&amp_big, GFP_KERNEL) && zalloc_cpumask_var(&amp_scratch, GFP_KERNEL);
	for (i = 0; ok && i < AMP_MAX_THREADS; i++)
		ok = zalloc_cpumask_var(&amp_saved[i], GFP_KERNEL);
	if (!ok) {
		free_masks();
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&amp_work, amp_tick);
	amp_dir = proc_mkdir("kpmc_amp", NULL);
	if (!amp_dir) {
		free_masks();
		return -ENOMEM;
	}
	if (!proc_create("control", 0600, amp_dir, &control_ops) ||
	    !proc_create("trail", 0444, amp_dir, &trail_ops)) {
		proc_remove(amp_dir);
		free_masks();
		return -ENOMEM;
	}
	return 0;
}

static void __exit amp_exit(void)
{
	proc_remove(amp_dir);
	mutex_lock(&amp_lock);
	amp_enabled = false;
	mutex_unlock(&amp_lock);
	cancel_delayed_work_sync(&amp_work);
	while (amp_nr)
		untrack(amp_nr - 1, true);
	free_masks();
}

module_init(amp_init);
module_exit(amp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc_amp: asymmetry-aware thread placement from per-thread PMC metrics");
