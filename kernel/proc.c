// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kpmc: the user interface. Every write is parsed strictly and either
 * applies whole or is rejected with -EINVAL (or a more specific errno), one
 * dmesg line naming the bad token, and no change.
 */
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/sched.h>

#include "layer_base.h"
#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_formats.h"
#include "layer_per_cpu.h"
#include "layer_life.h"
#include "layer_requests.h"
#include "layer_interfaces.h"
#include "kpmc/hooks.h"

/* Longest write any file accepts; longer ones are rejected, not truncated. */
#define KPMC_WRITE_MAX	1024

static struct proc_dir_entry *kpmc_dir;

/* Copy a whole write into a NUL-terminated kernel buffer. */
static char *fetch_write(const char __user *ubuf, size_t count, const char *file,
			 struct kpmc_thread *t)
{
	char *buf;

	if (count == 0) {
		kpmc_reject(t, file, "empty write");
		return ERR_PTR(-EINVAL);
	}
	if (count > KPMC_WRITE_MAX) {
		kpmc_reject(t, file, "write of %zu bytes is longer than %d", count,
			    KPMC_WRITE_MAX);
		return ERR_PTR(-EINVAL);
	}
	buf = memdup_user_nul(ubuf, count);
	return buf;
}

/* Does buf (count bytes, NUL-terminated copy) equal word, optionally + "\n"? */
static bool is_word(const char *buf, size_t count, const char *word)
{
	size_t n = strlen(word);

	return (count == n || (count == n + 1 && buf[n] == '\n')) &&
	       !memcmp(buf, word, n);
}

/* ---- info ---- */

static int info_show(struct seq_file *m, void *v)
{
	const struct kpmc_monitoring_module *monmod = kpmc_monmod_active();
	unsigned int known, counting, buckets, i;
	int live_threads, live_configs;

	seq_puts(m, "version: 1\n");
	seq_printf(m, "hooks: %s\n", kpmc_hooks ? kpmc_hooks->name : "none");
	if (!kpmc_backend) {
		seq_puts(m, "backend: none\n");
		seq_printf(m, "pmu: no supported PMU found: %s\n", kpmc_no_pmu_reason);
	} else {
		seq_printf(m, "backend: %s\n", kpmc_backend->name);
		seq_printf(m, "pmu: %s\n", kpmc_pmu.model);
		if (kpmc_no_pmu_reason[0])
			seq_printf(m, "direct_backends_refused: %s\n", kpmc_no_pmu_reason);
		seq_printf(m, "counters: %u\n", kpmc_pmu.nr_counters);
		seq_printf(m, "fixed_counters: %u", kpmc_pmu.nr_fixed);
		for (i = 0; i < kpmc_pmu.nr_fixed; i++)
			seq_printf(m, " pmc%u=%s(0x%llx)", i, kpmc_pmu.fixed_name[i],
				   kpmc_pmu.fixed_event[i]);
		seq_puts(m, "\n");
		seq_printf(m, "general_counters: %u (pmc%u-pmc%u)\n",
			   kpmc_pmu.nr_counters - kpmc_pmu.nr_fixed, kpmc_pmu.nr_fixed,
			   kpmc_pmu.nr_counters - 1);
		seq_printf(m, "memory_sampling: %s%s\n",
			   kpmc_backend->mem_sample && kpmc_pmu.mem_source ?
			   kpmc_pmu.mem_source : "none",
			   kpmc_pmu.mem_ldlat ? " (ldlat)" : "");
		seq_puts(m, "counter_width:");
		for (i = 0; i < kpmc_pmu.nr_counters; i++)
			seq_printf(m, " %u", kpmc_pmu.width[i]);
		seq_puts(m, "\n");
		/*
		 * Hybrid CPUs: one PMU per core type; pmc numbers are their union.
		 * arm64 lists its one type too, with the events its PMCEID
		 * implements (bit e: event e; then bit e: event 0x4000 + e), for
		 * kpmc -L.
		 */
		for (i = 0; i < kpmc_pmu.nr_core_types; i++) {
			const struct kpmc_core_type *ct = &kpmc_pmu.core_type[i];

			seq_printf(m, "core_type%u: %s: cpus %s: pmc mask 0x%x: %s\n", i,
				   ct->name, ct->cpus, ct->counters, ct->detail);
			if (ct->events[0] || ct->events[1])
				seq_printf(m, "core_type%u_events: 0x%016llx 0x%016llx\n", i,
					   ct->events[0], ct->events[1]);
		}
	}
	seq_printf(m, "monitoring_module: %s\n", monmod ? monmod->name : "none");
	seq_puts(m, "virtual_counters:");
	for (i = 0; monmod && i < KPMC_MAX_VIRT; i++)
		if (monmod->virt_names[i])
			seq_printf(m, " virt%u=%s", i, monmod->virt_names[i]);
	seq_puts(m, "\n");
	/* Whether a thread's read() of self gives them between records (struct kpmc_self_all). */
	seq_printf(m, "virtual_counters_self_read: %s\n", monmod && monmod->peek ? "yes" : "no");
	kpmc_threads_count(&known, &counting, &buckets);
	seq_printf(m, "threads_monitored: %u\n", counting);
	seq_printf(m, "threads_known: %u\n", known);
	seq_printf(m, "thread_table_buckets: %u\n", buckets);
	seq_printf(m, "close_visited: %u\n", kpmc_threads_last_sweep());
	seq_printf(m, "threads_lost: %d\n", atomic_read(&kpmc_threads_lost));
	seq_printf(m, "sessions: %u\n", kpmc_sessions_live());
	seq_printf(m, "ring_records: %u\n", kpmc_ring_records);
	kpmc_rings_show(m);
	kpmc_live_objects(&live_threads, &live_configs);
	seq_printf(m, "live_objects: %u (thread states %d, configurations %d, sessions %u)\n",
		   live_threads + live_configs + kpmc_sessions_live(), live_threads,
		   live_configs, kpmc_sessions_live());
	return 0;
}

/* ---- config ---- */

static int config_show(struct seq_file *m, void *v)
{
	struct kpmc_thread *t = kpmc_thread_of_current(false);
	char text[KPMC_CONFIG_STR_MAX * 2];

	if (!t || !t->conf) {
		seq_puts(m, "none\n");
		return 0;
	}
	kpmc_config_sets_format(&t->conf->sets, text, sizeof(text));
	seq_printf(m, "%s\n", text);
	return 0;
}

static ssize_t config_write(struct file *f, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);
	struct kpmc_config_sets *sets;
	char err[KPMC_ERR_MAX];
	char *buf;
	int r;

	if (!t)
		return -ENOMEM;
	if (!kpmc_backend) {
		kpmc_reject(t, "config", "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	buf = fetch_write(ubuf, count, "config", t);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	sets = kmalloc(sizeof(*sets), GFP_KERNEL);
	if (!sets) {
		kfree(buf);
		return -ENOMEM;
	}
	r = kpmc_config_sets_parse(buf, count, &kpmc_pmu, sets, err, sizeof(err));
	kfree(buf);
	if (r)
		kpmc_reject(t, "config", "%s", err);
	else
		r = kpmc_thread_set_config(t, sets);
	kfree(sets);
	return r ? r : count;
}

/* ---- enable ---- */

static int parse_pid(const char *s, size_t len, pid_t *pid)
{
	u64 v;

	if (kpmc_parse_u64(s, len, &v) || v == 0 || v > PID_MAX_LIMIT)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static int enable_system(struct kpmc_thread *t, const char *cpus, size_t len,
			 bool exclude_idle, int cgroup_fd)
{
	if (!kpmc_backend) {
		kpmc_reject(t, "enable", "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	return kpmc_system_start(t, cpus, len, exclude_idle, cgroup_fd);
}

/* "cgroup=FD": every CPU, counting while the cgroup's tasks run (a session may count several). */
static int enable_cgroup(struct kpmc_thread *t, const char *fd, size_t len)
{
	char q[KPMC_QUOTE_MAX + 2];
	u64 v;

	if (kpmc_parse_u64(fd, len, &v) || v > INT_MAX) {
		kpmc_quote_token(q, sizeof(q), fd, len);
		kpmc_reject(t, "enable", "'cgroup=%s': want the number of an open cgroup directory", q);
		return -EINVAL;
	}
	return enable_system(t, "all", 3, false, (int)v);
}

/* "stop=ID": one of the session's system-wide starts (its records' detail) stops. */
static int enable_stop_one(struct kpmc_thread *t, const char *id, size_t len)
{
	char q[KPMC_QUOTE_MAX + 2];
	u64 v;

	if (kpmc_parse_u64(id, len, &v) || v == 0 || v > U32_MAX) {
		kpmc_quote_token(q, sizeof(q), id, len);
		kpmc_reject(t, "enable", "'stop=%s': want the number of a system-wide start (1, 2, ...)",
			    q);
		return -EINVAL;
	}
	return kpmc_system_stop(t, (u32)v);
}

static ssize_t enable_write(struct file *f, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);
	size_t len = count;
	bool at_exec = false, stop = false;
	const char *comma;
	pid_t pid;
	char q[KPMC_QUOTE_MAX + 2];
	char *buf;
	int r;

	if (!t)
		return -ENOMEM;
	buf = fetch_write(ubuf, count, "enable", t);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (len && buf[len - 1] == '\n')
		len--;
	if (is_word(buf, count, "1")) {
		r = kpmc_thread_start_self(t);
	} else if (is_word(buf, count, "stop")) {
		r = kpmc_threads_stop_all(t);
	} else if (is_word(buf, count, "0")) {
		r = kpmc_system_active() ? kpmc_system_stop(t, 0) : kpmc_thread_stop_self(t);
	} else if (len > 5 && !memcmp(buf, "cpus=", 5)) {
		r = enable_system(t, buf + 5, len - 5, false, -1);
	} else if (len > 12 && !memcmp(buf, "cpus_noidle=", 12)) {
		r = enable_system(t, buf + 12, len - 12, true, -1);
	} else if (len > 7 && !memcmp(buf, "cgroup=", 7)) {
		r = enable_cgroup(t, buf + 7, len - 7);
	} else if (len > 5 && !memcmp(buf, "stop=", 5)) {
		r = enable_stop_one(t, buf + 5, len - 5);
	} else if (len > 4 && !memcmp(buf, "pid=", 4)) {
		comma = memchr(buf, ',', len);
		if (comma) {
			if (len - (comma - buf) == 5 && !memcmp(comma, ",exec", 5)) {
				at_exec = true;
			} else if (len - (comma - buf) == 5 && !memcmp(comma, ",stop", 5)) {
				stop = true;
			} else {
				kpmc_quote_token(q, sizeof(q), comma, len - (comma - buf));
				kpmc_reject(t, "enable", "'%s': unknown option (',exec' or ',stop')", q);
				r = -EINVAL;
				goto out;
			}
		}
		if (parse_pid(buf + 4, (comma ? (size_t)(comma - buf) : len) - 4, &pid)) {
			kpmc_quote_token(q, sizeof(q), buf, len);
			kpmc_reject(t, "enable", "'%s': bad pid", q);
			r = -EINVAL;
			goto out;
		}
		if (!kpmc_backend) {
			kpmc_reject(t, "enable", "no supported PMU found: %s", kpmc_no_pmu_reason);
			r = -ENODEV;
			goto out;
		}
		r = stop ? kpmc_thread_detach(t, pid) : kpmc_thread_attach(t, pid, at_exec);
	} else {
		kpmc_quote_token(q, sizeof(q), buf, len);
		kpmc_reject(t, "enable", "'%s': expected 1, 0, stop, pid=N, pid=N,exec, pid=N,stop, cpus=LIST, cpus_noidle=LIST, cgroup=FD or stop=ID",
			    q);
		r = -EINVAL;
	}
out:
	kfree(buf);
	return r ? r : count;
}

/* ---- last_error ---- */

static int last_error_show(struct seq_file *m, void *v)
{
	struct kpmc_thread *t = kpmc_thread_of_current(false);

	if (t && t->last_error[0])
		seq_printf(m, "%s\n", t->last_error);
	return 0;
}

/*
 * ---- self: the calling thread's counts, binary: struct kpmc_self_counts,
 * struct kpmc_self_sets (per event set) or struct kpmc_self_all (with the
 * virtual counters), the largest the buffer has room for ----
 */

static ssize_t self_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	struct kpmc_thread *t = kpmc_thread_of_current(false);
	struct kpmc_self_all ss;
	size_t n = len >= sizeof(ss) ? sizeof(ss) :
		   len >= sizeof(ss.sets) ? sizeof(ss.sets) : sizeof(ss.sets.all);

	if (len < sizeof(ss.sets.all))
		return -EINVAL;
	if (!t || kpmc_thread_read_self(t, &ss)) {
		if (t)
			kpmc_reject(t, "self", "this thread is not monitored (write 1 to enable first)");
		return -ENODATA;
	}
	if (copy_to_user(buf, &ss, n))
		return -EFAULT;
	return n;
}

/* The fast read path: the calling thread's struct kpmc_self_page (selfpage.c). */
static int self_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);

	if (!t)
		return -ENOMEM;
	if (!kpmc_backend) {
		kpmc_reject(t, "self", "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	return kpmc_selfpage_mmap(t, vma);
}

/* ---- monitor ---- */

static int monitor_open(struct inode *inode, struct file *f)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);
	char why[KPMC_ERR_MAX] = "";
	struct kpmc_session *s;

	s = kpmc_session_open(why, sizeof(why));
	if (IS_ERR(s)) {
		kpmc_reject(t, "monitor", "%s", why[0] ? why : "cannot open a session");
		return PTR_ERR(s);
	}
	f->private_data = s;
	return nonseekable_open(inode, f);
}

static int monitor_release(struct inode *inode, struct file *f)
{
	struct kpmc_session *s = f->private_data;

	/*
	 * Closed first: a system-wide start or an armed attach that took s
	 * before this close checks closed under the locks that the next two
	 * steps take, so either it sees closed or they see its work.
	 */
	kpmc_session_close(s);
	kpmc_system_session_closed(s);
	/* Its threads, armed, counting or asleep, let go of s and the PMU. */
	kpmc_threads_session_closed(s);
	kpmc_session_release(s);
	/*
	 * A give-back of the PMU that the session's last threads started
	 * completes before the reader's close does: once "kpmc -- prog"
	 * has exited, perf has its counters.
	 */
	kpmc_pmu_settle();
	return 0;
}

static ssize_t monitor_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	struct kpmc_session *s = f->private_data;

	return kpmc_ring_read(s->ring, buf, len, f->f_flags & O_NONBLOCK);
}

/*
 * "ring=N", "ring=N,noloss" or "noloss": records in this session's ring and
 * no-loss mode (before its first record); "wakeup=MS" or "wakeup=watermark":
 * how soon records wake the reader (at any time).
 */
static ssize_t monitor_write(struct file *f, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);
	char why[KPMC_ERR_MAX] = "";
	size_t len = count;
	char *buf;
	int r;

	if (!t)
		return -ENOMEM;
	buf = fetch_write(ubuf, count, "monitor", t);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (len && buf[len - 1] == '\n')
		len--;
	r = kpmc_session_command(f->private_data, buf, len, why, sizeof(why));
	if (r && why[0])
		kpmc_reject(t, "monitor", "%s", why);
	kfree(buf);
	return r ? r : count;
}

/* The session's ring, mapped (struct kpmc_ring_control). */
static int monitor_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct kpmc_session *s = f->private_data;
	char why[KPMC_ERR_MAX] = "";
	int r = kpmc_ring_mmap(s->ring, vma, why, sizeof(why));

	if (r && why[0])
		kpmc_reject(kpmc_thread_of_current(true), "monitor", "%s", why);
	return r;
}

static __poll_t monitor_poll(struct file *f, poll_table *pt)
{
	struct kpmc_session *s = f->private_data;

	return kpmc_ring_poll(s->ring, f, pt);
}

/* ---- mm_manager ---- */

static int mm_manager_show(struct seq_file *m, void *v)
{
	int active = kpmc_monmod_index();
	unsigned int i;

	char why[KPMC_ERR_MAX];

	for (i = 0; kpmc_monmod_table[i]; i++) {
		why[0] = '\0';
		if (kpmc_monmod_available(i, why, sizeof(why)))
			seq_printf(m, "%u %s [unavailable: %s] - %s\n", i, kpmc_monmod_table[i]->name,
				   why, kpmc_monmod_table[i]->description);
		else
			seq_printf(m, "%u %s%s - %s\n", i, kpmc_monmod_table[i]->name,
				   (int)i == active ? " [active]" : "",
				   kpmc_monmod_table[i]->description);
	}
	return 0;
}

static ssize_t mm_manager_write(struct file *f, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct kpmc_thread *t = kpmc_thread_of_current(true);
	size_t len = count;
	char q[KPMC_QUOTE_MAX + 2];
	char *buf;
	u64 idx;
	int r;

	if (!capable(CAP_SYS_ADMIN)) {
		kpmc_reject(t, "mm_manager", "changing the monitoring module needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	buf = fetch_write(ubuf, count, "mm_manager", t);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (len && buf[len - 1] == '\n')
		len--;
	if (len <= 9 || memcmp(buf, "activate ", 9) ||
	    kpmc_parse_u64(buf + 9, len - 9, &idx) || idx > INT_MAX) {
		kpmc_quote_token(q, sizeof(q), buf, len);
		kpmc_reject(t, "mm_manager", "'%s': expected 'activate N'", q);
		r = -EINVAL;
	} else {
		r = kpmc_monmod_activate((unsigned int)idx);
		if (r == -EINVAL) {
			kpmc_quote_token(q, sizeof(q), buf, len);
			kpmc_reject(t, "mm_manager", "'%s': no monitoring module %llu", q, idx);
		} else if (r) {
			char why[KPMC_ERR_MAX] = "";

			kpmc_monmod_available((unsigned int)idx, why, sizeof(why));
			kpmc_reject(t, "mm_manager", "module %llu cannot be activated: %s", idx,
				    why[0] ? why : "its activation failed");
		}
	}
	kfree(buf);
	return r ? r : count;
}

/* ---- registration ---- */

static int info_open(struct inode *i, struct file *f) { return single_open(f, info_show, NULL); }
static int config_open(struct inode *i, struct file *f) { return single_open(f, config_show, NULL); }
static int last_error_open(struct inode *i, struct file *f) { return single_open(f, last_error_show, NULL); }
static int mm_manager_open(struct inode *i, struct file *f) { return single_open(f, mm_manager_show, NULL); }

static int formats_show(struct seq_file *m, void *v)
{
	kpmc_formats_show(m);
	return 0;
}

static int formats_open(struct inode *i, struct file *f)
{
	return single_open(f, formats_show, NULL);
}

static const struct proc_ops formats_ops = {
	.proc_open = formats_open, .proc_read = seq_read,
	.proc_lseek = seq_lseek, .proc_release = single_release,
};

static const struct proc_ops info_ops = {
	.proc_open = info_open, .proc_read = seq_read,
	.proc_lseek = seq_lseek, .proc_release = single_release,
};

static const struct proc_ops config_ops = {
	.proc_open = config_open, .proc_read = seq_read, .proc_write = config_write,
	.proc_lseek = seq_lseek, .proc_release = single_release,
};

static const struct proc_ops enable_ops = {
	.proc_write = enable_write,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops last_error_ops = {
	.proc_open = last_error_open, .proc_read = seq_read,
	.proc_lseek = seq_lseek, .proc_release = single_release,
};

static const struct proc_ops self_ops = {
	.proc_read = self_read,
	.proc_mmap = self_mmap,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops monitor_ops = {
	.proc_open = monitor_open, .proc_release = monitor_release,
	.proc_read = monitor_read, .proc_write = monitor_write, .proc_poll = monitor_poll,
	.proc_mmap = monitor_mmap,
};

static const struct proc_ops mm_manager_ops = {
	.proc_open = mm_manager_open, .proc_read = seq_read, .proc_write = mm_manager_write,
	.proc_lseek = seq_lseek, .proc_release = single_release,
};

/*
 * config and enable are writable by everyone on purpose: any user may
 * monitor their own threads (PMCTrack's model); attaching to others is
 * checked against ptrace rights, global state against capabilities.
 */
int kpmc_proc_init(void)
{
	kpmc_dir = proc_mkdir("kpmc", NULL);
	if (!kpmc_dir)
		return -ENOMEM;
	if (!proc_create("info", 0444, kpmc_dir, &info_ops) ||
	    !proc_create("config", 0666, kpmc_dir, &config_ops) ||
	    !proc_create("enable", 0222, kpmc_dir, &enable_ops) ||
	    !proc_create("last_error", 0444, kpmc_dir, &last_error_ops) ||
	    !proc_create("self", 0444, kpmc_dir, &self_ops) ||
	    !proc_create("monitor", 0666, kpmc_dir, &monitor_ops) ||
	    !proc_create("mm_manager", 0644, kpmc_dir, &mm_manager_ops) ||
	    !proc_create("formats", 0444, kpmc_dir, &formats_ops)) {
		proc_remove(kpmc_dir);
		return -ENOMEM;
	}
	return 0;
}

/* Where other parts put their files (the kernel API's kernel_config). */
struct proc_dir_entry *kpmc_proc_dir(void)
{
	return kpmc_dir;
}

void kpmc_proc_exit(void)
{
	proc_remove(kpmc_dir);
}
