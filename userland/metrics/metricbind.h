/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpmc -m and -g: the metrics of a run, bound to the counters that count
 * their events, and their values over per-thread totals. Finds group files
 * under KPMC_SHARE (default: the source tree's share/kpmc when kpmc runs
 * from build/, else /usr/share/kpmc), reads them, matches event names
 * through libpfm4 (the same encoding -c uses).
 */
#ifndef KPMC_METRICBIND_H
#define KPMC_METRICBIND_H

#include <stdio.h>
#include "common/aggregate.h"
#include "metricexpr.h"
#include "metricgroup.h"

#define KPMC_MBIND_MAX_METRICS	16
#define KPMC_MBIND_MAX_GROUPS	4
#define KPMC_MBIND_MAX_EVENTS	32

struct kpmc_mbind {
	unsigned int nmetrics;
	struct kpmc_metric metrics[KPMC_MBIND_MAX_METRICS];
	unsigned int ngroups;
	char group_names[KPMC_MBIND_MAX_GROUPS][64];
	struct kpmc_mfile groups[KPMC_MBIND_MAX_GROUPS];
	/* Every event name the metrics use, each once; where it is counted. */
	unsigned int nevents;
	char events[KPMC_MBIND_MAX_EVENTS][KPMC_MEXPR_NAME_LEN];
	int set[KPMC_MBIND_MAX_EVENTS];		/* -1: any set (pmcN) */
	unsigned int pmc[KPMC_MBIND_MAX_EVENTS];
};

/* -m NAME=EXPR: 0, or -1 with the reason (token, column) in err. */
int kpmc_mbind_add_metric(struct kpmc_mbind *b, const char *def, char *err, size_t len);

/*
 * -g GROUP: GROUP.txt in the groups directory of this PMU (info_path's
 * backend and model), PMU/GROUP, or a file's path (containing '/' and
 * ending in .txt). 0, or -1 with the reason (file:line: token) in err.
 */
int kpmc_mbind_add_group(struct kpmc_mbind *b, const char *group, const char *info_path,
			 char *err, size_t len);

/* Any metric at all? */
static inline int kpmc_mbind_active(const struct kpmc_mbind *b)
{
	return b->nmetrics || b->ngroups;
}

/*
 * With no -c: the event set that counts every event the metrics name
 * ("INST_RETIRED,CPU_CYCLES"). 0, or -1 with the reason in err (a pmcN
 * name needs -c).
 */
int kpmc_mbind_event_list(const struct kpmc_mbind *b, char *out, size_t len, char *err, size_t elen);

/*
 * Find each event on a counter of the n event sets (-c, by name or raw;
 * pmcN names a counter in any set): 0, or -1 naming the event no set
 * counts in err. info_path NULL: no PMU (kpmc -R): only pmcN and time.
 */
int kpmc_mbind_resolve(struct kpmc_mbind *b, const char *const *sets, int n, const char *info_path,
		       char *err, size_t len);

/*
 * "[Metrics]": a row per thread and a total per process, a column per
 * metric (-m in order, then each group's metrics). Multiplexed sets
 * (nsets > 1): counts scaled by enabled/running, as -A prints them.
 */
void kpmc_mbind_print(const struct kpmc_mbind *b, const struct kpmc_totals *t, int nsets, FILE *out);

/* One thread's (or a sum's) metric values, in the order of the columns; the count written. */
unsigned int kpmc_mbind_values(const struct kpmc_mbind *b, const struct kpmc_thread_total *th,
			       int nsets, double *out, unsigned int max);

/*
 * The same values, and in half[] each one's 90% half-width: the events' own
 * (kpmc_thread_estimate) carried through the metric, each event moved by its
 * half-width with the others held, the moves added in quadrature. This takes
 * the events' errors as independent: events of different sets nearly are;
 * events of one set err together and partly cancel in a ratio, so there the
 * bar is on the wide side. 0: no multiplexed event in it; NaN: an event it
 * uses has no bar yet (its set has had fewer than two turns).
 */
unsigned int kpmc_mbind_bars(const struct kpmc_mbind *b, const struct kpmc_thread_total *th,
			     int nsets, double *out, double *half, unsigned int max);

void kpmc_mbind_free(struct kpmc_mbind *b);

/* The share directory (KPMC_SHARE, the source tree's, /usr/share/kpmc) into out. */
void kpmc_share_dir(char *out, size_t len);

#endif
