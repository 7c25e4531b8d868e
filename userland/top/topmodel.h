/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table behind `kpmc top`: one row per thread (or CPU, system-wide),
 * updated from records, with each counter's rate over the thread's latest
 * record (events per ms of on-CPU time) and its total, sortable by any
 * column. Pure: no I/O, no curses.
 */
#ifndef KPMC_TOPMODEL_H
#define KPMC_TOPMODEL_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

/* kpmc-top -m/-g: metric columns after the counters' (values computed by the caller). */
#define KPMC_TOP_MAX_METRICS	8

struct kpmc_top_row {
	uint32_t pid, tid, cpu;
	int exited;
	uint64_t records, run_ns;
	uint64_t total[KPMC_MAX_COUNTERS];
	uint64_t rate[KPMC_MAX_COUNTERS];	/* per ms of on-CPU time, last record */
	uint64_t virt[KPMC_MAX_VIRT];		/* last record's */
	double metric[KPMC_TOP_MAX_METRICS];	/* -m/-g: set by the caller (NaN: none) */
	/* Their 90% half-widths when sets take turns (0: exact, NaN: not known yet) */
	double metric_half[KPMC_TOP_MAX_METRICS];
};

struct kpmc_top {
	struct kpmc_top_row *rows;
	size_t nr, cap;
	uint32_t counter_mask, virt_mask;
	unsigned int nmetrics;			/* metric columns shown, at most KPMC_TOP_MAX_METRICS */
	int metric_bars;			/* sets take turns: each metric shows its bar */
	uint64_t lost;
};

/* Columns, for sorting: 0 tid, 1 pid, 2 cpu, 3 records, 4 run time, then the
 * shown counters' rates in pmc order, then the virtual counters, then the
 * metrics. A metric that is NaN sorts below every number. */
unsigned int kpmc_top_columns(const struct kpmc_top *t);
int kpmc_top_add(struct kpmc_top *t, const struct kpmc_record *rec);
/* Sort rows by column (descending unless ascending), ties by tid. */
void kpmc_top_sort(struct kpmc_top *t, unsigned int column, int ascending);
void kpmc_top_free(struct kpmc_top *t);

#endif
