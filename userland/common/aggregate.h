/* SPDX-License-Identifier: GPL-2.0 */
/* Per-thread totals of a trace (kpmc -A). Pure: no I/O. */
#ifndef KPMC_AGGREGATE_H
#define KPMC_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

#include "mux_estimate.h"

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
	 * The sets' turns in order, for the estimates (mux_estimate.h): only
	 * once a second set has run (a thread of one set needs none; until
	 * then its records were one turn of set 0, rebuilt from the totals).
	 */
	struct kpmc_mux_streams *mux;
	uint32_t set0_mask;
	/* Counters that did not count for part of some record (hybrid CPUs). */
	uint32_t uncounted;
};

struct kpmc_totals {
	struct kpmc_thread_total *threads;	/* sorted by tid */
	size_t nr, cap;
	size_t last;				/* threads[] index of the last record's */
	/*
	 * The clock of multiplexed estimates: 0, the thread's on-CPU time;
	 * N + 1, counter N's count, which every set must count (an anchor).
	 * Set before the first record.
	 */
	unsigned int anchor;
};

/*
 * Add one record to its thread's totals; -1 when out of memory, -2 when it
 * does not count the anchor (the record is in the totals, not in the
 * estimates).
 */
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
 * The one set that counted counter c while the thread's sets took turns, or
 * -1: the thread ran one set, or several sets (or none) counted c.
 */
int kpmc_thread_only_set(const struct kpmc_thread_total *th, unsigned int c);

/*
 * Counter c of set `set` over the thread's whole time (mux_estimate.h): the
 * count itself when the thread ran one set, else scaled or interpolated, with
 * its 90% half-width and the estimator that gave it.
 */
void kpmc_thread_estimate(const struct kpmc_thread_total *th, int set, unsigned int c,
			  struct kpmc_estimate *e);

/*
 * The JSON summary object (one line): per thread its records, run time,
 * counts, and per event set the coverage and scaled counts; the lost total.
 */
size_t kpmc_totals_format_json(const struct kpmc_totals *t, int nsets, uint64_t lost,
			       char *out, size_t len);

/*
 * Totals of a multiplexed run: per thread and set, the set's share of the
 * thread's time ("coverage") and each count's estimate, each followed by a
 * "+-90%" row of those estimates' 90% half-widths (n/a: not known) and an
 * "est" row naming each one's estimator; then per process (the threads'
 * estimates added, their half-widths combined as independent; "mixed" when
 * the threads' estimators differ). set_mask[s] gives set s's counters.
 */
size_t kpmc_totals_format_sets(const struct kpmc_totals *t, int nsets,
			       const uint32_t *set_mask, char *out, size_t len);

#endif
