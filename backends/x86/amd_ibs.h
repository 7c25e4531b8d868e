/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AMD IBS Op sampling as the AMD backend's memory-sampling source
 * (amd_ibs.c): amd.c calls these from its own operations.
 */
#ifndef KPMC_AMD_IBS_H
#define KPMC_AMD_IBS_H

#include "x86_hw.h"

#define MSR_AMD_IBS_OP_CTL	0xc0011033
#define MSR_AMD_IBS_OP_RIP	0xc0011034
#define MSR_AMD_IBS_OP_DATA	0xc0011035
#define MSR_AMD_IBS_OP_DATA2	0xc0011036
#define MSR_AMD_IBS_OP_DATA3	0xc0011037
#define MSR_AMD_IBS_DC_LINADDR	0xc0011038
#define MSR_AMD_IBS_CTL		0xc001103a

/* At probe: can memory be sampled with IBS Op here? Fills desc, or keeps why not. */
void amd_ibs_probe(struct kpmc_pmu_desc *desc);
void amd_ibs_remove(void);
/*
 * encode of a mem=1 set whose sampling counter is req: 0, or -errno with
 * why. amd_ibs_release: such a set is freed.
 */
int amd_ibs_encode(const struct kpmc_config *cfg, const struct kpmc_counter_req *req,
		   char *why, size_t len);
void amd_ibs_release(void);
/*
 * claim (process context): the CPUs' pending samples; refused while
 * another IBS user samples and a mem=1 set exists. unclaim frees them.
 */
int amd_ibs_claim(char *why, size_t len);
void amd_ibs_unclaim(void);
/*
 * Hot path, this CPU: sample once the sampling counter, now at value, has
 * counted to its overflow (its distance to 0 in width_mask); forget any
 * sample taken before. kernel: that counter counts in kernel mode, so a
 * kernel op's sample may say where it was. amd_ibs_stop: no more of
 * kpmc's sampling here.
 */
void amd_ibs_arm(u64 value, u64 width_mask, bool kernel);
void amd_ibs_stop(void);
/*
 * start(): arm again from the sampling counter (MSR ctr_msr), unless IBS
 * is armed already or holds a sample the core has yet to take.
 */
void amd_ibs_resume(u32 ctr_msr, u64 width_mask, bool kernel);
/* The NMI, this CPU: true if it was IBS's for kpmc (a sample kept for mem_sample). */
bool amd_ibs_nmi(void);
bool amd_ibs_pending(void);
void amd_ibs_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			struct kpmc_mem_access *out);

#endif /* KPMC_AMD_IBS_H */
