/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libkpmc's pure logic, apart from the library's I/O so that the unit tests
 * run it as it is: scaling a multiplexed set's counts, following each
 * thread's records to the thread's on-CPU time at each sample, and finding
 * the region invocation a sample falls in.
 *
 * The attribution key is a thread's monitored on-CPU time (run_ns) as the
 * kernel accounts it: every record carries the run_ns it covers since the
 * thread's previous record, and a read() of /proc/kpmc/self returns the
 * thread's total, folded at the read by the same accounting. So the sum of a
 * thread's record run_ns up to a sample is exactly the thread's total at the
 * sample, comparable with the totals read at a region's begin and end (no
 * clock of another thread or CPU is involved). A sample of thread T belongs
 * to an invocation of region R in T when begin < key <= end: a sample taken
 * during the begin read (its overflow came before it) is not the region's,
 * one taken during the end read is.
 */
#ifndef LIBKPMC_ATTRIB_H
#define LIBKPMC_ATTRIB_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>

#include "common/mux_estimate.h"

/*
 * count x total_ns / set_ns, rounded to nearest, saturating: the estimate
 * of what a set that counted set_ns of total_ns would have counted over all
 * of it. 0 when the set never ran.
 */
uint64_t kpmc_lib_scale(uint64_t count, uint64_t set_ns, uint64_t total_ns);

/* One thread's records as the session delivered them. */
struct kpmc_lib_stream {
	uint32_t tid;
	int started;		/* a record of it was seen */
	int broken;		/* records of it were lost: its keys are unknown from then on */
	int ended;		/* its exit or detach record was seen */
	uint64_t nsample;	/* of its last record */
	uint64_t run_ns;	/* its on-CPU time up to its last record */
	/* Per set, its counts up to its last record: a read()'s per-set totals at that record. */
	uint64_t counts[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	/*
	 * A multiplexing session's sets turn by turn, for their estimates and
	 * error bars (mux_estimate.h); NULL otherwise. The caller allocates it.
	 */
	struct kpmc_mux_streams *mux;
};

/*
 * The next record r of s's thread (r->tid == s->tid). lost_before: the
 * session reported lost records before r (any thread's). Returns 0 with *key
 * = the thread's on-CPU time at r, or -1 when the key is unknown: a gap in
 * the thread's nsample sequence, or a first record after a loss that is not
 * the thread's first ever (its earlier ones may have been lost). A thread's
 * record numbers never restart, so a tid seen again after its exit with
 * nsample 1 is a new thread: the stream starts over (its s->mux too).
 */
int kpmc_lib_stream_feed(struct kpmc_lib_stream *s, const struct kpmc_record *r,
			 int lost_before, uint64_t *key);

/* One invocation of a region: (begin, end] of thread tid's on-CPU time. */
struct kpmc_lib_interval {
	uint32_t tid;
	uint64_t begin, end;
	uint64_t call;		/* the invocation's number (order of their ends) */
};

/* Sort for kpmc_lib_find_interval: by tid, then begin. */
void kpmc_lib_sort_intervals(struct kpmc_lib_interval *iv, size_t n);

/*
 * The invocation (index in iv, sorted) of thread tid whose (begin, end]
 * holds key, or -1. A thread's invocations of one region do not overlap.
 */
long kpmc_lib_find_interval(const struct kpmc_lib_interval *iv, size_t n, uint32_t tid,
			    uint64_t key);

#endif
