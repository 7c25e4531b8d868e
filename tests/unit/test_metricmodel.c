// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CPI-stack and top-down models kpmc ships
 * (share/kpmc/models): synthetic counts whose components are known exactly,
 * components that stack to the model's total, parts to their component.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "metrics/metricmodel.h"

#define EPS 1e-12

static void load(struct kpmc_model *m, const char *name)
{
	char path[512], err[300], *buf = calloc(1, 65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/models/%s.model", KPMC_SHARE_DIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	(void)!fread(buf, 1, 65535, f);
	fclose(f);
	if (kpmc_model_load(m, name, buf, path, err, sizeof(err)))
		fail_msg("%s", err);
	free(buf);
}

struct expect {
	const char *name, *parent;
	double value;
};

/*
 * Evaluate counts given as "EVENT", value pairs; check each component (in
 * the model's order), that level 1 stacks to the total and each component's
 * parts to it.
 */
static void check(const struct kpmc_model *m, const char *const *names, const double *values,
		  unsigned int n, const struct expect *want, unsigned int nwant, double total)
{
	struct kpmc_model_value out[32];
	char err[256];
	double got_total, level1 = 0;
	int nc = kpmc_model_eval_named(m, names, values, n, NAN, out, 32, &got_total, err, sizeof(err));

	if (nc < 0)
		fail_msg("%s", err);
	assert_int_equal(nc, nwant);
	assert_true(fabs(got_total - total) < EPS);
	for (unsigned int i = 0; i < nwant; i++) {
		assert_string_equal(out[i].name, want[i].name);
		if (want[i].parent)
			assert_string_equal(out[i].parent, want[i].parent);
		else
			assert_null(out[i].parent);
		if (fabs(out[i].value - want[i].value) >= EPS)
			fail_msg("%s: %.17g, want %.17g", want[i].name, out[i].value, want[i].value);
		if (!out[i].parent) {
			double parts = 0;
			int any = 0;

			level1 += out[i].value;
			for (unsigned int j = i + 1; j < nwant && out[j].parent; j++) {
				parts += out[j].value;
				any = 1;
			}
			if (any && fabs(parts - out[i].value) >= EPS)
				fail_msg("%s's parts add up to %.17g, not %.17g", out[i].name, parts, out[i].value);
		}
	}
	assert_true(fabs(level1 - total) < EPS);
}

static void test_intel_tma(void **state)
{
	static const char *const names[] = {
		"CPU_CLK_UNHALTED:THREAD_P", "IDQ_UOPS_NOT_DELIVERED:CORE", "UOPS_ISSUED:ANY",
		"UOPS_RETIRED:RETIRE_SLOTS", "INT_MISC:RECOVERY_CYCLES",
		"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", "BR_MISP_RETIRED:ALL_BRANCHES",
		"MACHINE_CLEARS:COUNT", "IDQ:MS_UOPS", "CYCLE_ACTIVITY:STALLS_MEM_ANY",
		"EXE_ACTIVITY:BOUND_ON_STORES", "CYCLE_ACTIVITY:STALLS_TOTAL", "EXE_ACTIVITY:1_PORTS_UTIL",
	};
	/*
	 * 2048 cycles: 8192 slots. 1024 undelivered: frontend 1/8 (128 cycles
	 * with none: latency 1/16). Issued 2560, retired 2048, 128 recovery
	 * cycles: bad speculation (512 + 512) / 8192 = 1/8, 3 of 4 mispredicts.
	 * Retiring 1/4 (1280 microcode uops, 4/5 of them retiring: 1/8).
	 * Backend the rest, 1/2; memory stalls (300 + 100) of 800: half.
	 */
	static const double values[] = { 2048, 1024, 2560, 2048, 128, 128, 30, 10, 1280, 300, 100, 600, 100 };
	static const struct expect want[] = {
		{ "frontend_bound", NULL, 0.125 },
		{ "fetch_latency", "frontend_bound", 0.0625 },
		{ "fetch_bandwidth", "frontend_bound", 0.0625 },
		{ "bad_speculation", NULL, 0.125 },
		{ "branch_mispredicts", "bad_speculation", 0.09375 },
		{ "machine_clears", "bad_speculation", 0.03125 },
		{ "retiring", NULL, 0.25 },
		{ "microcode_sequencer", "retiring", 0.125 },
		{ "base", "retiring", 0.125 },
		{ "backend_bound", NULL, 0.5 },
		{ "memory_bound", "backend_bound", 0.25 },
		{ "core_bound", "backend_bound", 0.25 },
	};
	struct kpmc_model m;

	(void)state;
	load(&m, "intel_tma");
	assert_int_equal(kpmc_model_nevents(&m), 13);
	assert_string_equal(kpmc_model_event(&m, 0), "CPU_CLK_UNHALTED:THREAD_P");
	assert_null(kpmc_model_event(&m, 13));
	check(&m, names, values, 13, want, 12, 1.0);
	kpmc_model_free(&m);
}

static void test_cortex_a57(void **state)
{
	/* The caller's order need not be the model's. */
	static const char *const names[] = {
		"CPU_CYCLES", "INST_RETIRED", "L2D_CACHE_REFILL", "L1D_CACHE_REFILL", "L1I_CACHE_REFILL",
		"BRANCH_MISPRED",
	};
	/* CPI 3: branches 15*20/1000, icache 18*10/1000, L2 hits 18*45/1000, memory 150*5/1000. */
	static const double values[] = { 3000, 1000, 5, 50, 10, 20 };
	static const struct expect want[] = {
		{ "base", NULL, 3 - 0.3 - 0.18 - 0.81 - 0.75 },
		{ "branch", NULL, 0.3 },
		{ "icache", NULL, 0.18 },
		{ "dcache", NULL, 0.81 },
		{ "memory", NULL, 0.75 },
	};
	struct kpmc_model m;
	struct kpmc_model_value out[8];
	double zero[6] = { 0 }, total;
	char err[200];

	(void)state;
	load(&m, "cortex_a57_cpi");
	assert_int_equal(m.file.unit, KPMC_MUNIT_CPI);
	check(&m, names, values, 6, want, 5, 3.0);
	/* Nothing retired: every CPI is undefined, not infinite. */
	assert_int_equal(kpmc_model_eval(&m, zero, NAN, out, 8, &total), 5);
	assert_true(isnan(total) && isnan(out[0].value) && isnan(out[4].value));
	/* A model's event the caller did not count is named. */
	assert_int_equal(kpmc_model_eval_named(&m, names, values, 5, NAN, out, 8, &total, err, sizeof(err)), -1);
	assert_string_equal(err, "model cortex_a57_cpi needs event BRANCH_MISPRED, which was not counted");
	kpmc_model_free(&m);
}

static void test_neoverse_n1(void **state)
{
	static const char *const names[] = { "INST_RETIRED", "CPU_CYCLES", "STALL_FRONTEND", "STALL_BACKEND" };
	static const double values[] = { 1000, 2500, 500, 1000 };
	static const struct expect want[] = {
		{ "base", NULL, 1.0 }, { "frontend", NULL, 0.5 }, { "backend", NULL, 1.0 },
	};
	struct kpmc_model m;

	(void)state;
	load(&m, "neoverse_n1_cpi");
	check(&m, names, values, 4, want, 3, 2.5);
	kpmc_model_free(&m);
}

static void test_amd_zen4(void **state)
{
	static const char *const names[] = {
		"CYCLES_NOT_IN_HALT", "DISPATCH_STALLS_1:FE_NO_OPS", "DISPATCH_STALLS_1:FE_NO_OPS:c=6",
		"DISPATCH_STALLS_1:BE_STALLS", "DISPATCH_STALLS_1:SMT_CONTENTION",
		"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", "RETIRED_OPS",
	};
	/* 1000 cycles: 6000 slots; 600 empty (50 cycles all 6), 300 wasted ops, 2100 backend, 3000 retired. */
	static const double values[] = { 1000, 600, 50, 2100, 0, 3300, 3000 };
	static const struct expect want[] = {
		{ "frontend_bound", NULL, 0.1 },
		{ "latency", "frontend_bound", 0.05 },
		{ "bandwidth", "frontend_bound", 0.05 },
		{ "bad_speculation", NULL, 0.05 },
		{ "backend_bound", NULL, 0.35 },
		{ "smt_contention", NULL, 0 },
		{ "retiring", NULL, 0.5 },
	};
	struct kpmc_model m;

	(void)state;
	load(&m, "amd_zen4_pipeline");
	check(&m, names, values, 7, want, 7, 1.0);
	kpmc_model_free(&m);
}

static void test_model_errors(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "unit cpi\nevent A\nmetric x = A\n",
		  "M.model:3: unknown keyword 'metric' (a model file has: description, unit, event, define, component, sub, total)" },
		{ "unit watts\n", "M.model:1: unit 'watts': want fraction or cpi" },
		{ "unit cpi\nevent A\nsub y x = A\n", "M.model:3: sub: 'y' is not a component defined above" },
		{ "event A\ncomponent x = A\n", "M.model:3: no 'unit' line (fraction or cpi)" },
		{ "unit cpi\nevent A\ncomponent x = A\ntotal = A\ntotal = 2\n", "M.model:5: 'total' given twice" },
		{ "unit cpi\nevent A\ncomponent x = A * y\n",
		  "M.model:3: 'y' in x's expression is neither a declared event ('event y') nor a name defined above" },
	};
	struct kpmc_model m;
	char err[300];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = kpmc_model_load(&m, "m", bad[i].text, "M.model", err, sizeof(err));

		if (rc != -1 || strcmp(err, bad[i].msg))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_tma),
		cmocka_unit_test(test_cortex_a57),
		cmocka_unit_test(test_neoverse_n1),
		cmocka_unit_test(test_amd_zen4),
		cmocka_unit_test(test_model_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
