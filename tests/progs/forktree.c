// SPDX-License-Identifier: GPL-2.0
/*
 * forktree SCALE: a process tree with known work per thread. The parent
 * starts 4 threads that spin SCALE * k million iterations (k = 1..4) and
 * forks 3 children that spin SCALE * (4 + j) million (j = 1..3), then waits
 * for all. Each iteration is two user instructions, so running SCALE 1 and
 * SCALE 2 differs, thread by thread, by exactly 2 * its iterations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

static void *thread_main(void *arg)
{
	spin((unsigned long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	pid_t child[3];
	unsigned long scale;
	int k, st, bad = 0;

	if (argc != 2 || !(scale = strtoul(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: forktree SCALE\n");
		return 2;
	}
	for (k = 0; k < 3; k++) {
		child[k] = fork();
		if (child[k] < 0) {
			perror("forktree: fork");
			return 1;
		}
		if (child[k] == 0) {
			spin(scale * (5 + k) * 1000000ul);
			_exit(0);
		}
	}
	for (k = 0; k < 4; k++)
		if (pthread_create(&th[k], NULL, thread_main,
				   (void *)(scale * (k + 1) * 1000000ul))) {
			fprintf(stderr, "forktree: pthread_create failed\n");
			return 1;
		}
	for (k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < 3; k++)
		if (waitpid(child[k], &st, 0) != child[k] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	return bad;
}
