// SPDX-License-Identifier: GPL-2.0
/* Unit tests of event-name lists, mnemonics and counter assignment. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "common/eventspec.h"

static void test_lists(void **state)
{
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	char err[128];

	(void)state;
	assert_true(kpmc_config_is_raw("pmc0,pmc1=0x8"));
	assert_false(kpmc_config_is_raw("instr,cycles"));
	assert_false(kpmc_config_is_raw("pmcx"));
	assert_int_equal(kpmc_parse_event_list("instr,cycles:u,llc_misses:ebs=100000:k", ev,
					       KPMC_MAX_EVENTS, err, sizeof(err)), 3);
	assert_string_equal(ev[0].name, "instr");
	assert_int_equal(ev[0].usr, -1);
	assert_string_equal(ev[1].name, "cycles");
	assert_true(ev[1].usr == 1 && ev[1].os == 0);
	assert_string_equal(ev[2].name, "llc_misses");
	assert_true(ev[2].ebs == 100000 && ev[2].usr == 0 && ev[2].os == 1);
	/* libpfm4 strings keep their own colons. */
	assert_int_equal(kpmc_parse_event_list("cortex_a57::L1D_CACHE_REFILL:uk,INST_RETIRED:u",
					       ev, KPMC_MAX_EVENTS, err, sizeof(err)), 2);
	assert_string_equal(ev[0].name, "cortex_a57::L1D_CACHE_REFILL");
	assert_true(ev[0].usr == 1 && ev[0].os == 1);
	assert_string_equal(ev[1].name, "INST_RETIRED");
	assert_int_equal(kpmc_parse_event_list("INST_RETIRED:ANY_P:u", ev, KPMC_MAX_EVENTS, err,
					       sizeof(err)), 1);
	assert_string_equal(ev[0].name, "INST_RETIRED:ANY_P");
	assert_int_equal(kpmc_parse_event_list("instr:ebs=0", ev, KPMC_MAX_EVENTS, err, sizeof(err)), -1);
	assert_int_equal(kpmc_parse_event_list(":u", ev, KPMC_MAX_EVENTS, err, sizeof(err)), -1);
	assert_int_equal(kpmc_parse_event_list("", ev, KPMC_MAX_EVENTS, err, sizeof(err)), -1);
	assert_int_equal(kpmc_parse_event_list("a,b,c", ev, 2, err, sizeof(err)), -1);
	assert_non_null(kpmc_mnemonic_candidates("instr"));
	assert_string_equal(kpmc_mnemonic_candidates("cycles")[0], "CPU_CYCLES");
	assert_null(kpmc_mnemonic_candidates("INST_RETIRED"));
}

static void test_assignment(void **state)
{
	/* The QEMU cortex-a57: pmc0 = cycles (0x11), 6 event counters. */
	struct kpmc_counter_layout arm = { .nr_counters = 7, .nr_fixed = 1, .fixed_event = { 0x11 } };
	struct kpmc_event_spec ev[8];
	uint64_t code[8] = { 0x8, 0x11, 0x11, 0x3 };
	int slot[8];
	char err[160], out[256];

	(void)state;
	assert_int_equal(kpmc_parse_event_list("instr,cycles:u,cycles,l1d:ebs=20000", ev, 8, err,
					       sizeof(err)), 4);
	assert_int_equal(kpmc_assign_counters(&arm, code, ev, 4, slot, err, sizeof(err)), 0);
	/* The first cycles takes the fixed counter, the second a general one. */
	assert_int_equal(slot[0], 1);
	assert_int_equal(slot[1], 0);
	assert_int_equal(slot[2], 2);
	assert_int_equal(slot[3], 3);
	assert_true(kpmc_raw_config(code, ev, slot, 4, &arm, out, sizeof(out)) > 0);
	assert_string_equal(out, "pmc1=0x8,pmc0,usr0=1,os0=0,pmc2=0x11,pmc3=0x3,ebs3=20000");

	/* Too many: the reason says how many general counters there are. */
	uint64_t many[8] = { 1, 2, 3, 4, 5, 6, 7 };
	struct kpmc_event_spec evs[8];

	assert_int_equal(kpmc_parse_event_list("a,b,c,d,e,f,g", evs, 8, err, sizeof(err)), 7);
	assert_int_equal(kpmc_assign_counters(&arm, many, evs, 7, slot, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'g' does not fit: all 6 general counters are taken"));
}

/* The "pmu:" lines the x86 backends print pick libpfm4's table. */
static void test_libpfm_pmu(void **state)
{
	(void)state;
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 19h model 21h: 6 counters x 48 bits (core extension MSRs), PerfMonV2"),
			    "amd64_fam19h_zen3");
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 19h model 1h: 6 counters x 48 bits"),
			    "amd64_fam19h_zen3");
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 19h model 61h: 6 counters x 48 bits"),
			    "amd64_fam19h_zen4");
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 19h model 11h: 6 counters x 48 bits"),
			    "amd64_fam19h_zen4");
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 17h model 71h: 6 counters"),
			    "amd64_fam17h_zen2");
	assert_string_equal(kpmc_libpfm_pmu("amd", "AMD family 17h model 1h: 6 counters"),
			    "amd64_fam17h_zen1");
	assert_string_equal(kpmc_libpfm_pmu("intel", "Intel family 6h model 5eh: arch perfmon v4: 8 general x 48 bits"),
			    "skl");
	assert_string_equal(kpmc_libpfm_pmu("intel", "Intel family 6h model 55h: arch perfmon v4"), "skx");
	assert_null(kpmc_libpfm_pmu("intel", "Intel family 6h model 1h: arch perfmon v1"));
	assert_null(kpmc_libpfm_pmu("amd", "AMD family 15h model 1h"));
	assert_null(kpmc_libpfm_pmu("arm64-pmuv3", "ARM PMUv3"));
	assert_null(kpmc_libpfm_pmu("amd", "garbage"));
}

/* libpfm4's AMD event selects become the AMD backend's pmcN + modifiers. */
static void test_amd_raw_config(void **state)
{
	struct kpmc_counter_layout zen = { .nr_counters = 6, .split_modifiers = 1 };
	struct kpmc_event_spec ev[6];
	uint64_t code[6];
	int slot[6];
	char err[160], out[512];

	(void)state;
	code[0] = kpmc_x86_code(0x5100c0);		/* RETIRED_INSTRUCTIONS */
	code[1] = kpmc_x86_code(0x510129);		/* LS_DISPATCH:LD_DISPATCH */
	code[2] = kpmc_x86_code(0x100510120);		/* P0_FREQ_CYCLES_NOT_IN_HALT: 12 bits */
	code[3] = kpmc_x86_code(0x2550103);		/* RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:c=2:e */
	code[4] = kpmc_x86_code(0x1d100c0);		/* RETIRED_INSTRUCTIONS:i=1:c=1 */
	assert_int_equal(code[0], 0xc0);
	assert_int_equal(code[1], 0x1029);
	assert_int_equal(code[2], 0x1120);
	assert_int_equal(kpmc_parse_event_list("instr,ld,p0,flops:u,cmp:ebs=50000", ev, 6, err,
					       sizeof(err)), 5);
	assert_int_equal(kpmc_assign_counters(&zen, code, ev, 5, slot, err, sizeof(err)), 0);
	assert_true(kpmc_raw_config(code, ev, slot, 5, &zen, out, sizeof(out)) > 0);
	assert_string_equal(out, "pmc0=0xc0,pmc1=0x29,umask1=0x1,pmc2=0x120,umask2=0x1,"
			    "pmc3=0x3,umask3=0x1,cmask3=2,edge3=1,usr3=1,os3=0,"
			    "pmc4=0xc0,cmask4=1,inv4=1,ebs4=50000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_assignment),
		cmocka_unit_test(test_libpfm_pmu),
		cmocka_unit_test(test_amd_raw_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
