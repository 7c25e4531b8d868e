// SPDX-License-Identifier: GPL-2.0
/*
 * outlive N MS: leaves a child behind, as a daemon or a build tool's
 * background job does. The child spins N iterations of the two-instruction
 * loop, tells its parent, sleeps MS ms and exits; the parent exits as soon
 * as the child is asleep (its state in /proc is S: in nanosleep, since
 * writing to a pipe and closing it never sleep). So when a monitor's
 * program (the parent) ends, the child lives on asleep, its counts folded
 * and still: runs with N and 2N differ for it by exactly 2N user-mode
 * instructions. (Told of the write alone, the parent may end while the
 * child is still on its way to its sleep, as PREEMPT_RT's scheduling
 * sometimes has it: 65 instructions more in one run of two.) Prints
 * "outlive child=PID".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

/* The state letter of process pid (/proc/PID/stat, after the command's ')'), or 0. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int main(int argc, char **argv)
{
	const struct timespec ms1 = { 0, 1000000L };
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
	for (int i = 0; state_of(child) != 'S'; i++) {
		if (i == 10000) {
			fprintf(stderr, "outlive: the child did not go to sleep\n");
			return 1;
		}
		nanosleep(&ms1, NULL);
	}
	printf("outlive child=%d\n", (int)child);
	return 0;
}
