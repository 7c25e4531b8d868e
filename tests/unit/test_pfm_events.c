// SPDX-License-Identifier: GPL-2.0
/*
 * Event names through libpfm4 for x86 backends (and arm64's PMCEID maps
 * for kpmc -L): the "pmu:" line of
 * /proc/kpmc/info picks libpfm4's table (whatever this machine is), and
 * names encode into the raw configuration the backend parses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/pfm_events.h"

static const char zen3[] = "AMD family 19h model 21h: 6 counters x 48 bits (core extension MSRs), PerfMonV2";
static const char zen4[] = "AMD family 19h model 61h: 6 counters x 48 bits (core extension MSRs), PerfMonV2";
static const char skl[] = "Intel family 6h model 5eh: arch perfmon v4: 8 general x 48 bits, 3 fixed x 48 bits";

/* code of one name on backend/pmu, or ~0 with the reason printed. */
static uint64_t code_of(const char *backend, const char *pmu, const char *name)
{
	struct kpmc_event_spec e = { .usr = -1, .os = -1 };
	char err[512];
	uint64_t c;

	snprintf(e.name, sizeof(e.name), "%s", name);
	if (kpmc_pfm_encode(backend, pmu, &e, &c, err, sizeof(err))) {
		print_message("%s on %s: %s\n", name, pmu, err);
		return ~0ULL;
	}
	return c;
}

static void test_amd_names(void **state)
{
	const char *const pmus[] = { zen3, zen4 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(code_of("amd", pmus[i], "instr"), 0xc0);
		assert_int_equal(code_of("amd", pmus[i], "cycles"), 0x76);
		assert_int_equal(code_of("amd", pmus[i], "RETIRED_INSTRUCTIONS"), 0xc0);
		assert_int_equal(code_of("amd", pmus[i], "branches"), 0xc2);
		assert_int_equal(code_of("amd", pmus[i], "branch_misses"), 0xc3);
		/* Unit masks: umask << 12 | event. */
		assert_int_equal(code_of("amd", pmus[i], "LS_DISPATCH:LD_DISPATCH"), 0x1029);
		assert_int_equal(code_of("amd", pmus[i], "LS_DISPATCH:LD_ST_DISPATCH:STORE_DISPATCH"),
				 0x6029);
		assert_int_equal(code_of("amd", pmus[i], "RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS"), 0x1003);
		/* Counter mask and edge from libpfm4's modifiers. */
		assert_int_equal(code_of("amd", pmus[i], "RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS:c=2:e"),
				 0x1003 | 2 << 20 | 1 << 28);
	}
	/* Zen 4's table has 12-bit events; Zen 3's does not have this one. */
	assert_int_equal(code_of("amd", zen4, "P0_FREQ_CYCLES_NOT_IN_HALT"), 0x1120);
	assert_int_equal(code_of("amd", zen3, "P0_FREQ_CYCLES_NOT_IN_HALT"), ~0ULL);
	assert_int_equal(code_of("amd", zen3, "RETIRED_SSE_AVX_FLOPS"), 0xf003);
	assert_int_equal(code_of("amd", zen4, "RETIRED_SSE_AVX_FLOPS"), 0x1f003);
}

static void test_intel_names(void **state)
{
	(void)state;
	assert_int_equal(code_of("intel", skl, "instr"), 0xc0);
	assert_int_equal(code_of("intel", skl, "cycles"), 0x3c);
	assert_int_equal(code_of("intel", skl, "INST_RETIRED:ANY_P"), 0xc0);
	assert_int_equal(code_of("intel", skl, "UNHALTED_REFERENCE_CYCLES"), 0x300);
	assert_int_equal(code_of("intel", skl, "llc_misses"), 0x412e);
	assert_int_equal(code_of("intel", skl, "llc_references"), 0x4f2e);
	assert_int_equal(code_of("intel", skl, "branch_misses"), 0xc5);
	assert_int_equal(code_of("intel", skl, "MEM_LOAD_RETIRED:L3_MISS"), 0x20d1);
	assert_int_equal(code_of("intel", skl, "L1D:REPLACEMENT"), 0x151);
	/* An AMD name is unknown to the Skylake table. */
	assert_int_equal(code_of("intel", skl, "RETIRED_SSE_AVX_FLOPS"), ~0ULL);
}

/* The whole path the CLI takes: names -> codes -> counters -> raw configuration. */
static void test_zen4_config(void **state)
{
	struct kpmc_counter_layout l = { .nr_counters = 6, .split_modifiers = 1 };
	struct kpmc_event_spec ev[4];
	uint64_t code[4];
	int slot[4], i, n;
	char err[512], out[512];

	(void)state;
	snprintf(l.pmu, sizeof(l.pmu), "%s", zen4);
	n = kpmc_parse_event_list("instr,cycles:u,LS_DISPATCH:LD_DISPATCH:k,P0_FREQ_CYCLES_NOT_IN_HALT:ebs=100000",
				  ev, 4, err, sizeof(err));
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		assert_int_equal(kpmc_pfm_encode("amd", l.pmu, &ev[i], &code[i], err, sizeof(err)), 0);
	assert_int_equal(kpmc_assign_counters(&l, code, ev, n, slot, err, sizeof(err)), 0);
	assert_true(kpmc_raw_config(code, ev, slot, n, &l, out, sizeof(out)) > 0);
	assert_string_equal(out, "pmc0=0xc0,pmc1=0x76,usr1=1,os1=0,pmc2=0x29,umask2=0x1,usr2=0,os2=1,"
			    "pmc3=0x120,umask3=0x1,ebs3=100000");
}

/*
 * What libkpmc's kpmc_start() takes: sets by name (with the set's own raw
 * tokens) or raw, separated by ';', from the info file of a Skylake.
 */
static void test_config_to_raw(void **state)
{
	char info[] = "/tmp/kpmc-unit-info-XXXXXX", err[512], out[512];
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(info);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "backend: intel\npmu: %s\ncounters: 11\n"
		"fixed_counters: 3 pmc0=instructions(0xc0) pmc1=cycles(0x3c) pmc2=ref-cycles(0x300)\n", skl);
	fclose(f);
	assert_true(kpmc_config_to_raw(info, "instr,cycles:u,llc_misses:ebs=100000,mux=20;pmc3=0x412e,mux=20",
				       out, sizeof(out), err, sizeof(err)) > 0);
	assert_string_equal(out, "pmc0,pmc1,usr1=1,os1=0,pmc3=0x412e,ebs3=100000,mux=20;pmc3=0x412e,mux=20");
	/* Unknown names: the reason with close matches. */
	assert_int_equal(kpmc_config_to_raw(info, "pmc0;INST_RETIRD", out, sizeof(out), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown event 'INST_RETIRD'; did you mean: INST_RETIRED"));
	/* A set of tokens and no event. */
	assert_int_equal(kpmc_config_to_raw(info, "mux=20", out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "no event");
	unlink(info);
}

/* arm64: the PMCEID maps of /proc/kpmc/info, one per core type, for kpmc -L. */
static void test_event_maps(void **state)
{
	char info[] = "/tmp/kpmc-info-XXXXXX";
	struct kpmc_event_maps m;
	int fd = mkstemp(info);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fprintf(f, "backend: arm64-pmuv3\n"
		"core_type0: armv8_cortex_a57: cpus 0-1: pmc mask 0x7f: MIDR 0x411fd070, PMUVer 0x4, 6 event counters\n"
		"core_type0_events: 0x0000000f0fffffff 0x0000000100000000\n"
		"core_type1: armv8_cortex_a53: cpus 2-3: pmc mask 0x1f: MIDR 0x410fd034, PMUVer 0x4, 4 event counters\n"
		"core_type1_events: 0x000000072fffffff 0x0000000000000008\n");
	fclose(f);
	assert_int_equal(kpmc_read_event_maps(info, &m), 0);
	assert_int_equal(m.nr, 2);
	assert_string_equal(m.name[0], "armv8_cortex_a57");
	assert_string_equal(m.name[1], "armv8_cortex_a53");
	assert_int_equal(kpmc_event_implemented(&m, -1, 0x23), 1);	/* big: PMCEID1[3] */
	assert_int_equal(kpmc_event_implemented(&m, 1, 0x23), 0);
	assert_int_equal(kpmc_event_implemented(&m, 0, 0x1d), 0);	/* LITTLE only */
	assert_int_equal(kpmc_event_implemented(&m, 1, 0x1d), 1);
	assert_int_equal(kpmc_event_implemented(&m, -1, 0x24), 0);
	assert_int_equal(kpmc_event_implemented(&m, 1, 0x4003), 1);	/* PMCEID0[35] */
	assert_int_equal(kpmc_event_implemented(&m, -1, 0x4020), 1);	/* PMCEID1[32] */
	assert_int_equal(kpmc_event_implemented(&m, -1, 0x4021), 0);
	assert_int_equal(kpmc_event_implemented(&m, -1, 0x40), -1);	/* not enumerated */
	/* Other backends list no maps. */
	f = fopen(info, "w");
	fprintf(f, "backend: intel\npmu: %s\n", skl);
	fclose(f);
	assert_int_equal(kpmc_read_event_maps(info, &m), -1);
	unlink(info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_names),
		cmocka_unit_test(test_intel_names),
		cmocka_unit_test(test_zen4_config),
		cmocka_unit_test(test_config_to_raw),
		cmocka_unit_test(test_event_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
