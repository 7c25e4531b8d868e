// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the CLI's pure parts: record checks, trace rows, the
 * event-to-counter header, per-thread aggregation, -T parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/aggregate.h"
#include "cli/options.h"
#include "common/record_format.h"

static struct kpmc_record make_record(uint32_t pid, uint32_t tid, unsigned int kind,
				      uint64_t n, uint64_t c0, uint64_t c1)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = (uint8_t)kind;
	r.pid = pid;
	r.tid = tid;
	r.nsample = n;
	r.counter_mask = 0x3;
	r.counts[0] = c0;
	r.counts[1] = c1;
	return r;
}

static void test_record_check(void **state)
{
	struct kpmc_record r = make_record(1, 1, KPMC_REC_TBS, 1, 0, 0);
	char why[256];

	(void)state;
	assert_int_equal(kpmc_record_check(&r, why, sizeof(why)), 0);
	r.version = KPMC_RECORD_VERSION + 1;
	assert_int_equal(kpmc_record_check(&r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "reads version"));
	r.version = KPMC_RECORD_VERSION;
	r.size = 12;
	assert_int_equal(kpmc_record_check(&r, why, sizeof(why)), -1);
	r.size = sizeof(r);
	r.counter_mask = 1u << KPMC_MAX_COUNTERS;
	assert_int_equal(kpmc_record_check(&r, why, sizeof(why)), -1);
	r.counter_mask = 1;
	r.virt_mask = 1u << KPMC_MAX_VIRT;
	assert_int_equal(kpmc_record_check(&r, why, sizeof(why)), -1);
}

static void test_rows(void **state)
{
	struct kpmc_columns cols = { .counter_mask = 0x3, .virt_mask = 0x1 };
	struct kpmc_record r = make_record(120, 121, KPMC_REC_TBS, 3, 100000000, 99999999);
	char line[512], kind[16];

	(void)state;
	kpmc_format_header(&cols, line, sizeof(line));
	assert_string_equal(line, "nsample     pid     tid   event           pmc0           pmc1          virt0");
	r.virt_mask = 1;
	r.virt[0] = 42;
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      3     120     121    tick      100000000       99999999             42");
	r.kind = KPMC_REC_EXIT;
	r.counter_mask = 0x1;
	r.virt_mask = 0;
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      3     120     121    exit      100000000              -              -");
	assert_string_equal(kpmc_record_kind_name(KPMC_REC_DETACH, kind, sizeof(kind)), "detach");
	assert_string_equal(kpmc_record_kind_name(KPMC_REC_MEM, kind, sizeof(kind)), "mem");
	assert_string_equal(kpmc_record_kind_name(10, kind, sizeof(kind)), "k10");
	/* A memory sample's line: found and exact, walked back with its address lost, none. */
	{
		struct kpmc_record m;

		memset(&m, 0, sizeof(m));
		m.kind = KPMC_REC_MEM;
		m.nsample = 3;
		m.pid = 98;
		m.tid = 98;
		m.mem.ip = 0x4008bc;
		m.mem.addr = 0x4968a8;
		m.mem.size = 8;
		m.mem.op = KPMC_MEM_OP_STORE;
		m.mem.flags = KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT | KPMC_MEM_F_DECODED;
		kpmc_format_mem(&m, line, sizeof(line));
		assert_string_equal(line, "      3      98      98     mem ip=0x4008bc store size=8 addr=0x4968a8 exact skid=0");
		m.mem.op = KPMC_MEM_OP_LOAD;
		m.mem.flags = KPMC_MEM_F_CLOBBERED | KPMC_MEM_F_DECODED;
		m.mem.skid = 3;
		kpmc_format_mem(&m, line, sizeof(line));
		assert_string_equal(line, "      3      98      98     mem ip=0x4008bc load size=8 addr=lost approx skid=3");
		/* A hardware sampler's load: latency and where the data came from. */
		m.mem.skid = 0;
		m.mem.addr = 0x7fff0010;
		m.mem.flags = KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT | KPMC_MEM_F_HARDWARE |
			      KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE;
		m.mem.latency = 212;
		m.mem.source = KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_HITM) |
			       KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS | KPMC_MEM_SRC_LOCKED;
		kpmc_format_mem(&m, line, sizeof(line));
		assert_string_equal(line, "      3      98      98     mem ip=0x4008bc load size=8 addr=0x7fff0010 exact skid=0 "
				    "latency=212 level=remote-RAM snoop=hitm tlb=L2-miss locked");
		m.mem.source = KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NA);
		kpmc_format_mem(&m, line, sizeof(line));
		assert_string_equal(line, "      3      98      98     mem ip=0x4008bc load size=8 addr=0x7fff0010 exact skid=0 "
				    "latency=212 level=L1");
		m.mem.op = KPMC_MEM_OP_NONE;
		kpmc_format_mem(&m, line, sizeof(line));
		assert_string_equal(line, "      3      98      98     mem ip=0x4008bc no-access");
	}
	/* Truncation is safe and reports the full length. */
	assert_true(kpmc_format_row(&cols, &r, line, 8) > 8);
	assert_int_equal(strlen(line), 7);
}

static void test_mappings(void **state)
{
	char out[512];
	struct kpmc_columns cols = { 0 };

	(void)state;
	assert_true(kpmc_format_mappings("pmc0=0x11,usr0=1,os0=0,pmc1=0x8,usr1=1,os1=1,pmc3=0x3,usr3=0,os3=1,tbs=100\n",
					 out, sizeof(out), &cols) > 0);
	assert_string_equal(out, "[Event-to-counter mappings]\n"
				 "pmc0=0x11 (user)\n"
				 "pmc1=0x8 (user+kernel)\n"
				 "pmc3=0x3 (kernel)\n");
	assert_int_equal(cols.counter_mask, 0xb);
	assert_false(cols.sampling);
	assert_true(kpmc_format_mappings("pmc0=0x11,usr0=1,os0=0,ebs0=100000,rnd=10,seed=3",
					 out, sizeof(out), &cols) > 0);
	assert_true(cols.sampling);
	assert_non_null(strstr(out, "sampling: pmc0 every 100000 +/- 10 events (seed 3;"));
	/* The sampling format and its options; ldlat is the backend's. */
	assert_true(kpmc_format_mappings("pmc0=0x11,usr0=1,os0=1,ebs0=100000,fmt=callstack,fmt.depth=8,fmt.stack=user",
					 out, sizeof(out), &cols) > 0);
	assert_non_null(strstr(out, "sampling format: callstack, options depth=8,stack=user\n"));
	assert_true(kpmc_format_mappings("pmc3=0x1cd,usr3=1,os3=0,ebs3=10000,mem=1,ldlat=30",
					 out, sizeof(out), &cols) > 0);
	assert_non_null(strstr(out, "memory sampling: each sample's data access (mem lines)\n"));
	assert_int_equal(kpmc_format_mappings("pmc0=0x11,usr0=1,os0=0,ebs0=100000,fmx=callstack",
					      out, sizeof(out), &cols), -1);
	assert_int_equal(kpmc_format_mappings("none\n", out, sizeof(out), &cols), -1);
	assert_int_equal(kpmc_format_mappings("pmc1=zz", out, sizeof(out), &cols), -1);
	assert_int_equal(kpmc_format_mappings("pmc99=1", out, sizeof(out), &cols), -1);
	assert_int_equal(kpmc_format_mappings("", out, sizeof(out), &cols), -1);
	assert_int_equal(kpmc_format_mappings("tbs=5", out, sizeof(out), &cols), -1);
}

static void test_sampling_rows(void **state)
{
	struct kpmc_columns cols = { .counter_mask = 0x1, .sampling = 1 };
	struct kpmc_record r = make_record(7, 8, KPMC_REC_EBS, 4, 100003, 0);
	char line[512];

	(void)state;
	r.counter_mask = 0x1;
	r.period = 100000;
	kpmc_format_header(&cols, line, sizeof(line));
	assert_string_equal(line, "nsample     pid     tid   event       period           pmc0");
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      4       7       8     ebs       100000         100003");
	r.kind = KPMC_REC_EXIT;
	r.period = 0;
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      4       7       8    exit            -         100003");
	memset(&r, 0, sizeof(r));
	r.kind = KPMC_REC_LOST;
	r.lost = 12;
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "# lost 12 records: the ring was full (enlarge it with -k)");
}

static void test_system_wide_rows(void **state)
{
	struct kpmc_columns cols = { .counter_mask = 0x2, .system_wide = 1 };
	struct kpmc_record r = make_record(0, 0, KPMC_REC_CPU, 3, 0, 12345);
	char line[512];

	(void)state;
	r.cpu = 1;
	r.run_ns = 50000123;
	kpmc_format_header(&cols, line, sizeof(line));
	assert_string_equal(line, "nsample     cpu   event         ms           pmc1");
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      3       1     cpu     50.000          12345");
}

static void test_scaling(void **state)
{
	struct kpmc_totals t = { 0 };
	struct kpmc_record r;
	uint32_t masks[2] = { 0x2, 0x2 };
	char out[1024];

	(void)state;
	assert_true(kpmc_scale_count(100, 200, 100) == 200);
	assert_true(kpmc_scale_count(100, 300, 200) == 150);
	assert_true(kpmc_scale_count(7, 100, 0) == 0);
	/* No overflow in the product: 1e18 events x 1e10 ns / 5e9 ns. */
	assert_true(kpmc_scale_count(1000000000000000000ULL, 10000000000ULL, 5000000000ULL) ==
		    2000000000000000000ULL);
	/* Rounded to nearest. */
	assert_true(kpmc_scale_count(1, 3, 2) == 2);

	/* One thread, two sets: set 0 ran 30 ms (300 events), set 1 10 ms (50). */
	r = make_record(5, 5, KPMC_REC_MUX, 1, 0, 300);
	r.run_ns = 30000000;
	r.set = 0;
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	r = make_record(5, 5, KPMC_REC_EXIT, 2, 0, 50);
	r.run_ns = 10000000;
	r.set = 1;
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	kpmc_totals_format_sets(&t, 2, masks, out, sizeof(out));
	assert_non_null(strstr(out, "      5       5     0       1    75.00%            400\n"));
	assert_non_null(strstr(out, "      5       5     1       1    25.00%            200\n"));
	assert_non_null(strstr(out, "  total       5     0       1    75.00%            400\n"));
	kpmc_totals_free(&t);
}

static void test_aggregate(void **state)
{
	struct kpmc_totals t = { 0 };
	struct kpmc_record r;
	char *out;
	size_t need;

	(void)state;
	/* Out of order tids, two processes. */
	r = make_record(10, 12, KPMC_REC_TBS, 1, 5, 50);
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	r = make_record(10, 10, KPMC_REC_EXIT, 1, 1, 10);
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	r = make_record(10, 12, KPMC_REC_EXIT, 2, 7, 70);
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	r = make_record(20, 20, KPMC_REC_EXIT, 1, 100, 1000);
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	assert_int_equal(t.nr, 3);
	assert_int_equal(t.threads[0].tid, 10);
	assert_int_equal(t.threads[1].tid, 12);
	assert_true(t.threads[1].counts[0] == 12 && t.threads[1].counts[1] == 120);
	assert_true(t.threads[1].records == 2);

	need = kpmc_totals_format(&t, 0x3, NULL, 0) + 1;
	out = malloc(need);
	assert_non_null(out);
	kpmc_totals_format(&t, 0x3, out, need);
	assert_string_equal(out,
		"    pid     tid samples           pmc0           pmc1\n"
		"     10      10       1              1             10\n"
		"     10      12       2             12            120\n"
		"     20      20       1            100           1000\n"
		"  total      10       3             13            130\n"
		"  total      20       1            100           1000\n");
	free(out);

	/* Many threads: the table grows and stays sorted. */
	for (uint32_t i = 1000; i > 0; i--) {
		r = make_record(30, 5000 + i, KPMC_REC_EXIT, 1, i, i);
		assert_int_equal(kpmc_totals_add(&t, &r), 0);
	}
	assert_int_equal(t.nr, 1003);
	for (size_t i = 1; i < t.nr; i++)
		assert_true(t.threads[i - 1].tid < t.threads[i].tid);
	kpmc_totals_free(&t);
}

/* Hybrid CPUs: a counter that did not count throughout is marked in every form. */
static void test_uncounted(void **state)
{
	struct kpmc_columns cols = { .counter_mask = 0x3 };
	struct kpmc_record r = make_record(7, 8, KPMC_REC_TBS, 2, 500, 600);
	struct kpmc_totals t = { 0 };
	char line[512];

	(void)state;
	kpmc_format_uncounted(0, "+", line, sizeof(line));
	assert_string_equal(line, "");
	assert_int_equal(kpmc_format_uncounted(0x8005, "+", line, sizeof(line)), strlen("pmc0+pmc2+pmc15"));
	assert_string_equal(line, "pmc0+pmc2+pmc15");
	r.uncounted_mask = 0x2;
	kpmc_format_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "      2       7       8    tick            500           600*");
	kpmc_format_csv_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "2,7,8,0,tick,0,0,0,0,pmc1,500,600");
	kpmc_format_json_record(&cols, &r, line, sizeof(line));
	assert_non_null(strstr(line, "\"lost\":0,\"uncounted\":[\"pmc1\"],\"counts\":{\"pmc0\":500,\"pmc1\":600}"));
	r.uncounted_mask = 0x3;
	kpmc_format_json_record(&cols, &r, line, sizeof(line));
	assert_non_null(strstr(line, "\"uncounted\":[\"pmc0\",\"pmc1\"]"));
	r.uncounted_mask = 0;
	kpmc_format_json_record(&cols, &r, line, sizeof(line));
	assert_non_null(strstr(line, "\"uncounted\":[],"));
	kpmc_format_csv_row(&cols, &r, line, sizeof(line));
	assert_string_equal(line, "2,7,8,0,tick,0,0,0,0,,500,600");
	/* Totals: the thread (and its process) is marked once any record was. */
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	r.uncounted_mask = 0x2;
	assert_int_equal(kpmc_totals_add(&t, &r), 0);
	kpmc_totals_format(&t, 0x3, line, sizeof(line));
	assert_string_equal(line,
		"    pid     tid samples           pmc0           pmc1\n"
		"      7       8       2           1000          1200*\n"
		"  total       7       2           1000          1200*\n");
	kpmc_totals_format_json(&t, 1, 0, line, sizeof(line));
	assert_non_null(strstr(line, "\"tid\":8,\"records\":2,\"run_ns\":0,\"uncounted\":[\"pmc1\"],\"counts\":{"));
	kpmc_totals_free(&t);
}

static void test_period(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(kpmc_parse_period_ms("0.1"), 100);
	assert_int_equal(kpmc_parse_period_ms("2"), 2000);
	assert_int_equal(kpmc_parse_period_ms("0.005"), 5);
	assert_int_equal(kpmc_parse_period_ms("1.5000"), 1500);
	assert_int_equal(kpmc_parse_period_ms(".25"), 250);
	assert_int_equal(kpmc_parse_period_ms("86400"), 86400000);
	assert_int_equal(kpmc_parse_period_ms("0"), -1);
	assert_int_equal(kpmc_parse_period_ms("0.0001"), -1);
	assert_int_equal(kpmc_parse_period_ms("86401"), -1);
	assert_int_equal(kpmc_parse_period_ms("-1"), -1);
	assert_int_equal(kpmc_parse_period_ms("1s"), -1);
	assert_int_equal(kpmc_parse_period_ms(""), -1);
	assert_int_equal(kpmc_parse_period_ms("."), -1);
	assert_int_equal(kpmc_parse_period_ms("1e3"), -1);
	/* --wakeup: what the module's "wakeup=" takes, in decimal. */
	assert_int_equal(kpmc_check_wakeup("watermark"), 0);
	assert_int_equal(kpmc_check_wakeup("0"), 0);
	assert_int_equal(kpmc_check_wakeup("20"), 0);
	assert_int_equal(kpmc_check_wakeup("60000"), 0);
	assert_int_equal(kpmc_check_wakeup("60001"), -1);
	assert_int_equal(kpmc_check_wakeup("99999999999999999999"), -1);
	assert_int_equal(kpmc_check_wakeup(""), -1);
	assert_int_equal(kpmc_check_wakeup("-1"), -1);
	assert_int_equal(kpmc_check_wakeup(" 5"), -1);
	assert_int_equal(kpmc_check_wakeup("5x"), -1);
	assert_int_equal(kpmc_check_wakeup("0x10"), -1);
	assert_int_equal(kpmc_check_wakeup("watermarks"), -1);
	/* --anchor: a counter index below KPMC_MAX_COUNTERS, as N + 1. */
	assert_int_equal(kpmc_parse_anchor("pmc0"), 1);
	assert_int_equal(kpmc_parse_anchor("pmc15"), 16);
	assert_int_equal(kpmc_parse_anchor("pmc16"), 0);
	assert_int_equal(kpmc_parse_anchor("pmc"), 0);
	assert_int_equal(kpmc_parse_anchor("pmc01"), 0);
	assert_int_equal(kpmc_parse_anchor("pmc1x"), 0);
	assert_int_equal(kpmc_parse_anchor("cycles"), 0);
	assert_int_equal(kpmc_parse_anchor("pmc99999999999"), 0);
	assert_true(kpmc_config_counts_pmc("pmc0,pmc1=0x8,usr1=1,mux=4", 0));
	assert_true(kpmc_config_counts_pmc("pmc0,pmc1=0x8,usr1=1,mux=4", 1));
	assert_false(kpmc_config_counts_pmc("pmc0,pmc1=0x8,usr1=1,mux=4", 2));
	assert_false(kpmc_config_counts_pmc("pmc10=0x8", 1));
	assert_false(kpmc_config_counts_pmc("usr1=1,os1=0", 1));
	assert_true(kpmc_config_counts_pmc("mux=4,pmc3", 3));
	/* -G: a path below the cgroup mount, nothing that climbs out of it. */
	assert_int_equal(kpmc_check_cgroup_path("jobs"), 0);
	assert_int_equal(kpmc_check_cgroup_path("system.slice/job_7/step_0"), 0);
	assert_int_equal(kpmc_check_cgroup_path(".hidden"), 0);
	assert_int_equal(kpmc_check_cgroup_path(""), -1);
	assert_int_equal(kpmc_check_cgroup_path("/jobs"), -1);
	assert_int_equal(kpmc_check_cgroup_path(".."), -1);
	assert_int_equal(kpmc_check_cgroup_path("a/../../etc"), -1);
	assert_int_equal(kpmc_check_cgroup_path("a/./b"), -1);
	assert_int_equal(kpmc_check_cgroup_path("a//b"), -1);
	assert_int_equal(kpmc_check_cgroup_path("a/"), -1);
	assert_int_equal(kpmc_check_cgroup_path("a b"), -1);
	assert_int_equal(kpmc_check_cgroup_path("a\nb"), -1);

	const char *one[] = { "pmc0" }, *two[] = { "pmc0,pmc1=0x8", "pmc1=0x11,mux=5" };

	assert_int_equal(kpmc_build_config(one, 1, 100, out, sizeof(out)), 12);
	assert_string_equal(out, "pmc0,tbs=100");
	assert_int_equal(kpmc_build_config(one, 1, 0, out, sizeof(out)), 4);
	assert_string_equal(out, "pmc0");
	assert_int_equal(kpmc_build_config(two, 2, 5, out, 8), -1);
	assert_true(kpmc_build_config(two, 2, 5, out, sizeof(out)) > 0);
	assert_string_equal(out, "pmc0,pmc1=0x8,tbs=5;pmc1=0x11,mux=5,tbs=5");
}

/* kpmc mem's sampling event, by the source /proc/kpmc/info names. */
static void test_mem_default_event(void **state)
{
	static const struct {
		const char *info, *event;
	} cases[] = {
		{ "backend: arm64\nfixed_counters: 1 pmc0=cycles(0x11)\ngeneral_counters: 6 (pmc1-pmc6)\nmemory_sampling: decoded instructions\n",
		  "pmc0" },
		{ "backend: intel\ngeneral_counters: 8 (pmc3-pmc10)\nmemory_sampling: PEBS load latency (record format 3) (ldlat)\n",
		  "pmc3=0x1cd,ldlat=30" },
		{ "backend: intel\ngeneral_counters: 2 (pmc0-pmc1)\nmemory_sampling: PEBS load latency (record format 1: the next instruction's IP) (ldlat)",
		  "pmc0=0x1cd,ldlat=30" },
		{ "backend: amd\nmemory_sampling: IBS Op (Zen 4 data sources)\n", "pmc0=0x76" },
		{ "backend: perf\nmemory_sampling: perf precise sampling (Intel PEBS) (ldlat)\n",
		  "pmc0=0x4000001cd,ldlat=30" },
		{ "backend: perf\nmemory_sampling: perf precise sampling (AMD IBS)\n", "pmc0=0x0" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(kpmc_mem_default_event(cases[i].info, out, sizeof(out)), 0);
		assert_string_equal(out, cases[i].event);
	}
	assert_int_equal(kpmc_mem_default_event("backend: perf\nmemory_sampling: none\n", out, sizeof(out)), -1);
	assert_int_equal(kpmc_mem_default_event("", out, sizeof(out)), -1);
	/* PEBS without a general-counter line, or too small a buffer: no event. */
	assert_int_equal(kpmc_mem_default_event("memory_sampling: PEBS load latency\n", out, sizeof(out)), -1);
	assert_int_equal(kpmc_mem_default_event("memory_sampling: IBS Op\n", out, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_check),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_sampling_rows),
		cmocka_unit_test(test_system_wide_rows),
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_mem_default_event),
		cmocka_unit_test(test_uncounted),
	};

	return cmocka_run_group_tests_name("kpmc_cli_pure", tests, NULL, NULL);
}
