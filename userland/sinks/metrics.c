// SPDX-License-Identifier: GPL-2.0
/* -m, -g: totals for metrics over each thread's (or CPU's) run (sinks.h). */
#include "metrics/metricbind.h"
#include "sinks.h"

/* What counted: not a loss, a memory sample or a sampling format's part. */
static enum kpmc_sink_verdict metrics_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	struct kpmc_metrics_sink *ms = (struct kpmc_metrics_sink *)s;

	if (rec->kind == KPMC_REC_LOST || rec->kind == KPMC_REC_MEM ||
	    rec->kind == KPMC_REC_STACK || rec->kind == KPMC_REC_FORMAT)
		return KPMC_SINK_PASS;
	kpmc_sink_add_total(s, &ms->totals, rec);
	return KPMC_SINK_PASS;
}

static void metrics_finish(struct kpmc_sink *s)
{
	struct kpmc_metrics_sink *ms = (struct kpmc_metrics_sink *)s;

	if (ms->out)
		kpmc_mbind_print(ms->bind, &ms->totals, ms->cols->nsets, ms->out);
	kpmc_totals_free(&ms->totals);
}

static const struct kpmc_sink_ops metrics_ops = {
	.record = metrics_record,
	.finish = metrics_finish,
};

void kpmc_metrics_sink_init(struct kpmc_metrics_sink *ms, const struct kpmc_mbind *bind,
			    FILE *out, const struct kpmc_columns *cols)
{
	*ms = (struct kpmc_metrics_sink){ .sink.ops = &metrics_ops, .bind = bind, .out = out,
					  .cols = cols };
}
