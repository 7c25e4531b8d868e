// SPDX-License-Identifier: GPL-2.0
/*
 * The PAPI component's parts that need no PAPI tree (userland/papi/): a
 * PAPI event set packed into kpmc event sets and written as the raw
 * configuration (papi_kpmc_plan.c), and its native events from kpmc -L's
 * lines (papi_kpmc_events.c). On libpfm4's Zen 4 table, forced, as the AMD
 * backend's "pmu:" line picks it: the same codes on any machine; and on the
 * arm64 guests' PMU by the codes kpmc -L lists there, each configuration
 * (with an attached thread's sample rate too) held to the kernel's own
 * parser (config_parse.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kpmc/config.h"
#include "papi/papi_kpmc_events.h"
#include "papi/papi_kpmc_plan.h"

static const char zen4[] = "AMD family 19h model 61h: 6 counters x 48 bits (core extension MSRs), PerfMonV2";

/* The AMD backend's layout: 6 general counters, modifiers apart. */
static void amd_pmu(struct kpmc_papi_pmu *pmu)
{
	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->backend, sizeof(pmu->backend), "amd");
	pmu->layout.nr_counters = 6;
	pmu->layout.split_modifiers = 1;
	snprintf(pmu->layout.pmu, sizeof(pmu->layout.pmu), "%s", zen4);
}

/* n events named by names[], repeated in turn. */
static void refs(struct kpmc_papi_event_ref *ev, unsigned int n, const char *const *names,
		 unsigned int nr_names)
{
	unsigned int i;

	memset(ev, 0, n * sizeof(*ev));
	for (i = 0; i < n; i++)
		ev[i].pfm_name = names[i % nr_names];
}

static const char *const four[] = { "RETIRED_INSTRUCTIONS", "CYCLES_NOT_IN_HALT",
				    "RETIRED_BRANCH_INSTRUCTIONS",
				    "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" };

static void test_one_set(void **state)
{
	struct kpmc_papi_event_ref ev[2];
	struct kpmc_papi_pmu pmu;
	struct kpmc_papi_plan plan;
	const char *const names[] = { "instr", "cycles" };
	char err[256];

	(void)state;
	amd_pmu(&pmu);
	refs(ev, 2, names, 2);
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 2, 1, 0, 0, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(plan.nr_sets, 1);
	assert_int_equal(plan.pmc_of[0], 0);
	assert_int_equal(plan.pmc_of[1], 1);
	assert_string_equal(plan.config, "pmc0=0xc0,usr0=1,os0=0,pmc1=0x76,usr1=1,os1=0");
	/* Kernel mode too (PAPI_DOM_ALL). */
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 1, 1, 1, 0, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_string_equal(plan.config, "pmc0=0xc0,usr0=1,os0=1");
}

static void test_more_events_than_counters(void **state)
{
	struct kpmc_papi_event_ref ev[KPMC_PAPI_MAX_EVENTS];
	struct kpmc_papi_pmu pmu;
	struct kpmc_papi_plan plan;
	char err[256];
	unsigned int i;

	(void)state;
	amd_pmu(&pmu);
	refs(ev, 8, four, 4);
	/* Not multiplexed: the seventh event has no counter. */
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 8, 1, 0, 0, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_CONFLICT);
	assert_non_null(strstr(err, "multiplex"));
	/* Multiplexed: a second set, each set's slice 5 ms. */
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 8, 1, 0, 1, 5, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(plan.nr_sets, 2);
	for (i = 0; i < 8; i++) {
		assert_int_equal(plan.set_of[i], i < 6 ? 0 : 1);
		assert_int_equal(plan.pmc_of[i], i < 6 ? i : i - 6);
	}
	assert_string_equal(strchr(plan.config, ';'),
			    ";pmc0=0xc2,usr0=1,os0=0,pmc1=0xc3,usr1=1,os1=0,mux=5");
	assert_non_null(strstr(plan.config, "os5=0,mux=5;"));
	/* Four sets of six at the most. */
	refs(ev, 24, four, 4);
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 24, 1, 0, 1, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(plan.nr_sets, 4);
	assert_non_null(strstr(plan.config, ",mux=10;"));	/* kpmc's default slice */
	refs(ev, 25, four, 4);
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 25, 1, 0, 1, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_CONFLICT);
}

static void test_unknown_and_listed_code(void **state)
{
	struct kpmc_papi_event_ref ev[1] = { { .pfm_name = "NO_SUCH_EVENT_ANYWHERE" } };
	struct kpmc_papi_pmu pmu;
	struct kpmc_papi_plan plan;
	char err[256];

	(void)state;
	amd_pmu(&pmu);
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 1, 1, 0, 0, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_UNKNOWN);
	assert_non_null(strstr(err, "NO_SUCH_EVENT_ANYWHERE"));
	/* An event kpmc -L listed with its code (arm64's unnamed common events). */
	ev[0].has_code = 1;
	ev[0].code = 0x123;
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 1, 1, 0, 0, 0, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_string_equal(plan.config, "pmc0=0x123,usr0=1,os0=0");
}

/* The QEMU cortex-a57 of the arm64 guests, as far as counting needs: the fixed cycle counter and 6 event counters. */
static struct kpmc_pmu_desc guest_pmu = { .nr_fixed = 1, .nr_counters = 7, .fixed_event = { 0x11 } };

static void test_arm64_guest_sets(void **state)
{
	/* kpmc -L's names there, which libpfm4 here does not know: counted by their codes. */
	static const uint64_t codes[] = { 0x08, 0x11, 0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x12 };
	/* Cycles on the fixed counter; six events beside it; the last two in a second set. */
	static const unsigned int set_of[] = { 0, 0, 0, 0, 0, 0, 0, 1, 1 };
	static const unsigned int pmc_of[] = { 1, 0, 2, 3, 4, 5, 6, 1, 2 };
	struct kpmc_papi_event_ref ev[9];
	struct kpmc_config_sets parsed;
	struct kpmc_papi_pmu pmu;
	struct kpmc_papi_plan plan;
	char err[256], before[KPMC_PAPI_CONFIG_LEN], token[KPMC_PAPI_CONFIG_LEN];
	unsigned int i;

	(void)state;
	memset(&pmu, 0, sizeof(pmu));
	snprintf(pmu.backend, sizeof(pmu.backend), "arm64-pmuv3");
	pmu.layout.nr_counters = 7;
	pmu.layout.nr_fixed = 1;
	pmu.layout.fixed_event[0] = 0x11;
	for (i = 0; i < 9; i++)
		ev[i] = (struct kpmc_papi_event_ref){ .pfm_name = "armv8_pmuv3::EVENT", .has_code = 1,
						      .code = codes[i] };
	assert_int_equal(kpmc_papi_plan_make(&pmu, ev, 9, 1, 0, 1, 20, &plan, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(plan.nr_sets, 2);
	for (i = 0; i < 9; i++) {
		assert_int_equal(plan.set_of[i], set_of[i]);
		assert_int_equal(plan.pmc_of[i], pmc_of[i]);
	}
	assert_int_equal(kpmc_config_sets_parse(plan.config, strlen(plan.config), &guest_pmu, &parsed,
						err, sizeof(err)), 0);
	assert_int_equal(parsed.nr, 2);
	assert_int_equal(parsed.set[0].mux_ms, 20);
	assert_int_equal(parsed.set[1].mux_ms, 20);
	/* Attached to another thread: its counts come as samples, each set's own. */
	assert_int_equal(kpmc_papi_plan_add_token(&plan, "tbs=10"), KPMC_PAPI_PLAN_OK);
	assert_int_equal(kpmc_config_sets_parse(plan.config, strlen(plan.config), &guest_pmu, &parsed,
						err, sizeof(err)), 0);
	assert_int_equal(parsed.set[0].tbs_ms, 10);
	assert_int_equal(parsed.set[1].tbs_ms, 10);
	/* A token that does not fit leaves the configuration as it was. */
	strcpy(before, plan.config);
	memset(token, 'x', sizeof(token) - 1);
	token[sizeof(token) - 1] = '\0';
	assert_int_equal(kpmc_papi_plan_add_token(&plan, token), KPMC_PAPI_PLAN_TOO_LONG);
	assert_string_equal(plan.config, before);
}

static void test_list_lines(void **state)
{
	struct kpmc_papi_event e;

	(void)state;
	/* x86: no code. */
	assert_int_equal(kpmc_papi_event_parse("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS   Retired instructions\n", &e), 0);
	assert_string_equal(e.name, "RETIRED_INSTRUCTIONS");
	assert_string_equal(e.pfm_name, "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS");
	assert_string_equal(e.descr, "Retired instructions");
	assert_int_equal(e.has_code, 0);
	/* arm64: the code, and the core types that lack the event. */
	assert_int_equal(kpmc_papi_event_parse("arm_cortex_a53::INST_RETIRED   0x08 Instruction architecturally executed [only on armv8_cortex_a53]", &e), 0);
	assert_string_equal(e.name, "INST_RETIRED");
	assert_int_equal(e.has_code, 1);
	assert_int_equal(e.code, 0x08);
	assert_string_equal(e.descr, "Instruction architecturally executed [only on armv8_cortex_a53]");
	/* A common event libpfm4 does not name: perf's name, counted by its code. */
	assert_int_equal(kpmc_papi_event_parse("pmuv3::stall_slot   0x403f common event not in libpfm4's table: count it as pmcN=0x403f", &e), 0);
	assert_string_equal(e.name, "stall_slot");
	assert_int_equal(e.code, 0x403f);
	/* Headings name nothing. */
	assert_int_equal(kpmc_papi_event_parse("# implementation-defined events of libpfm4's arm_n1 table: ...", &e), -1);
	assert_int_equal(kpmc_papi_event_parse("", &e), -1);
}

static void test_event_table(void **state)
{
	struct kpmc_papi_pmu pmu;
	const struct kpmc_papi_event *e;
	unsigned int code, again, listed, n;
	char err[256], umask[KPMC_PAPI_NAME_LEN], descr[KPMC_PAPI_DESCR_LEN];
	int found = 0;

	(void)state;
	amd_pmu(&pmu);
	/* No module here: kpmc -L lists the table libpfm4 has active. */
	assert_int_equal(kpmc_papi_events_load(&pmu, err, sizeof(err)), 0);
	listed = kpmc_papi_events_count();
	assert_true(listed > 50);
	assert_int_equal(kpmc_papi_event_lookup(&pmu, "RETIRED_INSTRUCTIONS", &code, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	e = kpmc_papi_event(code);
	assert_non_null(e);
	assert_string_equal(e->pfm_name, "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS");
	/* Unit masks, as PAPI_NTV_ENUM_UMASKS enumerates them: none for this one. */
	assert_int_equal(kpmc_papi_event_umask(e, 0, umask, sizeof(umask), descr, sizeof(descr)), -1);
	assert_int_equal(kpmc_papi_event_lookup(&pmu, "LS_DISPATCH", &code, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	e = kpmc_papi_event(code);
	for (n = 0; !kpmc_papi_event_umask(e, n, umask, sizeof(umask), descr, sizeof(descr)); n++)
		found |= !strcmp(umask, "LD_DISPATCH");
	assert_int_equal(n, 3);
	assert_true(found);
	/* A mnemonic is not listed: added once, at its first lookup. */
	assert_int_equal(kpmc_papi_event_lookup(&pmu, "instr", &code, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(code, listed);
	assert_int_equal(kpmc_papi_event_lookup(&pmu, "instr", &again, err, sizeof(err)),
			 KPMC_PAPI_PLAN_OK);
	assert_int_equal(again, code);
	assert_int_equal(kpmc_papi_events_count(), listed + 1);
	assert_int_equal(kpmc_papi_event_lookup(&pmu, "NO_SUCH_EVENT_ANYWHERE", &code, err, sizeof(err)),
			 KPMC_PAPI_PLAN_UNKNOWN);
	assert_null(kpmc_papi_event(listed + 1));
	kpmc_papi_events_free();
	assert_int_equal(kpmc_papi_events_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_set),
		cmocka_unit_test(test_more_events_than_counters),
		cmocka_unit_test(test_unknown_and_listed_code),
		cmocka_unit_test(test_arm64_guest_sets),
		cmocka_unit_test(test_list_lines),
		cmocka_unit_test(test_event_table),
	};

	/* The Zen 4 table whatever this machine is, before libpfm4 starts. */
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
