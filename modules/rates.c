// SPDX-License-Identifier: GPL-2.0
/*
 * Rates: each configured counter (the first KPMC_MAX_VIRT, in pmc order)
 * becomes a virtual counter holding events per millisecond of the thread's
 * on-CPU time in the record's interval: a rate that a scheduler can compare
 * across threads whatever their sampling period.
 */
#include <linux/math64.h>
#include <linux/time64.h>
#include "modules.h"

static void rates_on_sample(struct kpmc_sample *s)
{
	unsigned int slot, v = 0;

	for (slot = 0; slot < KPMC_MAX_COUNTERS && v < KPMC_MAX_VIRT; slot++) {
		if (!(s->counter_mask & BIT(slot)))
			continue;
		s->virt[v] = s->run_ns ?
			mul_u64_u64_div_u64(s->counts[slot], NSEC_PER_MSEC, s->run_ns) : 0;
		s->virt_mask |= BIT(v);
		v++;
	}
}

const struct kpmc_monitoring_module kpmc_monmod_rates = {
	.name = "rates",
	.description = "virtN = events of the N-th configured counter per ms of on-CPU time",
	.virt_names = { "rate0_per_ms", "rate1_per_ms", "rate2_per_ms", "rate3_per_ms" },
	.on_sample = rates_on_sample,
};
