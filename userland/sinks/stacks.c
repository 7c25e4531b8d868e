// SPDX-License-Identifier: GPL-2.0
/* A sampling format's parts become stack lines, not rows (sinks.h). */
#include "sinks.h"
#include "stacks/stackrec.h"

static enum kpmc_sink_verdict stacks_record(struct kpmc_sink *s, const struct kpmc_record *rec)
{
	int part = kpmc_stackrec_record(((struct kpmc_stacks_sink *)s)->stacks, rec);

	if (part < 0)
		kpmc_chain_error(s->chain, "out of memory keeping call stacks");
	return part ? KPMC_SINK_TAKEN : KPMC_SINK_PASS;
}

/* Before the totals: stacks still missing parts are told after the last line. */
static void stacks_finish(struct kpmc_sink *s)
{
	struct kpmc_stacks_sink *ss = (struct kpmc_stacks_sink *)s;

	kpmc_stackrec_finish(ss->stacks);
	kpmc_stackrec_free(ss->stacks);
	ss->stacks = NULL;
}

static const struct kpmc_sink_ops stacks_ops = {
	.record = stacks_record,
	.finish = stacks_finish,
};

void kpmc_stacks_sink_init(struct kpmc_stacks_sink *ss, struct kpmc_stackrec *stacks)
{
	*ss = (struct kpmc_stacks_sink){ .sink.ops = &stacks_ops, .stacks = stacks };
}
