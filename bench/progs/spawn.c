// SPDX-License-Identifier: GPL-2.0
/*
 * spawn fork|thread N NPERF: N times fork()+waitpid() of a child that exits
 * at once, or pthread_create()+pthread_join() of a thread that returns at
 * once. With NPERF > 0 the caller first opens NPERF inherited user-mode perf
 * counters (raw 0x08), so every child carries them, as `perf stat` does.
 * Under kpmc (NPERF=0) every child is followed by kpmc's fork hook.
 *
 * Prints: KPMC-BENCH spawn_KIND n=N nperf=P ns=T ns_per_spawn=X
 */
#include <pthread.h>
#include <sys/wait.h>

#include "benchutil.h"

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int fds[BENCH_MAX_PERF];
	uint64_t t0, t1;
	int threads, nperf;
	long n, i;

	if (argc != 4 || (strcmp(argv[1], "fork") && strcmp(argv[1], "thread"))) {
		fprintf(stderr, "usage: spawn fork|thread N NPERF\n");
		return 2;
	}
	threads = !strcmp(argv[1], "thread");
	n = bench_arg(argv[2], "N");
	nperf = (int)bench_arg(argv[3], "NPERF");
	bench_perf_open(fds, nperf, 0x08, 1);
	bench_warmup();
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (threads) {
			pthread_t th;

			if (pthread_create(&th, NULL, nothing, NULL) || pthread_join(th, NULL)) {
				fprintf(stderr, "spawn: pthread_create/join failed\n");
				return 1;
			}
		} else {
			pid_t pid = fork();
			int st;

			if (pid < 0) {
				perror("spawn: fork");
				return 1;
			}
			if (pid == 0)
				_exit(0);
			if (waitpid(pid, &st, 0) != pid) {
				perror("spawn: waitpid");
				return 1;
			}
		}
	}
	t1 = bench_now_ns();
	printf("KPMC-BENCH spawn_%s n=%ld nperf=%d ns=%llu ns_per_spawn=%llu\n",
	       argv[1], n, nperf, (unsigned long long)(t1 - t0),
	       (unsigned long long)((t1 - t0) / (uint64_t)(n ? n : 1)));
	return 0;
}
