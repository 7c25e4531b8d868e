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
/*
 * How kpmc_read() gets the counts. AUTO (default): the fast path where the
 * kernel lets this thread read its counters from user space (an mmap'd page of
 * /proc/kpmc/self plus the live counters, no system call), read() of
 * /proc/kpmc/self otherwise. READ: always read(). FAST: only the fast path
 * (kpmc_read() fails with -EOPNOTSUPP where it is not available). The
 * environment variable KPMC_READ_PATH=auto|read|fast sets the initial mode.
 * Both paths return the same counts. 0 or -EINVAL.
 */
enum { KPMC_PATH_AUTO = 0, KPMC_PATH_READ = 1, KPMC_PATH_FAST = 2 };
int kpmc_set_read_path(int mode);
/* The path the calling thread's last successful kpmc_read() took: KPMC_PATH_READ or _FAST. */
int kpmc_last_read_path(void);
/* The calling thread's successful reads so far, by path. */
void kpmc_read_stats(uint64_t *fast, uint64_t *slow);
/* Named regions, nestable with different names; 0 or -errno. */
int kpmc_region_begin(const char *name);
int kpmc_region_end(const char *name);
/* A region's total over all threads so far, for counter pmc; -1 if unknown. */
int64_t kpmc_region_total(const char *name, unsigned int pmc);
/* "region calls pmcN..." per region, over all threads. */
void kpmc_region_report(FILE *f);

#endif
