// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc -L on arm64 (pfm_events.c's kpmc_pfm_list) from PMCEID maps in an
 * info file and a fake perf sysfs: the common events some core type
 * implements and libpfm4 does not name are listed by perf's name (or their
 * number), with the types that have them; SW_INCR and CHAIN are left out as
 * perf leaves them out. libpfm4 is held to its generic "perf" PMU, which has
 * no core events, so the x86 tables of the machine running the tests stay
 * out of the list.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "common/pfm_events.h"

static char dir[] = "/tmp/kpmc-unit-sysfs-XXXXXX";
static char info[4096];

static void put(const char *pmu, const char *event, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, pmu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/events", dir, pmu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/events/%s", dir, pmu, event);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put("armv8_cortex_a57", "inst_retired", "event=0x0008\n");
	put("armv8_cortex_a57", "stall_frontend", "event=0x0023\n");
	put("armv8_cortex_a53", "inst_retired", "event=0x0008\n");
	put("armv8_cortex_a53", "bus_cycles", "event=0x001d\n");
	snprintf(info, sizeof(info), "%s/info", dir);
	f = fopen(info, "w");
	assert_non_null(f);
	/* big: 0x00, 0x08, 0x1e, 0x23, 0x4003; LITTLE: 0x08, 0x1d. */
	fprintf(f, "backend: arm64-pmuv3\n"
		"core_type0: armv8_cortex_a57: cpus 0-1: pmc mask 0x7f: MIDR 0x411fd070, PMUVer 0x4, 6 event counters\n"
		"core_type0_events: 0x0000000840000101 0x0000000000000008\n"
		"core_type1: armv8_cortex_a53: cpus 2-3: pmc mask 0x1f: MIDR 0x410fd034, PMUVer 0x4, 4 event counters\n"
		"core_type1_events: 0x0000000020000100 0x0000000000000000\n");
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* kpmc -L [filter]'s output and return value. */
static int list(const char *filter, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	int r;

	assert_non_null(f);
	r = kpmc_pfm_list(f, filter, info, dir);
	fclose(f);
	return r;
}

static void test_list_unnamed(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(list(NULL, &out), 0);
	assert_string_equal(out,
		"pmuv3::inst_retired                     0x08 common event not in libpfm4's table: count it as pmcN=0x8\n"
		"pmuv3::bus_cycles                       0x1d common event not in libpfm4's table: count it as pmcN=0x1d [only on armv8_cortex_a53]\n"
		"pmuv3::stall_frontend                   0x23 common event not in libpfm4's table: count it as pmcN=0x23 [only on armv8_cortex_a57]\n"
		"pmuv3::0x4003                           0x4003 common event not in libpfm4's table: count it as pmcN=0x4003 [only on armv8_cortex_a57]\n");
	free(out);
}

static void test_list_filter(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(list("STALL", &out), 0);
	assert_string_equal(out,
		"pmuv3::stall_frontend                   0x23 common event not in libpfm4's table: count it as pmcN=0x23 [only on armv8_cortex_a57]\n");
	free(out);
	out = NULL;
	assert_int_equal(list("nothing-matches", &out), 1);
	assert_string_equal(out, "");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_unnamed),
		cmocka_unit_test(test_list_filter),
	};

	setenv("LIBPFM_FORCE_PMU", "perf", 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
