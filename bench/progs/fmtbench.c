// SPDX-License-Identifier: GPL-2.0
/*
 * fmtbench N: the kpmc CLI's user-space cost per record, on the host: check,
 * format and write N records (4 counters, 1,000 threads) to /dev/null the way
 * `kpmc -o FILE` does, then aggregate them the way `kpmc -A` does. CPU time,
 * not wall time, so the figure does not depend on what else the host runs.
 *
 * Prints: KPMC-BENCH fmt n=N format_ns_per_record=X aggregate_ns_per_record=Y
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/record_format.h"
#include "common/aggregate.h"

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct kpmc_columns cols = { .counter_mask = 0x1e };
	struct kpmc_totals totals = { 0 };
	struct kpmc_record rec;
	char line[512], why[128];
	double t0, t1, t2;
	FILE *null;
	long n, i;

	n = argc == 2 ? atol(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: fmtbench N\n");
		return 2;
	}
	null = fopen("/dev/null", "w");
	if (!null) {
		perror("fmtbench: /dev/null");
		return 1;
	}
	memset(&rec, 0, sizeof(rec));
	rec.version = KPMC_RECORD_VERSION;
	rec.size = sizeof(rec);
	rec.kind = KPMC_REC_TBS;
	rec.counter_mask = cols.counter_mask;
	rec.pid = 1000;
	t0 = cpu_ns();
	for (i = 0; i < n; i++) {
		rec.tid = 1000 + (uint32_t)(i % 1000);
		rec.nsample = (uint64_t)i;
		rec.counts[1] = (uint64_t)i * 1000003u;
		rec.counts[2] = (uint64_t)i * 7919u;
		if (kpmc_record_check(&rec, why, sizeof(why))) {
			fprintf(stderr, "fmtbench: %s\n", why);
			return 1;
		}
		kpmc_format_row(&cols, &rec, line, sizeof(line));
		fprintf(null, "%s\n", line);
	}
	t1 = cpu_ns();
	for (i = 0; i < n; i++) {
		rec.tid = 1000 + (uint32_t)(i % 1000);
		if (kpmc_totals_add(&totals, &rec)) {
			fprintf(stderr, "fmtbench: out of memory\n");
			return 1;
		}
	}
	t2 = cpu_ns();
	printf("KPMC-BENCH fmt n=%ld format_ns_per_record=%.0f aggregate_ns_per_record=%.0f\n",
	       n, (t1 - t0) / n, (t2 - t1) / n);
	kpmc_totals_free(&totals);
	fclose(null);
	return 0;
}
