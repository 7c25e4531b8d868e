// SPDX-License-Identifier: GPL-2.0
/*
 * forkstorm THREADS PROCESSES ITERATIONS: create THREADS short-lived threads
 * and PROCESSES short-lived processes (fork, no exec), four at a time,
 * alternating, each spinning ITERATIONS two-instruction iterations before it
 * exits. The fork-storm test of following threads: every one of them must
 * end with an exit record, or be counted in a LOST record.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

static unsigned long iterations;

static void *worker(void *arg)
{
	spin(iterations);
	return arg;
}

static int four_threads(void)
{
	pthread_t th[4];
	int j;

	for (j = 0; j < 4; j++)
		if (pthread_create(&th[j], NULL, worker, NULL))
			return -1;
	for (j = 0; j < 4; j++)
		pthread_join(th[j], NULL);
	return 0;
}

static int four_processes(void)
{
	pid_t pid[4];
	int j, status, bad = 0;

	for (j = 0; j < 4; j++) {
		pid[j] = fork();
		if (pid[j] < 0)
			return -1;
		if (pid[j] == 0) {
			spin(iterations);
			_exit(0);
		}
	}
	for (j = 0; j < 4; j++)
		if (waitpid(pid[j], &status, 0) != pid[j] || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = -1;
	return bad;
}

int main(int argc, char **argv)
{
	long threads, procs, t = 0, p = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: forkstorm THREADS PROCESSES ITERATIONS\n");
		return 2;
	}
	threads = atol(argv[1]);
	procs = atol(argv[2]);
	iterations = strtoul(argv[3], NULL, 0);
	if (threads < 0 || threads % 4 || procs < 0 || procs % 4 || !iterations) {
		fprintf(stderr, "forkstorm: THREADS and PROCESSES multiples of 4, ITERATIONS > 0\n");
		return 2;
	}
	while (t < threads || p < procs) {
		if (t < threads) {
			if (four_threads()) {
				perror("forkstorm: pthread_create");
				return 1;
			}
			t += 4;
		}
		if (p < procs) {
			if (four_processes()) {
				perror("forkstorm: fork");
				return 1;
			}
			p += 4;
		}
	}
	/*
	 * The test reads this thread's record count from its exit record:
	 * let the reader empty the 2-record ring first, so that one is never
	 * the record dropped (it was, once, on the PREEMPT_RT debug kernel).
	 */
	usleep(500000);
	return 0;
}
