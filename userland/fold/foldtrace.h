/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fold trace (libkpmc's record of region instances and the samples inside
 * them; the format is described in kpmc fold's documentation): its strict
 * parser and the structures kpmc_fold() reads. Pure: reads only the stream it
 * is given.
 *
 *   kpmc-fold 1
 *   counter SET PMC NAME
 *   instance REGION TID CALL SET DURATION_NS C...
 *   sample REGION TID CALL SET OFFSET_NS C...
 */
#ifndef KPMC_FOLDTRACE_H
#define KPMC_FOLDTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Event sets a trace may name (kpmc multiplexes at most this many). */
#define KPMC_FOLD_MAX_SETS 4

struct kpmc_fold_counter {
	int set;
	unsigned int pmc;
	char *name;
};

/* The counters of one event set, in counter-line order (the order of C...). */
struct kpmc_fold_set {
	size_t ncounters;
	size_t counter[64];	/* indices into kpmc_fold_trace.counters */
};

struct kpmc_fold_instance {
	char *region;
	uint32_t tid;
	uint64_t call;
	int set;		/* -1: sets rotated inside it, no totals */
	uint64_t duration_ns;
	uint64_t *totals;	/* one per counter of set, NULL when set < 0 */
	size_t *samples;	/* indices into kpmc_fold_trace.samples */
	size_t nsamples;
	unsigned int line;
};

struct kpmc_fold_sample {
	size_t instance;	/* index into kpmc_fold_trace.instances */
	int set;
	uint64_t offset_ns;
	uint64_t *cum;		/* one per counter of set, cumulative from the begin */
	unsigned int line;
};

struct kpmc_fold_trace {
	struct kpmc_fold_counter *counters;
	size_t ncounters;
	struct kpmc_fold_set sets[KPMC_FOLD_MAX_SETS];
	struct kpmc_fold_instance *instances;
	size_t ninstances;
	struct kpmc_fold_sample *samples;
	size_t nsamples;
	char **regions;		/* distinct region names, sorted (point into instances) */
	size_t nregions;
};

/*
 * Parses the trace in f (named name in errors). On success *out is the trace
 * (kpmc_fold_trace_free) and 0 is returned; on bad input -1 with err holding
 * "NAME:LINE: token 'X': why" (or "NAME: why" for a problem of no line).
 */
int kpmc_fold_trace_parse(FILE *f, const char *name, struct kpmc_fold_trace **out, char *err,
			  size_t errlen);
void kpmc_fold_trace_free(struct kpmc_fold_trace *t);

#endif
