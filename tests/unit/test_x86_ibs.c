// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD backend's IBS Op memory sampling (backends/x86/amd_ibs.c), unchanged,
 * against the MSR model's IBS sampler (msr_model_ibs.c): IBS_OP_CTL for
 * each period (with and without OpCntExt), a sample after exactly the
 * distance the core wrote, every field of the samples of a sequence of
 * queued ops (loads, stores, non-memory and kernel ops; each data-source
 * code of Zen 1 and of Zen 4; latency, width, TLB misses, locks), the
 * pending flag the core takes samples by, the NMI of a discarded sample,
 * and the configurations and machines it refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#define HARNESS_BACKEND kpmc_amd_backend
#include "x86_sampling_harness.h"

#define EN		(1ULL << 17)
#define VAL		(1ULL << 18)
#define CUR(n)		((u64)(n) << 32)

static void rearm(struct kpmc_hw_config *hw, u64 period)
{
	be->write(hw, hw->sampling_index,
		  kpmc_overflow_start(period, hw->width_mask[hw->sampling_index]));
}

static void done(struct kpmc_hw_config *hw)
{
	be->release(hw);
	be->unclaim(0x3f);
	/* unclaim frees what claim allocated. */
	assert_int_equal(m.allocs, 0);
}

static void no_ffv(void)
{
	m.ibs_ffv = false;
}

static void no_lvt(void)
{
	m.ibs_lvt_valid = false;
}

static void test_detection(void **state)
{
	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_string_equal(desc.mem_source, "IBS Op (Zen 4 data sources)");
	assert_false(desc.mem_ldlat);
	assert_int_equal(probe(MODEL_ZEN1, NULL), 0);
	assert_string_equal(desc.mem_source, "IBS Op");
	assert_false(desc.mem_ldlat);
	/* The counters stay usable without IBS: probe succeeds, no memory source. */
	assert_int_equal(probe(MODEL_AMD_LEGACY, NULL), 0);
	assert_null(desc.mem_source);
	assert_int_equal(probe(MODEL_ZEN4, no_ffv), 0);
	assert_null(desc.mem_source);
	assert_int_equal(probe(MODEL_ZEN1, no_lvt), 0);
	assert_null(desc.mem_source);
}

static void expect_ctl(struct kpmc_hw_config *hw, u64 period, u64 ctl)
{
	arm(hw, period);
	if (m.ibs_op_ctl != ctl)
		fail_msg("period %llu: IBS_OP_CTL 0x%llx, expected 0x%llx", (unsigned long long)period,
			 (unsigned long long)m.ibs_op_ctl, (unsigned long long)ctl);
}

/* IBS_OP_CTL: MaxCnt (and OpCntExt's upper bits), CurCnt, IbsOpEn, from the distance. */
static void test_op_ctl(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw), 0);
	assert_true(hw.sampling && hw.sampling_external);
	assert_true(hw.selector[0] == 0x410076);	/* USR, EN, no INT */
	expect_ctl(&hw, 100000, 6250 | EN);
	expect_ctl(&hw, 100001, 6251 | EN | CUR(15));	/* 6251 * 16 - 15 */
	expect_ctl(&hw, 100015, 6251 | EN | CUR(1));
	/* 125000 = 0x1e848: bit 16 of MaxCnt in bit 20. */
	expect_ctl(&hw, 2000000, 0xe848 | 1ULL << 20 | EN);
	/* OpCntExt's largest: MaxCnt 0x7fffff. */
	expect_ctl(&hw, 134217712, 0xffff | 0x7fULL << 20 | EN);
	/* At or past the overflow: the shortest period, 0x90. */
	arm(&hw, 0);
	assert_true(m.ibs_op_ctl == (9 | EN));
	be->write(&hw, 0, 5);
	assert_true(m.ibs_op_ctl == (9 | EN));
	expect_ctl(&hw, 0x8f, 9 | EN);
	be->stop(&hw);
	assert_true(m.ibs_op_ctl == 0);
	/* start() arms again from where the counter stands. */
	m.ctr[0] = kpmc_overflow_start(4000, hw.width_mask[0]);
	be->start(&hw);
	assert_true(m.ibs_op_ctl == (250 | EN));
	done(&hw);

	/* Zen 1: 16 bits of MaxCnt (the model fails on bits 26:20). */
	assert_int_equal(probe(MODEL_ZEN1, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc3=0x76,ebs3=1048560,mem=1", &hw), 0);
	expect_ctl(&hw, 1048560, 0xffff | EN);
	expect_ctl(&hw, 1048559, 0xffff | EN | CUR(1));
	expect_ctl(&hw, 100000, 6250 | EN);
	done(&hw);
}

/* A sample after exactly the distance the core wrote, by load() and by write(). */
static void test_exact_period(void **state)
{
	static const u64 periods[] = { 100000, 100001, 123457, 10000, 1048575 };
	struct kpmc_hw_config hw;
	size_t k;

	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc1=0x76,ebs1=1048575,mem=1", &hw), 0);
	arm(&hw, 100000);
	for (k = 0; k < ARRAY_SIZE(periods); k++) {
		unsigned long pmis = m.pmis;

		rearm(&hw, periods[k]);
		assert_false(be->mem_pending(&hw));
		model_inject(0x76, 0, true, periods[k] - 1);
		if (m.pmis != pmis || be->mem_pending(&hw))
			fail_msg("period %llu: a sample one cycle early", (unsigned long long)periods[k]);
		model_inject(0x76, 0, true, 1);
		assert_int_equal(m.pmis, pmis + 1);
		assert_true(be->mem_pending(&hw));
		/* IBS is off until the core re-arms: no second sample. */
		assert_true(m.ibs_op_ctl == 0);
		model_inject(0x76, 0, true, periods[k]);
		assert_int_equal(m.pmis, pmis + 1);
	}
	/* load() forgets a sample the core did not take. */
	arm(&hw, 100000);
	assert_false(be->mem_pending(&hw));
	/* IBS counts kernel cycles too; this counter (user only) does not. */
	model_inject(0x76, 0, false, 100000);
	assert_true(be->mem_pending(&hw));
	assert_true(m.ctr[1] == kpmc_overflow_start(100000, hw.width_mask[0]));
	/* start() leaves a pending sample for the core, IBS off. */
	be->stop(&hw);
	be->start(&hw);
	assert_true(be->mem_pending(&hw));
	assert_true(m.ibs_op_ctl == 0);
	assert_int_equal(m.ibs_samples, ARRAY_SIZE(periods) + 1);
	done(&hw);
}

struct op_case {
	struct model_ibs_op op;
	u16 op_kind, flags;
	u32 size, latency, source;
};

/* Queue every op, sample each at 100000 cycles, check every field. */
static void run_ops(enum model_kind kind, const char *config, const struct op_case *c, size_t n)
{
	struct kpmc_hw_config hw;
	const u64 period = 100000;
	size_t k;

	assert_int_equal(probe(kind, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure(config, &hw), 0);
	for (k = 0; k < n; k++)
		model_ibs_queue_op(&c[k].op);
	arm(&hw, period);
	assert_false(be->mem_pending(&hw));
	for (k = 0; k < n; k++) {
		struct kpmc_mem_access a;
		unsigned long pmis = m.pmis;
		u64 addr = (c[k].flags & KPMC_MEM_F_ADDR) ? c[k].op.linaddr : 0;
		u64 ip = (c[k].flags & KPMC_MEM_F_EXACT) ? c[k].op.rip : 0;

		model_inject(0x76, 0, true, period - 1);
		assert_int_equal(m.pmis, pmis);
		model_inject(0x76, 0, true, 1);
		assert_int_equal(m.pmis, pmis + 1);
		assert_int_equal(m.overflows, pmis + 1);	/* the core runs */
		assert_true(be->mem_pending(&hw));
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		if (a.ip != ip || a.op != c[k].op_kind || a.flags != c[k].flags ||
		    a.size != c[k].size || a.latency != c[k].latency || a.source != c[k].source ||
		    a.skid != 0 || a.addr != addr)
			fail_msg("op %zu: ip 0x%llx op %u flags 0x%x size %u latency %u source 0x%x addr 0x%llx skid %u; expected op %u flags 0x%x size %u latency %u source 0x%x",
				 k, (unsigned long long)a.ip, a.op, a.flags, a.size, a.latency, a.source,
				 (unsigned long long)a.addr, a.skid, c[k].op_kind, c[k].flags, c[k].size,
				 c[k].latency, c[k].source);
		/* Taken once. */
		assert_false(be->mem_pending(&hw));
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, true, &a);
		assert_int_equal(a.flags, 0);
		/* The core re-arms after its sample. */
		rearm(&hw, period);
		assert_false(be->mem_pending(&hw));
	}
	assert_int_equal(m.ibs_samples, n);
	done(&hw);
}

#define HW	(KPMC_MEM_F_HARDWARE | KPMC_MEM_F_EXACT)
#define LDF	(HW | KPMC_MEM_F_ADDR | KPMC_MEM_F_SOURCE)
#define LDM	(LDF | KPMC_MEM_F_LATENCY)
#define S(l, s)	KPMC_MEM_SRC(KPMC_MEM_LVL_##l, KPMC_MEM_SNOOP_##s)
#define LOAD(ip, la)	.rip = (ip), .linaddr = (la), .load = true, .linaddr_valid = true

static void test_zen1_samples(void **state)
{
	static const struct op_case c[] = {
		/* A load that hit the DC: L1, no latency. */
		{ { LOAD(0x401000, 0x7f0000001000) }, KPMC_MEM_OP_LOAD, LDF, 0, 0, S(L1, NA) },
		{ { LOAD(0x401010, 0x7f0000001008), .dc_miss = 1, .latency = 14, .data_src = 0 },
		  KPMC_MEM_OP_LOAD, LDM, 0, 14, S(L2, NA) },
		{ { LOAD(0x401020, 0x7f0000001010), .dc_miss = 1, .latency = 40, .data_src = 2 },
		  KPMC_MEM_OP_LOAD, LDM, 0, 40, S(L3, HIT) },
		{ { LOAD(0x401030, 0x7f0000001018), .dc_miss = 1, .latency = 90, .data_src = 2,
		    .hit_modified = 1 }, KPMC_MEM_OP_LOAD, LDM, 0, 90, S(L3, HITM) },
		{ { LOAD(0x401040, 0x7f0000001020), .dc_miss = 1, .latency = 200, .data_src = 3,
		    .tlb1_miss = 1 }, KPMC_MEM_OP_LOAD, LDM, 0, 200, S(RAM, NA) | KPMC_MEM_SRC_TLB1_MISS },
		{ { LOAD(0x401050, 0x7f0000001028), .dc_miss = 1, .latency = 350, .data_src = 3,
		    .rmt_node = 1, .tlb1_miss = 1, .tlb2_miss = 1 }, KPMC_MEM_OP_LOAD, LDM, 0, 350,
		  S(REMOTE_RAM, NA) | KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS },
		{ { LOAD(0x401060, 0x7f0000001030), .dc_miss = 1, .latency = 300, .data_src = 4 },
		  KPMC_MEM_OP_LOAD, LDM, 0, 300, S(REMOTE_CACHE, NA) },
		{ { LOAD(0x401070, 0xfe000000), .dc_miss = 1, .latency = 500, .data_src = 7 },
		  KPMC_MEM_OP_LOAD, LDM, 0, 500, S(IO, NA) },
		/* Codes Zen 1's table leaves unnamed (1, 5, 6): a miss, level not said. */
		{ { LOAD(0x401078, 0x7f0000001038), .dc_miss = 1, .latency = 77, .data_src = 5 },
		  KPMC_MEM_OP_LOAD, LDM, 0, 77, S(NA, NA) },
		/*
		 * A store that missed: address; no source level nor latency
		 * (DataSrc and IbsDcMissLat are a load's); Zen 1 has no width.
		 */
		{ { .rip = 0x401080, .linaddr = 0x7f0000002000, .store = 1, .linaddr_valid = 1,
		    .dc_miss = 1, .latency = 99, .data_src = 3, .width = 4 },
		  KPMC_MEM_OP_STORE, HW | KPMC_MEM_F_ADDR | KPMC_MEM_F_SOURCE, 0, 0, S(NA, NA) },
		/* A store that hit, locked. */
		{ { .rip = 0x401088, .linaddr = 0x7f0000002008, .store = 1, .linaddr_valid = 1,
		    .locked = 1 }, KPMC_MEM_OP_STORE, HW | KPMC_MEM_F_ADDR | KPMC_MEM_F_SOURCE, 0, 0,
		  S(L1, NA) | KPMC_MEM_SRC_LOCKED },
		/* An op that is no load or store: its IP only (the stale address unused). */
		{ { .rip = 0x401090, .linaddr = 0xdead }, KPMC_MEM_OP_NONE, HW, 0, 0, 0 },
		/* A load whose address IBS did not capture. */
		{ { .rip = 0x4010a0, .linaddr = 0x1234, .load = 1 }, KPMC_MEM_OP_LOAD,
		  HW | KPMC_MEM_F_SOURCE, 0, 0, S(L1, NA) },
		/* Kernel code, the counter user-only: kernel, no address of it. */
		{ { LOAD(0xffffffff81000000ULL, 0xffff888000000000ULL) },
		  KPMC_MEM_OP_NONE, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_KERNEL, 0, 0, 0 },
	};

	(void)state;
	run_ops(MODEL_ZEN1, "pmc2=0x76,ebs2=100000,mem=1", c, ARRAY_SIZE(c));
}

static void test_zen4_samples(void **state)
{
	static const struct op_case c[] = {
		{ { LOAD(0x402000, 0x1000), .dc_miss = 1, .latency = 35, .data_src = 1, .width = 4 },
		  KPMC_MEM_OP_LOAD, LDM, 8, 35, S(L3, NA) },
		{ { LOAD(0x402010, 0x1008), .dc_miss = 1, .latency = 80, .data_src = 2, .width = 3,
		    .hit_modified = 1 }, KPMC_MEM_OP_LOAD, LDM, 4, 80, S(PEER_CACHE, NA) },
		{ { LOAD(0x402020, 0x1010), .dc_miss = 1, .latency = 150, .data_src = 3, .width = 4,
		    .l2_miss = 1 }, KPMC_MEM_OP_LOAD, LDM, 8, 150, S(RAM, NA) },
		{ { LOAD(0x402030, 0x1018), .dc_miss = 1, .latency = 250, .data_src = 3, .width = 4,
		    .rmt_node = 1, .l2_miss = 1 }, KPMC_MEM_OP_LOAD, LDM, 8, 250, S(REMOTE_RAM, NA) },
		{ { LOAD(0x402040, 0x1020), .dc_miss = 1, .latency = 220, .data_src = 5, .width = 5 },
		  KPMC_MEM_OP_LOAD, LDM, 16, 220, S(REMOTE_CACHE, NA) },
		{ { LOAD(0x402050, 0x1028), .dc_miss = 1, .latency = 400, .data_src = 6, .width = 6 },
		  KPMC_MEM_OP_LOAD, LDM, 32, 400, S(EXT_MEM, NA) },
		{ { LOAD(0x402060, 0x1030), .dc_miss = 1, .latency = 450, .data_src = 8, .width = 7 },
		  KPMC_MEM_OP_LOAD, LDM, 64, 450, S(EXT_MEM, NA) },
		{ { LOAD(0x402070, 0x1038), .dc_miss = 1, .latency = 600, .data_src = 7, .width = 1 },
		  KPMC_MEM_OP_LOAD, LDM, 1, 600, S(IO, NA) },
		{ { LOAD(0x402080, 0x1040), .dc_miss = 1, .latency = 380, .data_src = 12, .width = 2 },
		  KPMC_MEM_OP_LOAD, LDM, 2, 380, S(REMOTE_RAM, NA) },
		/* Nothing said beyond the DC: L2, unless IbsL2Miss says it missed there too. */
		{ { LOAD(0x402090, 0x1048), .dc_miss = 1, .latency = 12, .width = 4 },
		  KPMC_MEM_OP_LOAD, LDM, 8, 12, S(L2, NA) },
		{ { LOAD(0x402098, 0x1050), .dc_miss = 1, .latency = 55, .width = 4, .l2_miss = 1 },
		  KPMC_MEM_OP_LOAD, LDM, 8, 55, S(NA, NA) },
		/* A code Zen 4's table leaves unnamed (4). */
		{ { LOAD(0x40209c, 0x1054), .dc_miss = 1, .latency = 66, .data_src = 4, .width = 4 },
		  KPMC_MEM_OP_LOAD, LDM, 8, 66, S(NA, NA) },
		/* Load and store at once (a locked RMW): both, with the load's source. */
		{ { LOAD(0x4020a0, 0x1058), .store = 1, .locked = 1, .width = 4 },
		  KPMC_MEM_OP_LOAD_STORE, LDF, 8, 0, S(L1, NA) | KPMC_MEM_SRC_LOCKED },
		/* Width 0 or 8 and above: size not known. */
		{ { .rip = 0x4020b0, .linaddr = 0x1060, .store = 1, .linaddr_valid = 1, .width = 9 },
		  KPMC_MEM_OP_STORE, HW | KPMC_MEM_F_ADDR | KPMC_MEM_F_SOURCE, 0, 0, S(L1, NA) },
		{ { LOAD(0x4020b8, 0x1068) }, KPMC_MEM_OP_LOAD, LDF, 0, 0, S(L1, NA) },
		/* Kernel code, the counter counting kernel mode too: all of it. */
		{ { LOAD(0xffffffff81000000ULL, 0xffff888000000040ULL), .width = 4 },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_KERNEL, 8, 0, S(L1, NA) },
		{ { .rip = 0x4020c0 }, KPMC_MEM_OP_NONE, HW, 0, 0, 0 },
	};

	(void)state;
	run_ops(MODEL_ZEN4, "pmc0=0x76,ebs0=100000,mem=1,os0=1", c, ARRAY_SIZE(c));
}

/* The NMI of a sample IBS took just before kpmc turned it off or re-armed it. */
static void test_late_nmi(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw), 0);
	assert_non_null(m.pmi);
	arm(&hw, 100000);
	/* No sample, no discarded one: not kpmc's NMI. */
	assert_false(m.pmi());
	m.ibs_op_ctl |= VAL;		/* taken; its NMI on the way */
	be->stop(&hw);
	assert_true(m.ibs_op_ctl == 0);
	assert_true(m.pmi());		/* that NMI is kpmc's */
	assert_false(m.pmi());		/* only that one */
	assert_false(be->mem_pending(&hw));
	/* The same when write() re-arms over it (a switch between threads of one set). */
	arm(&hw, 100000);
	m.ibs_op_ctl |= VAL;
	rearm(&hw, 50000);
	assert_true(m.ibs_op_ctl == (3125 | EN));
	assert_true(m.pmi());
	assert_false(m.pmi());
	/* Stopped without a sample: nothing to claim. */
	be->stop(&hw);
	assert_false(m.pmi());
	/* Someone else's (perf's) sample, kpmc not armed: not claimed, left alone. */
	m.ibs_op_ctl = EN | VAL;
	assert_false(m.pmi());
	assert_true(m.ibs_op_ctl == (EN | VAL));
	assert_false(be->mem_pending(&hw));
	m.ibs_op_ctl = 0;
	done(&hw);
}

#define NOT_CYCLES \
	"mem=1: IBS samples by cycles: the sampling counter pmc0 must count plain cycles (0x76 without umask, cmask, edge or inv)"
#define BUSY "mem=1: IBS op sampling is in use on a CPU (perf's ibs_op PMU?)"

static void test_refusals(void **state)
{
	struct kpmc_hw_config hw;
	u64 perf_ctl = 6250 | EN | CUR(77);

	(void)state;
	assert_int_equal(probe(MODEL_ZEN1, NULL), 0);
	expect_refused("pmc0=0xc0,ebs0=100000,mem=1", -EINVAL, NOT_CYCLES);
	expect_refused("pmc0=0x76,umask0=1,ebs0=100000,mem=1", -EINVAL, NOT_CYCLES);
	expect_refused("pmc0=0x76,cmask0=2,ebs0=100000,mem=1", -EINVAL, NOT_CYCLES);
	expect_refused("pmc0=0x76,ebs0=1048561,mem=1", -EINVAL,
		       "mem=1: ebs0: IBS periods are at most 1048560 cycles here");
	expect_refused("pmc0=0x76,ebs0=1000000,rnd=50000,mem=1", -EINVAL,
		       "mem=1: ebs0: IBS periods are at most 1048560 cycles here");
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	expect_refused("pmc0=0x76,ebs0=134217713,mem=1", -EINVAL,
		       "mem=1: ebs0: IBS periods are at most 134217712 cycles here");

	/* perf's ibs_op samples: a mem=1 set is refused, plain counting is not. */
	m.ibs_op_ctl = perf_ctl;
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EBUSY, BUSY);
	assert_int_equal(configure("pmc0=0x76,ebs0=100000", &hw), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	be->unclaim(0x3f);
	/* perf began after the set was made: the claim is refused, perf left alone. */
	m.ibs_op_ctl = 0;
	assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw), 0);
	m.ibs_op_ctl = perf_ctl;
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), -EBUSY);
	assert_string_equal(why, BUSY);
	assert_int_equal(m.allocs, 0);
	assert_true(m.ibs_op_ctl == perf_ctl);
	/* The set freed: counting may claim again. */
	be->release(&hw);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	be->unclaim(0x3f);
	assert_true(m.ibs_op_ctl == perf_ctl);
	assert_int_equal(m.allocs, 0);

	assert_int_equal(probe(MODEL_ZEN4, no_lvt), 0);
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EOPNOTSUPP,
		       "mem=1: the kernel did not set up IBS's interrupt (IBS_CTL.LvtOffsetVal clear)");
	assert_int_equal(probe(MODEL_ZEN4, no_ffv), 0);
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EOPNOTSUPP,
		       "mem=1: this CPU's IBS capabilities are not valid (CPUID 8000_001BH:EAX[0])");
	assert_int_equal(probe(MODEL_AMD_LEGACY, NULL), 0);
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EOPNOTSUPP,
		       "mem=1: this CPU has no IBS (CPUID 8000_0001H:ECX[10])");
	/* Without IBS the claim allocates nothing and arms nothing. */
	assert_int_equal(be->claim(0xf, why, sizeof(why)), 0);
	assert_int_equal(m.allocs, 0);
	be->unclaim(0xf);
}

/*
 * Asking every CPU whether perf uses IBS costs an IPI to each, and any user
 * may write configurations: kpmc asks when its first mem=1 set comes (and
 * at claim), not at every configuration write.
 */
static void test_busy_check_once(void **state)
{
	struct kpmc_hw_config hw[3];
	unsigned int k;

	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	m.broadcasts = 0;
	for (k = 0; k < 3; k++)
		assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw[k]), 0);
	assert_int_equal(m.broadcasts, 1);
	be->release(&hw[2]);
	/* Without mem=1: never. */
	assert_int_equal(configure("pmc1=0x76", &hw[2]), 0);
	be->release(&hw[2]);
	assert_int_equal(m.broadcasts, 1);
	/* The last mem=1 set gone, the next first one asks again. */
	be->release(&hw[0]);
	be->release(&hw[1]);
	assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw[0]), 0);
	assert_int_equal(m.broadcasts, 2);
	/* perf's ibs_op on: the first set is refused, and is none. */
	be->release(&hw[0]);
	m.ibs_op_ctl = EN;
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EBUSY,
		       "mem=1: IBS op sampling is in use on a CPU (perf's ibs_op PMU?)");
	assert_int_equal(m.broadcasts, 3);
	m.ibs_op_ctl = 0;
	assert_int_equal(configure("pmc0=0x76,ebs0=100000,mem=1", &hw[0]), 0);
	assert_int_equal(m.broadcasts, 4);
	be->release(&hw[0]);
	assert_int_equal(m.allocs, 0);
}

/*
 * A kernel op's sample of a set that counts kernel mode, for an owner who
 * may not see kernel addresses (the core's kernel_allowed false): neither
 * its ip nor its data address.
 */
static void test_kernel_hidden(void **state)
{
	static const struct model_ibs_op kop = {
		.rip = 0xffffffff81234567ULL, .linaddr = 0xffff888000010000ULL,
		.load = true, .linaddr_valid = true,
	};
	struct kpmc_hw_config hw;
	struct kpmc_mem_access a;

	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0=0x76,os0=1,ebs0=100000,mem=1", &hw), 0);
	model_ibs_queue_op(&kop);
	model_ibs_queue_op(&kop);
	arm(&hw, 100000);
	model_inject(0x76, 0, false, 100000);
	memset(&a, 0, sizeof(a));
	be->mem_sample(NULL, false, &a);
	assert_true(a.ip == 0 && a.addr == 0);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_KERNEL | KPMC_MEM_F_SOURCE);
	/* The same for an owner who may: both addresses. */
	rearm(&hw, 100000);
	model_inject(0x76, 0, false, 100000);
	memset(&a, 0, sizeof(a));
	be->mem_sample(NULL, true, &a);
	assert_true(a.ip == kop.rip && a.addr == kop.linaddr);
	done(&hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_op_ctl),
		cmocka_unit_test(test_exact_period),
		cmocka_unit_test(test_zen1_samples),
		cmocka_unit_test(test_zen4_samples),
		cmocka_unit_test(test_late_nmi),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_busy_check_once),
		cmocka_unit_test(test_kernel_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
