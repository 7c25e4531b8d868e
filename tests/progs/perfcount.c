// SPDX-License-Identifier: GPL-2.0
/*
 * perfcount [-k] [-a | -G DIR] [-e TYPE:CONFIG] CMD [ARG...]: run CMD under a perf
 * counting event for retired instructions (PERF_COUNT_HW_INSTRUCTIONS, or
 * perf's event TYPE:CONFIG, e.g. 1:3 for software context switches), user
 * mode only unless -k, inherited by CMD's threads and children, enabled at
 * its exec), wait for it and print
 * "perfcount count=C enabled=E running=R status=S self=PID" (its own pid,
 * which is not counted: a monitor that follows it too can leave it out). -a: count CPU 0
 * CPU-wide instead (what perf stat -a needs), while CMD runs. -G DIR: count
 * the cgroup v2 directory DIR on every CPU (perf stat -G: an event per CPU
 * opened with PERF_FLAG_PID_CGROUP), the CPUs' counts added up.
 * The reference a kpmc count of the same workload is compared with.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
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
	int go[2], kernel = 0, cpu_wide = 0, fd, status, cgfd = -1, cgfds[64], ncpu = 0, i;
	unsigned long type = PERF_TYPE_HARDWARE;
	unsigned long long config = PERF_COUNT_HW_INSTRUCTIONS;
	char *end;
	uint64_t v[3];
	char c = 0;
	pid_t pid;

	for (;;) {
		if (argc > 1 && !strcmp(argv[1], "-k")) {
			kernel = 1;
			argv++;
			argc--;
		} else if (argc > 1 && !strcmp(argv[1], "-a")) {
			cpu_wide = 1;
			argv++;
			argc--;
		} else if (argc > 2 && !strcmp(argv[1], "-G")) {
			cgfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (cgfd < 0) {
				perror("perfcount: -G");
				return 1;
			}
			cpu_wide = 1;
			argv += 2;
			argc -= 2;
		} else if (argc > 2 && !strcmp(argv[1], "-e")) {
			type = strtoul(argv[2], &end, 0);
			if (*end != ':')
				argc = 0;
			else
				config = strtoull(end + 1, &end, 0);
			if (argc && *end)
				argc = 0;
			argv += 2;
			argc -= 2;
		} else {
			break;
		}
	}
	if (argc < 2) {
		fprintf(stderr, "usage: perfcount [-k] [-a | -G DIR] [-e TYPE:CONFIG] CMD [ARG...]\n");
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
		/* Wait until the parent has opened the event on this process. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[1], argv + 1);
		perror("perfcount: exec");
		_exit(127);
	}
	close(go[0]);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (unsigned int)type;
	attr.config = config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = !cpu_wide;
	attr.enable_on_exec = !cpu_wide;
	attr.inherit = !cpu_wide;
	attr.exclude_kernel = !kernel;
	attr.exclude_hv = 1;
	if (cgfd >= 0) {
		ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
		if (ncpu > 64)
			ncpu = 64;
		for (i = 0; i < ncpu; i++) {
			cgfds[i] = (int)syscall(SYS_perf_event_open, &attr, cgfd, i, -1,
						PERF_FLAG_PID_CGROUP);
			if (cgfds[i] < 0) {
				perror("perfcount: perf_event_open (cgroup)");
				kill(pid, 9);
				return 1;
			}
		}
		fd = cgfds[0];
	} else {
		fd = (int)syscall(SYS_perf_event_open, &attr, cpu_wide ? -1 : pid, cpu_wide ? 0 : -1,
				  -1, 0);
	}
	if (fd < 0) {
		perror("perfcount: perf_event_open");
		kill(pid, 9);
		return 1;
	}
	if (write(go[1], &c, 1) != 1) {
		perror("perfcount: write");
		return 1;
	}
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid) {
		perror("perfcount: waitpid");
		return 1;
	}
	if (read(fd, v, sizeof(v)) != sizeof(v)) {
		perror("perfcount: read");
		return 1;
	}
	for (i = 1; i < ncpu; i++) {
		uint64_t w[3];

		if (read(cgfds[i], w, sizeof(w)) != sizeof(w)) {
			perror("perfcount: read");
			return 1;
		}
		v[0] += w[0];
		v[1] += w[1];
		v[2] += w[2];
	}
	printf("perfcount count=%llu enabled=%llu running=%llu status=%d self=%d\n",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       (int)getpid());
	return 0;
}
