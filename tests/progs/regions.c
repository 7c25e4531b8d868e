// SPDX-License-Identifier: GPL-2.0
/*
 * regions: libkpmc in two threads. Each thread measures region "short"
 * around 1e6 loop iterations and region "long" around 3e6 (two user
 * instructions each), so long - short is exactly 4e6 instructions per
 * thread (the library's own reads cost the same in both). Prints the
 * per-region totals (pmc1 = INST_RETIRED) over both threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "kpmc.h"
#include "spin.h"

/* Reads by path over both threads (KPMC_READ_PATH chooses). */
static uint64_t reads_fast, reads_slow;

static void *work(void *arg)
{
	uint64_t f, s;

	(void)arg;
	if (kpmc_region_begin("short") || (spin(1000000), kpmc_region_end("short")) ||
	    kpmc_region_begin("long") || (spin(3000000), kpmc_region_end("long"))) {
		fprintf(stderr, "regions: a region failed\n");
		exit(1);
	}
	kpmc_read_stats(&f, &s);
	__atomic_add_fetch(&reads_fast, f, __ATOMIC_RELAXED);
	__atomic_add_fetch(&reads_slow, s, __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	int err = kpmc_start("pmc1=0x8");

	if (err) {
		fprintf(stderr, "regions: kpmc_start: %d\n", err);
		return 1;
	}
	pthread_create(&a, NULL, work, NULL);
	pthread_create(&b, NULL, work, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	kpmc_region_report(stdout);
	printf("regions long-short=%lld\n",
	       (long long)(kpmc_region_total("long", 1) - kpmc_region_total("short", 1)));
	printf("regions path fast=%llu read=%llu\n", (unsigned long long)reads_fast,
	       (unsigned long long)reads_slow);
	return kpmc_stop() ? 1 : 0;
}
