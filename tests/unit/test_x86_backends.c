// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel and AMD backends, unchanged, against the MSR model: detection,
 * the exact MSR values each configuration writes, counting across simulated
 * context switches and wrap-around, event-based sampling overflow at exactly
 * the period, and the configurations they must refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"
#include "kpmc/counter.h"
#include "kpmc/sampling.h"

extern const struct kpmc_backend kpmc_intel_backend;
extern const struct kpmc_backend kpmc_amd_backend;

static struct kpmc_pmu_desc desc;
static const struct kpmc_backend *be;
static char why[KPMC_ERR_MAX];

static int use(enum model_kind kind, const struct kpmc_backend *b)
{
	model_init(kind);
	memset(&desc, 0, sizeof(desc));
	be = b;
	why[0] = '\0';
	return b->probe(&desc, why, sizeof(why));
}

/* Parse and encode s for the probed PMU; 0 or the error, reason in why. */
static int configure(const char *s, struct kpmc_hw_config *hw)
{
	struct kpmc_config c;
	int r = kpmc_config_parse(s, strlen(s), &desc, &c, why, sizeof(why));

	return r ? r : be->encode(&c, hw, why, sizeof(why));
}

static void load_zero(const struct kpmc_hw_config *hw)
{
	u64 start[KPMC_MAX_COUNTERS] = { 0 };

	be->load(hw, start);
}

static void test_detection(void **state)
{
	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	assert_string_equal(desc.model,
			    "Intel family 6h model 5eh: arch perfmon v4: 8 general x 48 bits, 3 fixed x 48 bits, full-width writes");
	assert_int_equal(desc.nr_fixed, 3);
	assert_int_equal(desc.nr_counters, 11);
	assert_int_equal(desc.width[0], 48);
	assert_int_equal(desc.width[10], 48);

	assert_int_equal(use(MODEL_INTEL_V1, &kpmc_intel_backend), 0);
	assert_int_equal(desc.nr_fixed, 0);
	assert_int_equal(desc.nr_counters, 2);
	assert_int_equal(desc.width[0], 40);

	assert_int_equal(use(MODEL_INTEL_NOPMU, &kpmc_intel_backend), -ENODEV);
	assert_string_equal(why,
			    "no architectural PMU: CPUID.0AH reports version 0 (running under a hypervisor without vPMU?)");
	assert_int_equal(use(MODEL_INTEL_NOPMU, &kpmc_amd_backend), -ENODEV);
	assert_string_equal(why, "not an AMD CPU");

	assert_int_equal(use(MODEL_ZEN4, &kpmc_amd_backend), 0);
	assert_string_equal(desc.model,
			    "AMD family 19h model 0h: 6 counters x 48 bits (core extension MSRs), PerfMonV2");
	assert_int_equal(desc.nr_fixed, 0);
	assert_int_equal(desc.nr_counters, 6);
	assert_int_equal(use(MODEL_ZEN1, &kpmc_amd_backend), 0);
	assert_string_equal(desc.model, "AMD family 17h model 0h: 6 counters x 48 bits (core extension MSRs)");
	assert_int_equal(use(MODEL_AMD_LEGACY, &kpmc_amd_backend), 0);
	assert_int_equal(desc.nr_counters, 4);
	assert_int_equal(use(MODEL_ZEN4, &kpmc_intel_backend), -ENODEV);
	assert_string_equal(why, "not an Intel CPU");
}

struct msr_case {
	const char *config;
	u64 sel[8];		/* IA32_PERFEVTSELx / PERF_CTLx after load */
	u64 fixed_ctrl;
	u64 global_ctrl;
};

static const struct msr_case intel_cases[] = {
	{ "pmc0", { 0 }, 0x2, 1ULL << 32 },
	{ "pmc0,os0=1", { 0 }, 0x3, 1ULL << 32 },
	{ "pmc0,usr0=0,os0=1", { 0 }, 0x1, 1ULL << 32 },
	{ "pmc1", { 0 }, 0x20, 1ULL << 33 },
	{ "pmc2,usr2=0,os2=1", { 0 }, 0x100, 1ULL << 34 },
	{ "pmc0,pmc1,pmc2", { 0 }, 0x222, 7ULL << 32 },
	{ "pmc0,any0=1", { 0 }, 0x6, 1ULL << 32 },
	{ "pmc0,ebs0=1000000", { 0 }, 0xa, 1ULL << 32 },
	{ "pmc3=0x2e,umask3=0x41,os3=1", { 0x43412e }, 0, 1 },
	{ "pmc3=0x412e,os3=1", { 0x43412e }, 0, 1 },
	{ "pmc3=0xc4", { 0x4100c4 }, 0, 1 },
	{ "pmc4=0xc5,usr4=0,os4=1", { 0, 0x4200c5 }, 0, 2 },
	{ "pmc10=0x3c", { 0, 0, 0, 0, 0, 0, 0, 0x41003c }, 0, 0x80 },
	{ "pmc3=0xa3,umask3=0x14,cmask3=20", { 0x144114a3 }, 0, 1 },
	{ "pmc3=0xc2,umask3=0x02,inv3=1,cmask3=1", { 0x1c102c2 }, 0, 1 },
	{ "pmc3=0xc2,umask3=0x02,edge3=1,cmask3=1", { 0x14502c2 }, 0, 1 },
	{ "pmc3=0x3c,any3=1", { 0x61003c }, 0, 1 },
	{ "pmc3=0x3c,ebs3=100000", { 0x51003c }, 0, 1 },
	{ "pmc1,pmc3=0x2e,umask3=0x4f,pmc4=0x2e,umask4=0x41", { 0x414f2e, 0x41412e }, 0x20,
	  (1ULL << 33) | 3 },
	{ "pmc3=0xd1,umask3=0x20,usr3=1,os3=1", { 0x4320d1 }, 0, 1 },
	{ "pmc3=0x0e,umask3=0x01,cmask3=1,inv3=1,edge3=1", { 0x1c5010e }, 0, 1 },
	{ "pmc0,pmc1,pmc3=0xc0,pmc4=0x3c,pmc5=0x2e,umask5=0x4f", { 0x4100c0, 0x41003c, 0x414f2e },
	  0x22, (3ULL << 32) | 7 },
};

static const struct msr_case amd_cases[] = {
	{ "pmc0=0x76", { 0x410076 }, 0, 1 },
	{ "pmc0=0xc0,os0=1", { 0x4300c0 }, 0, 1 },
	{ "pmc0=0xc0,usr0=0,os0=1", { 0x4200c0 }, 0, 1 },
	{ "pmc1=0x1c0", { 0, 0x1004100c0 }, 0, 2 },
	{ "pmc0=0xfff", { 0xf004100ff }, 0, 1 },
	{ "pmc2=0x43,umask2=0x3f", { 0, 0, 0x413f43 }, 0, 4 },
	{ "pmc3=0x60,umask3=0xff,cmask3=4", { 0, 0, 0, 0x441ff60 }, 0, 8 },
	{ "pmc0=0xc2,edge0=1", { 0x4500c2 }, 0, 1 },
	{ "pmc0=0xc2,inv0=1,cmask0=1", { 0x1c100c2 }, 0, 1 },
	{ "pmc5=0xc2,usr5=0,os5=1", { 0, 0, 0, 0, 0, 0x4200c2 }, 0, 0x20 },
	{ "pmc0=0x76,ebs0=100000", { 0x510076 }, 0, 1 },
	{ "pmc4=0xc0,ebs4=1000000,os4=1", { 0, 0, 0, 0, 0x5300c0 }, 0, 0x10 },
	{ "pmc0=0x29,umask0=0x07", { 0x410729 }, 0, 1 },
	{ "pmc1=0x64,umask1=0x09", { 0, 0x410964 }, 0, 2 },
	{ "pmc0=0x76,pmc1=0xc0", { 0x410076, 0x4100c0 }, 0, 3 },
	{ "pmc0=0x76,pmc1=0xc0,pmc2=0xc2,pmc3=0xc3,pmc4=0x29,umask4=0x07,pmc5=0x64,umask5=0x09",
	  { 0x410076, 0x4100c0, 0x4100c2, 0x4100c3, 0x410729, 0x410964 }, 0, 0x3f },
	{ "pmc0=0x4a9,umask0=0x08", { 0x4004108a9 }, 0, 1 },
	{ "pmc2=0x1cf,umask2=0x7f,usr2=1,os2=1", { 0, 0, 0x100437fcf }, 0, 4 },
	{ "pmc0=0x03,cmask0=255", { 0xff410003 }, 0, 1 },
	{ "pmc1=0xc1,edge1=1,inv1=1,cmask1=2", { 0, 0x2c500c1 }, 0, 2 },
	{ "pmc3=0x87,umask3=0x01", { 0, 0, 0, 0x410187 }, 0, 8 },
};

static void check_cases(enum model_kind kind, const struct kpmc_backend *b,
			const struct msr_case *cases, size_t n)
{
	struct kpmc_hw_config hw;
	size_t i, j;

	for (i = 0; i < n; i++) {
		assert_int_equal(use(kind, b), 0);
		assert_int_equal(be->claim(0xffff, why, sizeof(why)), 0);
		if (configure(cases[i].config, &hw))
			fail_msg("'%s' refused: %s", cases[i].config, why);
		load_zero(&hw);
		for (j = 0; j < m.nr_gp && j < 8; j++)
			if (m.sel[j] != cases[i].sel[j])
				fail_msg("'%s': select %zu is 0x%llx, expected 0x%llx", cases[i].config, j,
					 (unsigned long long)m.sel[j],
					 (unsigned long long)cases[i].sel[j]);
		if (m.fixed_ctrl != cases[i].fixed_ctrl)
			fail_msg("'%s': FIXED_CTR_CTRL 0x%llx, expected 0x%llx", cases[i].config,
				 (unsigned long long)m.fixed_ctrl,
				 (unsigned long long)cases[i].fixed_ctrl);
		if (m.global_ctrl != cases[i].global_ctrl)
			fail_msg("'%s': global control 0x%llx, expected 0x%llx", cases[i].config,
				 (unsigned long long)m.global_ctrl,
				 (unsigned long long)cases[i].global_ctrl);
		be->stop(&hw);
		assert_true(m.global_ctrl == 0);
		be->unclaim(0xffff);
	}
}

static void test_intel_msr_values(void **state)
{
	(void)state;
	assert_true(sizeof(intel_cases) / sizeof(intel_cases[0]) >= 20);
	check_cases(MODEL_SKYLAKE, &kpmc_intel_backend, intel_cases,
		    sizeof(intel_cases) / sizeof(intel_cases[0]));
}

static void test_amd_msr_values(void **state)
{
	(void)state;
	assert_true(sizeof(amd_cases) / sizeof(amd_cases[0]) >= 20);
	check_cases(MODEL_ZEN4, &kpmc_amd_backend, amd_cases,
		    sizeof(amd_cases) / sizeof(amd_cases[0]));
}

/* Two threads with different configurations take turns on one CPU. */
static void test_intel_context_switches(void **state)
{
	struct kpmc_hw_config a, b;
	u64 raw[KPMC_MAX_COUNTERS], saved[KPMC_MAX_COUNTERS];

	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0,pmc3=0x2e,umask3=0x41", &a), 0);
	assert_int_equal(configure("pmc3=0xc4", &b), 0);

	load_zero(&a);
	model_inject(0xc0, 0, true, 100);
	model_inject(0x2e, 0x41, true, 7);
	model_inject(0x2e, 0x41, false, 5);	/* kernel mode: not counted */
	be->read(&a, raw);
	assert_true(raw[0] == 100 && raw[1] == 7);
	memcpy(saved, raw, sizeof(saved));
	be->stop(&a);
	model_inject(0xc0, 0, true, 1000);	/* stopped: nobody counts */

	load_zero(&b);
	model_inject(0xc0, 0, true, 100);	/* b does not count the fixed counter */
	model_inject(0xc4, 0, true, 50);
	model_inject(0x2e, 0x41, true, 3);	/* counter 0 now counts 0xc4 */
	be->read(&b, raw);
	assert_true(raw[0] == 50);
	be->stop(&b);

	be->load(&a, saved);
	model_inject(0xc0, 0, true, 1);
	model_inject(0x2e, 0x41, true, 2);
	be->read(&a, raw);
	assert_true(raw[0] == 101 && raw[1] == 9);
	be->unclaim(0x7ff);
}

/* Counting continues across the counter width; the core's delta is exact. */
static void test_wrap(void **state)
{
	const enum model_kind kinds[] = { MODEL_SKYLAKE, MODEL_INTEL_LEGACY_WRITES, MODEL_ZEN4,
					  MODEL_AMD_LEGACY };
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS], raw[KPMC_MAX_COUNTERS];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		bool intel = kinds[k] != MODEL_ZEN4 && kinds[k] != MODEL_AMD_LEGACY;

		assert_int_equal(use(kinds[k], intel ? &kpmc_intel_backend : &kpmc_amd_backend), 0);
		assert_int_equal(be->claim(0xff, why, sizeof(why)), 0);
		assert_int_equal(configure(intel ? "pmc0,pmc3=0xc0" : "pmc0=0xc0", &hw), 0);
		start[0] = hw.width_mask[0] - 9;
		start[1] = hw.width_mask[1] - 9;
		be->load(&hw, start);
		model_inject(0xc0, 0, true, 25);
		be->read(&hw, raw);
		assert_true(raw[0] == 15);
		assert_true(kpmc_counter_delta(raw[0], start[0], hw.width_mask[0]) == 25);
		if (intel) {
			assert_true(raw[1] == 15);
			/* Overflow status set, no PMI: no INT bit. */
			assert_true(m.global_status == ((1ULL << 32) | 1));
			assert_int_equal(m.pmis, 0);
		}
		be->unclaim(0xff);
	}
}

/* EBS: the PMI comes at exactly the period, and the overflow is acknowledged. */
static void test_ebs_overflow_exact(void **state)
{
	static const struct {
		enum model_kind kind;
		const char *config;
		unsigned int event;
	} cases[] = {
		{ MODEL_SKYLAKE, "pmc3=0xc0,ebs3=10000", 0xc0 },
		{ MODEL_SKYLAKE, "pmc0,ebs0=123457", 0xc0 },
		{ MODEL_INTEL_LEGACY_WRITES, "pmc4=0x3c,ebs4=100000", 0x3c },
		{ MODEL_ZEN4, "pmc2=0x76,ebs2=10000", 0x76 },
		{ MODEL_ZEN1, "pmc5=0xc0,ebs5=50000", 0xc0 },
	};
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0 }, raw[KPMC_MAX_COUNTERS];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		bool intel = cases[k].kind != MODEL_ZEN4 && cases[k].kind != MODEL_ZEN1;
		struct kpmc_config c;
		u64 p;

		assert_int_equal(use(cases[k].kind, intel ? &kpmc_intel_backend : &kpmc_amd_backend), 0);
		assert_int_equal(be->claim(0xfff, why, sizeof(why)), 0);
		assert_int_equal(kpmc_config_parse(cases[k].config, strlen(cases[k].config), &desc,
						   &c, why, sizeof(why)), 0);
		assert_int_equal(be->encode(&c, &hw, why, sizeof(why)), 0);
		assert_true(hw.sampling);
		p = c.ebs_period;
		start[hw.sampling_index] = kpmc_overflow_start(p, hw.width_mask[hw.sampling_index]);
		be->load(&hw, start);
		model_inject(cases[k].event, 0, true, p - 1);
		if (m.pmis)
			fail_msg("'%s': PMI after %llu events", cases[k].config,
				 (unsigned long long)(p - 1));
		model_inject(cases[k].event, 0, true, 1);
		assert_int_equal(m.pmis, 1);
		assert_int_equal(m.overflows, 1);
		assert_true(m.global_status == 0);	/* acknowledged by the handler */
		be->read(&hw, raw);
		assert_true(raw[hw.sampling_index] == 0);
		/* Re-armed by the core: the next period is exact too. */
		be->write(&hw, hw.sampling_index,
			  kpmc_overflow_start(p, hw.width_mask[hw.sampling_index]));
		model_inject(cases[k].event, 0, true, p);
		assert_int_equal(m.overflows, 2);
		be->unclaim(0xfff);
	}
}

static void expect_refused(const char *config, const char *reason)
{
	struct kpmc_hw_config hw;

	if (!configure(config, &hw))
		fail_msg("'%s' accepted", config);
	if (!strstr(why, reason))
		fail_msg("'%s': reason '%s' lacks '%s'", config, why, reason);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	expect_refused("pmc11=0x3c", "counter out of range (this PMU has pmc0-pmc10)");
	expect_refused("pmc0=0x3c", "pmc0 is the fixed instructions counter");
	expect_refused("pmc1=0xc0", "pmc1 is the fixed cycles counter");
	expect_refused("pmc0,umask0=1", "pmc0 is a fixed counter: no umask");
	expect_refused("pmc2,cmask2=1", "pmc2 is a fixed counter");
	expect_refused("pmc3=0x412e,umask3=0x41", "umask given twice");
	expect_refused("pmc3=0x10000", "Intel events are 0xEV or 0xUMEV");
	expect_refused("pmc3=0x2e,umask3=0x100", "umask wants a number from 0 to 255");
	expect_refused("pmc3=0xc0,ebs3=9999", "at least 10000");
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	m.arch_unavailable = 1u << 4;
	assert_int_equal(kpmc_intel_backend.probe(&desc, why, sizeof(why)), 0);
	expect_refused("pmc3=0x2e,umask3=0x41", "LLC misses (0x2e/0x41) is not available");
	expect_refused("pmc3=0x412e", "CPUID.0AH:EBX bit 4");

	assert_int_equal(use(MODEL_INTEL_V5, &kpmc_intel_backend), 0);
	expect_refused("pmc3=0x3c,any3=1", "AnyThread");
	assert_int_equal(use(MODEL_INTEL_V1, &kpmc_intel_backend), 0);
	expect_refused("pmc0=0xc0,ebs0=100000", "version 1 has no overflow status");
	expect_refused("pmc2=0xc0", "counter out of range");

	assert_int_equal(use(MODEL_ZEN4, &kpmc_amd_backend), 0);
	expect_refused("pmc0=0x1000", "AMD events have 12 bits");
	expect_refused("pmc0=0x76,any0=1", "this PMU has no any modifier");
	expect_refused("pmc6=0x76", "counter out of range (this PMU has pmc0-pmc5)");
	assert_int_equal(use(MODEL_AMD_LEGACY, &kpmc_amd_backend), 0);
	expect_refused("pmc4=0x76", "counter out of range (this PMU has pmc0-pmc3)");
}

/*
 * Intel masks the APIC's PMU entry when it delivers a PMI; the
 * handler re-arms it, so every overflow of a sampling run interrupts.
 */
static void test_pmi_rearmed(void **state)
{
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0 };
	unsigned int k;

	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	assert_int_equal(be->claim(0xfff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc3=0xc0,ebs3=10000", &hw), 0);
	for (k = 1; k <= 5; k++) {
		start[hw.sampling_index] = kpmc_overflow_start(10000, hw.width_mask[hw.sampling_index]);
		be->load(&hw, start);
		model_inject(0xc0, 0, true, 10000);
		assert_int_equal(m.pmis, k);
		assert_int_equal(m.overflows, k);
	}
	assert_int_equal(m.pmis_masked, 0);
	assert_false(m.lvtpc_masked);
	be->unclaim(0xfff);
}

/*
 * Without full-width writes, a sampling period above 2^31 - 1
 * would start wrong (32-bit write, sign-extended); it is refused, and the
 * longest one allowed overflows after exactly its period.
 */
static void test_legacy_write_max_period(void **state)
{
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0 };
	u64 p = 0x7fffffffULL;

	(void)state;
	assert_int_equal(use(MODEL_INTEL_LEGACY_WRITES, &kpmc_intel_backend), 0);
	expect_refused("pmc4=0x3c,ebs4=2147483648", "a period is at most 2147483647");
	expect_refused("pmc0,ebs0=3000000000", "32-bit writes");
	expect_refused("pmc4=0x3c,ebs4=2147000000,rnd=1000000", "with rnd");
	assert_int_equal(be->claim(0xfff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc4=0x3c,ebs4=2147483647", &hw), 0);
	start[hw.sampling_index] = kpmc_overflow_start(p, hw.width_mask[hw.sampling_index]);
	be->load(&hw, start);
	model_inject(0x3c, 0, true, p - 1);
	assert_int_equal(m.pmis, 0);
	model_inject(0x3c, 0, true, 1);
	assert_int_equal(m.pmis, 1);
	be->unclaim(0xfff);

	/* Full-width writes: any period up to the counter's width. */
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	assert_int_equal(configure("pmc4=0x3c,ebs4=3000000000", &hw), 0);
}

/* v1: no fixed counters and no global control MSRs (the model #GPs on them). */
static void test_intel_v1(void **state)
{
	struct kpmc_hw_config hw;
	u64 raw[KPMC_MAX_COUNTERS];

	(void)state;
	assert_int_equal(use(MODEL_INTEL_V1, &kpmc_intel_backend), 0);
	assert_int_equal(be->claim(0x3, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0=0xc0,pmc1=0x3c,os1=1", &hw), 0);
	load_zero(&hw);
	assert_true(m.sel[0] == 0x4100c0 && m.sel[1] == 0x43003c);
	model_inject(0xc0, 0, true, 10);
	model_inject(0x3c, 0, false, 4);
	be->stop(&hw);
	assert_true(!(m.sel[0] & X86_EVTSEL_EN));
	model_inject(0xc0, 0, true, 10);
	be->read(&hw, raw);
	assert_true(raw[0] == 10 && raw[1] == 4);
	be->start(&hw);
	model_inject(0xc0, 0, true, 1);
	be->read(&hw, raw);
	assert_true(raw[0] == 11);
	be->unclaim(0x3);
}

/* perf (or the NMI watchdog) holds the counters: kpmc says so and takes nothing. */
static void test_perf_holds_pmu(void **state)
{
	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	m.perf_holds_pmu = true;
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "reserved by the kernel's perf or the NMI watchdog"));
	assert_null(m.pmi);
	assert_int_equal(m.writes, 0);
}

/* ---- hybrid parts (Alder Lake: CPUs 0-1 P-cores, 2-3 E-cores) ---- */

/* The ADL model, with the architectural events each type lacks (CPUID.0AH:EBX). */
static int use_adl(u32 p_unavailable, u32 e_unavailable)
{
	unsigned int cpu;

	model_init(MODEL_ADL);
	for (cpu = 0; cpu < MODEL_CPUS; cpu++)
		m.bank[cpu].arch_unavailable = cpu < 2 ? p_unavailable : e_unavailable;
	m.arch_unavailable = p_unavailable;
	memset(&desc, 0, sizeof(desc));
	be = &kpmc_intel_backend;
	why[0] = '\0';
	return be->probe(&desc, why, sizeof(why));
}

static void test_hybrid_detection(void **state)
{
	(void)state;
	assert_int_equal(use(MODEL_SKYLAKE, &kpmc_intel_backend), 0);
	assert_int_equal(desc.nr_core_types, 0);

	assert_int_equal(use_adl(0, 0), 0);
	assert_string_equal(desc.model,
			    "Intel family 6h model 97h: arch perfmon v5: 8 general x 48 bits, 3 fixed x 48 bits, full-width writes, hybrid");
	/* The union: pmc0-2 fixed, pmc3-pmc10 the P-cores' 8 general counters. */
	assert_int_equal(desc.nr_fixed, 3);
	assert_int_equal(desc.nr_counters, 11);
	assert_int_equal(desc.width[10], 48);
	assert_int_equal(desc.nr_core_types, 2);
	assert_string_equal(desc.core_type[0].name, "P-core (0x40)");
	assert_string_equal(desc.core_type[0].cpus, "0-1");
	assert_int_equal(desc.core_type[0].counters, 0x7ff);
	assert_string_equal(desc.core_type[0].detail, "v5: 8 general x 48 bits, 3 fixed x 48 bits");
	assert_string_equal(desc.core_type[1].name, "E-core (0x20)");
	assert_string_equal(desc.core_type[1].cpus, "2-3");
	assert_int_equal(desc.core_type[1].counters, 0x1ff);
	assert_string_equal(desc.core_type[1].detail, "v5: 6 general x 48 bits, 3 fixed x 48 bits");

	/* Probed from an E-core: the same answer (CPUID.0AH is read on a CPU of each type). */
	model_init(MODEL_ADL);
	model_cpu(3);
	memset(&desc, 0, sizeof(desc));
	assert_int_equal(be->probe(&desc, why, sizeof(why)), 0);
	assert_int_equal(desc.nr_counters, 11);
	assert_string_equal(desc.core_type[0].name, "P-core (0x40)");
	assert_string_equal(desc.core_type[0].detail, "v5: 8 general x 48 bits, 3 fixed x 48 bits");
	assert_string_equal(desc.core_type[1].detail, "v5: 6 general x 48 bits, 3 fixed x 48 bits");
}

/* The GP selects and GLOBAL_CTRL that loading hw writes on cpu. */
static void load_on(unsigned int cpu, const struct kpmc_hw_config *hw)
{
	model_cpu(cpu);
	load_zero(hw);
}

static void test_hybrid_encode(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	assert_int_equal(use_adl(0, 0), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	/* Valid on both types: the same registers on both. */
	assert_int_equal(configure("pmc0,pmc3=0xc4,pmc8=0x2e,umask8=0x41", &hw), 0);
	assert_string_equal(why, "");
	load_on(0, &hw);
	assert_true(m.sel[0] == 0x4100c4 && m.sel[5] == 0x41412e);
	assert_true(m.global_ctrl == ((1ULL << 32) | 0x21));
	assert_int_equal(be->uncounted(&hw), 0);
	load_on(2, &hw);
	assert_true(m.sel[0] == 0x4100c4 && m.sel[5] == 0x41412e);
	assert_true(m.global_ctrl == ((1ULL << 32) | 0x21));
	assert_int_equal(be->uncounted(&hw), 0);
	be->release(&hw);

	/* pmc9, pmc10: P-core counters. Counted there, left alone on E-cores. */
	assert_int_equal(configure("pmc1,pmc9=0x2e,umask9=0x41,pmc10=0xc5", &hw), 0);
	assert_string_equal(why, "pmc9 is not counted on E-core (0x20): 6 general counters (pmc3-pmc8)");
	load_on(1, &hw);
	assert_true(m.sel[6] == 0x41412e && m.sel[7] == 0x4100c5);
	assert_true(m.global_ctrl == ((1ULL << 33) | 0xc0));
	assert_int_equal(be->uncounted(&hw), 0);
	/* On an E-core PERFEVTSEL6/7 do not exist (the model fails on #GP). */
	load_on(2, &hw);
	assert_true(m.global_ctrl == 1ULL << 33);
	assert_int_equal(be->uncounted(&hw), (1u << 9) | (1u << 10));
	be->release(&hw);

	/* An architectural event one type lacks: counted on the other. */
	assert_int_equal(use_adl(0, 1u << 6), 0);
	assert_int_equal(configure("pmc3=0xc5,pmc4=0xc4", &hw), 0);
	assert_string_equal(why,
			    "pmc3 is not counted on E-core (0x20): architectural event branch mispredicts retired (0xc5/0x00) is not available on this CPU (CPUID.0AH:EBX bit 6)");
	load_on(3, &hw);
	assert_true(m.sel[0] == 0 && m.sel[1] == 0x4100c4 && m.global_ctrl == 2);
	assert_int_equal(be->uncounted(&hw), 1u << 3);
	load_on(0, &hw);
	assert_true(m.sel[0] == 0x4100c5 && m.global_ctrl == 3);
	be->release(&hw);

	/* Invalid on every type: refused, naming them. */
	assert_int_equal(use_adl(1u << 6, 1u << 6), 0);
	expect_refused("pmc3=0xc5",
		       "P-core (0x40), E-core (0x20): architectural event branch mispredicts retired");
	/* Each counter valid on one type: accepted, each counted where it can be. */
	assert_int_equal(use_adl(1u << 5, 1u << 6), 0);
	assert_int_equal(configure("pmc3=0xc5,pmc4=0xc4", &hw), 0);
	load_on(0, &hw);
	assert_true(m.global_ctrl == 1 && be->uncounted(&hw) == 1u << 4);
	load_on(2, &hw);
	assert_true(m.global_ctrl == 2 && be->uncounted(&hw) == 1u << 3);
	be->release(&hw);
	assert_int_equal(use_adl(1u << 6, 1u << 6), 0);
	expect_refused("pmc11=0xc4", "pmc11");
	assert_int_equal(m.allocs, 0);
}

/*
 * CPU hotplug on a hybrid part: an E-core offline at probe is taken as a
 * P-core until it comes online; cpu_came_online() reads its core type, so no
 * P-core-only MSR (PERFEVTSEL6/7) is ever written on it.
 */
static void test_hybrid_cpu_online(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	model_init(MODEL_ADL);
	m.offline = 1u << 3;
	memset(&desc, 0, sizeof(desc));
	be = &kpmc_intel_backend;
	assert_int_equal(be->probe(&desc, why, sizeof(why)), 0);
	assert_string_equal(desc.core_type[0].cpus, "0-1,3");
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc1,pmc9=0x2e,umask9=0x41,pmc10=0xc5", &hw), 0);
	/* CPU 3 comes online: the core calls cpu_came_online there before it runs threads. */
	m.offline = 0;
	model_cpu(3);
	assert_int_equal(be->cpu_came_online(3), 0);
	m.sel[6] = m.sel[7] = 0;
	load_zero(&hw);
	assert_true(m.global_ctrl == 1ULL << 33);
	assert_true(m.sel[6] == 0 && m.sel[7] == 0);
	assert_int_equal(be->uncounted(&hw), (1u << 9) | (1u << 10));
	assert_string_equal(m.note, "");
	/* A P-core is still counted in full. */
	load_on(1, &hw);
	assert_true(m.sel[6] == 0x41412e && m.sel[7] == 0x4100c5);
	assert_int_equal(be->uncounted(&hw), 0);
	be->release(&hw);
	be->unclaim(0x7ff);

	/* A core type that no CPU had at probe: the smaller type's view, and a note. */
	model_init(MODEL_ADL);
	m.core_type[3] = 0x30;
	m.offline = 1u << 3;
	memset(&desc, 0, sizeof(desc));
	assert_int_equal(be->probe(&desc, why, sizeof(why)), 0);
	m.offline = 0;
	model_cpu(3);
	assert_int_equal(be->cpu_came_online(3), 0);
	assert_string_equal(m.note,
			    "CPU 3 has core type 0x30, which no CPU had at load: kpmc counts nothing there (reload kpmc with it online)");
	/* Nothing is programmed there; what the thread counted reads back, uncounted. */
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc1,pmc3=0xc4", &hw), 0);
	memset(m.sel, 0, sizeof(m.sel));
	m.writes = 0;
	{
		u64 start[KPMC_MAX_COUNTERS] = { 5, 7 }, raw[KPMC_MAX_COUNTERS];

		be->load(&hw, start);
		be->start(&hw);
		be->read(&hw, raw);
		assert_true(raw[0] == 5 && raw[1] == 7);
	}
	assert_true(m.sel[0] == 0 && m.global_ctrl == 0);
	assert_int_equal(be->uncounted(&hw), (1u << 1) | (1u << 3));
	be->release(&hw);
	be->unclaim(0x7ff);

	/* Only P-cores online at load: one type known, an E-core is new at online. */
	model_init(MODEL_ADL);
	m.offline = (1u << 2) | (1u << 3);
	memset(&desc, 0, sizeof(desc));
	assert_int_equal(be->probe(&desc, why, sizeof(why)), 0);
	m.offline = 0;
	model_cpu(2);
	m.note[0] = '\0';
	assert_int_equal(be->cpu_came_online(2), 0);
	assert_string_equal(m.note,
			    "CPU 2 has core type 0x20, which no CPU had at load: kpmc counts nothing there (reload kpmc with it online)");
}

/* A minimal core: what kernel/thread.c does at switch-in, fold and record. */
struct sim_thread {
	u64 acc[KPMC_MAX_COUNTERS], last_raw[MODEL_CPUS][KPMC_MAX_COUNTERS];
	u32 uncounted;
};

static void sim_in(struct sim_thread *t, const struct kpmc_hw_config *hw, unsigned int cpu)
{
	u64 start[KPMC_MAX_COUNTERS];
	unsigned int i;

	model_cpu(cpu);
	/* Start near the top: wrap-around is part of the test. */
	for (i = 0; i < hw->nr; i++)
		start[i] = hw->width_mask[i] - 3;
	be->load(hw, start);
	memcpy(t->last_raw[cpu], start, sizeof(start));
}

static void sim_out(struct sim_thread *t, const struct kpmc_hw_config *hw)
{
	u64 raw[KPMC_MAX_COUNTERS];
	unsigned int i;

	be->read(hw, raw);
	t->uncounted |= be->uncounted(hw);
	for (i = 0; i < hw->nr; i++) {
		t->acc[i] += kpmc_counter_delta(raw[i], t->last_raw[m.cpu][i], hw->width_mask[i]);
		t->last_raw[m.cpu][i] = raw[i];
	}
	be->stop(hw);
}

/* What the thread does while on a CPU: the same work wherever it runs. */
static void sim_work(u64 k)
{
	model_inject(0xc0, 0, true, 1000 * k);		/* instructions: fixed 0 */
	model_inject(0xc4, 0, true, 100 * k);		/* branches: pmc3 */
	model_inject(0x2e, 0x41, true, 10 * k);		/* LLC misses: pmc9, P-cores only */
}

static void test_hybrid_migration(void **state)
{
	struct kpmc_hw_config hw;
	struct sim_thread t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(use_adl(0, 0), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0,pmc3=0xc4,pmc9=0x2e,umask9=0x41", &hw), 0);

	/* On a P-core: all three count. A record now reports nothing uncounted. */
	sim_in(&t, &hw, 0);
	sim_work(1);
	sim_out(&t, &hw);
	assert_true(t.acc[0] == 1000 && t.acc[1] == 100 && t.acc[2] == 10);
	assert_int_equal(t.uncounted, 0);

	/* Migrates to an E-core: pmc9 does not count there, the others do. */
	sim_in(&t, &hw, 2);
	sim_work(2);
	sim_out(&t, &hw);
	assert_true(t.acc[0] == 3000 && t.acc[1] == 300 && t.acc[2] == 10);
	assert_int_equal(t.uncounted, 1u << 9);

	/* Again on that E-core, restarted as the core does (no load): still nothing. */
	model_cpu(2);
	be->start(&hw);
	sim_work(4);
	sim_out(&t, &hw);
	assert_true(t.acc[0] == 7000 && t.acc[1] == 700 && t.acc[2] == 10);
	/* A write to the absent counter (EBS re-arm) reads back, still no delta. */
	be->write(&hw, 2, 12345);
	t.last_raw[2][2] = 12345;
	be->start(&hw);
	sim_work(1);
	sim_out(&t, &hw);
	assert_true(t.acc[2] == 10);

	/* Back to the other P-core: pmc9 counts again. */
	t.uncounted = 0;			/* a record was taken */
	sim_in(&t, &hw, 1);
	sim_work(3);
	sim_out(&t, &hw);
	assert_true(t.acc[0] == 11000 && t.acc[1] == 1100 && t.acc[2] == 40);
	assert_int_equal(t.uncounted, 0);

	/* The E-cores' own PMUs were never touched beyond their 6 counters. */
	model_cpu(2);
	assert_true(m.sel[6] == 0 && m.sel[7] == 0);
	be->release(&hw);
	assert_int_equal(m.allocs, 0);
	be->unclaim(0x7ff);
}

/* EBS on a P-core-only counter: overflows at exactly the period there, never on E. */
static void test_hybrid_ebs(void **state)
{
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0 };

	(void)state;
	assert_int_equal(use_adl(0, 0), 0);
	assert_int_equal(be->claim(0x7ff, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc10=0xc4,ebs10=100000", &hw), 0);
	start[0] = kpmc_overflow_start(100000, hw.width_mask[0]);
	model_cpu(2);
	be->load(&hw, start);
	model_inject(0xc4, 0, true, 200000);
	assert_int_equal(m.pmis, 0);
	model_cpu(0);
	be->load(&hw, start);
	model_inject(0xc4, 0, true, 99999);
	assert_int_equal(m.pmis, 0);
	model_inject(0xc4, 0, true, 1);
	assert_int_equal(m.pmis, 1);
	assert_int_equal(m.overflows, 1);
	assert_true(m.global_status == 0);
	be->release(&hw);
	be->unclaim(0x7ff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_intel_msr_values),
		cmocka_unit_test(test_amd_msr_values),
		cmocka_unit_test(test_intel_context_switches),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_ebs_overflow_exact),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_legacy_write_max_period),
		cmocka_unit_test(test_pmi_rearmed),
		cmocka_unit_test(test_intel_v1),
		cmocka_unit_test(test_perf_holds_pmu),
		cmocka_unit_test(test_hybrid_detection),
		cmocka_unit_test(test_hybrid_encode),
		cmocka_unit_test(test_hybrid_cpu_online),
		cmocka_unit_test(test_hybrid_migration),
		cmocka_unit_test(test_hybrid_ebs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
