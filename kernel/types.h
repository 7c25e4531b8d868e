/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's objects, private to kernel/: configurations, sessions, thread
 * states, each CPU's counting state. Each layer's functions are declared in
 * its own header beside the sources (layer_<name>.h, the layers of
 * tests/host/kernel_layers.txt); this one holds only the data they share.
 * Backends, formats and monitoring modules never see it: their faces are
 * in kernel/include/kpmc/.
 */
#ifndef KPMC_TYPES_H
#define KPMC_TYPES_H


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
struct kpmc_ring;

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
	struct pid *owner_group;	/* the opener's thread group: the records' pid namespace */
	kuid_t uid;			/* the opener's effective uid */
	bool capable;			/* the opener was perfmon_capable(): no user limits */
	/*
	 * "unprivileged": the reader serves others (a root daemon): what it
	 * monitors is judged as a user's, whoever the caller is.
	 */
	bool unprivileged;
	bool listed;			/* on kpmc_sessions: freeing takes it off */
	size_t ring_bytes;		/* the ring's size (or reserved size); kpmc_sessions_lock */
	/* Its records (ring.c): producers write there; a no-loss wait may outlive s. */
	struct kpmc_ring *ring;
	bool closed;			/* the reader closed its file */
	u32 system_views;		/* system-wide views it started (ids); kpmc_system_lock */
	/*
	 * Its threads stop counting and it takes no thread any more: the
	 * reader asked for their last records (enable "stop"; the ring stays
	 * for it to drain) or closed its file (closed is set too).
	 */
	bool stopping;
	struct irq_work free_irq;	/* the last put queues the free from any context */
	struct rcu_work free_work;	/* free in process context, after a grace period */
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
	/* The module's values in the thread's records since its start or the module's. */
	u64 virt_total[KPMC_MAX_VIRT];
	/* Multiplexing: the set counting now, and how long / how many samples it has. */
	unsigned int set;
	u64 set_run_ns;
	u32 set_samples;
	/*
	 * The set's time slice (drawn when randomized), the generator, and a
	 * randomized rotation's order in this cycle and position in it.
	 */
	u64 set_slice_ns;
	u64 mux_rand_state;
	u8 mux_order[KPMC_MAX_SETS];
	u8 mux_pos;
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

/* How many sessions may count system-wide at once, sharing one configuration. */
#define KPMC_SYSTEM_VIEWS	8

/* A view's counts on one CPU since its last record there. */
struct kpmc_view_cpu {
	u64 acc[KPMC_MAX_COUNTERS];
	u64 run_ns;			/* counted time */
	u64 next_record_ns;		/* wall time of the next TBS record */
	u64 nsample;
};

/*
 * One session's system-wide monitoring (kpmc -S, -G): which tasks it
 * counts, and where its records go. Each CPU of its kpmc_system folds the
 * counters into it while a task it counts runs there.
 */
struct kpmc_system_view {
	struct kpmc_shared_config *conf;
	struct kpmc_session *session;
	u32 id;				/* the session's 1, 2, ...: its records' detail */
	bool exclude_idle;
	/*
	 * Counting only while a task of this cgroup (v2) or of one below it
	 * runs, as perf's cgroup events count; NULL: whatever runs. Held.
	 */
	struct cgroup *cgrp;
	struct kpmc_view_cpu __percpu *pcpu;
};

/*
 * System-wide monitoring of a set of CPUs: one hardware configuration
 * loaded on them (the first view's; later views must configure the same
 * counters) and the sessions' views of it, so that several cgroups (jobs,
 * containers) are counted at once on the same counters.
 */
struct kpmc_system {
	struct kpmc_shared_config *conf;
	cpumask_var_t cpus;
	struct kpmc_system_view *view[KPMC_SYSTEM_VIEWS];	/* under kpmc_system_lock */
	unsigned int nr_views;
};

/* What each CPU's counters hold, and its fold / sampling timer (pmu.c). */
struct kpmc_cpu {
	struct kpmc_thread *cur;	/* whose counts the counters hold; NULL: stopped */
	u64 loaded_generation;		/* config in the selectors; 0: none */
	u64 last_raw[KPMC_MAX_COUNTERS];
	struct hrtimer timer;		/* folds counters and takes TBS records */
	/*
	 * System-wide mode: this CPU's counters count for sys's views, this
	 * CPU's copy of them, which only this CPU changes (IRQs off, as its
	 * switch hook and timer run).
	 */
	struct kpmc_system *sys;
	struct kpmc_system_view *sys_view[KPMC_SYSTEM_VIEWS];
	unsigned int sys_nr_views;
	u32 sys_counting;		/* bit i: sys_view[i] counts what runs; 0: stopped */
	bool sys_filtered;		/* a view counts only some tasks: switches look */
	u64 sys_since_ns;		/* last fold, or resume */
	bool user_access;		/* the backend grants user-space counter reads now */
	bool pm_saved;			/* folded for a PMU power-down, not yet reloaded */
};

DECLARE_PER_CPU(struct kpmc_cpu, kpmc_cpus);

/* Enabled while a session exists: until then the switch hook does nothing. */
DECLARE_STATIC_KEY_FALSE(kpmc_monitoring);


/* module.c: the hook source chosen at load (proc.c names it in info). */
extern const struct kpmc_hook_source *kpmc_hooks;

/* The set t counts now: its configuration, encoding and generation. */
static inline const struct kpmc_config *tcfg(const struct kpmc_thread *t)
{
	return &t->conf->sets.set[t->set];
}

static inline const struct kpmc_hw_config *thw(const struct kpmc_thread *t)
{
	return &t->conf->hw[t->set];
}

static inline u64 tgen(const struct kpmc_thread *t)
{
	return t->conf->generation + t->set;
}

#endif /* KPMC_TYPES_H */
