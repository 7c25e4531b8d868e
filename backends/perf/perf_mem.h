/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf backend's memory samples: what perf's precise sampling (Intel
 * PEBS, AMD IBS through perf) reported for a sample, turned into kpmc's
 * struct kpmc_mem_access. Pure code (backends/perf/perf_mem.c): compiled into
 * the module and into the unit tests, which build data sources with the
 * UAPI's PERF_MEM_S().
 */
#ifndef KPMC_PERF_MEM_H
#define KPMC_PERF_MEM_H

#include "kpmc/pure.h"
#include <uapi/linux/kpmc.h>
#include "kpmc/pure_once.h"

/* One sample as perf's overflow handler sees it; has_*: the driver filled it. */
struct kpmc_perf_mem_sample {
	u64 ip;
	u64 addr;
	u64 data_src;		/* union perf_mem_data_src's val */
	u64 weight;		/* the access's latency in cycles, for loads */
	bool has_addr, has_data_src, has_weight;
	bool kernel;		/* the sample interrupted kernel code */
	bool exact;		/* precise_ip asked for zero skid (2 or 3) */
};

void kpmc_perf_mem_convert(const struct kpmc_perf_mem_sample *s, struct kpmc_mem_access *out);

/*
 * A CPU's last sample, from perf's overflow handler until the core takes
 * it. The handler is an NMI on x86, which IRQs off do not hold off: it may
 * rewrite the sample while take() copies it out. seq is bumped before and
 * after each write, and a copy that saw it change is made again; taken is
 * the seq of the last sample handed over or discarded (none pending when
 * they are equal).
 */
struct kpmc_perf_mem_slot {
	struct kpmc_perf_mem_sample s;
	u32 seq, taken;
};

/* The overflow handler (NMI or IRQ, this CPU): s is the pending sample. */
void kpmc_perf_mem_keep(struct kpmc_perf_mem_slot *slot, const struct kpmc_perf_mem_sample *s);
/*
 * The core (IRQs off, this CPU): the pending sample into out, once, as one
 * sample, with no address of kernel code unless kernel_allowed; false if
 * none is pending.
 */
bool kpmc_perf_mem_take(struct kpmc_perf_mem_slot *slot, bool kernel_allowed,
			struct kpmc_mem_access *out);
/* The core (IRQs off, this CPU): forget what is pending. */
void kpmc_perf_mem_discard(struct kpmc_perf_mem_slot *slot);

#endif /* KPMC_PERF_MEM_H */
