/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's internal state: per-thread monitoring, sessions, and what the
 * /proc layer needs from them. Private to kernel/ (it sits beside the
 * sources, not in kernel/include/kpmc/, the plug-ins' faces): backends,
 * formats and monitoring modules never see it.
 */
#ifndef KPMC_CORE_H
#define KPMC_CORE_H

#include <linux/types.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/irq_work.h>
#include <linux/hrtimer.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <linux/rcupdate.h>
#include <linux/jump_label.h>
#include <linux/poll.h>
#include <linux/uidgid.h>
#include <uapi/linux/kpmc.h>

struct proc_dir_entry;

#include "kpmc/backend.h"
#include "kpmc/monmod.h"
#include "kpmc/ring.h"

/* A parsed configuration plus its register encoding; shared, immutable. */
struct kpmc_shared_config {
	refcount_t ref;
	/* Unique per set (generation + set): tells a CPU whether its selectors hold it. */
	u64 generation;
	struct kpmc_config_sets sets;
	struct kpmc_hw_config hw[KPMC_MAX_SETS];
	/* Each set's sampling format (NULL: none) and its state. */
	struct kpmc_format *fmt[KPMC_MAX_SETS];
	void *fmt_priv[KPMC_MAX_SETS];
	/* The most records one sample takes over the sets (a no-loss ring's headroom). */
	unsigned int records_per_sample;
	struct rcu_work free_work;	/* freed a grace period after the last put */
};

/*
 * Where a monitoring session's records go: one per open of /proc/kpmc/monitor,
 * owned by the opening thread (its pid) while the file is open.
 */
struct kpmc_session {
	refcount_t ref;
	struct list_head node;		/* kpmc_sessions, until freed: charged to its user */
	struct pid *owner;		/* the opening thread, while the file is open */
	/*
	 * The thread groups that read s: the opener's, and the last to read,
	 * poll or map it (under lock). Their threads never wait on s in
	 * no-loss mode (they would wait for themselves), and s's reader is
	 * gone once neither group lives (a child that inherited the file
	 * keeps it open, and may not read it).
	 */
	struct pid *owner_group;
	struct pid *reader_group;
	kuid_t uid;			/* the opener's effective uid */
	bool capable;			/* the opener was perfmon_capable(): no user limits */
	/*
	 * "unprivileged": the reader serves others (a root daemon): what it
	 * monitors is judged as a user's, whoever the caller is.
	 */
	bool unprivileged;
	bool listed;			/* on kpmc_sessions: freeing takes it off */
	size_t ring_bytes;		/* the ring's size (or reserved size); kpmc_sessions_lock */
	raw_spinlock_t lock;		/* producers (any CPU, any context) vs reader */
	struct kpmc_ring_pos pos;
	struct kpmc_record *slots;
	bool closed;			/* the reader closed its file */
	/*
	 * Its threads stop counting and it takes no thread any more: the
	 * reader asked for their last records (enable "stop"; the ring stays
	 * for it to drain) or closed its file (closed is set too).
	 */
	bool stopping;
	wait_queue_head_t wait;
	struct irq_work wake;		/* wake readers from scheduler context */
	struct hrtimer wake_timer;	/* batched wakeup: at most wakeup_ms late */
	bool wake_armed;		/* wake_timer started, not yet fired; under lock */
	u32 wake_mark;			/* records in the ring that wake at once */
	int wakeup_ms;			/* "wakeup=": KPMC_WAKEUP_* or ms; under lock */
	u64 records_in;			/* records pushed (kept + dropped); under lock */
	struct irq_work free_irq;	/* the last put queues the free from any context */
	struct rcu_work free_work;	/* free in process context, after a grace period */
	/* The mapped ring (session.c): its control page; once mapped, its size is fixed. */
	struct kpmc_ring_control *ctrl;
	bool mapped;
	/* No-loss mode (session.c): NULL while off. */
	struct kpmc_noloss *noloss;
	u32 per_sample;			/* most records one sample takes (kpmc_session_set_headroom) */
	/*
	 * The thread states given s while it took threads (thread.c; under
	 * kpmc_threads_lock): what its close and stop visit. Emptied by the
	 * close, before s can be freed.
	 */
	struct list_head threads;
};

/*
 * A session's wake-up policy (the reader writes "wakeup=MS" or
 * "wakeup=watermark"): by default the module's wakeup_ms; a reader that
 * looks at records only at the end (a trace file, totals: perf record's
 * way) takes no timer wake-ups, only the watermark's, a full ring's and a
 * no-loss wait's.
 */
#define KPMC_WAKEUP_DEFAULT	(-1)
#define KPMC_WAKEUP_WATERMARK	(-2)
#define KPMC_WAKEUP_MAX_MS	60000

enum kpmc_thread_state {
	KPMC_IDLE,		/* known to kpmc (config/session owner), not counting */
	KPMC_ARMED_EXEC,	/* starts counting at its next exec */
	KPMC_COUNTING,
	/*
	 * Holds a PMU use and is not loaded at switch-in: idle being set up
	 * again by an attach, or counting for a session whose reader closed
	 * it, on its way to idle (kpmc_threads_session_closed).
	 */
	KPMC_ATTACHING,
};

/* A thread state's place in one of the two thread tables (thread.c). */
struct kpmc_thread_link {
	struct hlist_node node;
};

struct kpmc_thread {
	/*
	 * Its chain in the thread table, through link[table->link]: the
	 * other one is the chain of the table before or after a resize.
	 */
	struct kpmc_thread_link link[2];
	struct task_struct *task;	/* key; state is dropped at the task's exit */
	pid_t pid, tid;			/* global: what the kernel side matches on */
	/*
	 * What readers see, as perf gives it: its records' numbers in the pid
	 * namespace of its session's opener (0 where it is not in it), its
	 * self page's in its own (kpmc_thread_set_ids()).
	 */
	pid_t rec_pid, rec_tid, own_tid;
	enum kpmc_thread_state state;
	struct kpmc_shared_config *conf;	/* what it counts; NULL until configured */
	/* Where its records go, while not idle; NULL: monitored for the kernel (kernel_api.c). */
	struct kpmc_session *session;
	/* Owned by the CPU the thread runs on, with IRQs off: */
	u64 acc[KPMC_MAX_COUNTERS];	/* deltas since the last record, by hw slot order */
	u32 uncounted;			/* pmcN that did not count for part of acc */
	u64 total[KPMC_MAX_COUNTERS];	/* by pmc number, up to the last record */
	u64 total_run_ns;
	u64 run_ns;			/* on-CPU time since the last record */
	u64 switched_in_ns;
	u64 nsample;
	/* Event-based sampling, when the configuration has it: */
	u64 sampling_raw;		/* the sampling counter's value while switched out */
	u64 sampling_period;		/* the period being counted down */
	u64 rand_state;			/* randomized periods: the generator */
	bool stop_requested;		/* the session owner detaches it: done on its CPU */
	/*
	 * Set up by another thread or the kernel (attach), never configured by
	 * the task itself: once idle again, another attach may reuse it.
	 */
	bool foreign;
	u32 detach_why;			/* enum kpmc_detach_reason of the coming DETACH, if not the default */
	/*
	 * Whoever started this monitoring was perfmon_capable() then: it goes on
	 * across an exec that raises privileges, and gets values that are
	 * CAP_PERFMON's only (RAPL per switch). Children inherit it.
	 */
	bool owner_capable;
	/* Its session's close took it from counting (under kpmc_threads_lock). */
	bool closing;
	/*
	 * On listed_in's threads list, for that session's close and stop to
	 * visit (under kpmc_threads_lock): the last session given to it while
	 * that one took threads. NULL: on none.
	 */
	struct list_head session_node;
	struct kpmc_session *listed_in;
	/* The active monitoring module's state for this thread, and for which activation. */
	u64 monmod_scratch[KPMC_MONMOD_SCRATCH];
	unsigned int monmod_epoch;
	/* Multiplexing: the set counting now, and how long / how many samples it has. */
	unsigned int set;
	u64 set_run_ns;
	u32 set_samples;
	/* Per set, up to the last record: counts by pmc number, on-CPU time. */
	u64 set_total[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	u64 set_total_run_ns[KPMC_MAX_SETS];
	char last_error[KPMC_ERR_MAX];
	/* For the in-kernel API: CPU changes, and the module's values of the last record. */
	u64 migrations;
	u64 last_virt[KPMC_MAX_VIRT];
	u32 last_virt_mask;
	/* The fast read path's page (selfpage.c), once the thread mapped it; IRQs off. */
	struct page *self_page;
	struct rcu_head rcu;
};

/*
 * Folding at least this often keeps 32-bit event counters from wrapping
 * twice between two reads, even at several events per cycle at 5 GHz.
 */
#define KPMC_FOLD_NS	(50 * NSEC_PER_MSEC)

/*
 * Hot-path stack buffers that are written before they are read (a record
 * kpmc_record_build() writes whole, the raw values the backend reads for
 * every counter): with CONFIG_INIT_STACK_ALL_ZERO the compiler would
 * memset them first, 80 to 256 bytes at every sample, for nothing.
 */
#if __has_attribute(__uninitialized__)
#define KPMC_NO_AUTO_INIT __attribute__((__uninitialized__))
#else
#define KPMC_NO_AUTO_INIT
#endif

/* System-wide monitoring of a set of CPUs (kpmc -S): one at a time. */
struct kpmc_system {
	struct kpmc_shared_config *conf;
	struct kpmc_session *session;
	cpumask_var_t cpus;
	bool exclude_idle;
};

/* What each CPU's counters hold, and its fold / sampling timer (pmu.c). */
struct kpmc_cpu {
	struct kpmc_thread *cur;	/* whose counts the counters hold; NULL: stopped */
	u64 loaded_generation;		/* config in the selectors; 0: none */
	u64 last_raw[KPMC_MAX_COUNTERS];
	struct hrtimer timer;		/* folds counters and takes TBS records */
	/* System-wide mode: this CPU is counted whatever runs on it. */
	struct kpmc_system *sys;
	u64 sys_acc[KPMC_MAX_COUNTERS];
	u64 sys_run_ns;			/* counted time since the last record */
	u64 sys_since_ns;		/* last fold, or resume from idle */
	u64 sys_next_record_ns;		/* wall time of the next TBS record */
	u64 sys_nsample;
	bool sys_paused;		/* idle excluded and the idle task runs */
	bool user_access;		/* the backend grants user-space counter reads now */
	bool pm_saved;			/* folded for a PMU power-down, not yet reloaded */
};

DECLARE_PER_CPU(struct kpmc_cpu, kpmc_cpus);

/* Enabled while a session exists: until then the switch hook does nothing. */
DECLARE_STATIC_KEY_FALSE(kpmc_monitoring);

/* module.c: the hook source chosen at load. */
extern const struct kpmc_hook_source *kpmc_hooks;

/* pmu.c: the backend chosen at load (kpmc/backend.h), and the claim of its counters. */
extern struct kpmc_pmu_desc kpmc_pmu;
extern char kpmc_no_pmu_reason[KPMC_ERR_MAX];
void kpmc_pmu_init(void);
void kpmc_pmu_exit(void);
/*
 * Users of the PMU claim: a thread counting or armed, a system-wide session;
 * the two exclude each other. get: process context, claims for the first
 * user; or why not (-EBUSY: the other kind owns the counters). get_more:
 * any context, a thread only while another thread holds the claim (a fork).
 * put: any context; the claim goes back after the last.
 */
enum kpmc_pmu_user { KPMC_USER_THREAD, KPMC_USER_SYSTEM };
int kpmc_pmu_get(enum kpmc_pmu_user who, char *why, size_t len);
bool kpmc_pmu_get_more(void);
void kpmc_pmu_put(enum kpmc_pmu_user who);
unsigned int kpmc_pmu_user_count(bool *claimed);
bool kpmc_pmu_claimed_now(void);
void kpmc_pmu_settle(void);
/* Unload: every user gone; the counters go back to perf. */
void kpmc_pmu_shutdown(void);

/* reject.c: why a request was refused, to the thread's last_error and dmesg. */
void kpmc_reject(struct kpmc_thread *t, const char *file, const char *fmt, ...) __printf(3, 4);

/*
 * thread.c (the table), counting.c (its per-CPU timers; stopped before the
 * table goes), lifecycle.c (hooks, a session's close) and control.c (what
 * /proc asks of threads)
 */
int kpmc_threads_init(void);
void kpmc_threads_exit(void);
void kpmc_counting_init(void);
void kpmc_counting_stop(void);
struct kpmc_thread *kpmc_thread_of_current(bool create);
int kpmc_thread_set_config(struct kpmc_thread *t, const struct kpmc_config_sets *sets);
int kpmc_thread_start_self(struct kpmc_thread *t);
int kpmc_thread_stop_self(struct kpmc_thread *t);
int kpmc_thread_attach(struct kpmc_thread *owner, pid_t tid, bool at_exec);
int kpmc_thread_detach(struct kpmc_thread *owner, pid_t tid);
/* Thread states, those counting or armed, and the thread table's buckets. */
void kpmc_threads_count(unsigned int *known, unsigned int *counting, unsigned int *buckets);
void kpmc_threads_session_closed(struct kpmc_session *s);
/* Thread states the last close or stop of a session visited. */
unsigned int kpmc_threads_last_sweep(void);
void kpmc_threads_session_stop(struct kpmc_session *s);
int kpmc_threads_stop_all(struct kpmc_thread *owner);
void kpmc_live_objects(int *threads, int *configs);
/* The CPU's PMU loses its state / lost it (IRQs off, this CPU). */
void kpmc_cpu_save(void);
void kpmc_cpu_reload(void);
void kpmc_cpu_restore(void);

/*
 * The in-kernel metric API: what kpmc has counted for a monitored thread.
 * Scheduling code (policies/amp/ is one) reaches it through the patched
 * kernel's pmc_ops (patches/): pmc_ops_get_metric() and
 * pmc_ops_get_metrics(), in hooks_pmcops.c.
 */
/**
 * struct kpmc_thread_metrics - what kpmc has counted for a monitored thread
 * @has_instructions: a counter of the thread's configuration counts the
 *	PMU's instructions event: @instructions holds it
 * @has_cycles: the same for the cycles event and @cycles
 * @instructions: instructions since its monitoring began
 * @cycles: cycles since its monitoring began
 * @run_ns: its monitored on-CPU time
 * @migrations: its CPU changes while monitored
 * @nsample: the records taken of it so far
 * @virt_mask: the active monitoring module's values in its last record:
 *	bit N set, @virt[N] holds virtual counter N
 * @virt: those values
 */
struct kpmc_thread_metrics {
	bool has_instructions, has_cycles;
	u64 instructions, cycles;
	u64 run_ns;
	u64 migrations;
	u64 nsample;
	u32 virt_mask;
	u64 virt[KPMC_MAX_VIRT];
};
/**
 * kpmc_thread_metrics() - what kpmc has counted for a thread
 * @task: the thread: monitored by a session, or at the kernel's request
 *	(kpmc_kernel_monitor())
 * @m: where the metrics go; zeroed first
 *
 * Counts up to the thread's last fold (switch, tick or record): at most one
 * fold period (%KPMC_FOLD_NS) behind for a running thread. Never sleeps,
 * allocates or takes a lock: an RCU read-side section over the thread's
 * state.
 *
 * Context: any context (scheduler code with a runqueue lock held and IRQs
 * off included).
 * Return: 0, or -ENODATA if @task is not counting.
 */
int kpmc_thread_metrics(struct task_struct *task, struct kpmc_thread_metrics *m);
struct kpmc_shared_config *kpmc_shared_config_new(const struct kpmc_config_sets *sets,
						  char *why, size_t len);
int kpmc_shared_config_prepare(const struct kpmc_shared_config *c, bool user_limited,
			       char *why, size_t len);
int kpmc_thread_attach_kernel(struct task_struct *task, struct kpmc_shared_config *conf,
			      char *why, size_t len);
int kpmc_thread_detach_kernel(struct task_struct *task);

/* privilege.c: perf's rules for who may count what. */
void kpmc_privilege_init(void);
void kpmc_privilege_exit(void);
int kpmc_perf_paranoid(void);
/*
 * May an owner count conf (cpu_wide: system-wide)? capable: the owner is
 * CAP_PERFMON (kpmc_session_capable()). 0, or -EACCES and why.
 */
int kpmc_may_count(const struct kpmc_shared_config *conf, bool cpu_wide, bool capable,
		   char *why, size_t len);

/* kernel_api.c: monitoring that scheduling code asks for (pmc_ops_monitor). */
/**
 * kpmc_kernel_monitor() - start or stop counting a thread at the kernel's
 *	request
 * @task: the thread
 * @on: start (true) or stop (false) counting it
 *
 * Queues the request, which is done a few ms later in process context:
 * the caller may hold a runqueue lock, where kpmc can neither allocate nor
 * take its mutexes. On: @task counts with the kernel configuration
 * (/proc/kpmc/kernel_config; by default the PMU's instructions and cycles),
 * with no session: its records feed only kpmc_thread_metrics() and the
 * monitoring module. Off: a thread counting at the kernel's request stops
 * at its next switch or fold; one monitored by a session is left alone. A
 * start refused when it is done (no PMU, the counters taken by a
 * system-wide session, the thread monitored already or exiting, no memory)
 * is counted, with its reason, in /proc/kpmc/kernel_config, not returned.
 * @task is referenced while queued.
 *
 * Context: any context but NMI.
 * Return: 0 when queued, or -EBUSY when 64 requests are pending already or
 * kpmc's hooks are detached (unload).
 */
int kpmc_kernel_monitor(struct task_struct *task, bool on);
int kpmc_kernel_api_init(struct proc_dir_entry *dir);
void kpmc_kernel_api_stop(void);
int kpmc_thread_read_self(struct kpmc_thread *t, struct kpmc_self_sets *out);
extern atomic_t kpmc_threads_lost;
void kpmc_shared_config_put(struct kpmc_shared_config *c);

/* system.c */
bool kpmc_system_active(void);
int kpmc_system_start(struct kpmc_thread *owner, const char *cpulist, size_t len,
		      bool exclude_idle);
int kpmc_system_stop(struct kpmc_thread *owner);
void kpmc_system_session_closed(struct kpmc_session *s);
void kpmc_system_switch(struct kpmc_cpu *c, struct task_struct *prev,
			struct task_struct *next);
enum hrtimer_restart kpmc_system_tick(struct kpmc_cpu *c, struct hrtimer *timer);
void kpmc_system_exit(void);
/* This CPU (IRQs off), counting system-wide: fold before / reload after a PMU reset. */
void kpmc_system_cpu_save(struct kpmc_cpu *c, u64 now);
void kpmc_system_cpu_reload(struct kpmc_cpu *c);
/* CPU hotplug, process context on that CPU, CPU hotplug lock held. */
void kpmc_system_cpu_online(unsigned int cpu);
void kpmc_system_cpu_offline(unsigned int cpu);
/* cpu_state.c: CPU hotplug, CPU PM and suspend notifications. */
int kpmc_cpu_state_init(void);
void kpmc_cpu_state_exit(void);

/* format.c: the sampling formats' registry (kpmc/format.h) and their step. */
struct kpmc_format;
struct kpmc_format_sample;
struct seq_file;
int kpmc_formats_init(void);
void kpmc_formats_exit(void);
/* Process context: fmt=name with its options; holds the format's module. */
struct kpmc_format *kpmc_format_get(const char *name, const char *args, void **priv,
				    char *why, size_t len);
void kpmc_format_put(struct kpmc_format *f, void *priv);
unsigned int kpmc_format_parts(const struct kpmc_format *f, const void *priv);
/* Hot path (any context but NMI): the sample and what f adds, to the ring. */
void kpmc_format_emit(struct kpmc_session *session, struct kpmc_format *f, void *priv,
		      const struct kpmc_record *sample, struct kpmc_format_sample *fs);
void kpmc_formats_show(struct seq_file *m);

/* session.c */
extern unsigned int kpmc_ring_records;
struct kpmc_session *kpmc_session_open(char *why, size_t len);
struct kpmc_session *kpmc_session_of_current(void);
void kpmc_session_get(struct kpmc_session *s);
void kpmc_session_put(struct kpmc_session *s);
bool kpmc_session_tryget(struct kpmc_session *s);
void kpmc_session_close(struct kpmc_session *s);
void kpmc_session_release(struct kpmc_session *s);
/* Process context, the owner's: may what s's owner monitors be counted as CAP_PERFMON's? */
bool kpmc_session_capable(const struct kpmc_session *s);
struct pid_namespace *kpmc_session_pid_ns(const struct kpmc_session *s);
/* Process context: the calling thread reads s (read, poll, mmap): its group never waits on s. */
void kpmc_session_reader(struct kpmc_session *s);
void kpmc_session_stats(struct kpmc_session *s, u64 *used, u64 *dropped);
void kpmc_session_push(struct kpmc_session *s, const struct kpmc_record *rec);
void kpmc_session_push_n(struct kpmc_session *s, const struct kpmc_record *recs,
			 unsigned int n);
struct kpmc_record *kpmc_session_reserve(struct kpmc_session *s, unsigned long *flags);
void kpmc_session_commit(struct kpmc_session *s, const struct kpmc_record *rec,
			 unsigned long flags);
/* n records were dropped for another reason than a full ring (a format's buffer). */
void kpmc_session_lose(struct kpmc_session *s, unsigned int n);
/*
 * record.c: a record of counts acc (hw slot order) over run_ns, with the
 * active monitoring module's virtual counters; the caller adds who and why.
 */
void kpmc_record_build(struct kpmc_record *rec, enum kpmc_record_kind kind,
		       const struct kpmc_config *cfg, const struct kpmc_hw_config *hw,
		       const u64 *acc, u64 run_ns, struct kpmc_thread *t);
/* defer.c: run work in process context later (kpmc's workqueue); flushed at unload. */
int kpmc_defer_init(void);
void kpmc_defer_exit(void);
void kpmc_defer(struct work_struct *work);
void kpmc_defer_rcu(struct rcu_work *work);
void kpmc_flush_deferred(void);
int kpmc_session_resize(struct kpmc_session *s, u32 records, char *why, size_t len);
/*
 * A write to the monitor file: "ring=N", "ring=N,noloss", "noloss",
 * "wakeup=MS|watermark" or "unprivileged".
 */
int kpmc_session_command(struct kpmc_session *s, const char *buf, size_t len,
			 char *why, size_t whylen);
/* mmap of the monitor file: the control page or the records (UAPI kpmc_ring_control). */
int kpmc_session_mmap(struct kpmc_session *s, struct vm_area_struct *vma, char *why, size_t len);
/*
 * The most records one sample of s can take (a sample and its format's
 * parts): no-loss mode keeps room for that many in flight. Process context;
 * -ENOSPC (and why) when s is in no-loss mode with a ring too small for it.
 */
int kpmc_session_set_headroom(struct kpmc_session *s, unsigned int records_per_sample,
			      char *why, size_t len);
/* /proc/kpmc/info: the no-loss waits and how they ended, over all sessions. */
void kpmc_sessions_show(struct seq_file *m);
ssize_t kpmc_session_read(struct kpmc_session *s, char __user *buf, size_t len, bool nonblock);
__poll_t kpmc_session_poll(struct kpmc_session *s, struct file *f, poll_table *pt);
unsigned int kpmc_sessions_live(void);
void kpmc_sessions_shutdown(void);
void kpmc_sessions_exit(void);

/* monmod.c */
int kpmc_monmod_index(void);
int kpmc_monmod_activate(unsigned int index);
/* t: the thread the sample is for, NULL for a CPU's (system-wide) sample. */
void kpmc_monmod_sample(struct kpmc_sample *s, struct kpmc_thread *t);
void kpmc_monmod_thread_start(struct kpmc_thread *t);
/* The monitored thread on this CPU changes (either may be NULL); IRQs off. */
void kpmc_monmod_switch(struct kpmc_thread *out, struct kpmc_thread *in);
void kpmc_monmod_exit(void);
int kpmc_monmod_available(unsigned int index, char *why, size_t len);
const struct kpmc_monitoring_module *kpmc_monmod_active(void);

/* selfpage.c: the fast read path (struct kpmc_self_page). Hot path: IRQs off, t's CPU. */
void kpmc_selfpage_sync(struct kpmc_cpu *c, struct kpmc_thread *t);
void kpmc_selfpage_leave(struct kpmc_cpu *c);
int kpmc_selfpage_mmap(struct kpmc_thread *t, struct vm_area_struct *vma);
void kpmc_selfpage_free(struct kpmc_thread *t);

/* proc.c */
int kpmc_proc_init(void);
struct proc_dir_entry *kpmc_proc_dir(void);
void kpmc_proc_exit(void);

#endif /* KPMC_CORE_H */
