// SPDX-License-Identifier: GPL-2.0
/*
 * perfcount [-C CPU] PROG [ARGS...]: run PROG under a perf counting event
 * (user-mode instructions, inherit: its threads and children too, enabled
 * at its exec), wait for it, print
 *
 *   perfcount count=C enabled=E running=R status=S
 *
 * -C CPU: pin PROG to CPU first (sched_setaffinity, inherited).
 * For the coexistence tests: with kpmc loaded, perf must still count
 * exactly, or say it did not count all the time (running < enabled).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int go[2], cpu = -1, fd, status, argi = 1;
	uint64_t v[3];
	pid_t pid;
	char c = 0;

	if (argc > 2 && !strcmp(argv[1], "-C")) {
		cpu = atoi(argv[2]);
		argi = 3;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: perfcount [-C CPU] PROG [ARGS...]\n");
		return 2;
	}
	if (pipe(go)) {
		perror("perfcount: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("perfcount: fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("perfcount: sched_setaffinity");
				_exit(126);
			}
		}
		/* Wait until the parent has attached the event. */
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[argi], argv + argi);
		perror("perfcount: exec");
		_exit(127);
	}
	close(go[0]);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0)
		perror("perfcount: perf_event_open");
	if (write(go[1], &c, 1) != 1) {
		perror("perfcount: write");
		return 1;
	}
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid) {
		perror("perfcount: waitpid");
		return 1;
	}
	if (fd < 0)
		return 1;
	if (read(fd, v, sizeof(v)) != sizeof(v)) {
		perror("perfcount: read");
		return 1;
	}
	printf("perfcount count=%llu enabled=%llu running=%llu status=%d\n",
	       (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
