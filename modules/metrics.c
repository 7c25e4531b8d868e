// SPDX-License-Identifier: GPL-2.0
/*
 * Derived per-thread metrics, in thousandths so they fit integer counters:
 *   virt0 ipc_milli      instructions per cycle x 1000
 *   virt1 cpi_milli      cycles per instruction x 1000
 *   virt2 mpki_milli     events of the first other counter per 1000 instructions x 1000
 *                        (configure a miss event there: LLC or L1D misses, ...)
 *   virt3 instr_per_ms   instructions per ms of on-CPU time
 * The instructions and cycles counters are found by the PMU's own event codes
 * (the backend names them), fixed or general; a metric whose inputs are not
 * configured is left out of the record.
 */
#include <linux/math64.h>
#include <linux/time64.h>
#include "modules.h"

enum { M_IPC, M_CPI, M_MPKI, M_IPMS };

static u64 event_of(const struct kpmc_sample *s, unsigned int slot)
{
	return slot < s->pmu->nr_fixed ? s->pmu->fixed_event[slot] : s->cfg->ctr[slot].event;
}

static void metrics_on_sample(struct kpmc_sample *s)
{
	int instr = -1, cycles = -1, other = -1;
	unsigned int slot;
	u64 in, cy;

	if (!s->pmu->has_basic_events)
		return;
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		u64 ev;

		if (!(s->counter_mask & BIT(slot)))
			continue;
		ev = event_of(s, slot);
		if (ev == s->pmu->event_instructions && instr < 0)
			instr = slot;
		else if (ev == s->pmu->event_cycles && cycles < 0)
			cycles = slot;
		else if (other < 0)
			other = slot;
	}
	if (instr < 0)
		return;
	in = s->counts[instr];
	if (cycles >= 0) {
		cy = s->counts[cycles];
		s->virt[M_IPC] = cy ? mul_u64_u64_div_u64(in, 1000, cy) : 0;
		s->virt[M_CPI] = in ? mul_u64_u64_div_u64(cy, 1000, in) : 0;
		s->virt_mask |= BIT(M_IPC) | BIT(M_CPI);
	}
	if (other >= 0) {
		s->virt[M_MPKI] = in ? mul_u64_u64_div_u64(s->counts[other], 1000000, in) : 0;
		s->virt_mask |= BIT(M_MPKI);
	}
	s->virt[M_IPMS] = s->run_ns ? mul_u64_u64_div_u64(in, NSEC_PER_MSEC, s->run_ns) : 0;
	s->virt_mask |= BIT(M_IPMS);
}

const struct kpmc_monitoring_module kpmc_monmod_metrics = {
	.name = "metrics",
	.description = "IPC, CPI, MPKI (x1000) and instructions per ms, from the configured counters",
	.virt_names = { "ipc_milli", "cpi_milli", "mpki_milli", "instr_per_ms" },
	.on_sample = metrics_on_sample,
};
