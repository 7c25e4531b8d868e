/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record's consumers, one after another: the kpmc command's trace, its
 * replay of a saved file (-R) and kpmc-top hand each record to a chain of
 * sinks (the raw copy, call stacks, memory samples, the rows or totals
 * printed, metrics) instead of asking mode flags per record.
 *
 * The chain checks a record once (its version and size, a loss, counters
 * that did not count throughout) before any sink sees it; a sink then
 * passes the record on or takes it (a sampling format's part is no row).
 * After the last record every sink finishes in chain order, then the chain
 * says what was lost.
 */
#ifndef KPMC_SINK_H
#define KPMC_SINK_H

#include <stdint.h>
#include <uapi/linux/kpmc.h>

enum kpmc_sink_verdict { KPMC_SINK_PASS, KPMC_SINK_TAKEN };

struct kpmc_chain;
struct kpmc_sink;

struct kpmc_sink_ops {
	enum kpmc_sink_verdict (*record)(struct kpmc_sink *s, const struct kpmc_record *rec);
	/* Optional: a batch of records is in; a reader of a file may look now. */
	void (*flush)(struct kpmc_sink *s);
	/* Optional: after the last record; print what was kept, free it. */
	void (*finish)(struct kpmc_sink *s);
};

struct kpmc_sink {
	const struct kpmc_sink_ops *ops;
	struct kpmc_sink *next;
	struct kpmc_chain *chain;	/* set by kpmc_chain_add: where errors count */
};

struct kpmc_chain {
	struct kpmc_sink *first, *last;
	/*
	 * Totals alone (-A, no raw copy, format, memory or metric sink): a
	 * sample, the bulk at short periods, goes straight to this sink.
	 */
	struct kpmc_sink *samples_to;
	unsigned long long lost;	/* records the kernel dropped (ring full) */
	uint32_t uncounted;		/* counters some record says did not count throughout */
	unsigned long long uncounted_records;
	unsigned int errors;		/* the first one is printed */
};

void kpmc_chain_init(struct kpmc_chain *c);
/* Append s: it sees what the sinks before it pass on. */
void kpmc_chain_add(struct kpmc_chain *c, struct kpmc_sink *s);
void kpmc_chain_record(struct kpmc_chain *c, const struct kpmc_record *rec);
void kpmc_chain_flush(struct kpmc_chain *c);
/* Finish every sink; then the loss and uncounted counters, on stderr. */
void kpmc_chain_finish(struct kpmc_chain *c);
/* An error of one sink: counted; the first of the run printed ("kpmc: WHAT"). */
void kpmc_chain_error(struct kpmc_chain *c, const char *what);

#endif
