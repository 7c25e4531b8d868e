// SPDX-License-Identifier: GPL-2.0
/* Per-thread (or per-CPU) totals printed at the end: kpmc -A (sinks.h). */
#include <stdlib.h>

#include "sinks.h"

static enum kpmc_sink_verdict totals_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	struct kpmc_totals_sink *ts = (struct kpmc_totals_sink *)s;

	if (rec->kind == KPMC_REC_MEM)
		return KPMC_SINK_TAKEN;
	if (!ts->o->header_done)
		ts->o->cols.virt_mask = rec->virt_mask & ts->o->virt_wanted;
	if (rec->kind == KPMC_REC_LOST)
		return KPMC_SINK_PASS;
	kpmc_sink_add_total(s, &ts->totals, rec);
	return KPMC_SINK_PASS;
}

/*
 * CSV: a row per thread and event set, multiplexed counts estimated; then
 * per counter the estimate's 90% half-width (empty: not known) and its
 * estimator (mux_estimate.h), after the counts so that columns keep their
 * places.
 */
static void print_csv(const struct kpmc_output *o, const struct kpmc_totals *t)
{
	const struct kpmc_columns *cols = &o->cols;
	int multiplexed = cols->nsets > 1;

	fprintf(o->out, "pid,tid,expid,records,run_ns,running_ns,uncounted");
	for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (cols->counter_mask & (1u << c))
			fprintf(o->out, ",pmc%u", c);
	for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (cols->counter_mask & (1u << c))
			fprintf(o->out, ",pmc%u_err90,pmc%u_estimator", c, c);
	fputc('\n', o->out);
	for (size_t i = 0; i < t->nr; i++) {
		const struct kpmc_thread_total *th = &t->threads[i];
		char uncounted[8 * KPMC_MAX_COUNTERS];

		kpmc_format_uncounted(th->uncounted, "+", uncounted, sizeof(uncounted));
		for (int s = 0; s < (multiplexed ? cols->nsets : 1); s++) {
			struct kpmc_estimate e[KPMC_MAX_COUNTERS];

			fprintf(o->out, "%u,%u,%d,%llu,%llu,%llu,%s", th->pid, th->tid, s,
				(unsigned long long)th->set_records[s],
				(unsigned long long)th->run_ns,
				(unsigned long long)th->set_run_ns[s], uncounted);
			for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++) {
				if (!(cols->counter_mask & (1u << c)))
					continue;
				if (multiplexed) {
					kpmc_thread_estimate(th, s, c, &e[c]);
				} else {
					e[c] = (struct kpmc_estimate){ .value = th->counts[c],
								       .how = KPMC_EST_COUNTED };
				}
				fprintf(o->out, ",%llu", (unsigned long long)e[c].value);
			}
			for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++) {
				if (!(cols->counter_mask & (1u << c)))
					continue;
				if (e[c].half90 < 0)
					fprintf(o->out, ",,%s", kpmc_estimator_name(e[c].how));
				else
					fprintf(o->out, ",%.0f,%s", e[c].half90,
						kpmc_estimator_name(e[c].how));
			}
			fputc('\n', o->out);
		}
	}
}

/* System-wide: a row per CPU, then their sum. */
static void print_cpus(const struct kpmc_output *o, const struct kpmc_totals *t)
{
	uint64_t sum[KPMC_MAX_COUNTERS] = { 0 }, ns = 0, recs = 0;
	uint32_t mask = o->cols.counter_mask;

	fprintf(o->out, "%7s %7s %12s", "cpu", "records", "counted_ms");
	for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (mask & (1u << c))
			fprintf(o->out, " %13s%u", "pmc", c);
	fputc('\n', o->out);
	for (size_t i = 0; i <= t->nr; i++) {
		const struct kpmc_thread_total *th = &t->threads[i];

		if (i == t->nr)
			fprintf(o->out, "%7s %7llu %12.3f", "all", (unsigned long long)recs,
				(double)ns / 1e6);
		else
			fprintf(o->out, "%7u %7llu %12.3f", th->tid,
				(unsigned long long)th->records, (double)th->run_ns / 1e6);
		for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++) {
			if (!(mask & (1u << c)))
				continue;
			if (i < t->nr)
				sum[c] += th->counts[c];
			fprintf(o->out, " %14llu", (unsigned long long)(i == t->nr ? sum[c] : th->counts[c]));
		}
		if (i < t->nr) {
			ns += th->run_ns;
			recs += th->records;
		}
		fputc('\n', o->out);
	}
}

/* The table of aggregate.c: threads, or, multiplexed, scaled counts per set. */
static void print_table(const struct kpmc_output *o, const struct kpmc_totals *t)
{
	const struct kpmc_columns *cols = &o->cols;
	int sets = cols->nsets > 1;
	size_t need = (sets ? kpmc_totals_format_sets(t, cols->nsets, cols->set_mask, NULL, 0) :
			      kpmc_totals_format(t, cols->counter_mask, NULL, 0)) + 1;
	char *buf = malloc(need);

	if (!buf)
		return;
	if (sets) {
		kpmc_totals_format_sets(t, cols->nsets, cols->set_mask, buf, need);
		fputs("[Estimated counts per event set: scaled by enabled/running or interpolated (est)]\n", o->out);
	} else {
		kpmc_totals_format(t, cols->counter_mask, buf, need);
	}
	fputs(buf, o->out);
	free(buf);
}

static void totals_finish(struct kpmc_sink *s)
{
	struct kpmc_totals_sink *ts = (struct kpmc_totals_sink *)s;
	const struct kpmc_output *o = ts->o;

	if (o->format == KPMC_OUT_JSON)
		kpmc_output_json_summary(o, &ts->totals, s->chain->lost);
	else if (o->format == KPMC_OUT_CSV)
		print_csv(o, &ts->totals);
	else if (o->cols.system_wide)
		print_cpus(o, &ts->totals);
	else
		print_table(o, &ts->totals);
	kpmc_totals_free(&ts->totals);
}

static const struct kpmc_sink_ops totals_ops = {
	.record = totals_record,
	.finish = totals_finish,
};

void kpmc_totals_sink_init(struct kpmc_totals_sink *ts, struct kpmc_output *o)
{
	*ts = (struct kpmc_totals_sink){ .sink.ops = &totals_ops, .o = o };
	ts->totals.anchor = o->anchor;
}
