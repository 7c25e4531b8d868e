// SPDX-License-Identifier: GPL-2.0
/*
 * manyalive THREADS ITERATIONS [GOFILE]: THREADS threads alive at once, each spinning
 * ITERATIONS two-instruction iterations, then asleep until all have spun.
 * While all are alive (and monitored, under kpmc) it waits, 2 s at most,
 * for kpmc's thread table to have a bucket per known thread state (the
 * table grows from a work item), and prints what /proc/kpmc/info says then:
 *   manyalive threads=T known=K buckets=B
 * With GOFILE, they all stay alive after that line until GOFILE exists:
 * the test runs another session beside them meanwhile.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procinfo.h"
#include "spin.h"

static unsigned long iterations;
static int sleep_pipe[2];
static long spun;

static void *worker(void *arg)
{
	char b;

	spin(iterations);
	__atomic_add_fetch(&spun, 1, __ATOMIC_RELEASE);
	if (read(sleep_pipe[0], &b, 1) < 0)
		perror("manyalive: read");
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	long threads, i, known = -1, buckets = -1;
	pthread_attr_t attr;
	pthread_t *th;
	int w;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: manyalive THREADS ITERATIONS [GOFILE]\n");
		return 2;
	}
	threads = atol(argv[1]);
	iterations = strtoul(argv[2], NULL, 0);
	th = calloc(threads > 0 ? (size_t)threads : 1, sizeof(*th));
	if (threads <= 0 || !iterations || !th || pipe(sleep_pipe) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 128 * 1024)) {
		fprintf(stderr, "manyalive: THREADS > 0, ITERATIONS > 0 (or out of memory)\n");
		return 2;
	}
	for (i = 0; i < threads; i++) {
		int err = pthread_create(&th[i], &attr, worker, NULL);

		if (err) {
			fprintf(stderr, "manyalive: thread %ld of %ld not created: %s\n", i + 1, threads,
				strerror(err));
			return 1;
		}
	}
	while (__atomic_load_n(&spun, __ATOMIC_ACQUIRE) < threads)
		nanosleep(&tick, NULL);
	for (w = 0; w < 200; w++) {
		known = kpmc_info_field("threads_known");
		buckets = kpmc_info_field("thread_table_buckets");
		if (known >= 0 && buckets >= known)
			break;
		nanosleep(&tick, NULL);
	}
	printf("manyalive threads=%ld known=%ld buckets=%ld\n", threads, known, buckets);
	fflush(stdout);
	/* GOFILE: every thread stays alive until it exists (60 s at most). */
	for (w = 0; argc == 4 && access(argv[3], F_OK) && w < 6000; w++)
		nanosleep(&tick, NULL);
	close(sleep_pipe[1]);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
