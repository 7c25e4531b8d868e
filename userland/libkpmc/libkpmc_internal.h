/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What libkpmc's parts share and nothing else:
 *   session.c   kpmc_start/kpmc_stop: the configuration resolved and
 *               written, the session's steps in order, kpmc_last_error,
 *               KPMC_FOLD_TRACE at the stop
 *   readpath.c  the calling thread's counters: its mapped page (the fast
 *               path), read() of /proc/kpmc/self, the path's mode, the
 *               thread's state forgotten in a forked child
 *   regions.c   regions: begin and end per thread, totals over all threads,
 *               each invocation kept for the samples and the fold trace
 *   records.c   the session's records: /proc/kpmc/monitor and its mapped
 *               ring, the reader thread, samples and memory samples kept,
 *               the queries on them and the fold trace's snapshot
 * Locks: records.c's before regions.c's where a caller holds both.
 *
 * Hidden: one call or load for the parts, as within one file, and nothing
 * here exported from libkpmc.so (libkpmc.map says the same); prefixed
 * kpmc_lib_ for a program that links libkpmc.a or the sources.
 */
#ifndef KPMC_LIB_INTERNAL_H
#define KPMC_LIB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kpmc.h"
#include "attrib.h"
#include "foldtrace_write.h"

#define KPMC_LIB_MAX_REGIONS	64
#define KPMC_LIB_NAME_LEN	48	/* a region name's bytes, its NUL included */

#pragma GCC visibility push(hidden)

/* What kpmc_start set for the session it started (session.c). */
struct kpmc_lib_session {
	int sampling;		/* the configuration has ebs or tbs: a reader drains the session */
	/*
	 * The configuration has several sets: a reader drains the session too
	 * (a record every turn), and each thread's turns are kept for
	 * kpmc_read_estimate().
	 */
	int multiplexed;
	/*
	 * The fold trace (foldtrace_write.h): each invocation and sample kept
	 * with samples, or when KPMC_FOLD_TRACE asks for it at kpmc_stop().
	 */
	int fold_keep;
	struct kpmc_lib_fold_counters fold_counters;
};
extern struct kpmc_lib_session kpmc_lib_session;

/* readpath.c */
/*
 * The calling thread's counts by the path's mode; with prefer_read, through
 * read() where the mode leaves the choice (KPMC_PATH_AUTO). 0 or -errno.
 */
int kpmc_lib_read(struct kpmc_counts *c, int prefer_read);
/* The calling thread's counts with every set's, by read() whatever the path's mode. */
int kpmc_lib_read_sets(struct kpmc_counts *c);
/*
 * The same read() with the active monitoring module's virtual counters
 * since the thread's start (struct kpmc_self_all): *virt_mask says which
 * virt[] holds, 0 where the module gives none between records.
 */
int kpmc_lib_read_virt(struct kpmc_counts *c, uint64_t virt[KPMC_MAX_VIRT], uint32_t *virt_mask);
/* The calling thread's id, asked of the kernel once (again in a forked child). */
uint32_t kpmc_lib_tid(void);

/* records.c */
/*
 * The session opened (/proc/kpmc/monitor, its ring mapped where the module
 * has one) and what the last one kept forgotten: 0, or -errno of the open.
 */
int kpmc_lib_records_open(void);
/* Whether a session is open. */
int kpmc_lib_records_opened(void);
/* The reader thread that drains a sampling session as its records come: 0 or -errno. */
int kpmc_lib_reader_start(void);
/* The reader stopped and the session closed; with drain_first, its last records taken first. */
void kpmc_lib_records_close(int drain_first);

/* regions.c */
/* Every region's invocations kept for samples and the fold trace, freed. */
void kpmc_lib_regions_forget_kept(void);
/*
 * A copy of region name's invocations (*iv NULL, *n 0: no region, or none
 * kept): 0, or -ENOMEM. The caller frees *iv.
 */
int kpmc_lib_region_intervals(const char *name, struct kpmc_lib_interval **iv, size_t *n);
/*
 * For the fold trace: regs[i] each region with invocations kept, a copy of
 * them, named in names[i] (blanks made '_'). 0, or -ENOMEM; either way
 * *nregs entries filled, each regs[i].inv the caller's to free.
 */
int kpmc_lib_regions_fold_copy(struct kpmc_lib_fold_region regs[KPMC_LIB_MAX_REGIONS],
			       char names[KPMC_LIB_MAX_REGIONS][KPMC_LIB_NAME_LEN], size_t *nregs);

#pragma GCC visibility pop

#endif
