/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The fold trace (kpmc_fold_trace_write, read by kpmc fold): every ended
 * invocation of every region with its counts, and every sample inside one
 * with its counts from the invocation's begin. Pure: regions.c and records.c
 * keep the data (under their locks), records.c hands a snapshot to
 * kpmc_lib_fold_write; the unit tests call it the same way. Format, one
 * record per line:
 *
 *	kpmc-fold 1
 *	counter SET PMC NAME
 *	instance REGION TID CALL SET DURATION_NS C...
 *	sample REGION TID CALL SET OFFSET_NS C...
 *
 * CALL numbers one region's invocations by their ends, from 0. An invocation
 * during which the sets rotated has SET -1 and no counts, and its samples are
 * left out: no set counted all of it, so nothing normalizes them.
 */
#ifndef KPMC_LIB_FOLDTRACE_WRITE_H
#define KPMC_LIB_FOLDTRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uapi/linux/kpmc.h>

#define KPMC_LIB_FOLD_NAME_MAX	100	/* an event name (95) and its mode */

/* The counters of each event set, with the names the configuration gave them. */
struct kpmc_lib_fold_counters {
	unsigned int nr_sets;
	uint32_t mask[KPMC_MAX_SETS];	/* bit N: the set counts pmcN */
	char name[KPMC_MAX_SETS][KPMC_MAX_COUNTERS][KPMC_LIB_FOLD_NAME_MAX];
};

/*
 * Names for the counters of config (what kpmc_start was given) from raw (what
 * it resolved to, kpmc_config_to_raw: the same sets, each named event's pmcN
 * token in the order of the names): "pmcN" in a raw set, the event's name
 * with its mode (":u", ":k", ":uk" where given) in a named one. Spaces become
 * '_' (a trace's fields are separated by spaces). 0, or -1 with the reason
 * in err.
 */
int kpmc_lib_fold_counter_names(const char *config, const char *raw,
				struct kpmc_lib_fold_counters *fc, char *err, size_t len);

/* One ended invocation, as region_end saw it. */
struct kpmc_lib_fold_inv {
	uint32_t tid;
	int32_t set;			/* the set that counted all of it; -1: sets rotated */
	uint64_t begin_ns, end_ns;	/* the thread's on-CPU time at its begin and end reads */
	uint64_t begin[KPMC_MAX_COUNTERS];	/* set's totals at the begin read */
	uint64_t total[KPMC_MAX_COUNTERS];	/* set's counts from begin to end */
};

/*
 * Which set counted all of an invocation, from the per-set times at its
 * begin and end reads (nr sets each; nr 0: the sets are unknown): the one
 * whose time grew by all of the invocation's time, or -1.
 */
int kpmc_lib_fold_whole_set(const uint64_t *set_ns_begin, const uint64_t *set_ns_end,
			    unsigned int nr, uint64_t run_ns);

/* One sample: its thread's totals of the sample's set at it (the sum of its records). */
struct kpmc_lib_fold_point {
	uint32_t tid;
	uint32_t set;
	uint64_t run_ns;		/* the thread's on-CPU time at it; 0: unknown */
	uint64_t at[KPMC_MAX_COUNTERS];
};

struct kpmc_lib_fold_region {
	const char *name;
	const struct kpmc_lib_fold_inv *inv;	/* by their ends: CALL is the index */
	size_t ninv;
};

/*
 * The trace of the regions and points (in the session's order) to f: the
 * number of instance and sample lines, or -ENOMEM, -EIO (f failed). A
 * point in no invocation, or in one of SET -1, is left out; one whose
 * counts run backwards (never, short of a kernel bug) is written as a '#'
 * comment line, not a sample.
 */
long kpmc_lib_fold_write(FILE *f, const struct kpmc_lib_fold_counters *fc,
			 const struct kpmc_lib_fold_region *regions, size_t nregions,
			 const struct kpmc_lib_fold_point *pts, size_t npts);

#endif
