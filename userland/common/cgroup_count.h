/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting one cgroup on every CPU through kpmc (enable cgroup=FD: the
 * counters run while a task of the cgroup, or of one below it, runs, as
 * perf's cgroup events count), the totals taken from the CPUs' records when
 * counting stops. For libkpmc's kpmc_cgroup_start() and the Slurm plugin.
 * The session is the calling thread's: start and finish from one thread.
 */
#ifndef KPMC_CGROUP_COUNT_H
#define KPMC_CGROUP_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

struct kpmc_cgroup_count {
	int fd;					/* /proc/kpmc/monitor, -1: none */
	int counting;				/* enable cgroup= was taken */
	char raw[1024];				/* the set as the kernel took it */
	char counter_name[KPMC_MAX_COUNTERS][96];	/* pmcN: its event as given */
	uint32_t counter_mask;			/* counters any record carried */
	uint64_t counts[KPMC_MAX_COUNTERS];
	uint64_t run_ns;			/* CPU time the cgroup's tasks ran, over all CPUs */
	uint64_t records, lost;
	/* Each record as it is taken, for the caller (counts over time), or NULL. */
	void (*on_record)(const struct kpmc_record *r, void *arg);
	void *arg;
};

/*
 * Start counting cgroup_fd (an open directory of the cgroup v2 hierarchy)
 * with events (one set, as kpmc -c takes it: names or raw): the session
 * opened, the configuration written, enable cgroup=FD. 0, or -errno (-1
 * where there is none) with why in err (the module's own reason where it
 * refused; -EBUSY: the node's counters are taken).
 */
int kpmc_cgroup_count_start(struct kpmc_cgroup_count *s, const char *events, int cgroup_fd,
			    char *err, size_t len);

/* One record of the session into the totals (CPU records; LOST counted). */
void kpmc_cgroup_count_add(struct kpmc_cgroup_count *s, const struct kpmc_record *r);

/*
 * The records there are now into the totals (none waited for): for a
 * session whose configuration has CPUs send records as they count (tbs=),
 * taken while counting so that its ring never fills. Any one thread at a
 * time. 0, or -1 with why in err.
 */
int kpmc_cgroup_count_drain(struct kpmc_cgroup_count *s, char *err, size_t len);

/*
 * Stop counting (every CPU sends what it counted since its last record),
 * take the records into the totals and close the session. 0, or -1 with
 * why in err.
 */
int kpmc_cgroup_count_finish(struct kpmc_cgroup_count *s, char *err, size_t len);

#endif
