/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libkpmc: self-monitoring with kpmc. Count events in code regions of one or
 * many threads, by name:
 *
 *	kpmc_start("instr-raw-config");		once, before creating threads
 *	kpmc_region_begin("solve");  ...  kpmc_region_end("solve");
 *	kpmc_region_report(stdout);		totals per region, all threads
 *	kpmc_stop();
 *
 * Threads created after kpmc_start() are monitored too. Counts are the
 * thread's own, user mode unless the configuration says otherwise; a region's
 * count includes the few instructions of the two reads around it, the same
 * every time. Thread-safe.
 */
#ifndef LIBKPMC_H
#define LIBKPMC_H

#include <stdint.h>
#include <stdio.h>

#define KPMC_LIB_COUNTERS	16

struct kpmc_counts {
	uint32_t counter_mask;		/* bit N: counts[N] holds pmcN */
	uint64_t run_ns;
	uint64_t counts[KPMC_LIB_COUNTERS];
};

/* Monitor the calling thread and those it creates with a raw configuration. 0 or -errno. */
int kpmc_start(const char *config);
int kpmc_stop(void);
/* The calling thread's counts since kpmc_start (or its creation). 0 or -errno. */
int kpmc_read(struct kpmc_counts *c);
/* Named regions, nestable with different names; 0 or -errno. */
int kpmc_region_begin(const char *name);
int kpmc_region_end(const char *name);
/* A region's total over all threads so far, for counter pmc; -1 if unknown. */
int64_t kpmc_region_total(const char *name, unsigned int pmc);
/* "region calls pmcN..." per region, over all threads. */
void kpmc_region_report(FILE *f);

#endif
