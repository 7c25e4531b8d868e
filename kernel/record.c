// SPDX-License-Identifier: GPL-2.0
/*
 * Building a record: the counts of one interval, by pmc number, with the
 * active monitoring module's virtual counters. Any context (the hot paths
 * call it with IRQs off): no allocation, no lock of its own.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/smp.h>

#include "layer_base.h"
#include "layer_objects.h"

void kpmc_record_build(struct kpmc_record *rec, enum kpmc_record_kind kind,
		       const struct kpmc_config *cfg, const struct kpmc_hw_config *hw,
		       const u64 *acc, u64 run_ns, struct kpmc_thread *t)
{
	struct kpmc_sample s KPMC_NO_AUTO_INIT;
	unsigned int i;

	/*
	 * The module reads the counts and writes its virtual counters in the
	 * record itself (on the producer's stack, copied into the ring after).
	 */
	memset(rec, 0, sizeof(*rec));
	for (i = 0; i < hw->nr; i++)
		rec->counts[hw->slot[i]] = acc[i];
	s.pmu = &kpmc_pmu;
	s.cfg = cfg;
	s.task = t ? t->task : NULL;
	s.scratch = t ? t->monmod_scratch : NULL;
	s.counts = rec->counts;
	s.counter_mask = hw->mask;
	s.run_ns = run_ns;
	s.last = kind == KPMC_REC_EXIT || kind == KPMC_REC_DETACH;
	s.virt = rec->virt;
	s.virt_mask = 0;
	kpmc_monmod_sample(&s, t);

	rec->version = KPMC_RECORD_VERSION;
	rec->size = sizeof(*rec);
	rec->kind = kind;
	rec->cpu = raw_smp_processor_id();
	rec->counter_mask = s.counter_mask;
	/* A CPU's record (system-wide) is built on that CPU: its type is the one. */
	if (!t && kpmc_backend->uncounted)
		rec->uncounted_mask = kpmc_backend->uncounted(hw) & hw->mask;
	rec->virt_mask = s.virt_mask;
	rec->run_ns = s.run_ns;
}
