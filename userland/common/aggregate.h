/* SPDX-License-Identifier: GPL-2.0 */
/* Per-thread totals of a trace (kpmc -A). Pure: no I/O. */
#ifndef KPMC_AGGREGATE_H
#define KPMC_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

struct kpmc_thread_total {
	uint32_t pid, tid;
	uint64_t records;
	uint64_t counts[KPMC_MAX_COUNTERS];
	uint64_t run_ns;
	/* Per event set (multiplexing): what each counted, and how long it ran. */
	uint64_t set_records[KPMC_MAX_SETS];
	uint64_t set_counts[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	uint64_t set_run_ns[KPMC_MAX_SETS];
	/*
	 * Per set, sums over its records (each an interval the set ran) of
	 * count^2, count * run_ns and run_ns^2: the spread of the rates around
	 * the set's mean rate, for the error bar of a scaled count.
	 */
	double set_xx[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	double set_xr[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	double set_rr[KPMC_MAX_SETS];
	/* Counters that did not count for part of some record (hybrid CPUs). */
	uint32_t uncounted;
};

struct kpmc_totals {
	struct kpmc_thread_total *threads;	/* sorted by tid */
	size_t nr, cap;
	size_t last;				/* threads[] index of the last record's */
};

/* Add one record to its thread's totals; -1 when out of memory. */
int kpmc_totals_add(struct kpmc_totals *t, const struct kpmc_record *rec);
/*
 * The same, a system-wide record (one CPU's counts) filed under its CPU's
 * number as if it were a thread (pid 0, tid = CPU): totals are per CPU then.
 */
int kpmc_totals_add_owner(struct kpmc_totals *t, const struct kpmc_record *rec);
void kpmc_totals_free(struct kpmc_totals *t);

/*
 * Print the totals: one row per thread, then one "total" row per process; a
 * count followed by '*' did not count for part of the thread's run.
 * Returns the length written (may exceed len: the output was truncated).
 */
size_t kpmc_totals_format(const struct kpmc_totals *t, uint32_t counter_mask,
			  char *out, size_t len);

/*
 * perf's estimate for a multiplexed count: what the set counted while it ran
 * (running ns), scaled to the whole time the thread was monitored (enabled
 * ns). 0 when the set never ran; exact (128-bit) otherwise.
 */
uint64_t kpmc_scale_count(uint64_t count, uint64_t enabled, uint64_t running);

/*
 * How far a scaled count may be off, at 90% confidence: the half-width of
 * its interval, or -1 when it cannot be told (fewer than two intervals of
 * the set, or a set that never ran). The set's intervals (its records) are
 * taken as a sample of the thread's time: the rate is a ratio estimate
 * (count over running time), its standard error from the intervals' spread
 * around it, times the unsampled share of the time (a set that ran all of
 * it has no error), times Student's t for the intervals' number. The
 * intervals of a set that rotates in step with the program are not such a
 * sample (a fixed rotation on phases of its period: muxrnd is the remedy),
 * nor are the pieces of one rotation slice independent: the bar says how
 * far the rates varied, not a bound.
 */
double kpmc_scale_halfwidth90(const struct kpmc_thread_total *th, int set, unsigned int counter);

/*
 * The JSON summary object (one line): per thread its records, run time,
 * counts, and per event set the coverage and scaled counts; the lost total.
 */
size_t kpmc_totals_format_json(const struct kpmc_totals *t, int nsets, uint64_t lost,
			       char *out, size_t len);

/*
 * Totals of a multiplexed run: per thread and set, the set's share of the
 * thread's time ("coverage") and each count scaled by enabled/running, each
 * followed by a "+-90%" row of those counts' 90% half-widths (n/a: not
 * known); then per process (half-widths of the threads combined as
 * independent). set_mask[s] gives set s's counters.
 */
size_t kpmc_totals_format_sets(const struct kpmc_totals *t, int nsets,
			       const uint32_t *set_mask, char *out, size_t len);

#endif
