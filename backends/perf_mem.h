/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf backend's memory samples: what perf's precise sampling (Intel
 * PEBS, AMD IBS through perf) reported for a sample, turned into kpmc's
 * struct kpmc_mem_access. Pure code (backends/perf_mem.c): compiled into
 * the module and into the unit tests, which build data sources with the
 * UAPI's PERF_MEM_S().
 */
#ifndef KPMC_PERF_MEM_H
#define KPMC_PERF_MEM_H

#include "kpmc/pure.h"
#include <uapi/linux/kpmc.h>

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

#endif /* KPMC_PERF_MEM_H */
