/* SPDX-License-Identifier: GPL-2.0 */
/* A model of one CPU's PMU for the x86 backends' unit tests (msr_model.c). */
#ifndef KPMC_MSR_MODEL_H
#define KPMC_MSR_MODEL_H

#include <stdbool.h>
#include <stdlib.h>
#include "x86_hw.h"

enum model_kind {
	MODEL_SKYLAKE,			/* perfmon v4: 8 GP + 3 fixed, 48 bits, full-width writes */
	MODEL_INTEL_LEGACY_WRITES,	/* the same without full-width writes */
	MODEL_INTEL_V5,			/* perfmon v5 (no AnyThread) */
	MODEL_INTEL_V1,			/* perfmon v1: 2 GP x 40 bits, no fixed, no global control */
	MODEL_INTEL_NOPMU,		/* CPUID.0AH version 0 (a VM without vPMU) */
	MODEL_ZEN4,			/* family 19h, core extension MSRs, PerfMonV2 */
	MODEL_ZEN1,			/* family 17h, core extension MSRs */
	MODEL_AMD_LEGACY,		/* 4 legacy K7 counters */
};

struct model {
	enum model_kind kind;
	bool intel, full_width, amd_ext, amd_v2, perf_holds_pmu;
	unsigned int version, nr_gp, gp_width, nr_fixed, fixed_width, family;
	u32 arch_unavailable;		/* CPUID.0AH:EBX */
	u64 sel[16], ctr[16], fixed[3];
	u64 fixed_ctrl, global_ctrl, global_status;
	unsigned int reserved;
	bool (*pmi)(void);
	unsigned long reads, writes, pmis, overflows;
	u32 last_msr;
	u64 last_value;
};

extern struct model m;

void model_init(enum model_kind kind);
/* n occurrences of event/umask in user (or kernel) mode. */
void model_inject(unsigned int event, unsigned int umask, bool user, u64 n);

#endif
