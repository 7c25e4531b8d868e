/* SPDX-License-Identifier: GPL-2.0 */
/* Decoding and printing kpmc records, PMCTrack style. Pure: no I/O. */
#ifndef KPMC_RECORD_FORMAT_H
#define KPMC_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

/* Columns of a trace: the counters of the configuration, then virtual counters. */
struct kpmc_columns {
	uint32_t counter_mask;
	uint32_t virt_mask;
	int sampling;		/* event-based sampling: a "period" column */
	int nsets;		/* event sets; more than one: an "expid" column */
	int system_wide;	/* rows are CPUs: "cpu" and "ms" columns, no pid/tid */
	uint32_t set_mask[KPMC_MAX_SETS];	/* counters of each set */
	const char *virt_names[KPMC_MAX_VIRT];	/* header names; NULL: "virtN" */
};

/* Is rec a record this CLI understands (the test kpmc_record_check() explains)? */
static inline int kpmc_record_valid(const struct kpmc_record *rec)
{
	return rec->version == KPMC_RECORD_VERSION && rec->size == sizeof(*rec) &&
	       !(rec->counter_mask >> KPMC_MAX_COUNTERS) && !(rec->virt_mask >> KPMC_MAX_VIRT);
}

/* 0 if rec is a record this CLI understands, else a reason in why. */
int kpmc_record_check(const struct kpmc_record *rec, char *why, size_t len);

const char *kpmc_record_kind_name(unsigned int kind, char *buf, size_t len);

/*
 * "nsample pid tid event [expid] [period] pmcN... virtN..."; a LOST record is a
 * "# lost N records" comment line. A count followed by '*' did not count for
 * part of the record (its uncounted_mask: a hybrid CPU's core type without
 * that counter or event).
 */
int kpmc_format_header(const struct kpmc_columns *cols, char *out, size_t len);
/* A MEM record (memory sampling) as one line of the text trace. */
int kpmc_format_mem(const struct kpmc_record *rec, char *out, size_t len);
int kpmc_format_row(const struct kpmc_columns *cols, const struct kpmc_record *rec,
		    char *out, size_t len);

/*
 * Machine-readable forms, one record per line. CSV columns (stable):
 * nsample,pid,tid,cpu,event,expid,period,run_ns,lost,uncounted, then pmcN
 * for the counters of cols, then the virtual counters by name (or virtN);
 * empty cells where a record has no value; uncounted: the counters that did
 * not count for part of the record, "pmc1+pmc3" (empty: none). JSON: one
 * object per line, {"type":"record",...,"uncounted":["pmc1",...],
 * "counts":{"pmc0":N,...},"virt":{"name":N,...}}.
 */
int kpmc_format_csv_header(const struct kpmc_columns *cols, char *out, size_t len);
int kpmc_format_csv_row(const struct kpmc_columns *cols, const struct kpmc_record *rec,
			char *out, size_t len);
int kpmc_format_json_record(const struct kpmc_columns *cols, const struct kpmc_record *rec,
			    char *out, size_t len);

/* The counter names of mask joined by sep ("pmc1+pmc3"); the length written. */
size_t kpmc_format_uncounted(uint32_t mask, const char *sep, char *out, size_t len);
/* The same as a JSON array: ["pmc1","pmc3"], or []. */
size_t kpmc_format_uncounted_json(uint32_t mask, char *out, size_t len);

/*
 * The "[Event-to-counter mappings]" lines for a normalized configuration
 * ("pmc0=0x11,usr0=1,os0=0,pmc1=0x8,...,tbs=100,ebs0=P"); fills the counter
 * mask and the sampling flag of cols.
 * Returns the length written, or -1 if the string is malformed.
 */
int kpmc_format_mappings(const char *normalized, char *out, size_t len,
			 struct kpmc_columns *cols);

#endif
