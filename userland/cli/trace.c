// SPDX-License-Identifier: GPL-2.0
/*
 * What becomes of the records of a run or of a saved file (-R): the chain
 * of sinks the options ask for, in the order a record meets them.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "stacks/stackrec.h"

int kpmc_trace_setup(struct kpmc_trace *t, const struct kpmc_run_opts *o, FILE *out, FILE *raw,
		     struct kpmc_memrep *memrep, int live_stacks, int quick_totals)
{
	struct kpmc_stackrec *stacks;
	int metrics = kpmc_mbind_active(o->metrics);

	kpmc_chain_init(&t->chain);
	t->o.out = out;
	t->o.format = o->format;
	t->o.anchor = o->anchor;
	/* -w keeps every record that passed the checks, parts and memory samples too. */
	if (raw) {
		kpmc_rawcopy_sink_init(&t->rawcopy, raw);
		kpmc_chain_add(&t->chain, &t->rawcopy.sink);
	}
	/* Sampling formats' parts become stack lines of the text trace, or are only counted. */
	stacks = kpmc_stackrec_new(o->format == KPMC_OUT_TABLE && !o->aggregate ? out : NULL,
				   live_stacks);
	if (!stacks)
		return -1;
	kpmc_stacks_sink_init(&t->stacks, stacks);
	kpmc_chain_add(&t->chain, &t->stacks.sink);
	if (memrep) {
		kpmc_memory_sink_init(&t->memory, memrep);
		kpmc_chain_add(&t->chain, &t->memory.sink);
	}
	if (o->aggregate) {
		kpmc_totals_sink_init(&t->totals, &t->o);
		kpmc_chain_add(&t->chain, &t->totals.sink);
		if (quick_totals && !raw && !memrep && !metrics)
			t->chain.samples_to = &t->totals.sink;
	} else {
		kpmc_rows_sink_init(&t->rows, &t->o);
		kpmc_chain_add(&t->chain, &t->rows.sink);
	}
	/* After the rows or totals: the metrics print below them. */
	if (metrics) {
		kpmc_metrics_sink_init(&t->metrics, o->metrics, out, &t->o.cols);
		/* Metrics of multiplexed counts: the same estimates as -A's. */
		t->metrics.totals.anchor = o->anchor;
		kpmc_chain_add(&t->chain, &t->metrics.sink);
	}
	return 0;
}

/* The stacks sink's recorder, for a live run's mappings. */
struct kpmc_stackrec *kpmc_trace_stacks(struct kpmc_trace *t)
{
	return t->stacks.stacks;
}

/* -R FILE: format records saved with -w, as if they came from the kernel. */
int kpmc_trace_replay(struct kpmc_run_opts *o)
{
	static struct kpmc_trace t;
	struct kpmc_columns *cols = &t.o.cols;
	struct kpmc_record rec;
	FILE *in, *out;

	in = fopen(o->replay, "rb");
	if (!in) {
		fprintf(stderr, "kpmc: -R %s: %s\n", o->replay, strerror(errno));
		return 1;
	}
	out = o->outfile ? fopen(o->outfile, "w") : stdout;
	if (!out) {
		fprintf(stderr, "kpmc: %s: %s\n", o->outfile, strerror(errno));
		fclose(in);
		return 1;
	}
	t.o.virt_wanted = ~0u;
	if (kpmc_trace_setup(&t, o, out, NULL, NULL, 0, 0)) {
		fprintf(stderr, "kpmc: out of memory\n");
		fclose(in);
		if (out != stdout)
			fclose(out);
		return 1;
	}
	while (fread(&rec, sizeof(rec), 1, in) == 1) {
		/* The columns: every counter and set the records name. */
		cols->counter_mask |= rec.counter_mask;
		if (rec.set + 1 > cols->nsets)
			cols->nsets = rec.set + 1;
		cols->set_mask[rec.set < KPMC_MAX_SETS ? rec.set : 0] |= rec.counter_mask;
		if (KPMC_REC_IS_CPU(rec.kind))
			cols->system_wide = 1;
		if (rec.kind == KPMC_REC_EBS)
			cols->sampling = 1;
		kpmc_chain_record(&t.chain, &rec);
	}
	fclose(in);
	kpmc_chain_finish(&t.chain);
	if (out != stdout)
		fclose(out);
	return t.chain.errors ? 1 : 0;
}
