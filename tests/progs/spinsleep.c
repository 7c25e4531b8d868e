// SPDX-License-Identifier: GPL-2.0
/*
 * spinsleep R N MS: R rounds of N iterations of the two-instruction loop,
 * each followed by a sleep of MS ms: a workload whose CPU goes idle (and,
 * with an idle power-down state, through cpu_pm exit) between its time
 * slices. Its user-mode instruction count is 2*R*N plus a fixed overhead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long n;
	long r, ms, i;

	if (argc != 4) {
		fprintf(stderr, "usage: spinsleep R N MS\n");
		return 2;
	}
	r = atol(argv[1]);
	n = strtoul(argv[2], NULL, 0);
	ms = atol(argv[3]);
	for (i = 0; i < r; i++) {
		if (n)
			spin(n);
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		while (nanosleep(&ts, &ts))
			;
	}
	return 0;
}
