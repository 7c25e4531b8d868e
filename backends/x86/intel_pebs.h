/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PEBS as the Intel backend's memory-sampling source (intel_pebs.c):
 * intel.c calls these from its own operations; nothing else knows PEBS.
 */
#ifndef KPMC_INTEL_PEBS_H
#define KPMC_INTEL_PEBS_H

#include "x86_hw.h"
#include "kpmc/pure_once.h"

#define MSR_X86_MISC_ENABLE		0x1a0
#define MSR_X86_PEBS_ENABLE		0x3f1
#define MSR_X86_PEBS_LD_LAT		0x3f6
#define MSR_X86_DS_AREA			0x600
/* GLOBAL_STATUS: the PEBS buffer reached its interrupt threshold. */
#define X86_GLOBAL_STATUS_PEBS_BUFFER	(1ULL << 62)

/* What a mem=1 set turns on at load(). */
struct intel_pebs_enc {
	u64 pebs_enable;		/* PEBS_ENABLE: the counter, and its load-latency bit */
	u32 ldlat;			/* LD_LAT threshold; 0: no load-latency event */
	u16 op;				/* enum kpmc_mem_op of the event's records */
	unsigned int gp;		/* the general-purpose counter that samples */
};

/*
 * At probe (not hybrid: hybrid says so): can memory be sampled with PEBS
 * here? Fills desc->mem_source and mem_ldlat, or keeps why not for encode.
 */
void intel_pebs_probe(struct kpmc_pmu_desc *desc, bool hybrid);
/* PEBS memory sampling works here. */
bool intel_pebs_usable(void);
/* Free what encode allocated (module unload). */
void intel_pebs_remove(void);
/*
 * encode of a mem=1 set whose sampling counter is general-purpose counter
 * gp with selector *evtsel (fixed: gp < 0, evtsel NULL): 0 and *out, with
 * what PEBS needs added to *evtsel, or -errno with why. Allocates the CPUs'
 * DS areas the first time (process context).
 */
int intel_pebs_encode(const struct kpmc_config *cfg, int gp, u64 *evtsel,
		      struct intel_pebs_enc *out, char *why, size_t len);
/* Hot path, this CPU: after the counters are programmed / before they stop. */
void intel_pebs_load(const struct intel_pebs_enc *e);
void intel_pebs_stop(void);
/* This CPU stops all PEBS use (unclaim, quiesce). */
void intel_pebs_quiesce(void);
/* PMI, this CPU: the buffer's record(s) into this CPU's pending sample. */
void intel_pebs_drain(void);
/* The backend's mem_sample: the pending sample, once, whole. */
void intel_pebs_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out);

#endif /* KPMC_INTEL_PEBS_H */
