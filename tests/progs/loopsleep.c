// SPDX-License-Identifier: GPL-2.0
/*
 * loopsleep A N B: sleep A ms, run N iterations of the two-instruction loop,
 * sleep B ms, exit. While it sleeps its counts are folded and still, so a
 * query from outside sees an exact figure: runs with N and 2N differ by
 * exactly 2N user-mode instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 4) {
		fprintf(stderr, "usage: loopsleep A_MS N B_MS\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	sleep_ms(atol(argv[1]));
	if (n)
		spin(n);
	sleep_ms(atol(argv[3]));
	return 0;
}
