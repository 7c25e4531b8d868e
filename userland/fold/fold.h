/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folding (in the manner of BSC's folding tool): the samples of many instances
 * of a region moved into one synthetic instance at their relative time, so
 * that a few coarse samples per instance show how each counter's rate evolves
 * inside the region. Per counter: the folded points (x = offset/duration,
 * y = count so far/instance total), a monotone fit of the cumulative curve on
 * a grid of bins with a bootstrap band, the rate per bin (the fit's slope
 * scaled to the mean rate) and the phases of a piece-wise linear regression.
 * No I/O: kpmc fold (foldcmd.c) prints and plots the result.
 */
#ifndef KPMC_FOLD_H
#define KPMC_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "foldtrace.h"

#define KPMC_FOLD_MAX_PHASES 8

struct kpmc_fold_opts {
	double mad_k;			/* instances beyond median +- mad_k * MAD are dropped */
	size_t max_samples;		/* 0: all samples */
	unsigned int bootstrap;		/* resamples of instances for the band; 0: no band */
	unsigned int bins;		/* equal bins of [0,1] */
	unsigned int max_phases;	/* phases chosen by a robust BIC among 1 .. max_phases */
	double min_phase;		/* no phase narrower (region time, in (0, 0.5]) */
	double min_change;		/* neighbouring phases' rates differ by this much of the larger, [0, 1] */
	unsigned long seed;
};

/*
 * kpmc fold's defaults: K=3, all samples, B=200, 50 bins, up to 4 phases of
 * 0.02 or more whose rates differ by 5% or more, seed 1.
 */
void kpmc_fold_opts_init(struct kpmc_fold_opts *o);

struct kpmc_fold_excluded {
	uint32_t tid;
	uint64_t call;
	uint64_t duration_ns;
};

struct kpmc_fold_point {
	double x, y;
};

struct kpmc_fold_phase {
	double x0, x1;		/* region time, fractions; the last phase ends at 1 */
	double slope;		/* of the cumulative fraction over x, >= 0 */
	double rate_per_s;	/* slope scaled to the mean rate */
};

struct kpmc_fold_series {
	const char *name;		/* the counter's (points into the trace) */
	double mean_total;		/* over the used instances */
	double mean_rate_per_s;		/* mean_total / mean duration */
	size_t npoints;			/* samples whose instance total is not 0, sorted by x */
	struct kpmc_fold_point *points;
	double *cum, *cum_lo, *cum_hi;	/* bins + 1 values, at x = i / bins */
	double *rate, *rate_lo, *rate_hi;	/* bins values, per second */
	double *phase_rate;		/* bins values: the phase model's, averaged over each bin */
	unsigned int nphases;
	struct kpmc_fold_phase phases[KPMC_FOLD_MAX_PHASES];
};

struct kpmc_fold_result {
	const char *region;		/* points into the trace */
	int set;
	size_t instances;		/* of the region counted whole by the set */
	size_t used;			/* those within median +- K * MAD */
	size_t samples;			/* kept samples of the used instances */
	double median_ns, mad_ns;	/* of the durations; mad_ns scaled, as compared */
	double mean_duration_ns;	/* of the used instances */
	size_t nexcluded;
	struct kpmc_fold_excluded *excluded;	/* in trace order */
	unsigned int bins;
	size_t nseries;			/* one per counter of the set, in counter-line order */
	struct kpmc_fold_series *series;
};

/*
 * Folds region (NULL: the trace's only region) as counted by event set set.
 * 0 and *out (kpmc_fold_result_free) on success; -1 and a message in err when
 * the options or the trace give nothing to fold.
 */
int kpmc_fold(const struct kpmc_fold_trace *t, const char *region, int set,
	      const struct kpmc_fold_opts *o, struct kpmc_fold_result **out, char *err,
	      size_t errlen);
void kpmc_fold_result_free(struct kpmc_fold_result *r);

#endif
