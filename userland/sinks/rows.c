// SPDX-License-Identifier: GPL-2.0
/* One line per record: the text trace, CSV, JSON lines (sinks.h). */
#include <stdlib.h>

#include "sinks.h"

void kpmc_output_json_summary(const struct kpmc_output *o, const struct kpmc_totals *t,
			      unsigned long long lost)
{
	size_t need = kpmc_totals_format_json(t, o->cols.nsets, lost, NULL, 0) + 1;
	char *buf = malloc(need);

	if (!buf)
		return;
	kpmc_totals_format_json(t, o->cols.nsets, lost, buf, need);
	fprintf(o->out, "%s\n", buf);
	free(buf);
}

static enum kpmc_sink_verdict rows_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	struct kpmc_rows_sink *rs = (struct kpmc_rows_sink *)s;
	struct kpmc_output *o = rs->o;
	char line[1024];

	/* Memory samples: a line of their own in the text trace; no column is theirs. */
	if (rec->kind == KPMC_REC_MEM) {
		if (o->format == KPMC_OUT_TABLE) {
			kpmc_format_mem(rec, line, sizeof(line));
			fprintf(o->out, "%s\n", line);
		}
		return KPMC_SINK_TAKEN;
	}
	if (!o->header_done)
		o->cols.virt_mask = rec->virt_mask & o->virt_wanted;
	if (o->format == KPMC_OUT_JSON) {
		/* JSON ends with a summary: every record but a loss counts towards it. */
		if (rec->kind != KPMC_REC_LOST && kpmc_totals_add(&rs->totals, rec))
			kpmc_chain_error(s->chain, "out of memory aggregating");
		kpmc_format_json_record(&o->cols, rec, line, sizeof(line));
		fprintf(o->out, "%s\n", line);
		return KPMC_SINK_PASS;
	}
	if (!o->header_done) {
		if (o->format == KPMC_OUT_CSV)
			kpmc_format_csv_header(&o->cols, line, sizeof(line));
		else
			kpmc_format_header(&o->cols, line, sizeof(line));
		fprintf(o->out, "%s\n", line);
		o->header_done = 1;
	}
	if (o->format == KPMC_OUT_CSV)
		kpmc_format_csv_row(&o->cols, rec, line, sizeof(line));
	else
		kpmc_format_row(&o->cols, rec, line, sizeof(line));
	fprintf(o->out, "%s\n", line);
	return KPMC_SINK_PASS;
}

static void rows_finish(struct kpmc_sink *s)
{
	struct kpmc_rows_sink *rs = (struct kpmc_rows_sink *)s;

	if (rs->o->format == KPMC_OUT_JSON)
		kpmc_output_json_summary(rs->o, &rs->totals, s->chain->lost);
	kpmc_totals_free(&rs->totals);
}

static const struct kpmc_sink_ops rows_ops = {
	.record = rows_record,
	.finish = rows_finish,
};

void kpmc_rows_sink_init(struct kpmc_rows_sink *rs, struct kpmc_output *o)
{
	*rs = (struct kpmc_rows_sink){ .sink.ops = &rows_ops, .o = o };
}
