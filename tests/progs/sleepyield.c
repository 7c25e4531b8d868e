// SPDX-License-Identifier: GPL-2.0
/*
 * sleepyield K M: sleep 2 ms K times, call sched_yield() M times, spin a
 * little, then print the scheduler's own account of this thread from
 * /proc/thread-self/schedstat since main() began: "sleepyield run_ns=R
 * wait_ns=W". Since main: a monitor that starts at exec does not see the
 * time the child spent before it, in its parent's image (tearing down a
 * dynamically linked parent's mappings costs milliseconds on a debug kernel).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* This thread's run and wait time so far, ns; 0 if unreadable. */
static int schedstat(unsigned long long *run, unsigned long long *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int ok = f && fscanf(f, "%llu %llu", run, wait) == 2;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2000000 };
	unsigned long long run0, wait0, run, wait;
	volatile unsigned long spin;
	long k, m, i;

	if (schedstat(&run0, &wait0)) {
		perror("sleepyield: schedstat");
		return 1;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: sleepyield K M\n");
		return 2;
	}
	k = atol(argv[1]);
	m = atol(argv[2]);
	for (i = 0; i < k; i++)
		nanosleep(&ts, NULL);
	for (i = 0; i < m; i++)
		sched_yield();
	for (spin = 0; spin < 2000000; spin++)
		;
	if (schedstat(&run, &wait)) {
		perror("sleepyield: schedstat");
		return 1;
	}
	printf("sleepyield run_ns=%llu wait_ns=%llu\n", run - run0, wait - wait0);
	return 0;
}
