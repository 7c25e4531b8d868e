// SPDX-License-Identifier: GPL-2.0
/*
 * regionmetric: kpmc_region_metric against the region's own totals. One
 * region "work" around 2e6 loop iterations (4e6 user instructions) and 100
 * system calls, counted by the cycle counter (pmc0), INST_RETIRED in user
 * mode (pmc1) and in both modes (pmc2). Prints the totals, the metrics and
 * the ratios of the totals as exact doubles (%.17g), and the errors of three
 * bad calls.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "kpmc.h"
#include "spin.h"

int main(void)
{
	char err[256];
	double ipc, cpk, share;
	int64_t cyc, ins, all;
	int rc = kpmc_start("pmc0,pmc1=0x8,pmc2=0x8,usr2=1,os2=1");

	if (rc) {
		fprintf(stderr, "regionmetric: kpmc_start: %d\n", rc);
		return 1;
	}
	if (kpmc_region_begin("work")) {
		fprintf(stderr, "regionmetric: the region failed\n");
		return 1;
	}
	spin(2000000);
	for (int i = 0; i < 100; i++)
		getppid();
	if (kpmc_region_end("work")) {
		fprintf(stderr, "regionmetric: the region failed\n");
		return 1;
	}
	cyc = kpmc_region_total("work", 0);
	ins = kpmc_region_total("work", 1);
	all = kpmc_region_total("work", 2);
	ipc = kpmc_region_metric("work", "pmc1 / pmc0", err, sizeof(err));
	printf("regionmetric totals pmc0=%lld pmc1=%lld pmc2=%lld\n", (long long)cyc, (long long)ins,
	       (long long)all);
	printf("regionmetric ipc=%.17g ratio=%.17g err='%s'\n", ipc, (double)ins / (double)cyc, err);
	share = kpmc_region_metric("work", "pmc1/pmc2", err, sizeof(err));
	printf("regionmetric share=%.17g ratio=%.17g\n", share, (double)ins / (double)all);
	cpk = kpmc_region_metric("work", "1000 * pmc0 / calls / pmc1", err, sizeof(err));
	printf("regionmetric cpk=%.17g ratio=%.17g\n", cpk, 1000.0 * (double)cyc / 1.0 / (double)ins);
	kpmc_region_metric("work", "pmc1 / (pmc0", err, sizeof(err));
	printf("regionmetric bad1: %s\n", err);
	kpmc_region_metric("work", "pmc1 / cycles", err, sizeof(err));
	printf("regionmetric bad2: %s\n", err);
	kpmc_region_metric("nosuch", "pmc1", err, sizeof(err));
	printf("regionmetric bad3: %s\n", err);
	kpmc_stop();
	return isnan(ipc) ? 1 : 0;
}
