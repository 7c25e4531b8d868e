// SPDX-License-Identifier: GPL-2.0
/*
 * Building a record: the counts of one interval, by pmc number, with the
 * active monitoring module's virtual counters. Any context (the hot paths
 * call it with IRQs off): no allocation, no lock of its own.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/smp.h>

#include "kpmc/core.h"

void kpmc_record_build(struct kpmc_record *rec, enum kpmc_record_kind kind,
		       const struct kpmc_config *cfg, const struct kpmc_hw_config *hw,
		       const u64 *acc, u64 run_ns, struct kpmc_thread *t)
{
	struct kpmc_sample s;
	unsigned int i;

	memset(&s, 0, sizeof(s));
	s.pmu = &kpmc_pmu;
	s.cfg = cfg;
	if (t) {
		s.task = t->task;
		s.scratch = t->mm_scratch;
	}
	s.counter_mask = hw->mask;
	s.run_ns = run_ns;
	s.last = kind == KPMC_REC_EXIT || kind == KPMC_REC_DETACH;
	for (i = 0; i < hw->nr; i++)
		s.counts[hw->slot[i]] = acc[i];
	kpmc_mm_sample(&s, t);

	/*
	 * Per sample: zero only the header; counts and virt are copied whole
	 * below (s was zeroed), and they fill the rest of the record.
	 */
	BUILD_BUG_ON(offsetof(struct kpmc_record, counts) + sizeof(rec->counts) !=
		     offsetof(struct kpmc_record, virt));
	BUILD_BUG_ON(offsetof(struct kpmc_record, virt) + sizeof(rec->virt) != sizeof(*rec));
	memset(rec, 0, offsetof(struct kpmc_record, counts));
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
	memcpy(rec->counts, s.counts, sizeof(rec->counts));
	memcpy(rec->virt, s.virt, sizeof(rec->virt));
}
