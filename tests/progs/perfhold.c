// SPDX-License-Identifier: GPL-2.0
/*
 * perfhold SECONDS: hold a CPU-wide hardware perf event on CPU 0 (with no
 * competition perf keeps it on a counter the whole time), then print
 * "perfhold count=C enabled=E running=R". Used to check that kpmc and perf
 * never share a counter: while kpmc holds the PMU, running stays 0.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	uint64_t v[3];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: perfhold SECONDS\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) {
		perror("perfhold: perf_event_open");
		return 1;
	}
	printf("perfhold: holding\n");
	fflush(stdout);
	sleep((unsigned int)atoi(argv[1]));
	if (read(fd, v, sizeof(v)) != sizeof(v)) {
		perror("perfhold: read");
		return 1;
	}
	printf("perfhold count=%llu enabled=%llu running=%llu\n",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2]);
	return 0;
}
