// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD backend's IBS Op memory sampling (backends/amd_ibs.c), unchanged,
 * against the MSR model's IBS registers: IBS_OP_CTL for each period (with
 * and without OpCntExt), a sample after exactly the period the core drew,
 * every field of the samples of queued ops (load, store, non-memory op,
 * kernel op; each data-source code of Zen 1 and of Zen 4; latency, width,
 * TLB misses), the pending flag the core takes samples by, and the
 * configurations and machines it refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"
#include "kpmc/sampling.h"

extern const struct kpmc_backend kpmc_amd_backend;

static const struct kpmc_backend *be = &kpmc_amd_backend;
static struct kpmc_pmu_desc desc;
static char why[KPMC_ERR_MAX];

/* IBS_OP_DATA3 / DATA2 bits the tests build ops from. */
#define LD		(1ULL << 0)
#define ST		(1ULL << 1)
#define TLB1		(1ULL << 2)
#define TLB2		(1ULL << 3)
#define DCMISS		(1ULL << 7)
#define LINADDR		(1ULL << 17)
#define WIDTH(w)	((u64)(w) << 22)
#define LAT(l)		((u64)(l) << 32)
#define SRC(s)		((u64)((s) & 7) | (u64)((s) >> 3) << 6)
#define RMT		(1ULL << 4)
#define MODIFIED	(1ULL << 5)

static int probe(enum model_kind kind, void (*tweak)(void))
{
	model_init(kind);
	if (tweak)
		tweak();
	memset(&desc, 0, sizeof(desc));
	why[0] = '\0';
	return be->probe(&desc, why, sizeof(why));
}

static int configure(const char *s, struct kpmc_hw_config *hw)
{
	struct kpmc_config c;
	int r = kpmc_config_parse(s, strlen(s), &desc, &c, why, sizeof(why));

	return r ? r : be->encode(&c, hw, why, sizeof(why));
}

static void arm(struct kpmc_hw_config *hw, u64 period)
{
	u64 start[KPMC_MAX_COUNTERS] = { 0 };

	start[hw->sampling_index] = kpmc_overflow_start(period, hw->width_mask[hw->sampling_index]);
	be->load(hw, start);
}

static void test_detection(void **state)
{
	(void)state;
	assert_int_equal(probe(MODEL_ZEN4, NULL), 0);
	assert_string_equal(desc.mem_source, "IBS Op (Zen 4 data sources)");
	assert_false(desc.mem_ldlat);
	assert_int_equal(probe(MODEL_ZEN1, NULL), 0);
	assert_string_equal(desc.mem_source, "IBS Op");
	assert_int_equal(probe(MODEL_AMD_LEGACY, NULL), 0);
	assert_null(desc.mem_source);
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
	arm(&hw, 100000);
	assert_true(m.ibs_op_ctl == (6250 | 1ULL << 17));
	arm(&hw, 100001);			/* 6251 * 16 - 15 */
	assert_true(m.ibs_op_ctl == (6251 | 1ULL << 17 | 15ULL << 32));

	assert_int_equal(configure("pmc0=0x76,ebs0=2000000,mem=1", &hw), 0);
	arm(&hw, 2000000);			/* 125000 = 0x1e848: bit 16 in bits 26:20 */
	assert_true(m.ibs_op_ctl == (0xe848 | 1ULL << 20 | 1ULL << 17));
	be->stop(&hw);
	assert_true(m.ibs_op_ctl == 0);
	/* A sample of someone else's (perf's) IBS, kpmc not armed: not kpmc's NMI, left alone. */
	m.ibs_op_ctl = 1ULL << 17 | 1ULL << 18;
	assert_non_null(m.pmi);
	assert_false(m.pmi());
	assert_true(m.ibs_op_ctl == (1ULL << 17 | 1ULL << 18));
	assert_false(be->mem_pending(&hw));
	m.ibs_op_ctl = 0;
	be->unclaim(0x3f);
	be->remove();
	assert_int_equal(m.allocs, 0);
}

struct op_case {
	struct model_ibs_op op;
	u16 op_kind, flags;
	u32 size, latency, source;
};

/* Sample each op once, at exactly the period; check every field. */
static void run_ops(enum model_kind kind, const struct op_case *c, size_t n)
{
	struct kpmc_hw_config hw;
	const u64 period = 100000;
	size_t k;

	assert_int_equal(probe(kind, NULL), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc2=0x76,ebs2=100000,mem=1,os2=1", &hw), 0);
	arm(&hw, period);
	assert_false(be->mem_pending(&hw));
	for (k = 0; k < n; k++) {
		struct kpmc_mem_access a;
		unsigned long pmis = m.pmis;

		m.ibs_next = c[k].op;
		model_inject(0x76, 0, true, period - 1);
		assert_int_equal(m.pmis, pmis);
		model_inject(0x76, 0, true, 1);
		assert_int_equal(m.pmis, pmis + 1);
		assert_int_equal(m.overflows, pmis + 1);
		assert_true(be->mem_pending(&hw));
		/* The counter itself never interrupts: it is one cycle short of its overflow. */
		assert_true(m.ctr[2] == (kpmc_overflow_start(period, hw.width_mask[0]) + period) % (1ULL << 48));
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, &a);
		if (a.ip != c[k].op.rip || a.op != c[k].op_kind || a.flags != c[k].flags ||
		    a.size != c[k].size || a.latency != c[k].latency || a.source != c[k].source ||
		    a.skid != 0 || a.addr != ((c[k].flags & KPMC_MEM_F_ADDR) ? c[k].op.linaddr : 0))
			fail_msg("op %zu: ip 0x%llx op %u flags 0x%x size %u latency %u source 0x%x addr 0x%llx; expected op %u flags 0x%x size %u latency %u source 0x%x",
				 k, (unsigned long long)a.ip, a.op, a.flags, a.size, a.latency, a.source,
				 (unsigned long long)a.addr, c[k].op_kind, c[k].flags, c[k].size,
				 c[k].latency, c[k].source);
		/* Taken once; the core re-arms, which forgets nothing pending. */
		memset(&a, 0, sizeof(a));
		be->mem_sample(NULL, &a);
		assert_int_equal(a.flags, 0);
		be->write(&hw, hw.sampling_index,
			  kpmc_overflow_start(period, hw.width_mask[hw.sampling_index]));
		assert_false(be->mem_pending(&hw));
	}
	assert_int_equal(m.ibs_samples, n);
	be->unclaim(0x3f);

	be->remove();
	assert_int_equal(m.allocs, 0);
}

#define HW	(KPMC_MEM_F_HARDWARE | KPMC_MEM_F_EXACT)
#define LDF	(HW | KPMC_MEM_F_ADDR | KPMC_MEM_F_SOURCE)
#define S(l, s)	KPMC_MEM_SRC(KPMC_MEM_LVL_##l, KPMC_MEM_SNOOP_##s)

static void test_zen1_samples(void **state)
{
	static const struct op_case c[] = {
		/* A load that hit the DC: L1, no latency. */
		{ { 0x401000, 0x7f0000001000, 0, LD | LINADDR }, KPMC_MEM_OP_LOAD, LDF, 0, 0, S(L1, NA) },
		{ { 0x401010, 0x7f0000001008, SRC(0), LD | LINADDR | DCMISS | LAT(14) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 14, S(L2, NA) },
		{ { 0x401020, 0x7f0000001010, SRC(2), LD | LINADDR | DCMISS | LAT(40) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 40, S(L3, HIT) },
		{ { 0x401030, 0x7f0000001018, SRC(2) | MODIFIED, LD | LINADDR | DCMISS | LAT(90) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 90, S(L3, HITM) },
		{ { 0x401040, 0x7f0000001020, SRC(3), LD | LINADDR | DCMISS | LAT(200) | TLB1 },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 200, S(RAM, NA) | KPMC_MEM_SRC_TLB1_MISS },
		{ { 0x401050, 0x7f0000001028, SRC(3) | RMT, LD | LINADDR | DCMISS | LAT(350) | TLB1 | TLB2 },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 350,
		  S(REMOTE_RAM, NA) | KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS },
		{ { 0x401060, 0x7f0000001030, SRC(4), LD | LINADDR | DCMISS | LAT(300) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 300, S(REMOTE_CACHE, NA) },
		{ { 0x401070, 0xfe000000, SRC(7), LD | LINADDR | DCMISS | LAT(500) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 0, 500, S(IO, NA) },
		/* A store: address, no source, no latency (Zen 1 has no width). */
		{ { 0x401080, 0x7f0000002000, SRC(3), ST | LINADDR | DCMISS | LAT(99) | WIDTH(4) },
		  KPMC_MEM_OP_STORE, HW | KPMC_MEM_F_ADDR, 0, 0, 0 },
		/* An op that is no load or store: its IP only. */
		{ { 0x401090, 0, 0, 0 }, KPMC_MEM_OP_NONE, HW, 0, 0, 0 },
		/* A load whose address IBS did not capture. */
		{ { 0x4010a0, 0x1234, 0, LD }, KPMC_MEM_OP_LOAD, HW | KPMC_MEM_F_SOURCE, 0, 0, S(L1, NA) },
		/* Kernel code. */
		{ { 0xffffffff81000000ULL, 0xffff888000000000ULL, 0, LD | LINADDR },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_KERNEL, 0, 0, S(L1, NA) },
	};

	(void)state;
	run_ops(MODEL_ZEN1, c, ARRAY_SIZE(c));
}

static void test_zen4_samples(void **state)
{
	static const struct op_case c[] = {
		{ { 0x402000, 0x1000, SRC(1), LD | LINADDR | DCMISS | LAT(35) | WIDTH(4) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 8, 35, S(L3, NA) },
		{ { 0x402010, 0x1008, SRC(2), LD | LINADDR | DCMISS | LAT(80) | WIDTH(3) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 4, 80, S(PEER_CACHE, NA) },
		{ { 0x402020, 0x1010, SRC(3), LD | LINADDR | DCMISS | LAT(150) | WIDTH(4) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 8, 150, S(RAM, NA) },
		{ { 0x402030, 0x1018, SRC(3) | RMT, LD | LINADDR | DCMISS | LAT(250) | WIDTH(4) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 8, 250, S(REMOTE_RAM, NA) },
		{ { 0x402040, 0x1020, SRC(5), LD | LINADDR | DCMISS | LAT(220) | WIDTH(5) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 16, 220, S(REMOTE_CACHE, NA) },
		{ { 0x402050, 0x1028, SRC(6), LD | LINADDR | DCMISS | LAT(400) | WIDTH(6) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 32, 400, S(EXT_MEM, NA) },
		{ { 0x402060, 0x1030, SRC(8), LD | LINADDR | DCMISS | LAT(450) | WIDTH(7) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 64, 450, S(EXT_MEM, NA) },
		{ { 0x402070, 0x1038, SRC(7), LD | LINADDR | DCMISS | LAT(600) | WIDTH(1) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 1, 600, S(IO, NA) },
		{ { 0x402080, 0x1040, SRC(12), LD | LINADDR | DCMISS | LAT(380) | WIDTH(2) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 2, 380, S(REMOTE_RAM, NA) },
		{ { 0x402090, 0x1048, SRC(0), LD | LINADDR | DCMISS | LAT(12) | WIDTH(4) },
		  KPMC_MEM_OP_LOAD, LDF | KPMC_MEM_F_LATENCY, 8, 12, S(L2, NA) },
		/* Load and store at once (a locked RMW): both, with the load's source. */
		{ { 0x4020a0, 0x1050, 0, LD | ST | LINADDR | WIDTH(4) },
		  KPMC_MEM_OP_LOAD_STORE, LDF, 8, 0, S(L1, NA) },
		/* Width 0 or 8+: unknown size. */
		{ { 0x4020b0, 0x1058, 0, ST | LINADDR | WIDTH(9) }, KPMC_MEM_OP_STORE, HW | KPMC_MEM_F_ADDR, 0, 0, 0 },
	};

	(void)state;
	run_ops(MODEL_ZEN4, c, ARRAY_SIZE(c));
}

static void no_lvt(void)
{
	m.ibs_lvt_valid = false;
}

static void expect_refused(const char *config, int err, const char *reason)
{
	struct kpmc_hw_config hw;
	int r = configure(config, &hw);

	if (r != err)
		fail_msg("'%s': %d, expected %d (%s)", config, r, err, why);
	if (strcmp(why, reason))
		fail_msg("'%s': reason '%s', expected '%s'", config, why, reason);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_int_equal(probe(MODEL_ZEN1, NULL), 0);
	expect_refused("pmc0=0xc0,ebs0=100000,mem=1", -EINVAL,
		       "mem=1: IBS samples by cycles: the sampling counter pmc0 must count cycles (0x76), not 0xc0");
	expect_refused("pmc0=0x76,ebs0=2000000,mem=1", -EINVAL,
		       "mem=1: ebs0: IBS periods are at most 1048560 cycles here");
	expect_refused("pmc0=0x76,ebs0=1000000,rnd=50000,mem=1", -EINVAL,
		       "mem=1: ebs0: IBS periods are at most 1048560 cycles here");
	m.ibs_op_ctl = 1ULL << 17;		/* someone else's sampling */
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EBUSY,
		       "mem=1: IBS op sampling is in use (perf's ibs_op PMU?)");
	assert_int_equal(probe(MODEL_ZEN4, no_lvt), 0);
	assert_null(desc.mem_source);
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EOPNOTSUPP,
		       "mem=1: the kernel did not set up IBS's interrupt (IBS_CTL.LvtOffsetVal clear)");
	assert_int_equal(probe(MODEL_AMD_LEGACY, NULL), 0);
	expect_refused("pmc0=0x76,ebs0=100000,mem=1", -EOPNOTSUPP,
		       "mem=1: this CPU has no IBS (CPUID 8000_0001H:ECX[10])");
	be->remove();
	assert_int_equal(m.allocs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_op_ctl),
		cmocka_unit_test(test_zen1_samples),
		cmocka_unit_test(test_zen4_samples),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
