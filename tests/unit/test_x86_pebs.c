// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel backend's PEBS memory sampling (backends/x86/intel_pebs.c), unchanged,
 * against the MSR model's debug store: the MSRs and DS area it programs, the
 * samples the model's PEBS assists record (every field exact: IP, address,
 * access kind, latency, each data-source encoding, STLB miss, lock, skid by
 * record format, formats 1 and 3 and adaptive format 4), the load-latency
 * threshold, and the configurations and machines it refuses, with their
 * reasons.
 */
#define _GNU_SOURCE	/* REG_EFL (nmi_step.h) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#define HARNESS_BACKEND kpmc_intel_backend
#include "x86_sampling_harness.h"
#include "nmi_step.h"

static const u64 *ds(void)
{
	return (const u64 *)(uintptr_t)m.ds_area;
}

static void test_detection(void **state)
{
	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_string_equal(desc.mem_source, "PEBS load latency (record format 3)");
	assert_true(desc.mem_ldlat);
	assert_int_equal(probe(MODEL_INTEL_V1, NULL), 0);
	assert_null(desc.mem_source);
	assert_false(desc.mem_ldlat);
}

/* Load-latency sampling on format 3: MSRs, DS area, and every sample's fields. */
static void test_load_latency_samples(void **state)
{
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a;
	u64 raw[KPMC_MAX_COUNTERS];
	const u64 period = 10000;
	unsigned int code, k;

	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	/* pmc3 is IA32_PMC0: MEM_TRANS_RETIRED.LOAD_LATENCY, loads slower than 30 cycles. */
	assert_int_equal(configure("pmc3=0x1cd,ebs3=10000,mem=1,ldlat=30", &hw), 0);
	assert_true(hw.sampling);
	/* USR, EN, no INT: the PMI comes from the buffer. */
	assert_true(hw.selector[hw.sampling_index] == 0x4101cd);
	arm(&hw, period);
	assert_true(m.pebs_enable == (1ULL << 32 | 1));
	assert_true(m.ld_lat == 30);
	assert_non_null(ds());
	assert_true(ds()[5] == ds()[4]);			/* index at the base */
	assert_true(ds()[7] == ds()[4] + 200);			/* one 200-byte record */
	assert_true(ds()[6] == ds()[4] + 400);
	assert_true(ds()[8] == 0);				/* counter 0 reloads 0 */

	for (code = 0; code < 16 + 2; code++) {
		static const u32 level[16][2] = {
			{ KPMC_MEM_LVL_L3_MISS, KPMC_MEM_SNOOP_NA }, { KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE },
			{ KPMC_MEM_LVL_LFB, KPMC_MEM_SNOOP_NONE }, { KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE },
			{ KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_NONE }, { KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_MISS },
			{ KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HIT }, { KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HITM },
			{ KPMC_MEM_LVL_REMOTE_CACHE, KPMC_MEM_SNOOP_HIT },
			{ KPMC_MEM_LVL_REMOTE_CACHE, KPMC_MEM_SNOOP_HITM },
			{ KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_HIT }, { KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_HIT },
			{ KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_MISS }, { KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_MISS },
			{ KPMC_MEM_LVL_IO, KPMC_MEM_SNOOP_NONE }, { KPMC_MEM_LVL_UNCACHED, KPMC_MEM_SNOOP_NONE },
		};
		/* Codes 16 and 17: L2 with an STLB miss, L1 locked. */
		u64 dse = code < 16 ? code : code == 16 ? 0x13 : 0x21;
		u32 want = code < 16 ? KPMC_MEM_SRC(level[code][0], level[code][1]) :
			   code == 16 ? KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE) |
					KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS :
			   KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE) | KPMC_MEM_SRC_LOCKED;
		struct model_pebs_access fast = { .ip = 0x401004, .eventing_ip = 0x401000,
						  .addr = 0x7f0000000000, .latency = 12 };
		struct model_pebs_access slow = { .ip = 0x402008 + code * 16,
						  .eventing_ip = 0x402004 + code * 16,
						  .addr = 0x7ffd0000 + code * 64, .latency = 31 + code,
						  .dse = dse };
		unsigned long pmis = m.pmis;

		/* Loads at or under the threshold do not count: no sample however many. */
		for (k = 0; k < 3 * period; k++)
			model_pebs_load(&fast, true);
		be->read(&hw, raw);
		assert_true(raw[hw.sampling_index] ==
			    kpmc_overflow_start(period, hw.width_mask[hw.sampling_index]));
		for (k = 0; k < period - 1; k++)
			model_pebs_load(&slow, true);
		assert_int_equal(m.pmis, pmis);
		slow.addr += 8;		/* the overflowing load is the one recorded */
		model_pebs_load(&slow, true);
		assert_int_equal(m.pmis, pmis + 1);
		assert_true(m.global_status == 0);	/* acknowledged */
		/* Reloaded from 0: just past the overflow, as the core's fold expects. */
		be->read(&hw, raw);
		assert_true(raw[hw.sampling_index] == 0);
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		assert_true(a.ip == slow.eventing_ip);
		assert_true(a.addr == slow.addr);
		assert_int_equal(a.op, KPMC_MEM_OP_LOAD);
		assert_int_equal(a.latency, 31 + code);
		if (a.source != want)
			fail_msg("dse 0x%llx: source 0x%x, expected 0x%x", (unsigned long long)dse,
				 a.source, want);
		assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT |
					  KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE);
		assert_int_equal(a.skid, 0);
		assert_int_equal(a.size, 0);
		/* Handed over once. */
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		assert_int_equal(a.flags, 0);
		assert_true(ds()[5] == ds()[4]);
		/* The core re-arms. */
		be->write(&hw, hw.sampling_index,
			  kpmc_overflow_start(period, hw.width_mask[hw.sampling_index]));
	}
	assert_int_equal(m.pebs_records, 18);
	assert_int_equal(m.pebs_dropped, 0);
	/* Stopped: PEBS off; unclaimed: no DS area. */
	be->stop(&hw);
	assert_true(m.pebs_enable == 0);
	be->unclaim(0x7ff);
	assert_true(m.ds_area == 0 && m.pebs_enable == 0);
	be->release(&hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

static void format1(void)
{
	m.pebs_format = 1;
}

/* Format 1: the IP after the access, one instruction of skid, not exact. */
static void test_format1(void **state)
{
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a = { 0 };
	struct model_pebs_access l = { .ip = 0x401004, .eventing_ip = 0x401000, .addr = 0x1000,
				       .latency = 100, .dse = 3 };
	unsigned int k;

	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, format1), 0);
	assert_string_equal(desc.mem_source,
			    "PEBS load latency (record format 1: the next instruction's IP)");
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc4=0x1cd,ebs4=10000,mem=1", &hw), 0);
	arm(&hw, 10000);
	assert_true(m.pebs_enable == (1ULL << 33 | 2));
	assert_true(m.ld_lat == 3);				/* the default threshold */
	assert_true(ds()[7] == ds()[4] + 176);
	for (k = 0; k < 10000; k++)
		model_pebs_load(&l, true);
	assert_int_equal(m.pmis, 1);
	be->mem_sample(NULL, true, &a);
	assert_true(a.ip == 0x401004 && a.addr == 0x1000 && a.latency == 100);
	assert_int_equal(a.skid, 1);
	assert_int_equal(a.source, KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE));
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_LATENCY |
				  KPMC_MEM_F_SOURCE);
	be->unclaim(0x7ff);
	be->release(&hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

/* MEM_INST_RETIRED.ALL_STORES: addresses of stores, no latency, no source; kernel IPs. */
static void test_stores(void **state)
{
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a = { 0 };

	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc5=0x82d0,ebs5=20000,mem=1,os5=1", &hw), 0);
	arm(&hw, 20000);
	assert_true(m.pebs_enable == 4);
	m.pebs_next = (struct model_pebs_access){ .ip = 0xffffffff81000004ULL,
						  .eventing_ip = 0xffffffff81000000ULL,
						  .addr = 0xffff888000001000ULL };
	model_inject(0xd0, 0x82, false, 19999);
	assert_int_equal(m.pmis, 0);
	model_inject(0xd0, 0x82, false, 1);
	assert_int_equal(m.pmis, 1);
	be->mem_sample(NULL, true, &a);
	assert_int_equal(a.op, KPMC_MEM_OP_STORE);
	assert_true(a.ip == 0xffffffff81000000ULL && a.addr == 0xffff888000001000ULL);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT |
				  KPMC_MEM_F_KERNEL);
	be->unclaim(0x7ff);
	be->release(&hw);
	be->remove();
}

/* Ice Lake server (family 6 model 6ah): adaptive PEBS with its groups. */
static void ice_lake(void)
{
	m.cpuid1_eax = 0x000606a6;
	m.pebs_baseline = true;
}

/* Sapphire Rapids (model 8fh): adaptive PEBS, a split latency field. */
static void sapphire_rapids(void)
{
	m.cpuid1_eax = 0x000806f8;
	m.pebs_baseline = true;
}

/*
 * Adaptive PEBS (format 4, Ice Lake): the adaptive-record bit in EVTSEL,
 * MSR_PEBS_DATA_CFG's memory-info group, 64-byte records, load latency on a
 * counter above IA32_PMC3, and every field of the samples.
 */
static void test_adaptive(void **state)
{
	static const struct {
		u64 addr, latency, dse;
		u32 source;
		bool kernel;
	} load[] = {
		{ 0x7ffd00001000ULL, 51, 0x01, KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE), false },
		{ 0x7ffd00002040ULL, 300, 0x1a,
		  KPMC_MEM_SRC(KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_HIT) | KPMC_MEM_SRC_TLB1_MISS |
		  KPMC_MEM_SRC_TLB2_MISS, false },
		{ 0xffff888000003000ULL, 0x12345, 0x27,
		  KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HITM) | KPMC_MEM_SRC_LOCKED, true },
	};
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a;
	const u64 period = 10000;
	unsigned int i, k;

	(void)state;
	assert_int_equal(probe(MODEL_INTEL_V5, ice_lake), 0);
	assert_string_equal(desc.mem_source, "PEBS load latency (adaptive record format 4)");
	assert_true(desc.mem_ldlat);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	/* pmc7 is IA32_PMC4: Ice Lake's load latency takes any general-purpose counter. */
	assert_int_equal(configure("pmc7=0x1cd,ebs7=10000,mem=1,ldlat=50,os7=1", &hw), 0);
	/* USR, OS, EN, no INT, and Adaptive_Record (bit 34). */
	assert_true(hw.selector[hw.sampling_index] == (0x4301cdULL | 1ULL << 34));
	arm(&hw, period);
	assert_true(m.sel[4] == (0x4301cdULL | 1ULL << 34));
	/* PEBS on IA32_PMC4 alone: bit 36 would be fixed counter 4's PEBS here. */
	assert_true(m.pebs_enable == 1ULL << 4);
	assert_true(m.ld_lat == 50);
	assert_true(m.pebs_data_cfg == 1);			/* the memory-info group */
	assert_true(ds()[5] == ds()[4]);
	assert_true(ds()[7] == ds()[4] + 64);			/* one 64-byte record */
	assert_true(ds()[6] == ds()[4] + 128);
	assert_true(ds()[8 + 4] == 0);				/* IA32_PMC4 reloads 0 */

	for (i = 0; i < ARRAY_SIZE(load); i++) {
		struct model_pebs_access fast = { .ip = 0x401004, .eventing_ip = 0x401000,
						  .addr = 0x1000, .latency = 50, .dse = 1 };
		struct model_pebs_access slow = { .ip = 0x403007 + i, .eventing_ip = 0x403000 + i,
						  .addr = load[i].addr, .latency = load[i].latency,
						  .dse = load[i].dse };
		unsigned long pmis = m.pmis;

		if (load[i].kernel) {
			slow.ip = 0xffffffff81000007ULL;
			slow.eventing_ip = 0xffffffff81000000ULL;
		}
		/* At the threshold (50 cycles): not counted. */
		for (k = 0; k < 2 * period; k++)
			model_pebs_load(&fast, !load[i].kernel);
		assert_int_equal(m.pmis, pmis);
		for (k = 0; k < period; k++)
			model_pebs_load(&slow, !load[i].kernel);
		assert_int_equal(m.pmis, pmis + 1);
		assert_true(m.global_status == 0);
		assert_true(m.ctr[4] == 0);
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		assert_true(a.ip == slow.eventing_ip);
		assert_true(a.addr == load[i].addr);
		assert_int_equal(a.op, KPMC_MEM_OP_LOAD);
		assert_int_equal(a.latency, load[i].latency);
		assert_int_equal(a.source, load[i].source);
		assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT |
					  KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE |
					  (load[i].kernel ? KPMC_MEM_F_KERNEL : 0));
		assert_int_equal(a.skid, 0);
		assert_int_equal(a.size, 0);
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		assert_int_equal(a.flags, 0);
		assert_true(ds()[5] == ds()[4]);
		be->write(&hw, hw.sampling_index,
			  kpmc_overflow_start(period, hw.width_mask[hw.sampling_index]));
	}
	assert_int_equal(m.pebs_records, 3);
	assert_int_equal(m.pebs_dropped, 0);
	be->stop(&hw);
	assert_true(m.pebs_enable == 0);
	be->unclaim(0x7ff);
	assert_true(m.ds_area == 0 && m.pebs_enable == 0 && m.pebs_data_cfg == 0);
	be->release(&hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

/* Adaptive stores (MEM_INST_RETIRED.ALL_STORES): address and exact IP, no latency or source. */
static void test_adaptive_stores(void **state)
{
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a = { 0 };

	(void)state;
	assert_int_equal(probe(MODEL_INTEL_V5, ice_lake), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	if (configure("pmc3=0x82d0,ebs3=15000,mem=1", &hw))
		fail_msg("%s", why);
	arm(&hw, 15000);
	assert_true(m.pebs_enable == 1 && m.ld_lat == 0 && m.pebs_data_cfg == 1);
	m.pebs_next = (struct model_pebs_access){ .ip = 0x405004, .eventing_ip = 0x405000,
						  .addr = 0x7ffe00000010ULL, .dse = 0x1 };
	model_inject(0xd0, 0x82, true, 14999);
	assert_int_equal(m.pmis, 0);
	model_inject(0xd0, 0x82, true, 1);
	assert_int_equal(m.pmis, 1);
	be->mem_sample(NULL, true, &a);
	assert_int_equal(a.op, KPMC_MEM_OP_STORE);
	assert_true(a.ip == 0x405000 && a.addr == 0x7ffe00000010ULL);
	assert_int_equal(a.latency, 0);
	assert_int_equal(a.source, 0);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT);
	be->unclaim(0x7ff);
	be->release(&hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

static void pti_on(void)
{
	m.pti = true;
}

static void no_pebs(void)
{
	m.pebs_format = 0;
}

static void pebs_off(void)
{
	m.pebs_unavailable = true;
}

static void test_refusals(void **state)
{
	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	expect_refused("pmc3=0xc0,ebs3=10000,mem=1", -EINVAL,
		       "mem=1: pmc3 counts event 0xc0 umask 0x0; PEBS samples 0x1cd (MEM_TRANS_RETIRED.LOAD_LATENCY), 0x81d0 (MEM_INST_RETIRED.ALL_LOADS), 0x82d0 (.ALL_STORES)");
	expect_refused("pmc1,ebs1=10000,mem=1", -EINVAL,
		       "mem=1: ebs1 is a fixed counter; PEBS memory sampling needs a general-purpose counter");
	expect_refused("pmc3=0x81d0,ebs3=10000,mem=1,ldlat=20", -EINVAL,
		       "ldlat: only MEM_TRANS_RETIRED.LOAD_LATENCY (0x1cd) has a latency threshold");
	/* PEBS's records are undefined with these; MEM_INST_RETIRED samples on IA32_PMC0-3. */
	expect_refused("pmc3=0x1cd,edge3=1,ebs3=10000,mem=1", -EINVAL,
		       "mem=1: pmc3 has edge, inv, any or cmask, with which PEBS records nothing defined");
	expect_refused("pmc4=0x1cd,cmask4=2,ebs4=10000,mem=1", -EINVAL,
		       "mem=1: pmc4 has edge, inv, any or cmask, with which PEBS records nothing defined");
	expect_refused("pmc7=0x81d0,ebs7=10000,mem=1", -EINVAL,
		       "mem=1: pmc7 is IA32_PMC4; this PEBS event samples on IA32_PMC0-3 only");
	/* Load latency too, before adaptive PEBS. */
	expect_refused("pmc10=0x1cd,ebs10=10000,mem=1", -EINVAL,
		       "mem=1: pmc10 is IA32_PMC7; this PEBS event samples on IA32_PMC0-3 only");
	assert_int_equal(probe(MODEL_SKYLAKE, pti_on), 0);
	assert_null(desc.mem_source);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: page-table isolation is on: PEBS's DS area would need the user page tables (perf's cpu_entry_area); use the perf backend or pti=off");
	/* Without a source there is no threshold to set: the parser refuses ldlat. */
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1,ldlat=30", -EINVAL,
		       "'pmc3=0x1cd,ebs3=10000,mem=1,ldlat=30': ldlat: this PMU's memory sampling has no load-latency threshold");
	assert_int_equal(probe(MODEL_SKYLAKE, no_pebs), 0);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: PEBS record format 0 (no data address) is not supported: use the perf backend");
	assert_int_equal(probe(MODEL_SKYLAKE, pebs_off), 0);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: this CPU has no PEBS (CPUID DS/PDCM, or IA32_MISC_ENABLE says unavailable)");
	/* Adaptive PEBS without its groups, or on a core it is not decoded for (Sapphire Rapids). */
	assert_int_equal(probe(MODEL_INTEL_V5, NULL), 0);
	assert_null(desc.mem_source);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: PEBS record format 4 (adaptive PEBS) without PEBS_BASELINE has no memory-info group: use the perf backend");
	assert_int_equal(probe(MODEL_INTEL_V5, sapphire_rapids), 0);
	assert_null(desc.mem_source);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: adaptive PEBS (record format 4) is decoded on Ice Lake, Tiger Lake and Rocket Lake cores only: use the perf backend");
	assert_int_equal(probe(MODEL_INTEL_V5, ice_lake), 0);
	expect_refused("pmc7=0x82d0,ebs7=10000,mem=1", -EINVAL,
		       "mem=1: pmc7 is IA32_PMC4; this PEBS event samples on IA32_PMC0-3 only");
	assert_int_equal(probe(MODEL_ADL, NULL), 0);
	assert_null(desc.mem_source);
	expect_refused("pmc3=0x1cd,ebs3=10000,mem=1", -EOPNOTSUPP,
		       "mem=1: PEBS on hybrid parts (a record layout per core type) is not supported: use the perf backend");
	/* Nothing was allocated for refused sets. */
	be->remove();
	assert_int_equal(m.allocs, 0);
}

/*
 * A sample of kernel code for a set whose owner may not count kernel mode
 * (the core's kernel_allowed false): no address of it, neither ip nor addr.
 */
static void test_kernel_hidden(void **state)
{
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a = { 0 };

	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc5=0x82d0,ebs5=20000,mem=1,os5=1", &hw), 0);
	arm(&hw, 1);
	m.pebs_next = (struct model_pebs_access){ .eventing_ip = 0xffffffff81000000ULL,
						  .addr = 0xffff888000001000ULL };
	model_inject(0xd0, 0x82, false, 1);
	assert_int_equal(m.pmis, 1);
	be->mem_sample(NULL, false, &a);
	assert_true(a.ip == 0 && a.addr == 0);
	assert_int_equal(a.op, KPMC_MEM_OP_STORE);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_KERNEL);
	be->unclaim(0x7ff);
	be->release(&hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

/* Two samples that differ in every field a record carries. */
static const struct model_pebs_access torn_a = {
	.ip = 0x401104, .eventing_ip = 0x401100, .addr = 0x7f00000a0000, .latency = 40, .dse = 1,
};
static const struct model_pebs_access torn_b = {
	.ip = 0x402204, .eventing_ip = 0x402200, .addr = 0x7f00000b0000, .latency = 90,
	.dse = 0x13,
};
static struct kpmc_hw_config torn_hw;
static struct kpmc_mem_access torn_out;

/* The PMI of the next load, as the NMI it is: the assist records torn_b, the handler drains it. */
static void torn_nmi(void)
{
	model_pebs_load(&torn_b, true);
}

static void torn_take(void *arg)
{
	(void)arg;
	be->mem_sample(NULL, true, &torn_out);
}

static bool is_sample(const struct kpmc_mem_access *a, const struct model_pebs_access *l)
{
	return a->ip == l->eventing_ip && a->addr == l->addr && a->latency == l->latency &&
	       a->source == (l->dse == 1 ? KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE) :
				KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE) |
				KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS) &&
	       a->flags == (KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT |
			    KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE) &&
	       a->op == KPMC_MEM_OP_LOAD;
}

/*
 * The PMI is an NMI: IRQs off do not hold it off while the core copies the
 * pending sample out. At every instruction of the copy, a PMI that records
 * a newer sample: what the core gets is one sample whole, the older or the
 * newer, never a mix; and the newer one, if not taken then, is taken next.
 */
static void test_pending_not_torn(void **state)
{
	struct kpmc_mem_access next;
	unsigned long step, fired = 0, torn = 0, twice = 0, lost = 0, first = 0;
	unsigned int idx;

	(void)state;
	if (!nmi_step_available())
		skip();
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc3=0x1cd,ebs3=10000,mem=1,ldlat=30", &torn_hw), 0);
	idx = torn_hw.sampling_index;
	arm(&torn_hw, 1);
	for (step = 1; step < 1000; step++) {
		/* torn_a pending; the next load overflows. */
		model_pebs_load(&torn_a, true);
		be->write(&torn_hw, idx, kpmc_overflow_start(1, torn_hw.width_mask[idx]));
		memset(&torn_out, 0, sizeof(torn_out));
		if (!nmi_at_step(torn_take, NULL, step, torn_nmi))
			break;
		fired++;
		memset(&next, 0, sizeof(next));
		be->mem_sample(NULL, true, &next);
		if (is_sample(&torn_out, &torn_a)) {
			if (!is_sample(&next, &torn_b))
				lost++;
		} else if (is_sample(&torn_out, &torn_b)) {
			if (next.flags)
				twice++;
		} else if (!torn++) {
			first = step;
			print_message("PMI at instruction %lu of the copy: a torn sample (ip 0x%llx addr 0x%llx latency %u source 0x%x flags 0x%x)\n",
				      step, (unsigned long long)torn_out.ip,
				      (unsigned long long)torn_out.addr, torn_out.latency,
				      torn_out.source, torn_out.flags);
		}
		be->write(&torn_hw, idx, kpmc_overflow_start(1, torn_hw.width_mask[idx]));
	}
	if (torn || twice || lost)
		fail_msg("of %lu PMIs in the copy: %lu torn samples (the first at instruction %lu), %lu newer samples taken twice, %lu lost",
			 fired, torn, first, twice, lost);
	/* The copy and its checks are some tens of instructions; every one had its PMI. */
	assert_true(fired >= 10 && fired < 999);
	be->unclaim(0x7ff);
	be->release(&torn_hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

static struct kpmc_hw_config race_hw;

/* Another configuration write, encoding while the first is about to allocate. */
static void race_encode(void)
{
	assert_int_equal(configure("pmc4=0x1cd,ebs4=10000,mem=1", &race_hw), 0);
}

/*
 * Two mem=1 configurations encoded at once, the first CPUs' DS areas not
 * yet made: one array, used by both, freed at remove.
 */
static void test_encode_race_one_array(void **state)
{
	struct kpmc_hw_config hw;
	unsigned long before;
	u64 ds_first;

	(void)state;
	assert_int_equal(probe(MODEL_SKYLAKE, NULL), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	before = m.allocs;
	m.alloc_hook = race_encode;
	assert_int_equal(configure("pmc3=0x1cd,ebs3=10000,mem=1", &hw), 0);
	assert_null(m.alloc_hook);
	/* Each configuration's encoding, and one DS-area array. */
	assert_int_equal(m.allocs - before, 3);
	arm(&race_hw, 10000);
	ds_first = m.ds_area;
	be->stop(&race_hw);
	arm(&hw, 10000);
	assert_true(m.ds_area == ds_first);
	be->unclaim(0x7ff);
	be->release(&hw);
	be->release(&race_hw);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_load_latency_samples),
		cmocka_unit_test(test_format1),
		cmocka_unit_test(test_stores),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_adaptive_stores),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_kernel_hidden),
		cmocka_unit_test(test_pending_not_torn),
		cmocka_unit_test(test_encode_race_one_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
