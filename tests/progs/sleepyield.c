// SPDX-License-Identifier: GPL-2.0
/*
 * sleepyield K M: sleep 2 ms K times, call sched_yield() M times, spin a
 * little, then print the scheduler's own account of this thread since main
 * began (/proc/thread-self/schedstat at the end less at the start: the time
 * before, the fork and the exec, is outside any monitor that starts at the
 * exec) and how many of the sleeps switched out (getrusage's voluntary
 * switches over the sleeps: a 2 ms sleep whose timer expires before the
 * thread gets to schedule() does not):
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

/* This thread's time on a CPU and waiting for one, in ns, as the scheduler counts them. */
static void schedstat(unsigned long long *run, unsigned long long *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", run, wait) != 2) {
		perror("sleepyield: schedstat");
		exit(1);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2000000 };
	unsigned long long run, wait;
	volatile unsigned long spin;
	long k, m, i, before, switched;
	unsigned long long run0, wait0;

	if (argc != 3) {
		fprintf(stderr, "usage: sleepyield K M\n");
		return 2;
	}
	k = atol(argv[1]);
	m = atol(argv[2]);
	schedstat(&run0, &wait0);
	before = voluntary_switches();
	for (i = 0; i < k; i++)
		nanosleep(&ts, NULL);
	switched = voluntary_switches() - before;
	for (i = 0; i < m; i++)
		sched_yield();
	for (spin = 0; spin < 2000000; spin++)
		;
	schedstat(&run, &wait);
	printf("sleepyield run_ns=%llu wait_ns=%llu sleeps_switched=%ld\n", run - run0,
	       wait - wait0, switched);
	return 0;
}
