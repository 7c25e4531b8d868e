// SPDX-License-Identifier: GPL-2.0
/*
 * outlive N MS: leaves a child behind, as a daemon or a build tool's
 * background job does. The child spins N iterations of the two-instruction
 * loop, tells its parent, sleeps MS ms and exits; the parent exits as soon
 * as it is told. So when a monitor's program (the parent) ends, the child
 * lives on asleep, its counts folded and still: runs with N and 2N differ
 * for it by exactly 2N user-mode instructions. Prints "outlive child=PID".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv)
{
	struct timespec ts;
	unsigned long n;
	int fd[2];
	pid_t child;
	long ms;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: outlive N MS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	ms = atol(argv[2]);
	if (pipe(fd)) {
		perror("outlive: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("outlive: fork");
		return 1;
	}
	if (child == 0) {
		close(fd[0]);
		spin(n);
		if (write(fd[1], "x", 1) != 1)
			_exit(1);
		close(fd[1]);
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		while (nanosleep(&ts, &ts))
			;
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &c, 1) != 1) {
		fprintf(stderr, "outlive: the child did not say it was done\n");
		return 1;
	}
	printf("outlive child=%d\n", (int)child);
	return 0;
}
