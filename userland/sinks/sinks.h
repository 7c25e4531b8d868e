/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sinks of a record chain (common/sink.h): what the kpmc command, its
 * replay (-R) and kpmc-top do with records. Each is a struct embedding its
 * kpmc_sink, set up by its _init and added to a chain by the caller, who
 * owns the memory and the FILEs.
 */
#ifndef KPMC_SINKS_H
#define KPMC_SINKS_H

#include <stdio.h>

#include "common/aggregate.h"
#include "common/record_format.h"
#include "common/sink.h"

enum kpmc_out_format { KPMC_OUT_TABLE, KPMC_OUT_CSV, KPMC_OUT_JSON };

/*
 * Where and how records or totals are printed. The columns are the
 * session's (read back from /proc/kpmc/config), or, replaying a file,
 * what its records have named so far.
 */
struct kpmc_output {
	FILE *out;
	enum kpmc_out_format format;
	struct kpmc_columns cols;
	uint32_t virt_wanted;		/* virtual counters to show (-V), all by default */
	unsigned int anchor;		/* the estimates' clock (struct kpmc_totals) */
	int header_done;
};

/* One line per record (table, CSV, JSON lines and a closing summary object). */
struct kpmc_rows_sink {
	struct kpmc_sink sink;
	struct kpmc_output *o;
	struct kpmc_totals totals;	/* JSON: its summary */
};
void kpmc_rows_sink_init(struct kpmc_rows_sink *rs, struct kpmc_output *o);

/*
 * Per-thread totals at the end (-A): a table, CSV, one row per CPU
 * (system-wide), scaled counts per event set, or the JSON summary.
 */
struct kpmc_totals_sink {
	struct kpmc_sink sink;
	struct kpmc_output *o;
	struct kpmc_totals totals;
};
void kpmc_totals_sink_init(struct kpmc_totals_sink *ts, struct kpmc_output *o);

/* The JSON summary object (JSON rows' and JSON totals' last line). */
/*
 * Add rec to totals t (kpmc_totals_add_owner), a failure reported on the
 * chain: out of memory, or a record without the anchor.
 */
static inline void kpmc_sink_add_total(struct kpmc_sink *s, struct kpmc_totals *t,
				       const struct kpmc_record *rec)
{
	switch (kpmc_totals_add_owner(t, rec)) {
	case 0:
		break;
	case -2:
		kpmc_chain_error(s->chain, "a record of an event set that does not count the anchor");
		break;
	default:
		kpmc_chain_error(s->chain, "out of memory aggregating");
	}
}

void kpmc_output_json_summary(const struct kpmc_output *o, const struct kpmc_totals *t,
			      unsigned long long lost);

/* -w: every record as read, for -R and kpmc-top; flushed after each batch. */
struct kpmc_rawcopy_sink {
	struct kpmc_sink sink;
	FILE *raw;
};
void kpmc_rawcopy_sink_init(struct kpmc_rawcopy_sink *rc, FILE *raw);

/*
 * A sampling format's parts (stack lines after their sample in the text
 * trace, stacks/stackrec.c): taken, no row of their own.
 */
struct kpmc_stackrec;
struct kpmc_stacks_sink {
	struct kpmc_sink sink;
	struct kpmc_stackrec *stacks;	/* freed by the sink's finish */
};
void kpmc_stacks_sink_init(struct kpmc_stacks_sink *ss, struct kpmc_stackrec *stacks);

/* kpmc mem: every memory sample kept for its report (mem/memreport.c). */
struct kpmc_memrep;
struct kpmc_memory_sink {
	struct kpmc_sink sink;
	struct kpmc_memrep *memrep;	/* the caller prints and frees it */
};
void kpmc_memory_sink_init(struct kpmc_memory_sink *ms, struct kpmc_memrep *memrep);

/*
 * -m, -g: each thread's (or CPU's) totals, for metrics over its whole run;
 * with out, the metrics printed at the finish (after the rows or totals).
 */
struct kpmc_mbind;
struct kpmc_metrics_sink {
	struct kpmc_sink sink;
	const struct kpmc_mbind *bind;
	struct kpmc_totals totals;
	FILE *out;
	const struct kpmc_columns *cols;	/* the number of event sets */
};
void kpmc_metrics_sink_init(struct kpmc_metrics_sink *ms, const struct kpmc_mbind *bind,
			    FILE *out, const struct kpmc_columns *cols);

#endif
