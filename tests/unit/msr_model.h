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
	MODEL_SKX,			/* Skylake-SP: the PMU of MODEL_SKYLAKE, server RAPL, RDT */
	MODEL_QEMU_TCG,			/* QEMU's Skylake-Client under TCG: no PMU, MSRs it lacks read 0 */
	MODEL_ADL,			/* Alder Lake hybrid: CPUs 0-1 P-cores, 2-3 E-cores */
};

#define MODEL_CPUS	4
#define MODEL_PKGS	2
#define MODEL_RMIDS	8
/* RAPL domains, in the order of modules/rapl.c's virtual counters. */
enum { RAPL_PKG, RAPL_CORE, RAPL_UNCORE, RAPL_DRAM, RAPL_PSYS };

struct model {
	enum model_kind kind;
	bool intel, full_width, amd_ext, amd_v2, perf_holds_pmu;
	unsigned int version, nr_gp, gp_width, nr_fixed, fixed_width, family;
	u32 arch_unavailable;		/* CPUID.0AH:EBX */
	u64 sel[16], ctr[16], fixed[3];
	u64 fixed_ctrl, global_ctrl, global_status;
	unsigned int reserved;
	bool (*pmi)(void);
	/* Intel masks the APIC's PMU entry on delivery: PMIs wait for a re-arm. */
	bool lvtpc_masked;
	unsigned long reads, writes, pmis, overflows, pmis_masked;
	u32 last_msr;
	u64 last_value;

	/* For the monitoring modules (modules/monmod_x86.h): topology, now on CPU cpu. */
	u32 cpuid1_eax;			/* Intel: 0 for the default (family 6 model 5eh) */
	unsigned int cpu, nr_cpus, nr_pkgs, cpus_per_pkg;
	bool unknown_msrs_read_zero;	/* as QEMU's TCG does, instead of #GP */
	unsigned long msr_faults;	/* rdmsr_safe of an MSR the part lacks */
	/* RAPL: the unit MSR's value (0: no RAPL MSRs), domains, 32-bit counters. */
	u64 rapl_unit;
	unsigned int rapl_domains;
	u32 energy[MODEL_PKGS][5];
	u32 core_energy[MODEL_CPUS];	/* AMD: per core */
	/* RDT: CPUID.0FH, per package and RMID counters, QM_CTR flags to add per RMID. */
	bool rdt, resctrl_mounted;
	u32 nr_rmid, upscale, mbm_width, rdt_events;
	u64 evtsel[MODEL_CPUS], pqr[MODEL_CPUS];
	u64 occ[MODEL_PKGS][MODEL_RMIDS], mbm[MODEL_PKGS][MODEL_RMIDS][2];
	u64 qm_flags[MODEL_RMIDS];
	/* The poller a module started. */
	void (*poll)(void);
	unsigned int poll_ms;
	bool poll_every_cpu;

	/*
	 * Hybrid (MODEL_ADL): each CPU has its core type and its own PMU; the
	 * fields above are CPU m.cpu's, the others wait in bank[] (model_cpu).
	 */
	bool hybrid;
	u32 offline;			/* CPUs on_each_cpu and cpuid_on do not reach */
	char note[160];			/* the last kpmc_x86_note() */
	u8 core_type[MODEL_CPUS];	/* CPUID.1AH:EAX[31:24] */
	unsigned int cpuid_gp;		/* what CPUID.0AH says of this CPU's GP counters */
	struct model_bank {
		unsigned int nr_gp, gp_width, nr_fixed, fixed_width, cpuid_gp;
		u32 arch_unavailable;
		u64 sel[16], ctr[16], fixed[3];
		u64 fixed_ctrl, global_ctrl, global_status;
	} bank[MODEL_CPUS];
	u64 kept[MODEL_CPUS][KPMC_MAX_COUNTERS];	/* kpmc_x86_cpu_values() */
	unsigned long allocs;		/* kpmc_x86_zalloc() not yet freed */
	/*
	 * Run once at the next kpmc_x86_zalloc(), before it allocates: what
	 * another process context does meanwhile (a concurrent writer).
	 */
	void (*alloc_hook)(void);
	unsigned long broadcasts;	/* kpmc_x86_on_each_cpu() calls: an IPI to every CPU */

	/*
	 * PEBS (Intel): the record format PERF_CAPABILITIES says (0: none),
	 * MISC_ENABLE's "PEBS unavailable", page-table isolation, the PEBS
	 * MSRs, and the access the next assist records.
	 */
	unsigned int pebs_format;
	bool pebs_baseline;		/* format 4: PERF_CAPABILITIES.PEBS_BASELINE */
	bool ds;			/* CPUID.01H:EDX.DS */
	bool pebs_unavailable, pti;
	u64 pebs_enable, ld_lat, ds_area, pebs_data_cfg;
	struct model_pebs_access {
		u64 ip;			/* the instruction after the access (format 1's IP) */
		u64 eventing_ip;	/* the access (format 2 on) */
		u64 addr, latency, dse;
	} pebs_next;
	unsigned long pebs_records, pebs_dropped;

	/*
	 * IBS (AMD, msr_model_ibs.c): CPUID's op sampling (IBSFFV, OpCntExt,
	 * Zen 4's extensions), IBS_CTL's LVT offset, the op sampler's
	 * registers as the last tagged op left them, and the ops queued to
	 * be tagged next.
	 */
	bool ibs, ibs_ffv, ibs_opcntext, ibs_zen4, ibs_lvt_valid;
	u64 ibs_op_ctl, ibs_rip, ibs_data2, ibs_data3, ibs_linaddr;
	struct model_ibs_op {
		u64 rip, linaddr;
		bool load, store, linaddr_valid, dc_miss, tlb1_miss, tlb2_miss;
		bool locked, l2_miss, rmt_node, hit_modified;
		unsigned int width;		/* IbsOpMemWidth's code (Zen 4) */
		unsigned int data_src;		/* DataSrc; bits 4:3 DataSrcHi (Zen 4) */
		u16 latency;			/* IbsDcMissLat */
	} ibs_queue[32];
	unsigned int ibs_queued, ibs_next;
	unsigned long ibs_samples;
};

extern struct model m;

void model_init(enum model_kind kind);
/* n occurrences of event/umask in user (or kernel) mode. */
void model_inject(unsigned int event, unsigned int umask, bool user, u64 n);
/* Run the module's poller once, as its timer would. */
void model_poll(void);
/*
 * One load retires (PEBS load latency): it counts for MEM_TRANS_RETIRED.
 * LOAD_LATENCY only if its latency exceeds LD_LAT's threshold, and the
 * assist of an overflow it causes records it.
 */
void model_pebs_load(const struct model_pebs_access *a, bool user);
/*
 * (msr_model_pebs.c) The assist of PEBS-enabled GP counter gp's overflow,
 * remainder counts past it: true if it raised a PMI.
 */
bool model_pebs_assist(unsigned int gp, u64 remainder);
/*
 * (msr_model_ibs.c) IBS Op: queue the op tagged at the next sample (one
 * with no op queued is a non-memory op at RIP 0); n cycles pass (IBS counts
 * them in every mode); the IBS MSRs (false: not one of them).
 */
void model_ibs_queue_op(const struct model_ibs_op *op);
void model_ibs_cycles(u64 n);
bool model_ibs_rdmsr(u32 msr, u64 *v);
bool model_ibs_wrmsr(u32 msr, u64 v);
/* Hybrid: run on CPU cpu from now on (its core type, its PMU's registers). */
void model_cpu(unsigned int cpu);

#endif
