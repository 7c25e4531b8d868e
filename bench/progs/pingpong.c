// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong ROUNDS NPERF [IDLE]: two threads bounce one byte over two pipes
 * ROUNDS times (two context switches per round trip on one CPU). With
 * NPERF > 0 each thread first opens NPERF user-mode perf counters on itself
 * (raw event 0x08, INST_RETIRED), which is what per-thread monitoring with
 * perf costs. Run it under kpmc with NPERF=0 to measure kpmc's per-thread
 * counting. IDLE more threads, created first and asleep in read() until
 * the rounds are over, are as many more monitored threads alive under kpmc
 * (whatever looks a switching thread up among them shows in the figure).
 * With IDLE and NPERF > 0, perf follows every thread of the process as
 * perf stat does: the NPERF counters are opened with inherit before any
 * thread is created, so each idle thread and the peer have their own.
 *
 * Prints: KPMC-BENCH pingpong rounds=R nperf=N alive=A ns=T ns_per_round=X
 *         [perf_count=C: counter 0 of the main thread after the rounds]
 *         (A = 2 + IDLE, the threads of the process while it measures)
 */
#include <pthread.h>

#include "benchutil.h"

static int to_peer[2], to_main[2];
static long rounds;
static int nperf;
static int inherited;		/* the counters came from main, inherited */
static pthread_barrier_t ready;
static int idle_pipe[2];

/* Asleep until the rounds are over (the write end closed: EOF). */
static void *idle(void *arg)
{
	char b;

	(void)arg;
	if (read(idle_pipe[0], &b, 1) < 0)
		perror("pingpong: idle");
	return NULL;
}

/* n threads on small stacks (10,000 of them fit a guest of 2 GiB). */
static pthread_t *start_idle(long n)
{
	pthread_t *ids = calloc((size_t)n + 1, sizeof(*ids));
	pthread_attr_t attr;
	long i;

	if (!ids || pipe(idle_pipe) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 128 * 1024)) {
		perror("pingpong: idle threads");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&ids[i], &attr, idle, NULL)) {
			fprintf(stderr, "pingpong: idle thread %ld of %ld not created\n", i + 1, n);
			exit(1);
		}
	}
	pthread_attr_destroy(&attr);
	return ids;
}

static void stop_idle(pthread_t *ids, long n)
{
	long i;

	close(idle_pipe[1]);
	for (i = 0; i < n; i++)
		pthread_join(ids[i], NULL);
	free(ids);
}

static void *peer(void *arg)
{
	int fds[BENCH_MAX_PERF];
	char b;
	long i;

	(void)arg;
	if (!inherited)
		bench_perf_open(fds, nperf, 0x08, 0);
	pthread_barrier_wait(&ready);
	for (i = 0; i < rounds; i++) {
		if (read(to_peer[0], &b, 1) != 1 || write(to_main[1], &b, 1) != 1) {
			perror("pingpong: peer");
			exit(1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int fds[BENCH_MAX_PERF];
	pthread_t th, *idle_ids;
	uint64_t t0, t1, count = 0;
	char b = 'x';
	long i, nidle = 0;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: pingpong ROUNDS NPERF [IDLE]\n");
		return 2;
	}
	rounds = bench_arg(argv[1], "ROUNDS");
	nperf = (int)bench_arg(argv[2], "NPERF");
	if (argc == 4)
		nidle = bench_arg(argv[3], "IDLE");
	inherited = argc == 4 && nperf > 0;
	if (inherited)
		bench_perf_open(fds, nperf, 0x08, 1);
	idle_ids = start_idle(nidle);
	if (pipe(to_peer) || pipe(to_main)) {
		perror("pingpong: pipe");
		return 1;
	}
	if (!inherited)
		bench_perf_open(fds, nperf, 0x08, 0);
	pthread_barrier_init(&ready, NULL, 2);
	if (pthread_create(&th, NULL, peer, NULL)) {
		fprintf(stderr, "pingpong: pthread_create failed\n");
		return 1;
	}
	bench_warmup();
	pthread_barrier_wait(&ready);
	t0 = bench_now_ns();
	for (i = 0; i < rounds; i++) {
		if (write(to_peer[1], &b, 1) != 1 || read(to_main[0], &b, 1) != 1) {
			perror("pingpong: main");
			return 1;
		}
	}
	t1 = bench_now_ns();
	if (nperf)
		count = bench_perf_read(fds[0]);
	pthread_join(th, NULL);
	stop_idle(idle_ids, nidle);
	printf("KPMC-BENCH pingpong rounds=%ld nperf=%d alive=%ld ns=%llu ns_per_round=%llu",
	       rounds, nperf, nidle + 2, (unsigned long long)(t1 - t0),
	       (unsigned long long)((t1 - t0) / (uint64_t)(rounds ? rounds : 1)));
	if (nperf)
		printf(" perf_count=%llu", (unsigned long long)count);
	printf("\n");
	return 0;
}
