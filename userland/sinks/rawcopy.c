// SPDX-License-Identifier: GPL-2.0
/* -w: the records as read, for kpmc -R and kpmc-top (sinks.h). */
#include "sinks.h"

static enum kpmc_sink_verdict rawcopy_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	struct kpmc_rawcopy_sink *rc = (struct kpmc_rawcopy_sink *)s;

	if (fwrite(rec, sizeof(*rec), 1, rc->raw) != 1)
		kpmc_chain_error(s->chain, "writing the raw records failed");
	return KPMC_SINK_PASS;
}

/* A reader of the file (kpmc-top) sees records as they come. */
static void rawcopy_flush(struct kpmc_sink *s)
{
	fflush(((struct kpmc_rawcopy_sink *)s)->raw);
}

static const struct kpmc_sink_ops rawcopy_ops = {
	.record = rawcopy_record,
	.flush = rawcopy_flush,
	.finish = rawcopy_flush,
};

void kpmc_rawcopy_sink_init(struct kpmc_rawcopy_sink *rc, FILE *raw)
{
	*rc = (struct kpmc_rawcopy_sink){ .sink.ops = &rawcopy_ops, .raw = raw };
}
