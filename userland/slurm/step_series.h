/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A step's counts over time (--kpmc=EVENTS,interval=MS): the module sends
 * each CPU's counts of the step's cgroup every MS ms of that CPU's time
 * (tbs=MS), on a grid from the counting's start, and once more at its stop
 * (the last interval, partial). A CPU's k-th record is interval k, so the
 * series is the sum over CPUs of their k-th records. Pure: records in, CSV
 * out.
 */
#ifndef KPMC_STEP_SERIES_H
#define KPMC_STEP_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

struct kpmc_step_interval {
	uint64_t pmc[KPMC_MAX_COUNTERS];
	uint64_t run_ns;
};

struct kpmc_step_series {
	unsigned int interval_ms;
	struct kpmc_step_interval *v;
	size_t n, cap;
	uint32_t counter_mask;
	uint64_t dropped;		/* records past the most intervals kept (none kept) */
};

/* At most this many intervals are kept (a day at 1 s, 17 minutes at 10 ms... x 24). */
#define KPMC_STEP_SERIES_MAX	86400

/* One record of the step's session (CPU records count; others are not the series'). */
void kpmc_step_series_add(struct kpmc_step_series *s, const struct kpmc_record *r);

/*
 * "interval,end_ms,run_ns,EVENT..." then a line an interval (names: pmcN's
 * event, "" for counters not given). A malloc'd string (the caller frees
 * it), or NULL without memory.
 */
char *kpmc_step_series_csv(const struct kpmc_step_series *s, const char (*names)[96]);

void kpmc_step_series_free(struct kpmc_step_series *s);

#endif
