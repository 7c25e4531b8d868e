// SPDX-License-Identifier: GPL-2.0
/*
 * cgcount CGDIR CONFIG PROG [ARG...]: count the cgroup CGDIR on every CPU
 * through libkpmc (kpmc_cgroup_start/stop) while PROG runs; prints
 * "cgcount pmcN=COUNT ... run_ns=NS" or the refusal with kpmc_last_error().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kpmc.h"

int main(int argc, char **argv)
{
	struct kpmc_counts c;
	int fd, err, st;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: cgcount CGDIR CONFIG PROG [ARG...]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	err = kpmc_cgroup_start(argv[2], fd);
	close(fd);
	if (err) {
		printf("cgcount refused %d (%s): %s\n", err, strerror(-err), kpmc_last_error());
		return 1;
	}
	/* A second session, of either kind, while this one counts. */
	printf("cgcount second start %d\n", kpmc_start("pmc1=0x8"));
	pid = fork();
	if (pid == 0) {
		execv(argv[3], argv + 3);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	err = kpmc_cgroup_stop(&c);
	printf("cgcount stop %d", err);
	for (unsigned int i = 0; i < KPMC_LIB_COUNTERS; i++)
		if (c.counter_mask & (1u << i))
			printf(" pmc%u=%llu", i, (unsigned long long)c.counts[i]);
	printf(" run_ns=%llu\n", (unsigned long long)c.run_ns);
	printf("cgcount stop again %d\n", kpmc_cgroup_stop(NULL));
	return err ? 1 : 0;
}
