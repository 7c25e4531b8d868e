/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Estimates of multiplexed counts (kpmc -A with several event sets), from one
 * thread's records in their order. Pure: no I/O.
 *
 * A set's records follow the thread's time line: a "stretch" is the set's
 * consecutive records (one turn on the counters, whatever records split it),
 * a "gap" what ran between two of its stretches. Time is the thread's on-CPU
 * time, or, with an anchor, the count of a counter that every set counts (the
 * cycle counter, say): the anchor's exact total then stands for the time, and
 * each event is estimated by its ratio to the anchor, which a change of speed
 * (frequency, stalls) does not move.
 *
 * Two estimators, chosen per count:
 *  - scaled: the set's count times the whole time over the set's time (perf's
 *    enabled/running scaling with time as the clock; a ratio estimate);
 *  - interpolated: the set's count plus each gap at the mean of the rates of
 *    the stretches on either side of it (the first and last gaps at the one
 *    neighbour's rate).
 * Scaling takes the stretches as a sample of the thread's time; when their
 * rates drift (phases longer than a rotation), neighbours know more about a
 * gap than the mean does. The choice follows the stretches' own rates: the
 * spread of successive differences against the spread around the mean (von
 * Neumann's ratio). Interpolated only when neighbours are much closer than
 * the mean (ratio below KPMC_EST_INTERP_BELOW, with at least
 * KPMC_EST_INTERP_MIN stretches); scaled otherwise.
 *
 * The 90% half-width: the standard error of the rate from that spread (the
 * residuals around the mean rate for scaling, half the mean squared successive
 * difference for interpolation) over the stretches' number, widened by
 * Student's t (a set that ran all the time has none). A rotation in step with the program makes every
 * stretch alike: the bar cannot see that (a randomized rotation, muxrnd=, is
 * the remedy).
 */
#ifndef KPMC_MUX_ESTIMATE_H
#define KPMC_MUX_ESTIMATE_H

#include <stdint.h>
#include <uapi/linux/kpmc.h>

#define KPMC_EST_INTERP_BELOW	0.25
#define KPMC_EST_INTERP_MIN	8

/* One set's stretches so far, for its estimates. */
struct kpmc_set_stream {
	uint64_t stretches;
	uint32_t mask;				/* the counters its stretches counted */
	double time;				/* the set's time, over its stretches */
	double gap;				/* time since its last stretch (or the start) */
	double last_rate[KPMC_MAX_COUNTERS];	/* of its last stretch */
	double interp[KPMC_MAX_COUNTERS];	/* counts, gaps at interpolated rates */
	/* Over stretches: count^2, count x time, time^2 */
	double xx[KPMC_MAX_COUNTERS], xt[KPMC_MAX_COUNTERS], tt;
	/* The same over successive stretches' differences */
	double dxx[KPMC_MAX_COUNTERS], dxt[KPMC_MAX_COUNTERS], dtt;
	double prev_x[KPMC_MAX_COUNTERS], prev_t;
	double x[KPMC_MAX_COUNTERS];		/* counts, over its stretches */
};

/* A thread's sets, its open stretch and its whole time. */
struct kpmc_mux_streams {
	struct kpmc_set_stream set[KPMC_MAX_SETS];
	int open;				/* the set of the open stretch + 1; 0: none */
	uint32_t open_mask;
	double open_x[KPMC_MAX_COUNTERS], open_t;
	double time;
};

/*
 * Add one record of set `set` (counts of the counters in mask, `time` of the
 * clock: on-CPU ns, or the anchor's count).
 */
void kpmc_mux_streams_add(struct kpmc_mux_streams *m, unsigned int set, uint32_t mask,
			  const uint64_t *counts, double time);

enum kpmc_estimator {
	KPMC_EST_NONE,		/* the set never ran: no estimate */
	KPMC_EST_COUNTED,	/* the set ran all the time: its count */
	KPMC_EST_SCALED,
	KPMC_EST_INTERPOLATED,
};

struct kpmc_estimate {
	uint64_t value;
	double half90;		/* 90% half-width; < 0: not known (fewer than 2 stretches) */
	enum kpmc_estimator how;
};

/* The estimate of counter c of set `set` over the thread's whole time. */
void kpmc_mux_estimate(const struct kpmc_mux_streams *m, unsigned int set, unsigned int c,
		       struct kpmc_estimate *e);

/* "counted", "scaled", "interp", "none" */
const char *kpmc_estimator_name(enum kpmc_estimator how);

#endif
