// SPDX-License-Identifier: GPL-2.0
/*
 * What /proc asks of threads (process context): a thread configures,
 * starts, reads and stops its own monitoring; attaches other threads it may
 * ptrace and detaches them; the kernel API attaches and detaches tasks for
 * scheduling code. Who may count what is privilege.c's; the counters'
 * owner (threads or system-wide) is pmu.c's.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/namei.h>
#include <linux/magic.h>
#include <linux/rwsem.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/capability.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_configs.h"
#include "layer_rules.h"
#include "layer_per_cpu.h"
#include "layer_counting.h"
#include "layer_life.h"
#include "layer_requests.h"

int kpmc_thread_set_config(struct kpmc_thread *t, const struct kpmc_config_sets *sets)
{
	struct kpmc_shared_config *c, *old = NULL;
	char why[KPMC_ERR_MAX] = "";
	unsigned long flags;
	bool busy;

	if (t->state != KPMC_IDLE) {
		kpmc_reject(t, "config",
			    "monitoring is on: write 0 to /proc/kpmc/enable before changing the configuration");
		return -EBUSY;
	}
	c = kpmc_shared_config_new(sets, why, sizeof(why));
	if (IS_ERR(c)) {
		if (PTR_ERR(c) != -ENOMEM)
			kpmc_reject(t, "config", "%s", why);
		return PTR_ERR(c);
	}
	/* An attach reusing this idle state takes the same lock. */
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	busy = t->state != KPMC_IDLE;
	if (!busy) {
		old = t->conf;
		t->set = 0;
		t->conf = c;
		t->foreign = false;
	}
	raw_spin_unlock_irqrestore(&kpmc_threads_lock, flags);
	if (busy) {
		kpmc_shared_config_put(c);
		kpmc_reject(t, "config", "monitoring is on: write 0 to /proc/kpmc/enable before changing the configuration");
		return -EBUSY;
	}
	kpmc_shared_config_put(old);
	return 0;
}

static int need_config_and_session(struct kpmc_thread *t, struct kpmc_session **s)
{
	char why[KPMC_ERR_MAX];
	int err;

	/* A state an attach set up holds its monitor's configuration, not ours. */
	if (!t->conf || t->foreign) {
		kpmc_reject(t, "enable", "no configuration: write /proc/kpmc/config first");
		return -EINVAL;
	}
	*s = kpmc_session_of_current();
	if (!*s) {
		kpmc_reject(t, "enable", "no session: open /proc/kpmc/monitor first");
		return -EINVAL;
	}
	if (READ_ONCE((*s)->stopping)) {
		kpmc_reject(t, "enable", "the session stopped its threads (stop): it takes no new ones");
		kpmc_session_put(*s);
		*s = NULL;
		return -EBADF;
	}
	/* A no-loss ring keeps room for the largest sample (with its format's parts). */
	err = kpmc_ring_set_headroom((*s)->ring, t->conf->records_per_sample, why,
				     sizeof(why));
	if (err) {
		kpmc_reject(t, "enable", "%s", why);
		kpmc_session_put(*s);
		*s = NULL;
	}
	return err;
}

int kpmc_thread_start_self(struct kpmc_thread *t)
{
	struct kpmc_session *s, *old;
	char why[KPMC_ERR_MAX] = "";
	unsigned long flags;
	int err;

	if (t->state != KPMC_IDLE) {
		kpmc_reject(t, "enable", "this thread is already monitored");
		return -EBUSY;
	}
	err = need_config_and_session(t, &s);
	if (err)
		return err;
	err = kpmc_may_count(t->conf, false, kpmc_session_capable(s), why, sizeof(why));
	if (!err)
		err = kpmc_pmu_get(KPMC_USER_THREAD, why, sizeof(why));
	if (err) {
		kpmc_reject(t, "enable", "%s", why);
		kpmc_session_put(s);
		return err;
	}
	old = t->session;
	raw_spin_lock_irqsave(&kpmc_threads_lock, flags);
	t->session = s;
	/* Its session's close and stop visit it (fork and attach list theirs too). */
	kpmc_thread_list_in(t, s);
	kpmc_thread_set_ids(t, current);
	raw_spin_unlock(&kpmc_threads_lock);
	t->owner_capable = kpmc_session_capable(s);
	t->stop_requested = false;
	t->detach_why = 0;
	t->state = KPMC_COUNTING;
	memset(t->acc, 0, sizeof(t->acc));
	t->run_ns = 0;
	kpmc_counting_start(t);
	kpmc_switch_in(this_cpu_ptr(&kpmc_cpus), t, NULL, ktime_get_ns());
	local_irq_restore(flags);
	if (old)
		kpmc_session_put(old);
	return 0;
}

/*
 * The caller's own counts, folded now: the read path of self-monitoring.
 * out->all as struct kpmc_self_counts always had it (the counting set's
 * counters); out->all.counts is completed with the other sets' counters and
 * out->sets[] says per set what it counted and for how long.
 */
int kpmc_thread_read_self(struct kpmc_thread *t, struct kpmc_self_all *all)
{
	struct kpmc_self_sets *out = &all->sets;
	struct kpmc_cpu *c;
	const struct kpmc_hw_config *hw;
	unsigned long flags;
	unsigned int i, s, pmc;

	memset(all, 0, sizeof(*all));
	local_irq_save(flags);
	if (t->state != KPMC_COUNTING) {
		local_irq_restore(flags);
		return -ENODATA;
	}
	c = this_cpu_ptr(&kpmc_cpus);
	if (c->cur == t && kpmc_fold(c, t, ktime_get_ns()))
		kpmc_sampling_take(c, t, true);
	hw = thw(t);
	out->all.counter_mask = hw->mask;
	out->all.set = t->set;
	out->all.run_ns = t->total_run_ns + t->run_ns;
	out->nr_sets = t->conf->sets.nr;
	for (s = 0; s < out->nr_sets && s < KPMC_MAX_SETS; s++) {
		const struct kpmc_hw_config *sh = &t->conf->hw[s];

		out->sets[s].counter_mask = sh->mask;
		out->sets[s].run_ns = t->set_total_run_ns[s] + (s == t->set ? t->run_ns : 0);
		for (i = 0; i < sh->nr; i++) {
			pmc = sh->slot[i];
			out->sets[s].counts[pmc] = t->set_total[s][pmc] +
						   (s == t->set ? t->acc[i] : 0);
		}
	}
	for (pmc = 0; pmc < KPMC_MAX_COUNTERS; pmc++)
		out->all.counts[pmc] = t->total[pmc];
	for (i = 0; i < hw->nr; i++)
		out->all.counts[hw->slot[i]] += t->acc[i];
	all->virt_mask = kpmc_monmod_read_virt(t, all->virt);
	local_irq_restore(flags);
	return 0;
}

int kpmc_thread_stop_self(struct kpmc_thread *t)
{
	unsigned long flags;

	if (t->state == KPMC_IDLE) {
		kpmc_reject(t, "enable", "this thread is not monitored");
		return -EINVAL;
	}
	local_irq_save(flags);
	kpmc_stop_current(t, KPMC_REC_DETACH);
	local_irq_restore(flags);
	return 0;
}

/*
 * May the caller monitor task? The rule is perf's: ptrace's read access
 * (PTRACE_MODE_READ, LSMs included), asked of the task itself.
 * ptrace_may_access() is not exported to modules, so ask the kernel the
 * same question it asks on open of /proc/<tid>/environ: of the procfs that
 * init's root holds, by the task's number in the initial pid namespace.
 * Never of a path the caller could resolve: its root, mounts and /proc are
 * its own to change (a user namespace makes them so), and a link there
 * would put another task, or another file system, under the check. The
 * number may have been reused since pid was found: the check must have
 * been of pid's task.
 */
/*
 * The root of the initial mount namespace, as init (pid 1 of the initial
 * pid namespace) sees it: the idle task's may be an empty root under the
 * real one (7.x), and init has chrooted into the real root at boot.
 */
static int init_root(struct path *root)
{
	struct task_struct *init;
	int err = -ENXIO;

	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return err;
	task_lock(init);
	if (init->fs) {
		get_fs_root(init->fs, root);
		err = 0;
	}
	task_unlock(init);
	put_task_struct(init);
	return err;
}

static int may_monitor(struct pid *pid, struct task_struct *task)
{
	pid_t global = task_pid_nr(task);
	struct path root;
	struct file *f;
	char name[32];
	int err = 0;

	if (!global)
		return -ESRCH;
	snprintf(name, sizeof(name), "proc/%d/environ", global);
	err = init_root(&root);
	if (err)
		return err;
	f = kpmc_file_open_root(&root, name, O_RDONLY | O_NOFOLLOW);
	path_put(&root);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ? -ESRCH : PTR_ERR(f);
	if (file_inode(f)->i_sb->s_magic != PROC_SUPER_MAGIC ||
	    proc_pid_ns(file_inode(f)->i_sb) != &init_pid_ns)
		err = -ENXIO;
	filp_close(f, NULL);
	if (err)
		return err;
	rcu_read_lock();
	if (find_pid_ns(global, &init_pid_ns) != pid)
		err = -ESRCH;
	rcu_read_unlock();
	return err;
}

int kpmc_thread_attach(struct kpmc_thread *owner, pid_t tid, bool at_exec)
{
	char why[KPMC_ERR_MAX] = "";
	struct mm_struct *mm = NULL;
	struct task_struct *task;
	struct kpmc_session *s;
	struct kpmc_thread *t;
	struct pid *pid;
	bool capable;
	int err;

	err = need_config_and_session(owner, &s);
	if (err)
		return err;
	err = -ESRCH;
	pid = find_get_pid(tid);
	task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	if (!task) {
		kpmc_reject(owner, "enable", "pid=%d: no such thread", tid);
		goto out_session;
	}
	err = -EINVAL;
	if (task == current) {
		kpmc_reject(owner, "enable", "pid=%d is the caller itself: write 1 instead", tid);
		goto out_task;
	}
	if (task->flags & PF_KTHREAD) {
		kpmc_reject(owner, "enable", "pid=%d is a kernel thread", tid);
		goto out_task;
	}
	/*
	 * The check and the insert must be of one image of the task: an exec
	 * in between (a setuid program) would be monitored on the strength of
	 * a check of what it replaced, after the exec hook has run. The
	 * check's open takes the exec lock itself, so hold the task's mm
	 * across it (its address cannot be reused), then take the lock and
	 * see that no exec has replaced the mm; the insert happens under it.
	 */
	mm = get_task_mm(task);
	err = mm ? may_monitor(pid, task) : -ESRCH;
	if (err == -ESRCH) {
		kpmc_reject(owner, "enable", "pid=%d: no such thread", tid);
		goto out_mm;
	}
	if (err == -EACCES || err == -EPERM) {
		kpmc_reject(owner, "enable",
			    "pid=%d: permission denied (the caller may not ptrace it)", tid);
		err = -EPERM;
		goto out_mm;
	}
	if (err) {
		kpmc_reject(owner, "enable",
			    "pid=%d: permission denied (the ptrace check could not be asked of init's /proc: error %d)",
			    tid, err);
		err = -EPERM;
		goto out_mm;
	}
	err = down_read_killable(&task->signal->exec_update_lock);
	if (err)
		goto out_mm;
	if (READ_ONCE(task->mm) != mm) {
		up_read(&task->signal->exec_update_lock);
		kpmc_reject(owner, "enable", "pid=%d exec'd during the attach: try again", tid);
		err = -EAGAIN;
		goto out_mm;
	}
	capable = kpmc_session_capable(s);
	err = kpmc_may_count(owner->conf, false, capable, why, sizeof(why));
	if (!err)
		err = kpmc_pmu_get(KPMC_USER_THREAD, why, sizeof(why));
	if (err) {
		up_read(&task->signal->exec_update_lock);
		kpmc_reject(owner, "enable", "%s", why);
		goto out_mm;
	}
	t = kpmc_thread_alloc(task, GFP_KERNEL_ACCOUNT);
	if (!t) {
		up_read(&task->signal->exec_update_lock);
		kpmc_pmu_put(KPMC_USER_THREAD);
		err = -ENOMEM;
		goto out_mm;
	}
	/*
	 * From here t holds the PMU use: freeing it non-idle gives it back.
	 * An armed thread starts its counting (and its module's) at the exec.
	 */
	t->state = at_exec ? KPMC_ARMED_EXEC : KPMC_COUNTING;
	t->foreign = true;
	t->owner_capable = capable;
	refcount_inc(&owner->conf->ref);
	t->conf = owner->conf;
	t->session = s;
	kpmc_thread_set_ids(t, task);
	err = kpmc_thread_insert(t, task);
	up_read(&task->signal->exec_update_lock);
	mmput(mm);
	put_task_struct(task);
	put_pid(pid);
	if (err)
		kpmc_reject(owner, "enable", "pid=%d: %s", tid, err == -EBUSY ?
			    "already monitored, or configuring itself" : err == -EBADF ?
			    "the session was closed or stopped meanwhile" : "exiting");
	return err;

out_mm:
	if (mm)
		mmput(mm);
out_task:
	put_task_struct(task);
out_session:
	put_pid(pid);
	kpmc_session_put(s);
	return err;
}

/*
 * Monitoring that scheduling code asked for (pmc_ops_monitor): the kernel
 * configuration, no session; its children are followed like any monitored
 * thread's. Process context. The counters are loaded at its next switch-in.
 */
int kpmc_thread_attach_kernel(struct task_struct *task, struct kpmc_shared_config *conf,
			      char *why, size_t len)
{
	struct kpmc_thread *t;
	int err;

	err = kpmc_pmu_get(KPMC_USER_THREAD, why, len);
	if (err)
		return err;
	t = kpmc_thread_alloc(task, GFP_KERNEL);
	if (!t) {
		kpmc_pmu_put(KPMC_USER_THREAD);
		return -ENOMEM;
	}
	t->state = KPMC_COUNTING;
	t->foreign = true;
	/* The kernel decided: nothing of the task's privileges is at stake. */
	t->owner_capable = true;
	refcount_inc(&conf->ref);
	t->conf = conf;
	err = kpmc_thread_insert(t, task);
	if (err)
		snprintf(why, len, "%s", err == -EBUSY ? "already monitored" : "exiting");
	return err;
}

/* Any context: stop kernel-requested monitoring of task at its next switch or fold. */
int kpmc_thread_detach_kernel(struct task_struct *task)
{
	struct kpmc_thread *t;
	int err = -ENODATA;

	rcu_read_lock();
	t = kpmc_thread_lookup(task);
	if (t && !t->session && t->state != KPMC_IDLE) {
		WRITE_ONCE(t->stop_requested, true);
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/*
 * The reader of the caller's session takes every thread's last record: see
 * kpmc_threads_session_stop. One way: the session takes no thread after.
 */
int kpmc_threads_stop_all(struct kpmc_thread *owner)
{
	struct kpmc_session *s = kpmc_session_of_current();

	if (!s) {
		kpmc_reject(owner, "enable", "stop: no session: open /proc/kpmc/monitor first");
		return -EINVAL;
	}
	kpmc_threads_session_stop(s);
	kpmc_session_put(s);
	return 0;
}

/*
 * The owner of t's session stops monitoring t, another thread that may be
 * running on another CPU right now: t's CPU does it at t's next switch-in or
 * fold timer, and the DETACH record tells the owner it is done.
 */
int kpmc_thread_detach(struct kpmc_thread *owner, pid_t tid)
{
	struct kpmc_session *s = kpmc_session_of_current();
	struct task_struct *task;
	struct kpmc_thread *t;
	int err = -ESRCH;

	if (!s) {
		kpmc_reject(owner, "enable", "pid=%d,stop: no session: nothing was attached", tid);
		return -EINVAL;
	}
	task = get_pid_task(find_vpid(tid), PIDTYPE_PID);
	rcu_read_lock();
	t = task ? kpmc_thread_lookup(task) : NULL;
	if (t && t->session == s && t->state != KPMC_IDLE) {
		WRITE_ONCE(t->stop_requested, true);
		err = 0;
	}
	rcu_read_unlock();
	if (task)
		put_task_struct(task);
	kpmc_session_put(s);
	if (err)
		kpmc_reject(owner, "enable", "pid=%d,stop: not monitored by this session", tid);
	return err;
}
