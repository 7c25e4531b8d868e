// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong ROUNDS NPERF: two threads bounce one byte over two pipes ROUNDS
 * times (two context switches per round trip on one CPU). With NPERF > 0
 * each thread first opens NPERF user-mode perf counters on itself (raw event
 * 0x08, INST_RETIRED), which is what per-thread monitoring with perf costs.
 * Run it under kpmc with NPERF=0 to measure kpmc's per-thread counting.
 *
 * Prints: KPMC-BENCH pingpong rounds=R nperf=N ns=T ns_per_round=X
 *         [perf_count=C: counter 0 of the main thread after the rounds]
 */
#include <pthread.h>

#include "benchutil.h"

static int to_peer[2], to_main[2];
static long rounds;
static int nperf;
static pthread_barrier_t ready;

static void *peer(void *arg)
{
	int fds[BENCH_MAX_PERF];
	char b;
	long i;

	(void)arg;
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
	pthread_t th;
	uint64_t t0, t1, count = 0;
	char b = 'x';
	long i;

	if (argc != 3) {
		fprintf(stderr, "usage: pingpong ROUNDS NPERF\n");
		return 2;
	}
	rounds = bench_arg(argv[1], "ROUNDS");
	nperf = (int)bench_arg(argv[2], "NPERF");
	if (pipe(to_peer) || pipe(to_main)) {
		perror("pingpong: pipe");
		return 1;
	}
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
	printf("KPMC-BENCH pingpong rounds=%ld nperf=%d ns=%llu ns_per_round=%llu",
	       rounds, nperf, (unsigned long long)(t1 - t0),
	       (unsigned long long)((t1 - t0) / (uint64_t)(rounds ? rounds : 1)));
	if (nperf)
		printf(" perf_count=%llu", (unsigned long long)count);
	printf("\n");
	return 0;
}
