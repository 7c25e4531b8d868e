/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pmdakpmc reports: per-process, per-thread and per-CPU totals summed
 * from a session's records (each record holds the counts since its thread's
 * previous one), the records lost, and how long an exited process stays
 * visible. Pure: records in, totals out; tests drive it with records of
 * their own.
 */
#ifndef KPMC_PMDA_COUNTS_H
#define KPMC_PMDA_COUNTS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uapi/linux/kpmc.h>

struct kpmc_pmda_totals {
	uint64_t pmc[KPMC_MAX_COUNTERS];
	uint64_t virt[KPMC_MAX_VIRT];
	uint64_t run_ns;
	uint64_t records;
};

/* One process (thread group) or one thread: its totals and when it ended. */
struct kpmc_pmda_task {
	uint32_t id;		/* pid of a process, tid of a thread */
	uint32_t pid;		/* the thread group (= id for a process) */
	char comm[16];
	char job[64];		/* the Slurm job of its cgroup, or "" */
	char step[32];		/* the Slurm step of its cgroup, or "" */
	char cgroup[192];	/* its cgroup v2 path, or "" */
	uint32_t uid;		/* its real uid */
	uint64_t start;		/* start time (/proc/PID/stat, ticks): tells a reused pid */
	unsigned int live_threads;	/* threads seen and not yet ended (processes) */
	time_t ended;		/* 0 while alive; else when its last thread ended */
	int final;		/* a thread: ended by its own last record (EXIT or DETACH) */
	struct kpmc_pmda_totals t;
};

/*
 * Tasks in the order they came, and an index from id to slot: a record's
 * lookup costs the same with 10 tasks or 10,000 (a fork storm inside a
 * selector adds thousands). Changed only through this file's functions.
 */
struct kpmc_pmda_task_table {
	struct kpmc_pmda_task *v;
	unsigned int n;
	size_t cap;
	uint32_t *index;		/* open addressing: slot + 1, 0 empty; at most half full */
	unsigned int index_cap;		/* a power of two */
};

struct kpmc_pmda_counts {
	struct kpmc_pmda_task_table procs, threads;
	struct kpmc_pmda_totals cpu[256];
	uint8_t cpu_seen[256];
	uint64_t lost;			/* records the kernel dropped */
	uint32_t counter_mask, virt_mask;	/* what any record carried */
	int changed;			/* instances came or went since the caller cleared it */
	/*
	 * The start time of the process pid is now in /proc: 0, or -1 when
	 * there is none. Asked only when a record comes for a pid whose entry
	 * has ended, to tell a late record of that process from a new process
	 * that reuses the pid. NULL: an ended entry always takes the record.
	 * Kept by kpmc_pmda_counts_free.
	 */
	int (*start_of)(uint32_t pid, uint64_t *start, void *arg);
	void *start_arg;
};

/*
 * Add one record. A task seen for the first time is created; *new_proc (if
 * not NULL) points at the process then, for the caller to name it (comm,
 * job, cgroup). threads: keep per-thread totals too. 0, or -1 (no memory,
 * or a CPU record past the table).
 *
 * Entries are processes by (pid, start time): a record for a pid whose
 * entry has ended, while /proc shows another process (another start time)
 * with that pid, starts a new entry in place of the ended one (whose ended
 * threads go with it). A thread that ended with its last record, or whose
 * tid comes back in another process, starts afresh too.
 */
int kpmc_pmda_counts_add(struct kpmc_pmda_counts *c, const struct kpmc_record *r, time_t now,
			 int threads, struct kpmc_pmda_task **new_proc);

/*
 * Thread tid of process pid (start time start) was just attached: its
 * process is an instance from now, with zero totals until its first record
 * (a selected process that sleeps sends none for as long as it sleeps, and
 * is counted all the same). Entries are made or revived as a record's are;
 * *new_proc (if not NULL) points at a process entry made now, for the
 * caller to name. 0, or -1 (no memory).
 */
int kpmc_pmda_counts_attached(struct kpmc_pmda_counts *c, uint32_t pid, uint32_t tid, uint64_t start,
			      int threads, struct kpmc_pmda_task **new_proc);

/*
 * A process seen in /proc no longer (its exit records may have been lost):
 * ended now if not already.
 */
void kpmc_pmda_counts_gone(struct kpmc_pmda_counts *c, uint32_t pid, time_t now);

/* Drop tasks that ended more than grace_s seconds before now. */
void kpmc_pmda_counts_expire(struct kpmc_pmda_counts *c, time_t now, unsigned int grace_s);

/* The task of id (the first one added, if several), or NULL. */
struct kpmc_pmda_task *kpmc_pmda_counts_find(struct kpmc_pmda_task_table *t, uint32_t id);

/* Append a copy of k (a task read back from saved state); 0, or -1 (no memory). */
int kpmc_pmda_table_append(struct kpmc_pmda_task_table *t, const struct kpmc_pmda_task *k);

/*
 * dst (zeroed at first, or an earlier copy) becomes a copy of src, its
 * tables its own: what is served while src goes on counting. 0, or -1 (no
 * memory; dst unchanged).
 */
int kpmc_pmda_counts_copy(struct kpmc_pmda_counts *dst, const struct kpmc_pmda_counts *src);

/* Free the tables and zero c (start_of and start_arg kept). */
void kpmc_pmda_counts_free(struct kpmc_pmda_counts *c);

#endif
