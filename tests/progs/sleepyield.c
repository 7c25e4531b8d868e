// SPDX-License-Identifier: GPL-2.0
/*
 * sleepyield K M: sleep 2 ms K times, call sched_yield() M times, spin a
 * little, then print the scheduler's own account of this thread from
 * /proc/thread-self/schedstat and how many of the sleeps switched out
 * (getrusage's voluntary switches over the sleeps: a 2 ms sleep whose timer
 * expires before the thread gets to schedule() does not):
 * "sleepyield run_ns=R wait_ns=W sleeps_switched=N".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long voluntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		perror("sleepyield: getrusage");
		exit(1);
	}
	return ru.ru_nvcsw;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2000000 };
	unsigned long long run, wait;
	volatile unsigned long spin;
	long k, m, i, before, switched;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: sleepyield K M\n");
		return 2;
	}
	k = atol(argv[1]);
	m = atol(argv[2]);
	before = voluntary_switches();
	for (i = 0; i < k; i++)
		nanosleep(&ts, NULL);
	switched = voluntary_switches() - before;
	for (i = 0; i < m; i++)
		sched_yield();
	for (spin = 0; spin < 2000000; spin++)
		;
	f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2) {
		perror("sleepyield: schedstat");
		return 1;
	}
	printf("sleepyield run_ns=%llu wait_ns=%llu sleeps_switched=%ld\n", run, wait, switched);
	return 0;
}
