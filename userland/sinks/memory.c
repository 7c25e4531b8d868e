// SPDX-License-Identifier: GPL-2.0
/* kpmc mem: the memory samples kept for its report (sinks.h). */
#include "mem/memreport.h"
#include "sinks.h"

/* Passed on: the text trace has a line for each sample too. */
static enum kpmc_sink_verdict memory_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	if (rec->kind == KPMC_REC_MEM && kpmc_memrep_add(((struct kpmc_memory_sink *)s)->memrep, rec))
		kpmc_chain_error(s->chain, "mem: out of memory keeping the samples");
	return KPMC_SINK_PASS;
}

static const struct kpmc_sink_ops memory_ops = {
	.record = memory_record,
};

void kpmc_memory_sink_init(struct kpmc_memory_sink *ms, struct kpmc_memrep *memrep)
{
	*ms = (struct kpmc_memory_sink){ .sink.ops = &memory_ops, .memrep = memrep };
}
