// SPDX-License-Identifier: GPL-2.0
/*
 * spawnmany THREADS ITERATIONS: create THREADS short-lived threads, four at
 * a time, each spinning ITERATIONS two-instruction iterations, then exit.
 * A stress test for following threads: creation, sampling and exit racing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static unsigned long iterations;

static void *worker(void *arg)
{
	unsigned long n = iterations;

	spin(n);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	long threads, i;
	int j;

	if (argc != 3) {
		fprintf(stderr, "usage: spawnmany THREADS ITERATIONS\n");
		return 2;
	}
	threads = atol(argv[1]);
	iterations = strtoul(argv[2], NULL, 0);
	if (threads < 0 || threads % 4 || !iterations) {
		fprintf(stderr, "spawnmany: THREADS a multiple of 4, ITERATIONS > 0\n");
		return 2;
	}
	for (i = 0; i < threads; i += 4) {
		for (j = 0; j < 4; j++)
			if (pthread_create(&th[j], NULL, worker, NULL)) {
				fprintf(stderr, "spawnmany: pthread_create failed\n");
				return 1;
			}
		for (j = 0; j < 4; j++)
			pthread_join(th[j], NULL);
	}
	printf("spawnmany: %ld threads done\n", threads);
	return 0;
}
