// SPDX-License-Identifier: GPL-2.0
/*
 * One program, its regions measured two ways, for the arm64 guest's check
 * of PAPI's high-level API on the kpmc component
 * (tests/guest/t_arm64_papi.sh):
 *   papi_regions hl     PAPI_hl_region_begin/end around each region; the
 *                       events are PAPI_EVENTS' (kpmc:::INST_RETIRED...),
 *                       the counts PAPI's JSON output at exit
 *   papi_regions kpmc   libkpmc's kpmc_region_begin/end around the same
 *                       regions (cycles on pmc0, INST_RETIRED on pmc1);
 *                       prints "REGION calls=N instr=I cycles=C"
 * Region "short" runs 3 times, N iterations each; "long" once, 4N; both
 * loops of exactly two user instructions an iteration (tests/progs/spin.h),
 * so each region's instructions are its iterations times 2 plus what the
 * API itself runs between its two reads, which the test bounds. Region
 * "sleep" (hl only) sleeps 5 times 2 ms and prints "sleep switched=K", the
 * voluntary switches the thread's getrusage() saw inside it: what
 * kpmc:::virt:vol_switches (kpmc's schedstats module) must count there.
 *   papi_regions hl|kpmc N
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <papi.h>
#include <kpmc.h>
#include "spin.h"

#define SHORT_CALLS	3

static int hl_region(const char *name, unsigned long iter)
{
	int rc = PAPI_hl_region_begin(name);

	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_regions: PAPI_hl_region_begin(%s): %s\n", name, PAPI_strerror(rc));
		return 1;
	}
	spin(iter);
	rc = PAPI_hl_region_end(name);
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_regions: PAPI_hl_region_end(%s): %s\n", name, PAPI_strerror(rc));
		return 1;
	}
	return 0;
}

static int kpmc_region(const char *name, unsigned long iter)
{
	int rc = kpmc_region_begin(name);

	if (rc) {
		fprintf(stderr, "papi_regions: kpmc_region_begin(%s): %s\n", name, strerror(-rc));
		return 1;
	}
	spin(iter);
	rc = kpmc_region_end(name);
	if (rc) {
		fprintf(stderr, "papi_regions: kpmc_region_end(%s): %s\n", name, strerror(-rc));
		return 1;
	}
	return 0;
}

/* Five sleeps of 2 ms in region "sleep": the voluntary switches, as getrusage() counts them. */
static int hl_sleeps(void)
{
	struct timespec ts = { 0, 2000000 };
	struct rusage before, after;
	int i, rc;

	rc = PAPI_hl_region_begin("sleep");
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_regions: PAPI_hl_region_begin(sleep): %s\n", PAPI_strerror(rc));
		return 1;
	}
	getrusage(RUSAGE_THREAD, &before);
	for (i = 0; i < 5; i++)
		nanosleep(&ts, NULL);
	getrusage(RUSAGE_THREAD, &after);
	rc = PAPI_hl_region_end("sleep");
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_regions: PAPI_hl_region_end(sleep): %s\n", PAPI_strerror(rc));
		return 1;
	}
	printf("sleep switched=%ld\n", after.ru_nvcsw - before.ru_nvcsw);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "short", "long" };
	struct kpmc_region_stats st;
	int (*region)(const char *, unsigned long);
	unsigned long n;
	char *end;
	int hl, i, rc, bad = 0;

	if (argc != 3 || (strcmp(argv[1], "hl") && strcmp(argv[1], "kpmc"))) {
		fprintf(stderr, "usage: papi_regions hl|kpmc N\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 0);
	if (!argv[2][0] || *end || !n) {
		fprintf(stderr, "papi_regions: bad count '%s'\n", argv[2]);
		return 2;
	}
	hl = !strcmp(argv[1], "hl");
	if (!hl) {
		rc = kpmc_start("pmc0,pmc1=0x8");
		if (rc) {
			fprintf(stderr, "papi_regions: kpmc_start: %s\n", kpmc_last_error());
			return 1;
		}
	}
	region = hl ? hl_region : kpmc_region;
	for (i = 0; i < SHORT_CALLS && !bad; i++)
		bad = region(names[0], n);
	if (!bad)
		bad = region(names[1], 4 * n);
	if (hl && !bad)
		bad = hl_sleeps();
	if (hl || bad)
		return bad;	/* PAPI writes its JSON at exit */
	for (i = 0; i < 2; i++) {
		rc = kpmc_region_get(names[i], &st);
		if (rc) {
			fprintf(stderr, "papi_regions: kpmc_region_get(%s): %s\n", names[i], strerror(-rc));
			return 1;
		}
		printf("%s calls=%llu instr=%lld cycles=%lld\n", names[i], (unsigned long long)st.calls,
		       (long long)kpmc_region_total(names[i], 1), (long long)kpmc_region_total(names[i], 0));
	}
	kpmc_stop();
	return 0;
}
